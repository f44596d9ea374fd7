import { describe, expect, it } from "vitest";
import { BASELINE_SCORE, baselineY, downsampleIndices, scoreDomain, sparkline, valueY } from "./sparkline.ts";

/** A deterministic wavy series in [0.9, 1] of length n. */
function wavy(n: number): number[] {
  return Array.from({ length: n }, (_, i) => 0.95 + 0.04 * Math.sin(i / 37) + 0.01 * Math.cos(i / 5));
}

describe("sparkline points", () => {
  it("maps 0 to the bottom and 1 to the top, first value at x = 0 and last at x = width", () => {
    const s = sparkline([0, 1], { width: 100, height: 50 });
    expect(s.points).toEqual([
      [0, 50],
      [100, 0],
    ]);
    expect(s.polyline).toBe("0,50 100,0");
  });

  it("places every value of a small series exactly", () => {
    const s = sparkline([0.5, 0.25, 1, 0, 0.75], { width: 200, height: 40 });
    expect(s.points).toEqual([
      [0, 20],
      [50, 30],
      [100, 0],
      [150, 40],
      [200, 10],
    ]);
    expect(s.indices).toEqual([0, 1, 2, 3, 4]);
  });

  it("rounds to two decimals", () => {
    const s = sparkline([0.123456, 0.9, 0.3], { width: 10, height: 3 });
    expect(s.polyline).toBe("0,2.63 5,0.3 10,2.1");
  });

  it("clamps values outside the domain and honours a custom domain", () => {
    expect(valueY(1.5, 80)).toBe(0);
    expect(valueY(-0.2, 80)).toBe(80);
    expect(valueY(0.9, 100, [0.8, 1])).toBe(50);
    expect(valueY(0.7, 100, [0.8, 1])).toBe(100);
    const s = sparkline([0.8, 1], { width: 10, height: 10, domain: [0.8, 1] });
    expect(s.points).toEqual([
      [0, 10],
      [10, 0],
    ]);
  });

  it("puts the 0.95 baseline where a 0.95 value is drawn", () => {
    expect(BASELINE_SCORE).toBe(0.95);
    expect(baselineY(100)).toBe(5);
    expect(baselineY(100, [0.9, 1])).toBe(50);
    expect(baselineY(100, [0.9, 1])).toBe(valueY(0.95, 100, [0.9, 1]));
  });

  it("handles 0, 1 and 2 values", () => {
    expect(sparkline([], { width: 100, height: 10 })).toEqual({ points: [], polyline: "", indices: [] });
    expect(sparkline([0.5], { width: 100, height: 10 }).points).toEqual([[50, 5]]);
    expect(sparkline([0.2, 0.4], { width: 100, height: 10 }).points).toEqual([
      [0, 8],
      [100, 6],
    ]);
  });

  it("draws a constant series as a flat line", () => {
    const s = sparkline(Array(1000).fill(0.97), { width: 300, height: 100 });
    expect(new Set(s.points.map(([, y]) => y))).toEqual(new Set([3]));
    expect(s.points[0]).toEqual([0, 3]);
    expect(s.points.at(-1)).toEqual([300, 3]);
    expect(s.points.length).toBeLessThanOrEqual(300);
  });

  it("rejects a bad size, domain or value", () => {
    expect(() => sparkline([0.5], { width: 0, height: 10 })).toThrow(RangeError);
    expect(() => sparkline([0.5], { width: 10, height: 10, domain: [1, 1] })).toThrow(RangeError);
    expect(() => sparkline([Number.NaN], { width: 10, height: 10 })).toThrow(RangeError);
    expect(() => downsampleIndices([1, 2, 3], 1)).toThrow(RangeError);
  });
});

describe("downsampling", () => {
  it("leaves short series alone", () => {
    expect(downsampleIndices(wavy(300), 300)).toEqual([...Array(300).keys()]);
  });

  it("caps the point count for long series", () => {
    for (const n of [301, 1000, 10_000, 100_000]) {
      const values = wavy(n);
      const s = sparkline(values, { width: 600, height: 100 });
      expect(s.points.length).toBeLessThanOrEqual(300);
      expect(s.points.length).toBeGreaterThan(150);
      // In series order, strictly increasing x.
      for (let i = 1; i < s.indices.length; i++) expect(s.indices[i]!).toBeGreaterThan(s.indices[i - 1]!);
    }
    for (const max of [2, 3, 4, 5, 10, 57]) {
      expect(downsampleIndices(wavy(1000), max).length).toBeLessThanOrEqual(max);
    }
  });

  it("keeps the first and the last points", () => {
    const values = wavy(10_000);
    const s = sparkline(values, { width: 600, height: 100 });
    expect(s.indices[0]).toBe(0);
    expect(s.indices.at(-1)).toBe(9_999);
    expect(s.points[0]).toEqual([0, valueY(values[0]!, 100)]);
    expect(s.points.at(-1)).toEqual([600, valueY(values[9_999]!, 100)]);
    expect(downsampleIndices(values, 2)).toEqual([0, 9_999]);
  });

  it("keeps the minimum of a one-pulse dip", () => {
    const values = Array<number>(10_000).fill(0.99);
    values[4_321] = 0.42;
    const s = sparkline(values, { width: 600, height: 100 });
    expect(s.indices).toContain(4_321);
    expect(Math.max(...s.points.map(([, y]) => y))).toBe(58);
    // Even with room for a single point between the ends.
    expect(downsampleIndices(values, 3)).toEqual([0, 4_321, 9_999]);
  });

  it("keeps the lowest and highest value of every bucket, so the global extremes survive", () => {
    const values = wavy(5_000);
    values[17] = 0.5;
    values[4_000] = 1;
    const kept = downsampleIndices(values, 300);
    expect(kept).toContain(17);
    expect(kept).toContain(4_000);
  });
});

describe("score domain", () => {
  it("shows at least 0.9 to 1 and reaches down to the lowest value", () => {
    expect(scoreDomain([])).toEqual([0.9, 1]);
    expect(scoreDomain([0.97, 0.99])).toEqual([0.9, 1]);
    expect(scoreDomain([0.97, 0.72])).toEqual([0.7, 1]);
    expect(scoreDomain([0.7])).toEqual([0.7, 1]);
    expect(scoreDomain([0.01])).toEqual([0, 1]);
    expect(scoreDomain([0])).toEqual([0, 1]);
  });
});
