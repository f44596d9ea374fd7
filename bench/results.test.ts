import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  compareResults,
  figureId,
  readResults,
  recordComparison,
  recordReading,
  startResults,
  uniqueIds,
  writeResults,
  type Figure,
  type ResultsFile,
} from "./results.ts";

function file(figures: Figure[]): ResultsFile {
  return {
    format: 1,
    benchmarks: ["x"],
    commit: "c",
    dirty: false,
    date: "d",
    node: "v",
    cores: 2,
    load: { before: [1, 1, 1], after: [1, 1, 1] },
    figures,
  };
}

/** A time ratio of `value` with rounds spread over [lo, hi] and a floor of `floor` seconds. */
function timeFigure(value: number, lo: number, hi: number, floor = 1, target = 3): Figure {
  return recordComparison("Suite", {
    name: "Full run of 1,000 events",
    subject: "s",
    floor: "f",
    subjectSeconds: value * floor,
    floorSeconds: floor,
    items: 1000,
    kind: "time",
    target,
    rounds: [lo, value, hi].map((r) => ({ subject: r * floor, floor })),
  });
}

describe("benchmark results", () => {
  it("records a ratio with its spread and verdict, and a reading by its worst run", () => {
    const f = timeFigure(2.5, 2.4, 2.9);
    expect(f).toMatchObject({
      id: "Suite / Full run of # events",
      kind: "time",
      better: "lower",
      target: 3,
      verdict: "PASS",
      rounds: 3,
    });
    expect(f.spread[0]).toBeCloseTo(2.4);
    expect(f.spread[1]).toBeCloseTo(2.9);
    expect(f.floor).toEqual({ label: "f", seconds: 1 });
    const memory = recordReading("Suite", {
      name: "Peak",
      unit: "MB",
      values: [430, 520, 400],
      better: "lower",
      target: 512,
    });
    expect(memory).toMatchObject({ value: 520, verdict: "MISS", spread: [400, 520], rounds: 3 });
    expect(figureId("S", "Full build of 998,649 entries (12 files)")).toBe("S / Full build of # entries (# files)");
  });

  it("writes the conditions with the figures, and reads them back", () => {
    const dir = mkdtempSync(join(tmpdir(), "bench-results-"));
    try {
      const path = join(dir, "r.json");
      const written = writeResults(path, startResults(["pipeline"]));
      const read = readResults(path);
      expect(read).toEqual(written);
      expect(read.commit).toMatch(/^[0-9a-f]{40}$|^unknown$/);
      expect(read.cores).toBeGreaterThan(0);
      expect(read.load.before).toHaveLength(3);
      expect(read.load.after).toHaveLength(3);
      expect(read.benchmarks).toEqual(["pipeline"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("compare names only what moved beyond its spread, which way, and a verdict or floor that changed", () => {
    const a = timeFigure(2.5, 2.4, 2.7);
    expect(compareResults(file([a]), file([timeFigure(2.6, 2.5, 2.8)]))).toEqual({ moved: [], unchanged: 1 });
    const worse = compareResults(file([a]), file([timeFigure(3.2, 3.1, 3.4)])).moved;
    expect(worse[0]).toMatch(/^worse +Suite \/ Full run of # events: 2\.500x .* → 3\.200x .*\(\+28\.0 %\)$/);
    expect(worse[1]).toBe("verdict   Suite / Full run of # events: PASS → MISS");
    expect(compareResults(file([a]), file([timeFigure(1.8, 1.7, 1.9)])).moved[0]).toMatch(/^better/);
    // The ratio held while the floor itself got twice as slow: reported.
    expect(compareResults(file([a]), file([timeFigure(2.5, 2.4, 2.7, 2)])).moved).toEqual([
      expect.stringMatching(/^floor .*1000\.0 → 2000\.0 ms \(\+100\.0 %\)$/),
    ]);
    const other = { ...a, id: "Suite / something else" };
    expect(compareResults(file([a]), file([other])).moved).toEqual([
      expect.stringMatching(/^new /),
      expect.stringMatching(/^gone /),
    ]);
  });

  it("tells apart figures whose names differ only in their numbers, by their order in the run", () => {
    const two = recordReading("Instances", { name: "N = 2 instances", unit: "/s", values: [100], better: "higher" });
    const three = recordReading("Instances", { name: "N = 3 instances", unit: "/s", values: [90], better: "higher" });
    expect(two.id).toBe(three.id);
    expect(uniqueIds([two, three]).map((f) => f.id)).toEqual([
      "Instances / N = # instances",
      "Instances / N = # instances (2)",
    ]);
  });

  it("gives a figure measured once a ±5 % spread", () => {
    const once = (value: number) => recordReading("S", { name: "Peak", unit: "MB", values: [value], better: "lower" });
    expect(compareResults(file([once(400)]), file([once(430)])).moved).toEqual([]);
    expect(compareResults(file([once(400)]), file([once(460)])).moved).toEqual([
      expect.stringMatching(/^worse +S \/ Peak: 400 MB → 460 MB \(\+15\.0 %\)$/),
    ]);
  });
});
