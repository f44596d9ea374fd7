import { describe, expect, it } from "vitest";
import { decimalOf, decimalOfShards, equalsShards, formatDecimal } from "./decimal.ts";

describe("exact decimals", () => {
  it.each([
    ["1.005", 1005n, -3],
    ["1E2", 1n, 2],
    ["1e-7", 1n, -7],
    ["12.50", 1250n, -2],
    ["0.000", 0n, -3],
    ["-2.5e3", -25n, 2],
    ["0.30000000000000004", 30000000000000004n, -17],
  ])("reads %s as %s × 10^%s", (text, coefficient, exponent) => {
    expect(decimalOf(text)).toEqual({ coefficient, exponent });
  });

  it("refuses what is not a JSON number", () => {
    for (const t of ["", "NaN", "1.", ".5", "01", "+1", "1e", "0x10", " 1", "1e99999"])
      expect(decimalOf(t), t).toBeNull();
  });

  it("compares with shards exactly, however the number is written", () => {
    for (const [text, shards] of [
      ["1.005", 1_005_000n],
      ["1E2", 100_000_000n],
      ["1.0000000", 1_000_000n],
      ["12.50", 12_500_000n],
      ["0", 0n],
      ["1e-6", 1n],
      ["100.5E-2", 1_005_000n],
    ] as const) {
      expect(equalsShards(decimalOf(text)!, shards), text).toBe(true);
      expect(equalsShards(decimalOf(text)!, shards + 1n), text).toBe(false);
    }
    // The origin's conversion: 1.005 MIC is not 1,004,999 shards.
    expect(equalsShards(decimalOf("1.005")!, 1_004_999n)).toBe(false);
    expect(equalsShards(decimalOf("1e-7")!, 0n)).toBe(false);
  });

  it("formats without rounding", () => {
    expect(formatDecimal(decimalOfShards(300_001n))).toBe("0.300001");
    expect(formatDecimal(decimalOfShards(100_000_000n))).toBe("100");
    expect(formatDecimal(decimalOfShards(0n))).toBe("0");
    expect(formatDecimal(decimalOfShards(9_223_372_036_854_775_807n))).toBe("9223372036854.775807");
    expect(formatDecimal({ coefficient: 1n, exponent: 3 })).toBe("1000");
    expect(formatDecimal({ coefficient: -5n, exponent: -3 })).toBe("-0.005");
  });
});
