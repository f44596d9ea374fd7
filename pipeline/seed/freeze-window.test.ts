import { describe, expect, it } from "vitest";
import { isMonetaryEvent } from "../../core/balance/ledger-balances.ts";
import { FREEZE_ENDS, FREEZE_STARTS, inFreezeWindow } from "../../core/migration/phases.ts";
import { openLedgerStore } from "../../store/open-ledger.ts";
import { simulate } from "./simulate.ts";

describe("the sample simulator and the migration freeze window", () => {
  const events = [...simulate({ seed: "freeze-test", size: 20_000, now: new Date("2025-12-04T00:00:00.000Z") })];

  it("records no monetary event inside the window, and money moves on both sides of it", async () => {
    const monetary = events.filter((e) => isMonetaryEvent(e.type));
    expect(monetary.filter((e) => inFreezeWindow(e.ts!))).toEqual([]);
    expect(monetary.some((e) => e.ts! < FREEZE_STARTS && e.ts! >= "2025-11-30T00:00:00.000Z")).toBe(true);
    expect(monetary.some((e) => e.ts! >= FREEZE_ENDS && e.ts! < "2025-12-03T00:00:00.000Z")).toBe(true);
    // The rest of the ledger goes on during the window.
    expect(events.some((e) => !isMonetaryEvent(e.type) && inFreezeWindow(e.ts!))).toBe(true);
  });

  it("gives every identity its stake", async () => {
    const registered = events.filter((e) => e.type === "identity.registered").map((e) => e.payload.ledger_id);
    const staked = new Set(events.filter((e) => e.type === "stake.locked").map((e) => e.payload.ledger_id));
    expect(registered.length).toBeGreaterThan(0);
    for (const id of registered) expect(staked.has(id)).toBe(true);
  });

  it("is accepted by the store, which refuses monetary events in the window", async () => {
    const ledger = await openLedgerStore({ path: ":memory:", origin: "freeze-test" });
    try {
      for (let i = 0; i < events.length; i += 1000) await ledger.append(events.slice(i, i + 1000));
      expect(await ledger.size()).toBe(events.length);
    } finally {
      await ledger.close();
    }
  });
});
