/**
 * Economists area (/economy, cathedral FOR-ECONOMISTS). Every JSON document carries its `cycle`.
 *
 * Amounts of MIC (total_supply, circulating, locked, burned, total_rewards, amount) are JSON numbers
 * in MIC, as the spec says; they are derived from integer shards (1 MIC = 1,000,000 shards) at the
 * edge, never computed in floating point. CSV row schemas describe one row after typing its cells.
 */
import { z } from "zod";
import {
  Cathedral,
  Cycle,
  Identifier,
  IsoTimestamp,
  NonEmptyString,
  NonNegativeInt,
  NonNegativeNumber,
  Score01,
  ShardString,
} from "./common.ts";

/** Cathedral multiplier M_c: between 1.0 and 2.0. */
export const CathedralMultiplier = z.number().min(1).max(2);
export type CathedralMultiplier = z.infer<typeof CathedralMultiplier>;

/** An amount of MIC (non-negative number). */
export const MicAmount = NonNegativeNumber;
export type MicAmount = z.infer<typeof MicAmount>;

/**
 * /economy/supply. Each figure in MIC (a JSON number, as the spec says) has its exact shard count
 * beside it as a decimal string (`<figure>_shards`): past 2^53 shards a number read as a double is
 * no longer exact, the string always is.
 */
export const Supply = z.strictObject({
  cycle: Cycle,
  timestamp: IsoTimestamp,
  /** Total MIC minted. */
  total_supply: MicAmount,
  total_supply_shards: ShardString,
  circulating: MicAmount,
  circulating_shards: ShardString,
  /** MIC locked in contracts. */
  locked: MicAmount,
  locked_shards: ShardString,
  /** Total MIC burned. */
  burned: MicAmount,
  burned_shards: ShardString,
});
export type Supply = z.infer<typeof Supply>;

/** /economy/mii. */
export const EconomyMii = z.strictObject({
  timestamp: IsoTimestamp,
  mii: Score01,
  /** MII at or above which minting is active. */
  threshold: Score01,
  minting_active: z.boolean(),
  cycle: Cycle,
});
export type EconomyMii = z.infer<typeof EconomyMii>;

/**
 * /economy/coordination. `formula` is the coordination-score formula as text. `sentinels` lists the
 * sentinels that have sent a heartbeat (the score's inputs); `average_coordination` is their mean,
 * null when there is none (a mean of nothing is not a measurement).
 */
export const Coordination = z.strictObject({
  cycle: Cycle,
  timestamp: IsoTimestamp,
  average_coordination: z.number().nullable(),
  sentinels: z.array(
    z.strictObject({
      id: Identifier,
      score: z.number(),
      cathedral: Cathedral,
    }),
  ),
  formula: NonEmptyString,
});
export type Coordination = z.infer<typeof Coordination>;

/**
 * ROI figures of one cathedral. `average_roi` is the mean of its sentinels' `roi`, null when the
 * cathedral has no sentinel (sentinel_count 0).
 */
export const CathedralRoi = z.strictObject({
  multiplier: CathedralMultiplier,
  total_rewards: MicAmount,
  sentinel_count: NonNegativeInt,
  average_roi: z.number().nullable(),
});
export type CathedralRoi = z.infer<typeof CathedralRoi>;

/** /economy/roi. by_cathedral has one entry for every cathedral value (all five keys required). */
export const RoiByCathedral = z.strictObject({
  cycle: Cycle,
  timestamp: IsoTimestamp,
  by_cathedral: z.strictObject({
    "FOR-GOVERNMENTS": CathedralRoi,
    "FOR-ACADEMICS": CathedralRoi,
    "FOR-PHILOSOPHERS": CathedralRoi,
    "FOR-ECONOMISTS": CathedralRoi,
    DIPLOMACY: CathedralRoi,
  }) satisfies z.ZodType<Record<Cathedral, CathedralRoi>>,
});
export type RoiByCathedral = z.infer<typeof RoiByCathedral>;

/** One row of /economy/mic-history.csv. */
export const MicMintingRow = z.strictObject({
  timestamp: IsoTimestamp,
  cycle: Cycle,
  sentinel: Identifier,
  amount: MicAmount,
  cathedral: Cathedral,
  coordination_score: z.number(),
});
export type MicMintingRow = z.infer<typeof MicMintingRow>;

/**
 * /economy/sentinel-roi.json. `coordination_score` is null for a sentinel that has sent no heartbeat
 * yet (its score has no inputs).
 */
export const SentinelRoi = z.strictObject({
  cycle: Cycle,
  timestamp: IsoTimestamp,
  sentinels: z.array(
    z.strictObject({
      id: Identifier,
      cathedral: Cathedral,
      total_rewards: MicAmount,
      coordination_score: z.number().nullable(),
      multiplier: CathedralMultiplier,
      roi: z.number(),
    }),
  ),
});
export type SentinelRoi = z.infer<typeof SentinelRoi>;

/** One row of /economy/cathedral-multipliers.csv. */
export const CathedralMultiplierRow = z.strictObject({
  timestamp: IsoTimestamp,
  cycle: Cycle,
  cathedral: Cathedral,
  multiplier: CathedralMultiplier,
  reason: NonEmptyString,
});
export type CathedralMultiplierRow = z.infer<typeof CathedralMultiplierRow>;
