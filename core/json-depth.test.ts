import { describe, expect, it } from "vitest";
import { jsonDepthWithin, MAX_JSON_DEPTH } from "./json-depth.ts";

const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

describe("jsonDepthWithin", () => {
  it("counts arrays and objects, not scalars", () => {
    expect(jsonDepthWithin("1", 0)).toBe(true);
    expect(jsonDepthWithin('"x"', 0)).toBe(true);
    expect(jsonDepthWithin("[]", 0)).toBe(false);
    expect(jsonDepthWithin('{"a":[1]}', 2)).toBe(true);
    expect(jsonDepthWithin('{"a":[1]}', 1)).toBe(false);
  });

  it("refuses one level past the bound and accepts the bound itself", () => {
    expect(jsonDepthWithin(nested(MAX_JSON_DEPTH))).toBe(true);
    expect(jsonDepthWithin(nested(MAX_JSON_DEPTH + 1))).toBe(false);
  });

  it("ignores brackets inside strings, escaped quotes included", () => {
    expect(jsonDepthWithin(JSON.stringify({ a: "[[[[[[[[", b: '\\"[[[[' }), 1)).toBe(true);
    expect(jsonDepthWithin(`{"a":"\\"","b":[[1]]}`, 2)).toBe(false);
  });

  it("scans 6,000 levels without recursing (the issue's body)", () => {
    expect(jsonDepthWithin(`{"x":${nested(6000)}}`)).toBe(false);
    expect(jsonDepthWithin(nested(1_000_000))).toBe(false);
  });
});
