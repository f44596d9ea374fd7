/**
 * The MIC economy's formulas (spec "Economic constants"). Pure numbers in, numbers out; money is
 * converted to integer shards exactly once, by `rewardShards`, and summed as bigint afterwards.
 * Shards ↔ MIC conversions and formatting live in core/money/units.ts.
 */

/** Logistic reward constants: maximum L, steepness k, inflection point x0. */
export const REWARD = { L: 1000, k: 0.05, x0: 50 } as const;
export const MULTIPLIER_MIN = 1.0;
export const MULTIPLIER_MAX = 2.0;

export interface CoordinationInputs {
  apps: number;
  packages: number;
  workflows: number;
  /** Drift on a 0–10 scale (0 = none). */
  drift: number;
  uptimeDays: number;
}

/**
 * s = (0.4·apps + 0.3·packages + 0.2·workflows + 0.1·(10 − drift)) × (1 + ln(uptime)).
 *
 * The spec leaves the log base open. Natural log: the factor grows slowly (1 + ln 365 ≈ 6.9 after a
 * year), so uptime rewards steadiness without dwarfing the work terms. Uptime below one day counts
 * as one day, so a new sentinel's factor is 1 and never negative or −∞.
 */
export function coordinationScore(x: CoordinationInputs): number {
  const work = 0.4 * x.apps + 0.3 * x.packages + 0.2 * x.workflows + 0.1 * (10 - x.drift);
  return work * (1 + Math.log(Math.max(x.uptimeDays, 1)));
}

/** L / (1 + e^(−k(s − x0))) × M_c, in MIC. The multiplier must lie in [1.0, 2.0]. */
export function logisticReward(score: number, multiplier: number): number {
  if (!(multiplier >= MULTIPLIER_MIN && multiplier <= MULTIPLIER_MAX)) {
    throw new RangeError(`cathedral multiplier ${multiplier} is outside [${MULTIPLIER_MIN}, ${MULTIPLIER_MAX}]`);
  }
  return (REWARD.L / (1 + Math.exp(-REWARD.k * (score - REWARD.x0)))) * multiplier;
}

/** The reward as integer shards, rounded to the nearest shard: what a mint records on the ledger. */
export function rewardShards(score: number, multiplier: number): bigint {
  return BigInt(Math.round(logisticReward(score, multiplier) * 1_000_000));
}
