import { z } from "zod";
import { describe, expect, it } from "vitest";
import { jsonText, publishJson, readStepJson } from "./json.ts";

describe("JSON output", () => {
  const Doc = z.strictObject({ cycle: z.string(), n: z.number() });

  it("writes two-space indented JSON with a final newline", () => {
    expect(jsonText({ cycle: "C-1", n: 2 })).toBe('{\n  "cycle": "C-1",\n  "n": 2\n}\n');
    expect(publishJson("x.json", Doc, { cycle: "C-1", n: 2 })).toBe(jsonText({ cycle: "C-1", n: 2 }));
  });

  it("refuses a document that does not match its schema, naming the output and the field", () => {
    expect(() => publishJson("area/x.json", Doc, { cycle: "C-1", n: "2" } as unknown as z.infer<typeof Doc>)).toThrow(
      /area\/x\.json does not match its schema: n:/,
    );
  });

  it("reads a declared step output", () => {
    const outputs = new Map([["area/x.json", new TextEncoder().encode(jsonText({ cycle: "C-1", n: 2 }))]]);
    expect(readStepJson(outputs, "area/x.json", Doc)).toEqual({ cycle: "C-1", n: 2 });
    expect(() => readStepJson(outputs, "area/y.json", Doc)).toThrow(/declare "step:area\/y\.json"/);
  });
});
