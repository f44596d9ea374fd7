import { describe, expect, it } from "vitest";
import { sealEntry, type JsonObject, type LedgerEntry } from "../ledger/entry.ts";
import { fold } from "../ledger/projection.ts";
import { balancesProjection, isMonetaryEvent, movementOf, MONETARY_EVENT_TYPES } from "./ledger-balances.ts";

const ID = "3f0e8a52-9c1b-4d7e-8f2a-1b2c3d4e5f60";

function entries(list: [string, string, JsonObject][]): LedgerEntry[] {
  const out: LedgerEntry[] = [];
  list.forEach(([ts, type, payload], seq) =>
    out.push(sealEntry({ seq, type, payload, ts, prev: out[seq - 1]?.hash ?? null }).entry),
  );
  return out;
}

const mint = (sentinel: string, amount: string) => ({
  sentinel,
  cycle: "C-1",
  cathedral: "FOR-ECONOMISTS",
  amount_shards: amount,
  coordination_score: 1,
  multiplier: 1,
});

const LEDGER = entries(
  [
    ["2025-11-01T00:00:00.000Z", "mic_mint", mint("ATLAS", "5000000")],
    ["2025-11-02T00:00:00.000Z", "mic_lock", { account: "ATLAS", amount_shards: "2000000", contract: "vault" }],
    ["2025-11-03T00:00:00.000Z", "mic_burn", { account: "ATLAS", amount_shards: "1" }],
    [
      "2025-11-04T00:00:00.000Z",
      "sentinel.heartbeat",
      { sentinel: "ATLAS", status: "operational", gi_score: 0.97, apps: 1, packages: 1, workflows: 1, drift: 0 },
    ],
    [
      "2025-11-05T00:00:00.000Z",
      "stake.locked",
      { ledger_id: ID, amount_shards: "10000000000", slashing_conditions_accepted: true },
    ],
    ["2025-12-03T00:00:00.000Z", "mic_unlock", { account: "ATLAS", amount_shards: "500000", contract: "vault" }],
    ["2025-12-04T00:00:00.000Z", "stake.slashed", { ledger_id: ID, amount_shards: "1000000", reason: "drift" }],
    ["2025-12-05T00:00:00.000Z", "stake.withdrawn", { ledger_id: ID, amount_shards: "9000000000" }],
    ["2025-12-06T00:00:00.000Z", "mic_mint", mint("HERMES", "9007199254740993")],
  ].map(
    ([ts, type, p]) =>
      [ts, type, type === "mic_burn" ? { ...(p as JsonObject), reason: "fee" } : p] as [string, string, JsonObject],
  ),
);

describe("the balance projection", () => {
  it("folds mints, burns, locks, unlocks and stakes into available, locked and staked", () => {
    const balances = fold(balancesProjection(), LEDGER);
    expect(balances.get("ATLAS")).toEqual({ available: 3_499_999n, locked: 1_500_000n, staked: 0n });
    expect(balances.get(ID)).toEqual({ available: 0n, locked: 0n, staked: 999_000_000n });
    // 2^53 + 1 shards: exact.
    expect(balances.get("HERMES")).toEqual({ available: 9_007_199_254_740_993n, locked: 0n, staked: 0n });
    expect(balances.size).toBe(3);
  });

  it("takes only the entries of its window, [from, to)", () => {
    const before = fold(balancesProjection({ to: "2025-12-01T00:00:00.000Z" }), LEDGER);
    const after = fold(balancesProjection({ from: "2025-12-01T00:00:00.000Z" }), LEDGER);
    expect(before.get("ATLAS")).toEqual({ available: 2_999_999n, locked: 2_000_000n, staked: 0n });
    expect(after.get("ATLAS")).toEqual({ available: 500_000n, locked: -500_000n, staked: 0n });
    expect(before.has("HERMES")).toBe(false);
    // The two halves add up to the whole.
    const all = fold(balancesProjection(), LEDGER);
    for (const [address, h] of all) {
      const b = before.get(address) ?? { available: 0n, locked: 0n, staked: 0n };
      const a = after.get(address) ?? { available: 0n, locked: 0n, staked: 0n };
      expect({
        available: b.available + a.available,
        locked: b.locked + a.locked,
        staked: b.staked + a.staked,
      }).toEqual(h);
    }
    // The boundary instant belongs to `from`.
    const edge = entries([["2025-12-01T00:00:00.000Z", "mic_mint", mint("ATLAS", "1")]]);
    expect(fold(balancesProjection({ to: "2025-12-01T00:00:00.000Z" }), edge).size).toBe(0);
    expect(fold(balancesProjection({ from: "2025-12-01T00:00:00.000Z" }), edge).get("ATLAS")?.available).toBe(1n);
  });

  it("knows which events move money", () => {
    expect([...MONETARY_EVENT_TYPES].every((t) => isMonetaryEvent(t))).toBe(true);
    expect(isMonetaryEvent("sentinel.heartbeat")).toBe(false);
    expect(isMonetaryEvent("multiplier.changed")).toBe(false);
    expect(movementOf(LEDGER[3]!)).toBeNull();
  });
});
