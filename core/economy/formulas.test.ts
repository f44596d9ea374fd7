import { describe, expect, it } from "vitest";
import { formatMicDecimal, shardsToMicNumber } from "../money/units.ts";
import { coordinationScore, logisticReward, rewardShards } from "./formulas.ts";

describe("coordination score", () => {
  it("weights the work terms 0.4/0.3/0.2/0.1 and scales by 1 + ln(uptime)", () => {
    const base = { apps: 1, packages: 0, workflows: 0, drift: 10, uptimeDays: 1 };
    expect(coordinationScore(base)).toBeCloseTo(0.4, 12);
    expect(coordinationScore({ ...base, apps: 0, packages: 1 })).toBeCloseTo(0.3, 12);
    expect(coordinationScore({ ...base, apps: 0, workflows: 1 })).toBeCloseTo(0.2, 12);
    expect(coordinationScore({ ...base, apps: 0, drift: 0 })).toBeCloseTo(1, 12);
    expect(coordinationScore({ ...base, uptimeDays: Math.E })).toBeCloseTo(0.8, 12);
    expect(coordinationScore({ ...base, uptimeDays: 0 })).toBeCloseTo(0.4, 12); // clamped to one day
  });
});

describe("logistic reward", () => {
  it("is L/2 × M_c at the inflection point and tends to 0 and L", () => {
    expect(logisticReward(50, 1)).toBe(500);
    expect(logisticReward(50, 2)).toBe(1000);
    expect(logisticReward(1000, 1)).toBeCloseTo(1000, 9);
    expect(logisticReward(-1000, 1)).toBeCloseTo(0, 9);
    expect(logisticReward(60, 1)).toBeCloseTo(1000 / (1 + Math.exp(-0.5)), 12);
  });
  it("refuses multipliers outside [1, 2]", () => {
    expect(() => logisticReward(50, 0.99)).toThrow(/outside/);
    expect(() => logisticReward(50, 2.01)).toThrow(/outside/);
    expect(() => logisticReward(50, Number.NaN)).toThrow(/outside/);
  });
  it("converts to integer shards once, and formats shards without floats", () => {
    expect(rewardShards(50, 1.5)).toBe(750_000_000n);
    expect(formatMicDecimal(1_234_567n)).toBe("1.234567");
    expect(formatMicDecimal(5n)).toBe("0.000005");
    expect(formatMicDecimal(-1_000_000n)).toBe("-1.000000");
    expect(shardsToMicNumber(2_500_000n)).toBe(2.5);
  });
});
