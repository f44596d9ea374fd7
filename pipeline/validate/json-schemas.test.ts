import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ajvProblem, JsonSchemaSet } from "./json-schemas.ts";

const SCHEMAS = join(new URL("../..", import.meta.url).pathname, "data", "schemas");
const ROW = "https://integrity-platform.example/schemas/government/audit-trail-row.schema.json";

describe("the published schemas' patterns", () => {
  it("check a digest as its pattern does, through the fast digest check, and every other pattern as a regular expression", () => {
    const row = new JsonSchemaSet(SCHEMAS, { formats: "fast" }).validator(ROW);
    const item = (attestation_hash: string, event_type = "mic_burn") => ({
      timestamp: "2026-01-01T00:00:00.000Z",
      event_type,
      agent: "treasury",
      data: "{}",
      attestation_hash,
    });
    const hex = "ab".repeat(32);
    expect(row(item(`sha256:${hex}`))).toBe(true);
    for (const bad of [
      `sha256:${hex.toUpperCase()}`,
      `sha256:${hex}\n`,
      `sha256:${hex.slice(1)}`,
      `sha256:${hex.slice(1)}\u0130`,
    ])
      expect(row(item(bad))).toBe(false);
    expect(ajvProblem(row.errors)).toMatch(/must match pattern "\^sha256:\[0-9a-f\]\{64\}\$"/);
    expect(row(item(`sha256:${hex}`, "Mic.Burn"))).toBe(false);
  });
});
