import { afterEach, describe, expect, it } from "vitest";
import { supplyProjection, type SupplyShards } from "../core/economy/supply.ts";
import type { LedgerEntry } from "../core/ledger/entry.ts";
import { fold, type Projection } from "../core/ledger/projection.ts";
import { ProjectionFollower } from "./projection-follower.ts";
import { SqliteLedger } from "./sqlite-ledger.ts";
import { sampleEvent, steppingClock, tempDir } from "../test/support/store/helpers.ts";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function memoryLedger(): SqliteLedger {
  const ledger = new SqliteLedger(":memory:", { origin: "follow", now: steppingClock() });
  cleanups.push(() => ledger.close());
  return ledger;
}

describe("ProjectionFollower", () => {
  it("applies only the entries appended since the last catch-up, and equals a full fold", () => {
    const ledger = memoryLedger();
    let applied = 0;
    const counting: Projection<SupplyShards> = { initial: supplyProjection.initial, apply: (s, e) => (applied++, supplyProjection.apply(s, e)) };
    const follower = new ProjectionFollower(ledger);
    expect(follower.at(counting, ledger.size())).toEqual({ mintedShards: 0n, burnedShards: 0n, lockedShards: 0n });
    let n = 0;
    for (const batch of [10, 1, 300, 7]) {
      ledger.append(Array.from({ length: batch }, () => sampleEvent(n++)));
      const before = applied;
      const state = follower.at(counting, ledger.size());
      expect(applied - before).toBe(batch);
      expect(follower.watermark(counting)).toBe(n);
      expect(state).toEqual(fold(supplyProjection, ledger.entries()));
    }
    const before = applied;
    follower.at(counting, ledger.size());
    expect(applied).toBe(before);
  });

  it("at(size) applies exactly up to a size read for the question; a state already past it is answered as it is", () => {
    const ledger = memoryLedger();
    const follower = new ProjectionFollower(ledger);
    ledger.append([sampleEvent(1), sampleEvent(3), sampleEvent(5)]);
    expect(follower.at(supplyProjection, 2)).toEqual(fold(supplyProjection, ledger.entries(0, 2)));
    expect(follower.watermark(supplyProjection)).toBe(2);
    const full = follower.at(supplyProjection, 3);
    expect(full).toEqual(fold(supplyProjection, ledger.entries()));
    expect(follower.at(supplyProjection, 1)).toBe(full);
    expect(follower.watermark(supplyProjection)).toBe(3);
  });

  it("sees what another instance appended to the same store file", () => {
    const { dir, cleanup } = tempDir("follow-");
    cleanups.push(cleanup);
    const path = `${dir}/ledger.sqlite`;
    const writer = new SqliteLedger(path, { origin: "follow", now: steppingClock(), durability: "normal" });
    const reader = new SqliteLedger(path, { origin: "follow", durability: "normal" });
    cleanups.unshift(() => (writer.close(), reader.close()));
    const follower = new ProjectionFollower(reader);
    writer.append([sampleEvent(1), sampleEvent(3)]);
    expect(follower.at(supplyProjection, reader.size()).mintedShards).toBe(2_000_004n);
    writer.append([sampleEvent(5)]);
    expect(follower.at(supplyProjection, reader.size()).mintedShards).toBe(3_000_009n);
  });

  it("keeps each projection apart, and forgetPast drops only the states that folded rolled-back entries", () => {
    const ledger = memoryLedger();
    ledger.append([sampleEvent(1), sampleEvent(3), sampleEvent(5)]);
    const follower = new ProjectionFollower(ledger);
    const count: Projection<{ n: number }> = { initial: () => ({ n: 0 }), apply: (s) => ((s.n += 1), s) };
    follower.at(supplyProjection, 3);
    follower.at(count, 2);
    follower.forgetPast(2);
    expect(follower.watermark(supplyProjection)).toBe(0);
    expect(follower.watermark(count)).toBe(2);
    expect(follower.at(supplyProjection, 2)).toEqual(fold(supplyProjection, ledger.entries(0, 2)));
    expect(follower.at(count, 3)).toEqual({ n: 3 });
  });

  it("a read that fails keeps what was folded; an apply that fails is forgotten", () => {
    const ledger = memoryLedger();
    ledger.append([sampleEvent(1), sampleEvent(3), sampleEvent(5), sampleEvent(7)]);
    let failAt = 2;
    const source = {
      *entries(start: number, end: number): IterableIterator<LedgerEntry> {
        for (const entry of ledger.entries(start, end)) {
          if (entry.seq === failAt) throw new Error("disk I/O error");
          yield entry;
        }
      },
    };
    const follower = new ProjectionFollower(source);
    expect(() => follower.at(supplyProjection, 4)).toThrow("disk I/O error");
    expect(follower.watermark(supplyProjection)).toBe(2);
    failAt = -1;
    expect(follower.at(supplyProjection, 4)).toEqual(fold(supplyProjection, ledger.entries()));

    const refusing: Projection<SupplyShards> = {
      initial: supplyProjection.initial,
      apply: (s, e) => {
        if (e.seq === 3) throw new Error("bad entry");
        return supplyProjection.apply(s, e);
      },
    };
    expect(() => follower.at(refusing, 4)).toThrow("bad entry");
    expect(follower.watermark(refusing)).toBe(0);
  });
});
