import { describe, expect, it } from "vitest";
import { BalanceV1, BalanceV2 } from "../schemas/balance.ts";
import { BalanceError, balanceV1Record, balanceV2Record, v2BalanceShards } from "./records.ts";

describe("v2 balance records", () => {
  it("carry shards as a string, a display number and six decimals", () => {
    const r = balanceV2Record(1_005_000n);
    expect(r).toEqual({ balance_shards: "1005000", balance_credits: 1.005, balance_credits_formatted: "1.005000 MIC" });
    expect(BalanceV2.parse(r)).toEqual(r);
  });

  it("are exact beyond 2^53 shards", () => {
    const shards = 2n ** 53n + 1n; // 9007199254740993: Number() would give ...992
    const r = balanceV2Record(shards);
    expect(r.balance_shards).toBe("9007199254740993");
    expect(r.balance_credits_formatted).toBe("9007199254.740993 MIC");
    expect(BigInt(r.balance_shards)).toBe(shards);
    expect(BalanceV2.safeParse(r).success).toBe(true);
    const huge = balanceV2Record(2n ** 70n);
    expect(huge.balance_credits_formatted).toBe("1180591620717411.303424 MIC");
  });

  it("refuse a negative balance with a code", () => {
    expect(() => balanceV2Record(-1n)).toThrow(BalanceError);
    try {
      balanceV1Record(-1n);
    } catch (error) {
      expect((error as BalanceError).code).toBe("negative-balance");
    }
  });
});

describe("v1 balance records (forwarded to v2)", () => {
  it("compute balance_gic from the shards", () => {
    expect(balanceV1Record(1_005_000n)).toEqual({ balance_gic: 1.005 });
    expect(BalanceV1.parse(balanceV1Record(0n))).toEqual({ balance_gic: 0 });
  });
});

describe("v2 = snapshot + movements after it", () => {
  const snapshot = new Map([
    ["ATLAS", 5_000_000n],
    ["LEGACY", 7n],
  ]);
  const since = new Map([
    ["ATLAS", { available: -1_000_000n, locked: 1_000_000n, staked: 0n }],
    ["NEW", { available: 3n, locked: 0n, staked: 0n }],
  ]);
  it("adds the movements to the snapshot balance", () => {
    expect(v2BalanceShards("ATLAS", snapshot, since)).toBe(4_000_000n);
    expect(v2BalanceShards("LEGACY", snapshot, since)).toBe(7n);
    expect(v2BalanceShards("NEW", snapshot, since)).toBe(3n);
  });
  it("knows no balance for an address in neither", () => {
    expect(v2BalanceShards("NOBODY", snapshot, since)).toBeNull();
  });
});
