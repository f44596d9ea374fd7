import { describe, expect, it } from "vitest";
import { formatMicDecimal, parseMic, shardsToMicNumber } from "./units.ts";

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
