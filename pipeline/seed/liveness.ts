/**
 * A sample that is alive at its present: in the last `LIVE_WINDOW_DAYS` before `now`, every active
 * sentinel sends a heartbeat every `LIVE_INTERVAL_HOURS` (with a few minutes of jitter) up to
 * `now`, whatever the scaled heartbeat rate of the rest of the history. So a page built from the
 * sample shows a running system at the data's as-of instant, not one that fell silent weeks before.
 *
 * The seeded simulation also chooses the few sentinels that are not well at that instant, from its
 * own PRNG stream (`<seed>:liveness`, so the rest of the simulation keeps its draws):
 *   - degraded: its heartbeats since `since` report "degraded";
 *   - offline:  its heartbeats since `since` report "offline" (and it stops minting);
 *   - silent:   it sends nothing after `since`, more than the 48 h after which a sentinel counts as
 *               offline, so its last heartbeat is stale at `now`.
 * At most `MAX_UNWELL` sentinels are unwell; each is chosen with a small probability, so a seed may
 * also give a fully operational system. Pure and deterministic: seed, roster and `now` in, plan out.
 */
import { Prng } from "./prng.ts";
import { HOUR_MS, DAY_MS } from "../../core/time.ts";

export const LIVE_WINDOW_DAYS = 3;
export const LIVE_INTERVAL_HOURS = 4;
export const MAX_UNWELL = 3;

export type Condition = "operational" | "degraded" | "offline" | "silent";

export interface SentinelLiveness {
  condition: Condition;
  /** When the condition began (ms); for an operational sentinel, the start of the window. */
  sinceMs: number;
}

export interface LivenessPlan {
  windowStartMs: number;
  nowMs: number;
  bySentinel: ReadonlyMap<string, SentinelLiveness>;
}

/** Chances per sentinel, tried in this order (the rest stay operational). */
const CHANCES: readonly [Exclude<Condition, "operational">, number][] = [
  ["degraded", 0.09],
  ["offline", 0.05],
  ["silent", 0.05],
];

export function planLiveness(seed: string, sentinelIds: readonly string[], nowMs: number): LivenessPlan {
  const rng = new Prng(`${seed}:liveness`);
  const windowStartMs = nowMs - LIVE_WINDOW_DAYS * DAY_MS;
  const bySentinel = new Map<string, SentinelLiveness>();
  let unwell = 0;
  for (const id of sentinelIds) {
    const r = rng.next();
    let condition: Condition = "operational";
    let acc = 0;
    for (const [c, p] of CHANCES) {
      acc += p;
      if (r < acc) {
        condition = c;
        break;
      }
    }
    if (condition !== "operational" && unwell >= MAX_UNWELL) condition = "operational";
    // Silent for 50–66 h (stale past the 48 h threshold); degraded or offline for 2–30 h.
    const hours = condition === "silent" ? rng.between(50, 66) : rng.between(2, 30);
    if (condition !== "operational") unwell++;
    bySentinel.set(id, { condition, sinceMs: condition === "operational" ? windowStartMs : nowMs - hours * HOUR_MS });
  }
  return { windowStartMs, nowMs, bySentinel };
}

/**
 * The instants (ms) in [fromMs, toMs) at which `id` sends a live heartbeat: every
 * LIVE_INTERVAL_HOURS from the window start plus the sentinel's own phase (so the sentinels do not
 * beat in step), each a few minutes late; none after a silent sentinel's `since`, none after `now`.
 */
export function liveHeartbeats(plan: LivenessPlan, id: string, fromMs: number, toMs: number): number[] {
  const state = plan.bySentinel.get(id);
  if (!state) return [];
  const jitter = new Prng(`live-heartbeat:${id}:${plan.nowMs}`);
  const phase = jitter.int(LIVE_INTERVAL_HOURS * 60) * 60_000;
  const out: number[] = [];
  for (let t = plan.windowStartMs + phase; t <= plan.nowMs; t += LIVE_INTERVAL_HOURS * HOUR_MS) {
    const at = t + jitter.between(1, 9) * 60_000;
    if (at > plan.nowMs || at < fromMs || at >= toMs) continue;
    if (state.condition === "silent" && at >= state.sinceMs) continue;
    out.push(at);
  }
  return out;
}

/** The status a heartbeat at `atMs` reports, or null to let the simulation draw it as usual. */
export function forcedStatus(
  plan: LivenessPlan,
  id: string,
  atMs: number,
): "operational" | "degraded" | "offline" | null {
  const state = plan.bySentinel.get(id);
  if (!state || atMs < plan.windowStartMs) return null;
  if (state.condition === "degraded" || state.condition === "offline")
    return atMs >= state.sinceMs ? state.condition : "operational";
  return "operational";
}

/** Whether a silent sentinel must not send anything at `atMs`. */
export function isSilenced(plan: LivenessPlan, id: string, atMs: number): boolean {
  const state = plan.bySentinel.get(id);
  return state?.condition === "silent" && atMs >= state.sinceMs;
}
