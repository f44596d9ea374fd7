import { describe, expect, it } from "vitest";
import { withExactMicFigures } from "./exact-json.ts";

describe("withExactMicFigures", () => {
  it("writes a figure past 2^53 shards from its shard count, not from the double", () => {
    // 2^53 + 2 shards = 9007199254.740994 MIC: through a double it reads …740993.
    const shards = 2n ** 53n + 2n;
    const doc = { locked: Number("9007199254.740994"), locked_shards: shards.toString(), note: "x" };
    expect(JSON.stringify(doc)).toContain('"locked":9007199254.740993,');
    const text = JSON.stringify(withExactMicFigures(doc, ["locked"]));
    expect(text).toBe('{"locked":9007199254.740994,"locked_shards":"9007199254740994","note":"x"}');
    expect(doc.locked).toBeTypeOf("number"); // the input is left as it was
  });

  it("writes the largest accepted amount (2^63 − 1 shards) to the last shard", () => {
    const doc = { burned: 9223372036854.775807, burned_shards: (2n ** 63n - 1n).toString() };
    expect(JSON.stringify(withExactMicFigures(doc, ["burned"]))).toContain('"burned":9223372036854.775807,');
  });

  it("writes the same text as a double below 2^53 shards", () => {
    for (const shards of [0n, 1n, 1_005_000n, 980_000_500_000n, 2n ** 40n + 7n]) {
      const doc = { burned: Number(shards) / 1e6, burned_shards: shards.toString() };
      expect(JSON.stringify(withExactMicFigures(doc, ["burned"]))).toBe(JSON.stringify(doc));
    }
  });

  it("refuses a figure without its shard count", () => {
    expect(() => withExactMicFigures({ burned: 1 } as { burned: number }, ["burned"])).toThrow(/burned_shards/);
  });
});
