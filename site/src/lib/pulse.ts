/**
 * The pulse history as the portal publishes it, read once per build from
 * `<DATA_DIR>/pulse/history.jsonl` under the same rule the API serves it by (core/pulse/published.ts):
 * only the lines the signed `pulse/checkpoint` covers are published, never a line after it.
 *
 * A history nothing of which can be vouched for (a bad line, a missing or untrusted checkpoint, a
 * history shorter than its checkpoint) fails the build with an error naming the problem. A missing
 * file is an empty history.
 */
import dataDir from "virtual:integrity/data-dir";
import { dateTime, plural } from "../../../core/format/text.ts";
import type { PulseRecord } from "../../../core/pulse/history.ts";
import { pulseStaticFiles, readPulseHistory, type PulseHistory } from "./pulse-history.ts";

export type { PulseRecord };

/** The data directory of this build (astro.config.mjs resolves DATA_DIR). */
export const DATA_DIR: string = dataDir;

let cached: PulseHistory | undefined;

/** The verified history of this build's data directory, read on first use. */
export function pulseHistory(): PulseHistory {
  cached ??= readPulseHistory(DATA_DIR);
  return cached;
}

let published: Map<string, Uint8Array> | undefined;

/** Whether the build publishes the static file `/v1/<path>` (what the signed history gives, pulse-history.ts). */
export function hasV1File(path: string): boolean {
  published ??= pulseStaticFiles(DATA_DIR, pulseHistory().records);
  return published.has(`v1/${path}`);
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
