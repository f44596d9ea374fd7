/**
 * The static copies of the pulse endpoints for the CDN, under data/v1/pulse/: the badge JSON
 * (shields.io endpoint) and SVG for the combined badge and each metric, the whole history newest
 * first, and the latest record. Pure: records in, `{path under data/: bytes}` out, every JSON body
 * checked against its zod schema first. JSON is `JSON.stringify(x, null, 2) + "\n"`.
 */
import type { z } from "zod";
import { badgeFor, badgeSvg, type BadgeMetric } from "../../core/pulse/badge.ts";
import { historyLine, newestFirst, type PulseRecord } from "../../core/pulse/history.ts";
import { PulseBadge, PulseHistoryResponse, PulseRecord as PulseRecordSchema } from "../../core/schemas/pulse.ts";
import { formatIssues } from "../../core/zod-issues.ts";

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
  files.set(`${STATIC_DIR}/history.json`, json(PulseHistoryResponse, { count: ordered.length, items: ordered }, `${STATIC_DIR}/history.json`));
  if (latest) files.set(`${STATIC_DIR}/latest.json`, json(PulseRecordSchema, latest, `${STATIC_DIR}/latest.json`));
  return new Map([...files].sort(([a], [b]) => (a < b ? -1 : 1)));
}
