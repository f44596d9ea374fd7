/**
 * Balance records of GET /balance/{address}: v1 (float MIC) and v2 (integer shards).
 * 1 MIC = 1,000,000 shards.
 */
import { z } from "zod";
import { formatMicDecimal } from "../money/units.ts";
import { NonNegativeNumber, SHARD_STRING_PATTERN, ShardString } from "./common.ts";

/** Exact display form of a shard amount: MIC with six decimals, e.g. "1.500000 MIC". */
export function formatShardsAsMic(shards: bigint): string {
  return `${formatMicDecimal(shards)} MIC`;
}

/** v1 balance. */
export const BalanceV1 = z.strictObject({
  balance_gic: NonNegativeNumber,
});
export type BalanceV1 = z.infer<typeof BalanceV1>;

/**
 * v2 balance. zod additionally checks that balance_credits_formatted is exactly the six-decimal
 * rendering of balance_shards.
 */
export const BalanceV2 = z
  .strictObject({
    /** Integer shard amount as a decimal string. */
    balance_shards: ShardString,
    /** Display value in MIC (shards / 1,000,000). */
    balance_credits: NonNegativeNumber,
    /** "<MIC with 6 decimals> MIC". */
    balance_credits_formatted: z.string().regex(/^\d+\.\d{6} MIC$/),
  })
  .refine(
    (b) =>
      SHARD_STRING_PATTERN.test(b.balance_shards) &&
      b.balance_credits_formatted === formatShardsAsMic(BigInt(b.balance_shards)),
    {
      message: "balance_credits_formatted must be balance_shards / 1,000,000 with 6 decimals",
      path: ["balance_credits_formatted"],
    },
  );
export type BalanceV2 = z.infer<typeof BalanceV2>;
