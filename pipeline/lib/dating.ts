/**
 * The one dating rule of every generated document (no generator reads the wall clock):
 *
 *     timestamp = max(facts.asOf, generatedAt of the newest pulse record)
 *     cycle     = the cycle of that instant (core/cycle.ts, one cycle per UTC day)
 *
 * i.e. a document is as recent as the newest input it was made from. The manifest's `created` uses
 * the same rule. With an empty ledger and no pulse there is nothing to date: an error.
 */
import { cycleLabel } from "../../core/cycle.ts";
import type { PulseRecord } from "../../core/pulse/history.ts";
import type { LedgerFacts } from "../facts/types.ts";
import { DAY_MS } from "../../core/time.ts";

export interface DocumentInstant {
  /** ISO 8601 UTC with milliseconds. */
  timestamp: string;
  /** `C-<n>` of the timestamp. */
  cycle: string;
  /** The same instant in milliseconds since the epoch. */
  ms: number;
}

/** The newest pulse record by generatedAt, or null. */
export function latestPulse(pulse: readonly PulseRecord[]): PulseRecord | null {
  let latest: PulseRecord | null = null;
  for (const record of pulse)
    if (!latest || Date.parse(record.generatedAt) > Date.parse(latest.generatedAt)) latest = record;
  return latest;
}

export function documentInstant(facts: Pick<LedgerFacts, "asOf">, pulse: readonly PulseRecord[]): DocumentInstant {
  const candidates = [facts.asOf, latestPulse(pulse)?.generatedAt].filter((t): t is string => typeof t === "string");
  if (candidates.length === 0) {
    throw new Error("cannot date the document: the ledger is empty and no pulse has been recorded");
  }
  const ms = Math.max(...candidates.map((t) => Date.parse(t)));
  if (!Number.isFinite(ms)) throw new Error(`cannot date the document: bad timestamp among ${candidates.join(", ")}`);
  const at = new Date(ms);
  return { timestamp: at.toISOString(), cycle: cycleLabel(at), ms };
}

/** The spec's MII timeline window. */
export const WINDOW_DAYS = 30;

/**
 * Pulse records generated within the `days` days up to `endMs`, both ends included
 * (`endMs - days·24h <= generatedAt <= endMs`), oldest first.
 */
export function pulseWindow(pulse: readonly PulseRecord[], endMs: number, days: number = WINDOW_DAYS): PulseRecord[] {
  const startMs = endMs - days * DAY_MS;
  return pulse
    .filter((r) => {
      const t = Date.parse(r.generatedAt);
      return t >= startMs && t <= endMs;
    })
    .sort((a, b) => Date.parse(a.generatedAt) - Date.parse(b.generatedAt));
}
