import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AVM_ERROR_CODES, AvmFailure } from "../schemas/avm.ts";
import { AVM_RULE_NAMES, AVM_RULES, failureOutput } from "./rules.ts";

/** The manual's copy of the rule table (docs/authority.md), between its avm-rules markers. */
const MANUAL = readFileSync(join(import.meta.dirname, "..", "..", "docs", "authority.md"), "utf8");

/** The rows between the markers, as cells. */
function manualRows(): string[][] {
  const start = MANUAL.indexOf("<!-- avm-rules:begin -->");
  const end = MANUAL.indexOf("<!-- avm-rules:end -->");
  expect(start).toBeGreaterThan(-1);
  expect(end).toBeGreaterThan(start);
  const lines = MANUAL.slice(start, end)
    .split("\n")
    .filter((l) => l.startsWith("| `"));
  return lines.map((l) =>
    l
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim().replaceAll("\\|", "|")),
  );
}

describe("the rule table", () => {
  it("the manual (docs/authority.md) mirrors it row for row, in order", () => {
    const expected = AVM_RULE_NAMES.map((rule) => {
      const r = AVM_RULES[rule];
      return [`\`${rule}\``, r.stage, r.code, `\`${r.error}\``, r.remediation, r.when];
    });
    expect(manualRows()).toEqual(expected);
  });

  it("every AVM code has a rule, and every failure output is valid", () => {
    expect(new Set(AVM_RULE_NAMES.map((r) => AVM_RULES[r].code))).toEqual(new Set(AVM_ERROR_CODES));
    for (const rule of AVM_RULE_NAMES) {
      const out = failureOutput(rule, "detail");
      expect(AvmFailure.parse(out)).toEqual(out);
      expect(out.error_detail).toBe(`${rule}: detail`);
    }
  });
});
