import { describe, expect, it } from "vitest";
import { jsonBodyProblem as problemOf } from "./json-body.ts";
import { scanJson } from "./json-depth.ts";

const jsonBodyProblem = (text: string) => problemOf(text, scanJson(text).members);

describe("jsonBodyProblem", () => {
  it("accepts JSON the ledger can record as sent, and leaves text that is not JSON to the parser", () => {
    for (const text of ['{"a":1,"b":[{"a":2},{"a":3}],"c":"x:y"}', "[]", '"\\ud83d\\ude00"', "1e308", "{not json"])
      expect(jsonBodyProblem(text), text).toBeNull();
  });

  it("refuses a member given twice, at any depth, even when a string holds colons", () => {
    expect(jsonBodyProblem('{"a":1,"a":2}')).toEqual({
      pointer: "",
      reason: "a member name appears twice in one object",
    });
    expect(jsonBodyProblem('{"x":"a:b","o":{"k":1,"k":1}}')?.reason).toContain("twice");
    expect(jsonBodyProblem('{"a":{"b":1},"c":{"b":1}}')).toBeNull();
  });

  it("refuses __proto__, lone surrogates and numbers beyond double range, with a pointer", () => {
    expect(jsonBodyProblem('{"context":{"__proto__":{"x":1}}}')).toEqual({
      pointer: "/context/__proto__",
      reason: "a member named __proto__",
    });
    expect(jsonBodyProblem('{"room":"\\ud800"}')).toEqual({
      pointer: "/room",
      reason: "a string with a lone surrogate",
    });
    expect(jsonBodyProblem('{"a/b":[0,{"\\udc00":1}]}')).toEqual({
      pointer: "/a~1b/1/\udc00",
      reason: "a member name with a lone surrogate",
    });
    expect(jsonBodyProblem('{"n":[1e400]}')).toEqual({
      pointer: "/n/0",
      reason: "a number beyond the range of a double",
    });
  });
});
