import { describe, expect, it } from "vitest";
import { scanV1Line } from "./v1-export.ts";

describe("scanning a v1 export line", () => {
  it("keeps the number's source text", () => {
    expect(scanV1Line('{"address":"ATLAS","balance_gic":1.005}')).toEqual({
      ok: true,
      address: "ATLAS",
      value: "1.005",
      valueIsString: false,
    });
    expect(scanV1Line('{ "balance_gic" : 1E2 , "address" : "a-1" }')).toEqual({
      ok: true,
      address: "a-1",
      value: "1E2",
      valueIsString: false,
    });
    expect(scanV1Line('{"address":"x","balance_gic":1e-7}\r')).toMatchObject({ ok: true, value: "1e-7" });
  });

  it("keeps tokens that are not numbers, for the conversion to judge", () => {
    expect(scanV1Line('{"address":"x","balance_gic":NaN}')).toMatchObject({
      ok: true,
      value: "NaN",
      valueIsString: false,
    });
    expect(scanV1Line('{"address":"x","balance_gic":-Infinity}')).toMatchObject({ ok: true, value: "-Infinity" });
    expect(scanV1Line('{"address":"x","balance_gic":null}')).toMatchObject({
      ok: true,
      value: "null",
      valueIsString: false,
    });
    expect(scanV1Line('{"address":"x","balance_gic":"12.5"}')).toMatchObject({
      ok: true,
      value: "12.5",
      valueIsString: true,
    });
  });

  it("decodes escaped addresses", () => {
    expect(scanV1Line('{"address":"A\\u0054LAS","balance_gic":1}')).toMatchObject({ ok: true, address: "ATLAS" });
  });

  it.each([
    ["", "not a JSON object"],
    ["[1]", "not a JSON object"],
    ["{}", "empty object"],
    ['{"address":"x"}', 'no "balance_gic"'],
    ['{"balance_gic":1}', 'no "address"'],
    ['{"address":7,"balance_gic":1}', '"address" is not a string'],
    ['{"address":"x","balance_gic":1,"note":"y"}', 'unknown member "note"'],
    ['{"address":"x","balance_gic":1,"balance_gic":2}', 'member "balance_gic" appears twice'],
    ['{"address":"x","balance_gic":{"v":1}}', "expected a value"],
    ['{"address":"x","balance_gic":1', "expected ',' or '}'"],
    ['{"address":"x","balance_gic":1} x', "unexpected text"],
    ['{address:"x","balance_gic":1}', "expected a member name"],
  ])("reports %j as malformed (%s)", (line, detail) => {
    const r = scanV1Line(line);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.problem).toBe("malformed-line");
      expect(r.detail).toContain(detail);
    }
  });

  it("still names the address of a malformed line when it could be read", () => {
    expect(scanV1Line('{"address":"x","balance_gic":1,"balance_gic":2}')).toMatchObject({ ok: false, address: "x" });
  });
});
