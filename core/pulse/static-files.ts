/**
 * The static copies of the pulse endpoints for the CDN, under data/v1/pulse/: the badge JSON
 * (shields.io endpoint) and SVG for the combined badge and each metric, the whole history newest
 * first, and the latest record. Pure: records in, `{path under data/: bytes}` out, every JSON body
 * checked against its zod schema first. JSON is `JSON.stringify(x, null, 2) + "\n"`.
 *
 * `staticFileProblems` is the one comparison of the copies on disk with what the verified history
 * gives: `npm run pulse -- --verify`, `npm run pipeline -- --check` and the site build (which
 * publishes `staticFiles` of the signed records, never the copies in data/v1) all apply it.
 */
import type { z } from "zod";
import { badgeFor, badgeSvg, type BadgeMetric } from "./badge.ts";
import { historyLine, newestFirst, type PulseRecord } from "./history.ts";
import { PulseBadge, PulseHistoryResponse, PulseRecord as PulseRecordSchema } from "../schemas/pulse.ts";
import { formatIssues } from "../zod-issues.ts";
import { equalBytes } from "../merkle.ts";

export const STATIC_DIR = "v1/pulse";

const encoder = new TextEncoder();

function json<T>(schema: z.ZodType<T>, value: T, path: string): Uint8Array {
  const checked = schema.safeParse(value);
  if (!checked.success) {
    throw new Error(`${path}: not a valid document: ${formatIssues(checked.error.issues, "(document)")}`);
  }
  return encoder.encode(`${JSON.stringify(value, null, 2)}\n`);
}

const BADGE_PATHS: Record<BadgeMetric, string> = { combined: "badge", gi: "badge/gi", mii: "badge/mii" };

/** Every static file for the history `records` (oldest first, as in the file), sorted by path. */
export function staticFiles(records: readonly PulseRecord[]): Map<string, Uint8Array> {
  // One key order whatever the records' origin (a fresh record, or one parsed from the file): the
  // schema's for fields, sorted (JCS) for the `scoring.inputs` map.
  const ordered = newestFirst(records.map((r) => PulseRecordSchema.parse(JSON.parse(historyLine(r)))));
  const latest = ordered[0] ?? null;
  const files = new Map<string, Uint8Array>();
  for (const metric of ["combined", "gi", "mii"] as const) {
    const badge = badgeFor(latest, metric);
    const base = `${STATIC_DIR}/${BADGE_PATHS[metric]}`;
    files.set(`${base}.json`, json(PulseBadge, badge, `${base}.json`));
    files.set(`${base}.svg`, encoder.encode(badgeSvg(badge)));
  }
  files.set(
    `${STATIC_DIR}/history.json`,
    json(PulseHistoryResponse, { count: ordered.length, items: ordered }, `${STATIC_DIR}/history.json`),
  );
  if (latest) files.set(`${STATIC_DIR}/latest.json`, json(PulseRecordSchema, latest, `${STATIC_DIR}/latest.json`));
  return new Map([...files].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The static files the history `records` gives: none before the first record (the indexer writes them with it). */
export function expectedStaticFiles(records: readonly PulseRecord[]): Map<string, Uint8Array> {
  return records.length === 0 ? new Map() : staticFiles(records);
}

/**
 * Each static copy in `present` (every file under data/v1/, keyed by its path under data/) that is
 * not what the verified history `records` gives, and each one missing, one message per file naming
 * it, sorted by path; empty when the copies are exactly `expectedStaticFiles(records)`.
 */
export function staticFileProblems(
  records: readonly PulseRecord[],
  present: ReadonlyMap<string, Uint8Array>,
): string[] {
  const expected = expectedStaticFiles(records);
  const problems: [string, string][] = [];
  for (const [path, bytes] of expected) {
    const found = present.get(path);
    if (found === undefined) problems.push([path, `${path}: missing (regenerate with npm run pulse)`]);
    else if (!equalBytes(found, bytes))
      problems.push([path, `${path}: differs from what the history gives (regenerate with npm run pulse)`]);
  }
  for (const path of present.keys()) {
    if (!expected.has(path))
      problems.push([path, `${path}: not a file the history gives (remove it, or regenerate with npm run pulse)`]);
  }
  return problems.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, message]) => message);
}
