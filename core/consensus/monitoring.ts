/**
 * The spec's monitoring targets for consensus sessions, measured per ISO week (Monday 00:00 UTC to
 * the next Monday) from the ledger's sessions:
 *
 * - sessions: sessions opened in the week; target 3 to 5.
 * - average duration: minutes from `consensus.opened` to `consensus.evaluated`, averaged over the
 *   week's sessions that closed; target at most 45 minutes.
 * - agreement rate: the mean agreement score (approving votes / participants) of the week's closed
 *   sessions; target at least 85 %.
 * - GI drift per session: the largest |gi_delta| among the week's closed sessions (every session
 *   must stay within the bound, so the worst one is the measure); target at most 0.01.
 * - quorum failures: share of the week's closed sessions that ended NO_QUORUM; target below 5 %.
 *
 * A session belongs to the week it opened in. A measure with no closed session is null, and so is
 * whether it met its target. The week the data ends in is marked incomplete, and its session count
 * is not judged yet. Published values are rounded (minutes to 1 decimal, rates and drift to 4) and
 * `met` is judged on the published value, so a reader can check it.
 */
import type { ConsensusMonitoring } from "../schemas/consensus.ts";
import type { SessionSummary } from "./views.ts";
import { DAY_MS } from "../time.ts";

export const MONITORING_TARGETS = {
  sessions: { min: 3, max: 5 },
  average_duration_minutes: { max: 45 },
  agreement_rate: { min: 0.85 },
  gi_drift_per_session: { max: 0.01 },
  quorum_failure_rate: { below: 0.05 },
} as const;

type Week = ConsensusMonitoring["weeks"][number];

const WEEK_MS = 7 * DAY_MS;

const round = (x: number, digits: number): number => {
  const f = 10 ** digits;
  return Math.round(x * f) / f + 0;
};

/** Monday 00:00 UTC of the week holding `ms`. */
export function weekStart(ms: number): number {
  const day = Math.floor(ms / DAY_MS);
  // 1970-01-01 was a Thursday: day 0 has weekday index 3 counting from Monday.
  return (day - ((day + 3) % 7)) * DAY_MS;
}

/** ISO 8601 week label of the week starting at `mondayMs`: the year of its Thursday. */
export function isoWeekLabel(mondayMs: number): string {
  const thursday = new Date(mondayMs + 3 * DAY_MS);
  const year = thursday.getUTCFullYear();
  const week = 1 + Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / WEEK_MS);
  return `${year}-W${String(week).padStart(2, "0")}`;
}

const date = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** Every week from the first session's to the one holding `asOf`, oldest first. */
export function weeklyMonitoring(sessions: readonly SessionSummary[], asOf: string): Week[] {
  if (sessions.length === 0) return [];
  const asOfMs = Date.parse(asOf);
  const byWeek = new Map<number, SessionSummary[]>();
  for (const s of sessions) {
    const w = weekStart(Date.parse(s.opened_at));
    let list = byWeek.get(w);
    if (!list) byWeek.set(w, (list = []));
    list.push(s);
  }
  const first = Math.min(...byWeek.keys());
  const last = Math.max(weekStart(asOfMs), ...byWeek.keys());
  const weeks: Week[] = [];
  for (let w = first; w <= last; w += WEEK_MS) weeks.push(measureWeek(w, byWeek.get(w) ?? [], w + WEEK_MS <= asOfMs));
  return weeks;
}

function measureWeek(monday: number, list: readonly SessionSummary[], complete: boolean): Week {
  const T = MONITORING_TARGETS;
  const closed = list.filter((s) => s.closed_at !== null);
  const n = closed.length;
  const duration =
    n === 0
      ? null
      : round(closed.reduce((sum, s) => sum + (Date.parse(s.closed_at!) - Date.parse(s.opened_at)), 0) / n / 60_000, 1);
  const agreement = n === 0 ? null : round(closed.reduce((sum, s) => sum + s.agreement!, 0) / n, 4);
  const drift = n === 0 ? null : round(Math.max(...closed.map((s) => Math.abs(s.gi_delta!))), 4);
  const failures = n === 0 ? null : round(closed.filter((s) => s.outcome === "NO_QUORUM").length / n, 4);
  const judge = (value: number | null, ok: (v: number) => boolean): boolean | null =>
    value === null ? null : ok(value);
  return {
    week: isoWeekLabel(monday),
    starts: date(monday),
    ends: date(monday + 6 * DAY_MS),
    complete,
    sessions_closed: n,
    sessions_open: list.length - n,
    sessions: {
      measured: list.length,
      target_min: T.sessions.min,
      target_max: T.sessions.max,
      met: complete ? list.length >= T.sessions.min && list.length <= T.sessions.max : null,
    },
    average_duration_minutes: {
      measured: duration,
      target_max: T.average_duration_minutes.max,
      met: judge(duration, (v) => v <= T.average_duration_minutes.max),
    },
    agreement_rate: {
      measured: agreement,
      target_min: T.agreement_rate.min,
      met: judge(agreement, (v) => v >= T.agreement_rate.min),
    },
    gi_drift_per_session: {
      measured: drift,
      target_max: T.gi_drift_per_session.max,
      met: judge(drift, (v) => v <= T.gi_drift_per_session.max),
    },
    quorum_failure_rate: {
      measured: failures,
      target_below: T.quorum_failure_rate.below,
      met: judge(failures, (v) => v < T.quorum_failure_rate.below),
    },
  };
}
