import { describe, expect, it } from "vitest";
import { convertV1Export, exportLines, mismatchCounts, verifyConversion, type Conversion } from "./convert.ts";

const line = (address: string, gic: string) => `{"address":"${address}","balance_gic":${gic}}`;

describe("converting a v1 export", () => {
  it("converts exactly from the text, exponent forms included", () => {
    const c = convertV1Export([
      line("a", "1.005"),
      line("b", "1E2"),
      line("c", "1e-6"),
      line("d", "12.50"),
      line("e", "2.5E-3"),
      line("f", "1.0000000"),
      line("g", "-0"),
    ]);
    expect(c.mismatches).toEqual([]);
    expect(c.balances.map((b) => [b.address, b.shards])).toEqual([
      ["a", 1_005_000n],
      ["b", 100_000_000n],
      ["c", 1n],
      ["d", 12_500_000n],
      ["e", 2_500n],
      ["f", 1_000_000n],
      ["g", 0n],
    ]);
    expect(c.balances[0]!.v1Text).toBe("1.005");
    expect(c.totalShards).toBe(114_507_501n);
  });

  it("sorts by address in byte order, whatever the export's order", () => {
    const c = convertV1Export([
      line("b", "1"),
      line("B", "2"),
      line("a-1", "3"),
      line("a", "4"),
      line("10", "5"),
      line("9", "6"),
    ]);
    expect(c.balances.map((b) => b.address)).toEqual(["10", "9", "B", "a", "a-1", "b"]);
    expect(c.balances.map((b) => b.line)).toEqual([5, 6, 2, 4, 3, 1]);
  });

  it("reports every value it cannot convert exactly, with address, text and reason", () => {
    const input = [
      line("ok", "5"),
      line("precise", "1e-7"),
      line("float-artifact", "0.30000000000000004"),
      line("neg", "-12.5"),
      line("huge", "1e30"),
      line("max", "9223372036854.775807"),
      line("over-max", "9223372036854.775808"),
      line("str", '"17.25"'),
      line("nan", "NaN"),
      line("inf", "Infinity"),
      line("nul", "null"),
      line("has space", "1"),
      '{"address":"extra","balance_gic":1,"note":"x"}',
      "not json",
    ];
    const c = convertV1Export(input);
    expect(c.mismatches).toEqual([
      { line: 2, address: "precise", input: input[1], reason: "too-precise" },
      { line: 3, address: "float-artifact", input: input[2], reason: "too-precise" },
      { line: 4, address: "neg", input: input[3], reason: "negative" },
      { line: 5, address: "huge", input: input[4], reason: "too-large" },
      { line: 7, address: "over-max", input: input[6], reason: "too-large" },
      { line: 8, address: "str", input: input[7], reason: "not-a-number" },
      { line: 9, address: "nan", input: input[8], reason: "not-a-number" },
      { line: 10, address: "inf", input: input[9], reason: "not-a-number" },
      { line: 11, address: "nul", input: input[10], reason: "not-a-number" },
      { line: 12, address: "has space", input: input[11], reason: "invalid-address" },
      { line: 13, address: "extra", input: input[12], reason: "malformed-line" },
      { line: 14, address: null, input: input[13], reason: "malformed-line" },
    ]);
    expect(c.balances.map((b) => [b.address, b.shards])).toEqual([
      ["max", 9_223_372_036_854_775_807n],
      ["ok", 5_000_000n],
    ]);
    expect(mismatchCounts(c.mismatches)).toEqual({
      "malformed-line": 2,
      "invalid-address": 1,
      "duplicate-address": 0,
      "not-a-number": 4,
      negative: 1,
      "too-precise": 2,
      "too-large": 2,
    });
  });

  it("reports every line of a duplicated address and converts none of them", () => {
    const input = [line("dup", "10"), line("x", "1"), line("dup", "10.5"), line("dup", "-1")];
    const c = convertV1Export(input);
    expect(c.balances.map((b) => b.address)).toEqual(["x"]);
    expect(c.mismatches).toEqual([
      { line: 1, address: "dup", input: input[0], reason: "duplicate-address" },
      { line: 3, address: "dup", input: input[2], reason: "duplicate-address" },
      { line: 4, address: "dup", input: input[3], reason: "duplicate-address" },
    ]);
    // Equal values on both lines are still a duplicate: nothing says the account is one.
    expect(convertV1Export([line("d", "1"), line("d", "1")]).mismatches.map((m) => m.reason)).toEqual([
      "duplicate-address",
      "duplicate-address",
    ]);
  });

  it("loses no line: converted + reported = read", () => {
    const c = convertV1Export(exportLines(`${line("a", "1")}\n\n${line("a", "2")}\n${line("b", "x")}\n`));
    expect(c.lines).toBe(4);
    expect(c.balances.length + c.mismatches.length).toBe(4);
    expect(c.mismatches.map((m) => [m.line, m.reason])).toEqual([
      [1, "duplicate-address"],
      [2, "malformed-line"],
      [3, "duplicate-address"],
      [4, "not-a-number"],
    ]);
  });
});

describe("verifying a conversion", () => {
  const c = convertV1Export([line("a", "1.005"), line("b", "1E2"), line("c", "0.000001"), line("d", "7")]);

  it("finds every balance equal to its former value and the totals equal", () => {
    expect(verifyConversion(c)).toEqual({
      ok: true,
      v1Total: "108.005001",
      v2Total: "108.005001",
      differing: [],
      accounted: true,
      sorted: true,
    });
  });

  it("fails on a balance off by one shard (the origin's 1.005 → 1,004,999)", () => {
    const broken: Conversion = {
      ...c,
      balances: c.balances.map((b) => (b.address === "a" ? { ...b, shards: 1_004_999n } : b)),
      totalShards: c.totalShards - 1n,
    };
    const check = verifyConversion(broken);
    expect(check.ok).toBe(false);
    expect(check.differing).toEqual(["a"]);
    // The same for an exponent form and for a value shifted by a factor of ten.
    const shifted: Conversion = {
      ...c,
      balances: c.balances.map((b) =>
        b.address === "b" ? { ...b, shards: 10_000_000n } : b.address === "c" ? { ...b, shards: 10n } : b,
      ),
    };
    expect(verifyConversion(shifted).differing).toEqual(["b", "c"]);
  });

  it("fails when the total does not add up, a line is lost, or the order is wrong", () => {
    expect(verifyConversion({ ...c, totalShards: c.totalShards + 1n }).ok).toBe(false);
    expect(verifyConversion({ ...c, balances: c.balances.slice(1) }).accounted).toBe(false);
    expect(verifyConversion({ ...c, balances: [...c.balances].reverse() }).sorted).toBe(false);
  });
});
