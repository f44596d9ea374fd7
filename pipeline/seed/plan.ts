/**
 * The plan of a sample-ledger simulation (pipeline/seed/simulate.ts): which cycles it spans, which
 * sentinels join when, and how much the scaled rates are multiplied so that the ledger comes out near
 * the size asked. Pure: the same options give the same plan.
 */
import { cycleNumber, cycleStart } from "../../core/cycle.ts";
import { CATHEDRALS } from "../../core/schemas/common.ts";
import { AUTHORITY_STEPS_PER_DAY } from "./authority.ts";
import { SENTINELS, type SentinelSpec } from "./tables.ts";
import { DAY_MS } from "../../core/time.ts";

export interface SimulationOptions {
  seed: string;
  /** Approximate number of events. */
  size: number;
  /** The present: the last event is at or before it. */
  now: Date;
}

/** Rates per simulated day. The scaled ones are multiplied by the plan's `scale`. */
export const RATE = {
  heartbeatsPerSentinel: 1, // scaled
  attestationsPerSentinel: 0.25, // scaled
  burns: 0.4, // scaled
  locks: 0.6, // scaled
  unlocks: 0.4, // scaled
  identities: 0.06, // two events each (not scaled: the authority activity needs a few dozen)
  driftRecoveries: 0.1, // an identity's drift measured back below 0.1
  restakes: 0.05, // an identity whose stake was withdrawn locks stake again
  sessions: 0.6, // ≈ 4 a week (spec target 3–5); about 14 events each
  deliberations: 0.3,
  multiplierChangePerCathedral: 0.03,
} as const;

const SESSION_EVENTS = 14;

/** About 1.6 events per authority step: an attempt, with a grant most of the time, or a trigger and its revocation. */
const AUTHORITY_EVENTS_PER_STEP = 1.6;

const MIN_SCALE = 0.05;

export interface SimulationPlan {
  seed: string;
  firstCycle: number;
  lastCycle: number;
  nowMs: number;
  /** Multiplier of the scaled rates. */
  scale: number;
  sentinels: { spec: SentinelSpec; registerCycle: number }[];
}

/** Which cycles, which sentinels join when, and how much the scaled rates are multiplied. */
export function planSimulation(options: SimulationOptions): SimulationPlan {
  const { seed, size, now } = options;
  if (typeof seed !== "string" || seed.length === 0) throw new Error("seed must be a non-empty string");
  if (!Number.isSafeInteger(size) || size < 1) throw new Error(`size must be a positive integer, got ${size}`);
  const nowMs = now.getTime();
  if (!Number.isFinite(nowMs)) throw new Error("now is not a valid instant");
  const lastCycle = cycleNumber(now); // throws before C-1
  const span = lastCycle - 1;
  const sentinels = SENTINELS.map((spec) => ({
    spec,
    registerCycle: spec.joinsAt === 0 || span === 0 ? 1 : Math.max(2, 1 + Math.round(spec.joinsAt * span)),
  }));

  // Simulated days, counting the elapsed part of the current one.
  const days = span + (nowMs - cycleStart(lastCycle).getTime()) / DAY_MS;
  let sentinelDays = 0;
  for (const s of sentinels) sentinelDays += Math.max(0, days - (s.registerCycle - 1));
  const fixed =
    1 +
    sentinels.length +
    CATHEDRALS.length +
    sentinelDays +
    days /* cycle.updated */ +
    days *
      (RATE.sessions * SESSION_EVENTS +
        RATE.deliberations +
        RATE.multiplierChangePerCathedral * CATHEDRALS.length +
        2 * RATE.identities +
        AUTHORITY_EVENTS_PER_STEP * AUTHORITY_STEPS_PER_DAY +
        RATE.driftRecoveries +
        RATE.restakes);
  const scalablePerUnit =
    sentinelDays * (RATE.heartbeatsPerSentinel + RATE.attestationsPerSentinel) +
    days * (RATE.burns + RATE.locks + RATE.unlocks);
  const scale = scalablePerUnit > 0 ? Math.max(MIN_SCALE, (size - fixed) / scalablePerUnit) : 1;
  return { seed, firstCycle: 1, lastCycle, nowMs, scale, sentinels };
}

// ---------------------------------------------------------------------------------------------
// Simulation state
