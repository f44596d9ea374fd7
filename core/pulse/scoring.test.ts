import { describe, expect, it } from "vitest";
import { PulseScoring } from "../schemas/pulse.ts";
import { computeScores, requireScores, round4, ScoringError, type ScoringWeights } from "./scoring.ts";

const weights: ScoringWeights = {
  version: "test-1",
  gi: { a: 0.5, b: 0.3, c: 0.2 },
  mii: { x: 1, y: 3 },
};

describe("computeScores", () => {
  it("is the weighted mean of the measured signals, each contributing weight × value", () => {
    const r = computeScores(weights, { "gi.a": 1, "gi.b": 0, "gi.c": 0.5, "mii.x": 1, "mii.y": 0 });
    expect(r.giScore).toBe(0.6); // (0.5·1 + 0.3·0 + 0.2·0.5) / 1
    expect(r.miiScore).toBe(0.25); // (1·1 + 3·0) / 4
    expect(PulseScoring.parse(r.scoring)).toEqual(r.scoring);
    expect(r.scoring).toEqual({
      version: "test-1",
      inputs: {
        "gi.a": { value: 1, measured: true, weight: 0.5 },
        "gi.b": { value: 0, measured: true, weight: 0.3 },
        "gi.c": { value: 0.5, measured: true, weight: 0.2 },
        "mii.x": { value: 1, measured: true, weight: 1 },
        "mii.y": { value: 0, measured: true, weight: 3 },
      },
    });
  });

  it("moves each score by exactly one signal's weighted share", () => {
    const base = { "gi.a": 0, "gi.b": 0, "gi.c": 0, "mii.x": 0, "mii.y": 0 };
    expect(computeScores(weights, { ...base, "gi.a": 1 }).giScore).toBe(0.5);
    expect(computeScores(weights, { ...base, "gi.b": 1 }).giScore).toBe(0.3);
    expect(computeScores(weights, { ...base, "gi.c": 1 }).giScore).toBe(0.2);
    expect(computeScores(weights, { ...base, "mii.y": 1 }).miiScore).toBe(0.75);
  });

  it("leaves an unmeasured signal out of the mean and records it as unmeasured with its weight", () => {
    const r = computeScores(weights, { "gi.a": 1, "gi.b": null, "gi.c": 0, "mii.x": 0.5 });
    expect(r.giScore).toBe(round4(0.5 / 0.7)); // b's weight is not in the denominator
    expect(r.giScore).toBe(0.7143);
    expect(r.miiScore).toBe(0.5); // y absent altogether counts as unmeasured
    expect(r.scoring.inputs["gi.b"]).toEqual({ value: null, measured: false, weight: 0.3 });
    expect(r.scoring.inputs["mii.y"]).toEqual({ value: null, measured: false, weight: 3 });
  });

  it("has no score when nothing of it is measured, and requireScores refuses", () => {
    const r = computeScores(weights, { "gi.a": 0.9 });
    expect(r.giScore).toBe(0.9);
    expect(r.miiScore).toBeNull();
    expect(() => requireScores(r)).toThrow(ScoringError);
    expect(() => requireScores(r)).toThrow(/no signal of MII was measured/);
    const none = computeScores(weights, {});
    expect(none.giScore).toBeNull();
    expect(() => requireScores(none)).toThrow(/GI or MII/);
    expect(requireScores(computeScores(weights, { "gi.c": 0, "mii.x": 1 }))).toMatchObject({ giScore: 0, miiScore: 1 });
  });

  it("treats a measured signal of weight 0 as recorded but not scoring", () => {
    const w: ScoringWeights = { version: "w0", gi: { a: 0, b: 1 }, mii: { x: 0 } };
    const r = computeScores(w, { "gi.a": 0, "gi.b": 1, "mii.x": 1 });
    expect(r.giScore).toBe(1);
    expect(r.scoring.inputs["gi.a"]).toEqual({ value: 0, measured: true, weight: 0 });
    expect(r.miiScore).toBeNull(); // only a weight-0 signal: no score
  });

  it("reaches the boundaries 0 and 1 exactly", () => {
    const all = (v: number) => ({ "gi.a": v, "gi.b": v, "gi.c": v, "mii.x": v, "mii.y": v });
    expect(computeScores(weights, all(0))).toMatchObject({ giScore: 0, miiScore: 0 });
    expect(computeScores(weights, all(1))).toMatchObject({ giScore: 1, miiScore: 1 });
    // 0.1·3 in floats is 0.30000000000000004; the mean of three 1s must still be exactly 1.
    const thirds: ScoringWeights = { version: "t", gi: { a: 0.1, b: 0.1, c: 0.1 }, mii: { x: 0.1 } };
    expect(computeScores(thirds, { "gi.a": 1, "gi.b": 1, "gi.c": 1, "mii.x": 1 }).giScore).toBe(1);
  });

  it("rounds each input and the score to 4 decimals, so the score recomputes from the record", () => {
    const r = computeScores(weights, {
      "gi.a": 2 / 3,
      "gi.b": 1 / 3,
      "gi.c": 0.123456,
      "mii.x": 0.99995,
      "mii.y": 0.00004,
    });
    expect(r.scoring.inputs["gi.a"]!.value).toBe(0.6667);
    expect(r.scoring.inputs["gi.b"]!.value).toBe(0.3333);
    expect(r.scoring.inputs["gi.c"]!.value).toBe(0.1235);
    expect(r.scoring.inputs["mii.y"]!.value).toBe(0);
    const fromRecord = (score: "gi" | "mii") => {
      let sum = 0;
      let total = 0;
      for (const [name, input] of Object.entries(r.scoring.inputs)) {
        if (!name.startsWith(`${score}.`) || !input.measured) continue;
        sum += input.weight * input.value!;
        total += input.weight;
      }
      return round4(sum / total);
    };
    expect(r.giScore).toBe(fromRecord("gi"));
    expect(r.miiScore).toBe(fromRecord("mii"));
  });

  it("refuses values outside [0, 1] and signals the configuration does not weigh", () => {
    expect(() => computeScores(weights, { "gi.a": 1.01 })).toThrow(/gi.a is 1.01/);
    expect(() => computeScores(weights, { "gi.a": -0.1 })).toThrow(ScoringError);
    expect(() => computeScores(weights, { "gi.a": Number.NaN })).toThrow(ScoringError);
    expect(() => computeScores(weights, { "gi.z": 1 })).toThrow(/gi.z has no weight in scoring version test-1/);
  });
});

describe("round4", () => {
  it("rounds half-up on the binary value and never yields -0", () => {
    expect(round4(0.12344)).toBe(0.1234);
    expect(round4(0.98765)).toBe(0.9877);
    expect(Object.is(round4(-0.00001), 0)).toBe(true);
    expect(round4(1)).toBe(1);
  });
});
