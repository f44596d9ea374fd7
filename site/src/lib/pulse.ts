/**
 * The pulse history as the portal publishes it, read once per build from
 * `<DATA_DIR>/pulse/history.jsonl` and verified line by line with core/pulse/history.ts.
 *
 * An unverifiable history fails the build with an error naming the line: the portal never
 * publishes a history it cannot vouch for. A missing file is an empty history.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import dataDir from "virtual:integrity/data-dir";
import { dateTime, plural } from "../../../core/format/text.ts";
import { historyLines, newestFirst, verifyHistory, type PulseRecord } from "../../../core/pulse/history.ts";

export type { PulseRecord };

export interface PulseHistory {
  /** Absolute path of history.jsonl (whether or not it exists). */
  path: string;
  /** Oldest first, as in the file. */
  records: PulseRecord[];
  /** Newest first (by generatedAt), as the timeline lists them. */
  newest: PulseRecord[];
  latest: PulseRecord | null;
}

export class HistoryVerificationError extends Error {
  override name = "HistoryVerificationError";
}

/** Reads and verifies the history under `dataDir`; throws HistoryVerificationError naming the line. */
export function readPulseHistory(dataDir: string): PulseHistory {
  const path = join(dataDir, "pulse", "history.jsonl");
  const text = existsSync(path) ? readFileSync(path, "utf8") : "";
  const report = verifyHistory(historyLines(text));
  if (report.problems.length > 0) {
    const shown = report.problems.slice(0, 10).map((p) => `  ${path} line ${p.line}: ${p.problem}`);
    const more = report.problems.length > 10 ? [`  … and ${report.problems.length - 10} more`] : [];
    throw new HistoryVerificationError(
      [`the pulse history does not verify; refusing to publish it (first problem: line ${report.problems[0]!.line})`, ...shown, ...more].join("\n"),
    );
  }
  const newest = newestFirst(report.records);
  return { path, records: report.records, newest, latest: newest[0] ?? null };
}

/** The data directory of this build (astro.config.mjs resolves DATA_DIR). */
export const DATA_DIR: string = dataDir;

let cached: PulseHistory | undefined;

/** The verified history of this build's data directory, read on first use. */
export function pulseHistory(): PulseHistory {
  cached ??= readPulseHistory(DATA_DIR);
  return cached;
}

/** Whether the pipeline's static copy `<DATA_DIR>/v1/<path>` exists (and so is published). */
export function hasV1File(path: string): boolean {
  return existsSync(join(DATA_DIR, "v1", path));
}

/** "1 Dec 2025, 14:03 UTC": an instant as every page writes it (core/format). */
export function displayUtc(iso: string): string {
  return dateTime(iso);
}

/** The 12 hex characters after `sha256:`. */
export function hashPrefix(hash: string): string {
  return hash.slice("sha256:".length, "sha256:".length + 12);
}

/** "3 apps · 2 sub-packages · 1 workflow" (the pulse counts every package.json but the root one). */
export function scopeOf(record: PulseRecord): string {
  const { appsCount, packagesCount, workflowsCount } = record.stats;
  return `${plural(appsCount, "app")} · ${plural(packagesCount, "sub-package")} · ${plural(workflowsCount, "workflow")}`;
}

/** How a record was made: measured live, measured later at its commit (backfill), or simulated. */
export function originOf(record: PulseRecord): "live" | "backfill" | "sample" {
  return record.origin?.kind ?? "live";
}

/** Rows per timeline page. */
export const TIMELINE_PAGE_SIZE = 50;
