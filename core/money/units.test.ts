import { describe, expect, it } from "vitest";
import { MAX_BALANCE_SHARDS, formatMicDecimal, micNumberText, parseMic, shardsToMicNumber } from "./units.ts";

describe("parseMic", () => {
  it.each([
    ["0", 0n],
    ["1", 1_000_000n],
    ["1.005", 1_005_000n],
    ["0.000001", 1n],
    ["1E2", 100_000_000n],
    ["1e-6", 1n],
    ["12.5e-1", 1_250_000n],
    ["1.0000000", 1_000_000n],
    ["-0", 0n],
    ["123456789012345.678901", 123_456_789_012_345_678_901n],
    ["0e999999999", 0n],
    ["0.000", 0n],
    ["9999999999999999999.999999", 9_999_999_999_999_999_999_999_999n],
  ])("reads %s exactly", (text, shards) => {
    expect(parseMic(text)).toEqual({ ok: true, shards });
  });

  it.each([
    ["1.0000001", "too-precise"],
    ["1e-7", "too-precise"],
    ["-1", "negative"],
    ["01", "not-a-number"],
    ["1.", "not-a-number"],
    [".5", "not-a-number"],
    ["NaN", "not-a-number"],
    ["", "not-a-number"],
    [" 1", "not-a-number"],
    ["1e999999999", "too-large"],
    ["1e-999999999", "too-precise"],
    ["-1e999999999", "negative"],
  ])("refuses %s (%s)", (text, error) => {
    expect(parseMic(text)).toEqual({ ok: false, error });
  });

  it("refuses amounts above the maximum", () => {
    expect(parseMic("10", 9_000_000n)).toEqual({ ok: false, error: "too-large" });
    expect(parseMic("9", 9_000_000n)).toEqual({ ok: true, shards: 9_000_000n });
  });
});

describe("formatting", () => {
  it("renders six decimals without floats", () => {
    expect(formatMicDecimal(1_005_000n)).toBe("1.005000");
    expect(formatMicDecimal(-1n)).toBe("-0.000001");
    expect(formatMicDecimal(2n ** 70n)).toBe("1180591620717411.303424");
    expect(shardsToMicNumber(7_269_274_849n)).toBe(7269.274849);
  });
});

describe("the origin project's float conversion", () => {
  it("lost a shard on 1.005 MIC; reading the text does not", () => {
    // What the origin did: multiply the float and truncate.
    expect(Math.floor(1.005 * 1_000_000)).toBe(1_004_999);
    expect(parseMic("1.005")).toEqual({ ok: true, shards: 1_005_000n });
    expect(parseMic("1.005e0")).toEqual({ ok: true, shards: 1_005_000n });
    expect(parseMic("100.5E-2")).toEqual({ ok: true, shards: 1_005_000n });
  });
});

describe("micNumberText", () => {
  it.each([
    [0n, "0"],
    [1n, "0.000001"],
    [1_005_000n, "1.005"],
    [100_000_000n, "100"],
    [10_500_000n, "10.5"],
    [MAX_BALANCE_SHARDS, "9223372036854.775807"],
  ])("%s shards → %s, which reads back exactly", (shards, text) => {
    expect(micNumberText(shards)).toBe(text);
    expect(parseMic(text)).toEqual({ ok: true, shards });
  });

  it("has the documented maximum: 2^63 − 1 shards", () => {
    expect(MAX_BALANCE_SHARDS).toBe(9_223_372_036_854_775_807n);
    expect(parseMic("9223372036854.775807", MAX_BALANCE_SHARDS)).toEqual({ ok: true, shards: MAX_BALANCE_SHARDS });
    expect(parseMic("9223372036854.775808", MAX_BALANCE_SHARDS)).toEqual({ ok: false, error: "too-large" });
  });
});
