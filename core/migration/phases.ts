/**
 * The v1 → v2 unit migration by the clock (spec "Unit migration", "Versioning"): which phase an
 * instant is in, which balance interface answers then, and the freeze window in which the ledger
 * takes no monetary event. Pure: the caller passes the instant.
 *
 *   announcement   … until 2025-12-01T00:00:00Z       v1 answers; v2 does not exist yet
 *   snapshot       2025-12-01T00:00:00Z + 24 h        v1 frozen at the snapshot; the review runs
 *   transition     2025-12-02T00:00:00Z … 2026-02-28  v2 answers; v1 is forwarded to v2, deprecated
 *   sunset         from 2026-03-01T00:00:00Z          v1 gone (410); the v1 snapshot stays readable
 *
 *   freeze         [2025-11-30T23:59:59Z, 2025-12-02T00:00:01Z): pending transactions wait; they
 *                  resume at 00:00:01 on 2025-12-02, in v2 format
 *
 * Every boundary belongs to the later period: 2025-12-01T00:00:00.000Z is the snapshot's first
 * instant, 2025-12-02T00:00:01.000Z the first at which the ledger takes money again.
 */
import { isMonetaryEvent } from "../balance/ledger-balances.ts";

export type MigrationPhase = "announcement" | "snapshot" | "transition" | "sunset";
export const MIGRATION_PHASES: readonly MigrationPhase[] = ["announcement", "snapshot", "transition", "sunset"];

export const SNAPSHOT_AT = "2025-12-01T00:00:00.000Z";
/** End of the 24-hour review, and the start of the transition. */
export const REVIEW_ENDS = "2025-12-02T00:00:00.000Z";
export const SUNSET_AT = "2026-03-01T00:00:00.000Z";
export const FREEZE_STARTS = "2025-11-30T23:59:59.000Z";
export const FREEZE_ENDS = "2025-12-02T00:00:01.000Z";

const MS = {
  snapshot: Date.parse(SNAPSHOT_AT),
  transition: Date.parse(REVIEW_ENDS),
  sunset: Date.parse(SUNSET_AT),
  freezeStarts: Date.parse(FREEZE_STARTS),
  freezeEnds: Date.parse(FREEZE_ENDS),
};

function msOf(at: Date | string | number): number {
  const ms = typeof at === "number" ? at : typeof at === "string" ? Date.parse(at) : at.getTime();
  if (!Number.isFinite(ms)) throw new RangeError(`not an instant: ${String(at)}`);
  return ms;
}

export function migrationPhase(at: Date | string | number): MigrationPhase {
  const ms = msOf(at);
  if (ms < MS.snapshot) return "announcement";
  if (ms < MS.transition) return "snapshot";
  if (ms < MS.sunset) return "transition";
  return "sunset";
}

/** The phases with their periods, for a timeline: `from` inclusive, `until` exclusive (null: open). */
export function migrationTimeline(): { phase: MigrationPhase; from: string | null; until: string | null }[] {
  return [
    { phase: "announcement", from: null, until: SNAPSHOT_AT },
    { phase: "snapshot", from: SNAPSHOT_AT, until: REVIEW_ENDS },
    { phase: "transition", from: REVIEW_ENDS, until: SUNSET_AT },
    { phase: "sunset", from: SUNSET_AT, until: null },
  ];
}

/**
 * What the balance interface does in a phase. `v1`: "live" answers the v1 system's balance,
 * "frozen" the snapshot's, "forwarded" the v2 balance as `balance_gic` with Deprecation and Sunset
 * fields, "gone" 410 with a link to v2 (the historical v1 balance stays in the published snapshot).
 * `current`: the version `GET /balance/{address}` answers.
 */
export interface BalanceInterface {
  v1: "live" | "frozen" | "forwarded" | "gone";
  v2: "absent" | "live";
  current: "v1" | "v2";
}

export function balanceInterface(phase: MigrationPhase): BalanceInterface {
  switch (phase) {
    case "announcement":
      return { v1: "live", v2: "absent", current: "v1" };
    case "snapshot":
      return { v1: "frozen", v2: "absent", current: "v1" };
    case "transition":
      return { v1: "forwarded", v2: "live", current: "v2" };
    case "sunset":
      return { v1: "gone", v2: "live", current: "v2" };
  }
}

/** RFC 9745 `Deprecation` field of v1 responses: deprecated from the start of the transition. */
export const V1_DEPRECATION_FIELD = `@${MS.transition / 1000}`;
/** RFC 8594 `Sunset` field of v1 responses (an HTTP-date). */
export const V1_SUNSET_FIELD = new Date(MS.sunset).toUTCString();

/** The last timestamp text asked about: a ledger batch asks once per entry, mostly with one `ts`. */
let lastText: { at: string; inside: boolean } | null = null;

/** Whether an instant lies inside the freeze window. */
export function inFreezeWindow(at: Date | string | number): boolean {
  if (typeof at === "string" && lastText?.at === at) return lastText.inside;
  const ms = msOf(at);
  const inside = ms >= MS.freezeStarts && ms < MS.freezeEnds;
  if (typeof at === "string") lastText = { at, inside };
  return inside;
}

export interface FreezeRefusal {
  code: "migration-freeze";
  message: string;
}

/** Why the ledger refuses an event of `type` dated `ts`, or null when the freeze does not apply. */
export function freezeRefusal(type: string, ts: string): FreezeRefusal | null {
  if (!isMonetaryEvent(type) || !inFreezeWindow(ts)) return null;
  return {
    code: "migration-freeze",
    message:
      `${type} dated ${ts} falls inside the migration freeze window [${FREEZE_STARTS}, ${FREEZE_ENDS}): ` +
      `pending transactions are frozen for the v1 → v2 snapshot and resume at ${FREEZE_ENDS}`,
  };
}
