import { afterEach, describe, expect, it } from "vitest";
import { supplyProjection, type SupplyShards } from "../../core/economy/supply.ts";
import type { LedgerEntry } from "../../core/ledger/entry.ts";
import { foldAsync, type Projection } from "../../core/ledger/projection.ts";
import { ProjectionFollower } from "./projection-follower.ts";
import { Ledger } from "./ledger.ts";
import { openLedgerStore } from "../open-ledger.ts";
import { sampleEvent, steppingClock, tempDir } from "../../test/support/store/helpers.ts";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

async function memoryLedger(): Promise<Ledger> {
  const ledger = await openLedgerStore({ path: ":memory:", origin: "follow", now: steppingClock() });
  cleanups.push(() => ledger.close());
  return ledger;
}

describe("ProjectionFollower", () => {
  it("applies only the entries appended since the last catch-up, and equals a full fold", async () => {
    const ledger = await memoryLedger();
    let applied = 0;
    const counting: Projection<SupplyShards> = {
      initial: supplyProjection.initial,
      apply: (s, e) => (applied++, supplyProjection.apply(s, e)),
    };
    const follower = new ProjectionFollower(ledger);
    expect(await follower.at(counting, await ledger.size())).toEqual({
      mintedShards: 0n,
      burnedShards: 0n,
      lockedShards: 0n,
    });
    let n = 0;
    for (const batch of [10, 1, 300, 7]) {
      await ledger.append(Array.from({ length: batch }, () => sampleEvent(n++)));
      const before = applied;
      const state = await follower.at(counting, await ledger.size());
      expect(applied - before).toBe(batch);
      expect(follower.watermark(counting)).toBe(n);
      expect(state).toEqual(await foldAsync(supplyProjection, ledger.entries()));
    }
    const before = applied;
    await follower.at(counting, await ledger.size());
    expect(applied).toBe(before);
  });

  it("at(size) applies exactly up to a size read for the question; a state already past it is answered as it is", async () => {
    const ledger = await memoryLedger();
    const follower = new ProjectionFollower(ledger);
    await ledger.append([sampleEvent(1), sampleEvent(3), sampleEvent(5)]);
    expect(await follower.at(supplyProjection, 2)).toEqual(await foldAsync(supplyProjection, ledger.entries(0, 2)));
    expect(follower.watermark(supplyProjection)).toBe(2);
    const full = await follower.at(supplyProjection, 3);
    expect(full).toEqual(await foldAsync(supplyProjection, ledger.entries()));
    expect(await follower.at(supplyProjection, 1)).toBe(full);
    expect(follower.watermark(supplyProjection)).toBe(3);
  });

  it("sees what another instance appended to the same store file", async () => {
    const { dir, cleanup } = tempDir("follow-");
    cleanups.push(cleanup);
    const path = `${dir}/ledger.sqlite`;
    const writer = await openLedgerStore({ path: path, origin: "follow", now: steppingClock(), durability: "normal" });
    const reader = await openLedgerStore({ path: path, origin: "follow", durability: "normal" });
    cleanups.unshift(() => (writer.close(), reader.close()));
    const follower = new ProjectionFollower(reader);
    await writer.append([sampleEvent(1), sampleEvent(3)]);
    expect((await follower.at(supplyProjection, await reader.size())).mintedShards).toBe(2_000_004n);
    await writer.append([sampleEvent(5)]);
    expect((await follower.at(supplyProjection, await reader.size())).mintedShards).toBe(3_000_009n);
  });

  it("keeps each projection apart, and forgetPast drops only the states that folded rolled-back entries", async () => {
    const ledger = await memoryLedger();
    await ledger.append([sampleEvent(1), sampleEvent(3), sampleEvent(5)]);
    const follower = new ProjectionFollower(ledger);
    const count: Projection<{ n: number }> = { initial: () => ({ n: 0 }), apply: (s) => ((s.n += 1), s) };
    await follower.at(supplyProjection, 3);
    await follower.at(count, 2);
    follower.forgetPast(2);
    expect(follower.watermark(supplyProjection)).toBe(0);
    expect(follower.watermark(count)).toBe(2);
    expect(await follower.at(supplyProjection, 2)).toEqual(await foldAsync(supplyProjection, ledger.entries(0, 2)));
    expect(await follower.at(count, 3)).toEqual({ n: 3 });
  });

  it("a read that fails keeps what was folded; an apply that fails is forgotten", async () => {
    const ledger = await memoryLedger();
    await ledger.append([sampleEvent(1), sampleEvent(3), sampleEvent(5), sampleEvent(7)]);
    let failAt = 2;
    const source = {
      async *entries(start: number, end: number): AsyncIterableIterator<LedgerEntry> {
        for await (const entry of ledger.entries(start, end)) {
          if (entry.seq === failAt) throw new Error("disk I/O error");
          yield entry;
        }
      },
    };
    const follower = new ProjectionFollower(source);
    await expect(follower.at(supplyProjection, 4)).rejects.toThrow("disk I/O error");
    expect(follower.watermark(supplyProjection)).toBe(2);
    failAt = -1;
    expect(await follower.at(supplyProjection, 4)).toEqual(await foldAsync(supplyProjection, ledger.entries()));

    const refusing: Projection<SupplyShards> = {
      initial: supplyProjection.initial,
      apply: (s, e) => {
        if (e.seq === 3) throw new Error("bad entry");
        return supplyProjection.apply(s, e);
      },
    };
    await expect(follower.at(refusing, 4)).rejects.toThrow("bad entry");
    expect(follower.watermark(refusing)).toBe(0);
  });
});
