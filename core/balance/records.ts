/**
 * The balance records of GET /balance/{address} (spec "Balance records"), built from integer shards.
 *
 * v2 = the address's balance in the published migration snapshot (after the 24-hour review's
 * corrections) plus the ledger's movements dated at or after the snapshot instant
 * (core/balance/ledger-balances.ts with `{from: snapshot}`). v1 during the transition is the same
 * balance forwarded from v2, `balance_gic` computed from the shards.
 */
import { formatShardsAsMic, type BalanceV1, type BalanceV2 } from "../schemas/balance.ts";
import type { Holdings } from "./ledger-balances.ts";
import { shardsToMicNumber } from "../money/units.ts";
import { CodedError } from "../errors.ts";

export type BalanceErrorCode = "unknown-address" | "negative-balance";

export class BalanceError extends CodedError<BalanceErrorCode> {}

/**
 * The v2 balance of `address`: its snapshot balance plus its movements since the snapshot. An
 * address in neither is unknown (null), so a lookup can answer 404 instead of a made-up zero.
 */
export function v2BalanceShards(
  address: string,
  snapshot: ReadonlyMap<string, bigint>,
  since: Holdings,
): bigint | null {
  const base = snapshot.get(address);
  const moved = since.get(address)?.available;
  if (base === undefined && moved === undefined) return null;
  return (base ?? 0n) + (moved ?? 0n);
}

function nonNegative(shards: bigint): bigint {
  if (shards < 0n)
    throw new BalanceError(
      "negative-balance",
      `the ledger gives a negative balance (${shards} shards); refusing to publish it`,
    );
  return shards;
}

/**
 * `balance_shards` exact as a decimal string, `balance_credits` the display number (the nearest
 * double; exact up to 2^53 shards), `balance_credits_formatted` exact with six decimals.
 */
export function balanceV2Record(shards: bigint): BalanceV2 {
  nonNegative(shards);
  return {
    balance_shards: shards.toString(),
    balance_credits: shardsToMicNumber(shards),
    balance_credits_formatted: formatShardsAsMic(shards),
  };
}

/** v1's `balance_gic`: MIC as a JSON number, computed from the shards (not carried over from v1). */
export function balanceV1Record(shards: bigint): BalanceV1 {
  return { balance_gic: shardsToMicNumber(nonNegative(shards)) };
}
