import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AVM_ERROR_CODES, AvmFailure } from "../schemas/avm.ts";
import { AVM_RULE_NAMES, AVM_RULES, failureOutput } from "./rules.ts";

const README = readFileSync(join(import.meta.dirname, "..", "..", "README.md"), "utf8");

/** The rows between the README's avm-rules markers, as cells. */
function readmeRows(): string[][] {
  const start = README.indexOf("<!-- avm-rules:begin -->");
  const end = README.indexOf("<!-- avm-rules:end -->");
  expect(start).toBeGreaterThan(-1);
  expect(end).toBeGreaterThan(start);
  const lines = README.slice(start, end).split("\n").filter((l) => l.startsWith("| `"));
  return lines.map((l) => l.slice(1, -1).split(/(?<!\\)\|/).map((c) => c.trim().replaceAll("\\|", "|")));
}

describe("the rule table", () => {
  it("the README mirrors it row for row, in order", () => {
    const expected = AVM_RULE_NAMES.map((rule) => {
      const r = AVM_RULES[rule];
      return [`\`${rule}\``, r.stage, r.code, `\`${r.error}\``, r.remediation, r.when];
    });
    expect(readmeRows()).toEqual(expected);
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
