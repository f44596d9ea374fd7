import { describe, expect, it } from "vitest";
import { z } from "zod";
import { formatIssues, issuePath } from "./zod-issues.ts";

describe("formatIssues", () => {
  it("names every field at fault by its path, and the whole value by the name given", () => {
    const schema = z.strictObject({ a: z.strictObject({ b: z.number() }), list: z.array(z.string()) });
    const result = schema.safeParse({ a: { b: "x" }, list: [1] });
    expect(result.success).toBe(false);
    expect(formatIssues(result.error!.issues)).toMatch(/^a\.b: .+; list\[0\]: .+$/);
    const whole = z.number().safeParse("x");
    expect(formatIssues(whole.error!.issues, "(payload)")).toMatch(/^\(payload\): /);
    expect(issuePath([])).toBe("(root)");
    expect(issuePath([Symbol.for("s"), 2, "x"])).toBe("Symbol(s)[2].x");
  });
});
