/**
 * The sample's compliance audits: each jurisdiction is audited about twice a year, and every audit
 * records when the next one is due (`compliance.audited`). The seeded simulation chooses the dates
 * from its own PRNG stream (`<seed>:audits`), so the rest of the simulation keeps its draws: a first
 * audit in the first months, then every 170–190 days; most audits happen on or a few days before
 * their due date, but now and then one slips 15–40 days past it — when the simulated present falls
 * in such a slip, the audit is overdue, as a real one can be.
 *
 * Pure and deterministic: seed, start and `now` in, the audits up to `now` out (ledger order).
 */
import { Prng } from "./prng.ts";
import { DAY_MS } from "../../core/time.ts";

export const JURISDICTIONS = ["USA", "EU", "UK", "International"] as const;
export const AUDITORS: Readonly<Record<(typeof JURISDICTIONS)[number], string>> = {
  USA: "Sample audit office (USA)",
  EU: "Sample audit office (EU)",
  UK: "Sample audit office (UK)",
  International: "Sample audit office (International)",
};

/** Audits are recorded at 10:00 UTC of their day. */
const AUDIT_HOUR_MS = 10 * 3_600_000;
const SLIP_CHANCE = 0.12;

export interface PlannedAudit {
  /** The instant of the ledger event. */
  ms: number;
  jurisdiction: (typeof JURISDICTIONS)[number];
  auditor: string;
  audited_on: string;
  next_audit: string;
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Every audit from `startMs` up to `nowMs`, oldest first. */
export function planAudits(seed: string, startMs: number, nowMs: number): PlannedAudit[] {
  const rng = new Prng(`${seed}:audits`);
  const firstDay = Math.floor(startMs / DAY_MS) * DAY_MS;
  const audits: PlannedAudit[] = [];
  for (const jurisdiction of JURISDICTIONS) {
    let day = firstDay + rng.between(20, 90) * DAY_MS;
    for (;;) {
      const due = day + rng.between(170, 190) * DAY_MS;
      const ms = day + AUDIT_HOUR_MS;
      if (ms > nowMs) break;
      audits.push({
        ms,
        jurisdiction,
        auditor: AUDITORS[jurisdiction],
        audited_on: dayOf(day),
        next_audit: dayOf(due),
      });
      // The next audit: a few days early, or now and then late.
      day = due + (rng.chance(SLIP_CHANCE) ? rng.between(15, 40) : -rng.between(0, 6)) * DAY_MS;
    }
  }
  return audits.sort(
    (a, b) => a.ms - b.ms || JURISDICTIONS.indexOf(a.jurisdiction) - JURISDICTIONS.indexOf(b.jurisdiction),
  );
}
