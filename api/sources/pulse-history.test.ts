import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { historyPath, PulseHistorySource, snapshotOf } from "./pulse-history.ts";
import { historyText, manualClock, sampleHistory, tempDir, writeHistory } from "../../test/support/api/helpers.ts";

describe("PulseHistorySource", () => {
  const temp = tempDir("api-history-");
  afterAll(() => temp.cleanup());

  test("absent, then verified once written and looked at again", () => {
    const clock = manualClock();
    const dir = join(temp.dir, "a");
    const source = new PulseHistorySource(historyPath(dir), { now: clock.now });
    const first = source.current();
    expect(first.status).toBe("absent");
    expect(source.current()).toBe(first);
    writeHistory(dir, sampleHistory(4));
    expect(source.current()).toBe(first);
    clock.advance(1000);
    const second = source.current();
    expect(second.status).toBe("verified");
    expect(second.newestFirst).toHaveLength(4);
    expect(second.latest).toBe(second.newestFirst[0]);
  });

  test("an unchanged file keeps the same snapshot (and its memo)", () => {
    const clock = manualClock();
    const dir = join(temp.dir, "b");
    writeHistory(dir, sampleHistory(3));
    const source = new PulseHistorySource(historyPath(dir), { now: clock.now });
    const first = source.current();
    clock.advance(5000);
    expect(source.current()).toBe(first);
  });

  test("a path that is not a regular file fails closed", () => {
    const dir = join(temp.dir, "c");
    mkdirSync(historyPath(dir), { recursive: true });
    const snapshot = new PulseHistorySource(historyPath(dir)).current();
    expect(snapshot.status).toBe("unverified");
    expect(snapshot.newestFirst).toEqual([]);
    expect(snapshot.firstProblem?.problem).toContain("not a regular file");
  });
});

describe("HistorySnapshot.memo", () => {
  test("computes once per key", () => {
    const snapshot = snapshotOf({ historyText: historyText(sampleHistory(2)), checkpointText: null, vkeyText: null });
    let builds = 0;
    const a = snapshot.memo("k", () => ({ n: ++builds }));
    expect(snapshot.memo("k", () => ({ n: ++builds }))).toBe(a);
    expect(builds).toBe(1);
  });

  test("is bounded by the weighed bytes", () => {
    const snapshot = snapshotOf({ historyText: "", checkpointText: null, vkeyText: null });
    const big = 6 * 1024 * 1024;
    snapshot.memo(
      "a",
      () => "a",
      () => big,
    );
    snapshot.memo(
      "b",
      () => "b",
      () => big,
    );
    let rebuilt = false;
    snapshot.memo(
      "c",
      () => "c",
      () => big,
    ); // over 16 MiB: the memo starts over
    snapshot.memo(
      "a",
      () => ((rebuilt = true), "a"),
      () => big,
    );
    expect(rebuilt).toBe(true);
  });
});
