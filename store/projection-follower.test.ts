import { afterEach, describe, expect, it } from "vitest";
import { supplyProjection, type SupplyShards } from "../core/economy/supply.ts";
import { fold, type Projection } from "../core/ledger/projection.ts";
import { ProjectionFollower } from "./projection-follower.ts";
import { SqliteLedger } from "./sqlite-ledger.ts";
import { sampleEvent, steppingClock, tempDir } from "../test/support/store/helpers.ts";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe("ProjectionFollower", () => {
  it("applies only the entries appended since the last catch-up, and equals a full fold", () => {
    const ledger = new SqliteLedger(":memory:", { origin: "follow", now: steppingClock() });
    cleanups.push(() => ledger.close());
    let applied = 0;
    const counting: Projection<SupplyShards> = { initial: supplyProjection.initial, apply: (s, e) => (applied++, supplyProjection.apply(s, e)) };
    const follower = new ProjectionFollower(ledger, counting);
    expect(follower.catchUp()).toEqual({ mintedShards: 0n, burnedShards: 0n, lockedShards: 0n });
    let n = 0;
    for (const batch of [10, 1, 300, 7]) {
      ledger.append(Array.from({ length: batch }, () => sampleEvent(n++)));
      const before = applied;
      const state = follower.catchUp();
      expect(applied - before).toBe(batch);
      expect(follower.position).toBe(n);
      expect(state).toEqual(fold(supplyProjection, ledger.entries()));
    }
    const before = applied;
    follower.catchUp();
    expect(applied).toBe(before);
  });

  it("catchUpTo(size) applies exactly up to a size read for the question; a state already past it is answered as it is", () => {
    const ledger = new SqliteLedger(":memory:", { origin: "follow", now: steppingClock() });
    cleanups.push(() => ledger.close());
    const follower = new ProjectionFollower(ledger, supplyProjection);
    ledger.append([sampleEvent(1), sampleEvent(3), sampleEvent(5)]);
    expect(follower.catchUpTo(2)).toEqual(fold(supplyProjection, ledger.entries(0, 2)));
    expect(follower.position).toBe(2);
    const full = follower.catchUpTo(3);
    expect(full).toEqual(fold(supplyProjection, ledger.entries()));
    expect(follower.catchUpTo(1)).toBe(full);
    expect(follower.position).toBe(3);
  });

  it("sees what another instance appended to the same store file", () => {
    const { dir, cleanup } = tempDir("follow-");
    cleanups.push(cleanup);
    const path = `${dir}/ledger.sqlite`;
    const writer = new SqliteLedger(path, { origin: "follow", now: steppingClock(), durability: "normal" });
    const reader = new SqliteLedger(path, { origin: "follow", durability: "normal" });
    cleanups.unshift(() => (writer.close(), reader.close()));
    const follower = new ProjectionFollower(reader, supplyProjection);
    writer.append([sampleEvent(1), sampleEvent(3)]);
    expect(follower.catchUp().mintedShards).toBe(2_000_004n);
    writer.append([sampleEvent(5)]);
    expect(follower.catchUp().mintedShards).toBe(3_000_009n);
  });
});
