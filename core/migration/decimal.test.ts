import { describe, expect, it } from "vitest";
import { addDecimals, decimalOf, decimalOfShards, equalDecimals, formatDecimal } from "./decimal.ts";

describe("exact decimals", () => {
  it.each([
    ["1.005", 1005n, -3],
    ["1E2", 1n, 2],
    ["1e-7", 1n, -7],
    ["12.50", 125n, -1],
    ["0.000", 0n, 0],
    ["-2.5e3", -25n, 2],
    ["0.30000000000000004", 30000000000000004n, -17],
  ])("reads %s as %s × 10^%s", (text, coefficient, exponent) => {
    expect(decimalOf(text)).toEqual({ coefficient, exponent });
  });

  it("refuses what is not a JSON number", () => {
    for (const t of ["", "NaN", "1.", ".5", "01", "+1", "1e", "0x10", " 1"]) expect(decimalOf(t), t).toBeNull();
  });

  it("compares shards with the former balance exactly", () => {
    expect(equalDecimals(decimalOfShards(1_005_000n), decimalOf("1.005")!)).toBe(true);
    expect(equalDecimals(decimalOfShards(1_004_999n), decimalOf("1.005")!)).toBe(false);
    expect(equalDecimals(decimalOfShards(100_000_000n), decimalOf("1E2")!)).toBe(true);
  });

  it("adds and formats without rounding", () => {
    const sum = [decimalOf("0.1")!, decimalOf("0.2")!, decimalOf("1e-6")!].reduce(addDecimals);
    expect(formatDecimal(sum)).toBe("0.300001");
    expect(formatDecimal({ coefficient: 1n, exponent: 3 })).toBe("1000");
    expect(formatDecimal({ coefficient: -5n, exponent: -3 })).toBe("-0.005");
    expect(formatDecimal({ coefficient: 0n, exponent: -6 })).toBe("0");
  });
});
