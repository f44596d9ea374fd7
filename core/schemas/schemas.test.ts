import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { fixtures } from "../../test/support/core/schemas/helpers.ts";
import {
  AuditTrailRow,
  AuthorityContext,
  AvmCheckResponse,
  AvmVerifyResponse,
  BalanceV2,
  CompanionAttestation,
  Cycle,
  Digest,
  IsoDate,
  IsoTimestamp,
  OpenSessionInput,
  PulseHistoryResponse,
  PulseRecord,
  RiskLevel,
  ShardString,
  formatShardsAsMic,
  publishedSchemaNames,
  publishedSchemas,
} from "./index.ts";
import { SCHEMA_BASE_URI, schemaId, toPublishedJsonSchema } from "./json-schema.ts";
import { renderPublishedSchemas } from "./published-files.ts";

function newAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats.default(ajv);
  return ajv;
}

describe("published JSON Schema files", () => {
  const rendered = renderPublishedSchemas();

  it("renders deterministically, with $id, title and draft 2020-12", () => {
    const again = renderPublishedSchemas();
    expect([...again.entries()]).toEqual([...rendered.entries()]);
    for (const [name, text] of rendered) {
      const doc = JSON.parse(text) as Record<string, unknown>;
      expect(Object.keys(doc).slice(0, 3)).toEqual(["$schema", "$id", "title"]);
      expect(doc["$schema"]).toBe("https://json-schema.org/draft/2020-12/schema");
      expect(doc["$id"]).toBe(`${SCHEMA_BASE_URI}${name}.schema.json`);
      expect(doc["title"]).toBe(name);
      expect(text.endsWith("}\n")).toBe(true);
    }
  });

  it("every registry name is kebab-case, optionally <area>/<stem>", () => {
    for (const name of publishedSchemaNames) {
      expect(name).toMatch(/^(?:(?:government|academics|philosophy|economy|diplomacy)\/)?[a-z0-9]+(?:-[a-z0-9]+)*$/);
    }
    expect(() => toPublishedJsonSchema("Bad Name", Cycle)).toThrow();
    expect(schemaId("economy/supply")).toBe(`${SCHEMA_BASE_URI}economy/supply.schema.json`);
  });

  it("every object in every schema rejects unknown keys", () => {
    const offenders: string[] = [];
    const visit = (node: unknown, where: string): void => {
      if (Array.isArray(node)) {
        node.forEach((child, i) => visit(child, `${where}/${i}`));
        return;
      }
      if (node === null || typeof node !== "object") return;
      const obj = node as Record<string, unknown>;
      if (obj["type"] === "object" && obj["properties"] !== undefined && obj["additionalProperties"] !== false) {
        offenders.push(where);
      }
      for (const [key, child] of Object.entries(obj)) visit(child, `${where}/${key}`);
    };
    for (const [name, text] of rendered) visit(JSON.parse(text), name);
    expect(offenders).toEqual([]);
  });
});

describe("fixtures: zod and the published JSON Schema agree", () => {
  const ajv = newAjv();
  const rendered = renderPublishedSchemas();

  it("has fixtures for exactly the registry entries", () => {
    expect(Object.keys(fixtures).sort()).toEqual([...publishedSchemaNames]);
  });

  for (const name of publishedSchemaNames) {
    describe(name, () => {
      const schema: z.ZodType = publishedSchemas[name];
      const fixture = fixtures[name];
      const validate = ajv.compile(JSON.parse(rendered.get(name) ?? "null") as object);

      it("accepts the valid fixture", () => {
        const parsed = schema.safeParse(fixture.valid);
        expect(parsed.error?.issues ?? [], "zod").toEqual([]);
        const ok = validate(fixture.valid);
        expect(validate.errors ?? [], "ajv").toEqual([]);
        expect(ok).toBe(true);
        // The valid fixture survives a JSON round trip unchanged (published documents are JSON).
        expect(JSON.parse(JSON.stringify(fixture.valid))).toEqual(fixture.valid);
        expect(parsed.data).toEqual(fixture.valid);
      });

      it("rejects every invalid fixture", () => {
        expect(fixture.invalid.length).toBeGreaterThanOrEqual(2);
        fixture.invalid.forEach((bad, i) => {
          expect(schema.safeParse(bad).success, `zod accepted invalid #${i}: ${JSON.stringify(bad)}`).toBe(false);
          expect(validate(bad), `ajv accepted invalid #${i}: ${JSON.stringify(bad)}`).toBe(false);
        });
      });
    });
  }
});

describe("rules", () => {
  const ok = (schema: z.ZodType, value: unknown) => schema.safeParse(value).success;

  it("Digest: sha256: + 64 lowercase hex", () => {
    expect(ok(Digest, `sha256:${"0f".repeat(32)}`)).toBe(true);
    expect(ok(Digest, `sha256:${"0F".repeat(32)}`)).toBe(false);
    expect(ok(Digest, `SHA256:${"0f".repeat(32)}`)).toBe(false);
    expect(ok(Digest, `sha256:${"0f".repeat(31)}`)).toBe(false);
    expect(ok(Digest, "0f".repeat(32))).toBe(false);
  });

  it("Cycle: C-<positive integer without leading zeros>", () => {
    for (const good of ["C-1", "C-151", "C-156", "C-100000"]) expect(ok(Cycle, good), good).toBe(true);
    for (const bad of ["C-01", "C-0", "C-", "c-151", "C151", "C--1", "C-1.5", " C-1", "C-1 "]) {
      expect(ok(Cycle, bad), bad).toBe(false);
    }
  });

  it("IsoTimestamp: UTC Z with optional milliseconds, real dates only", () => {
    for (const good of ["2025-12-01T00:00:00Z", "2025-12-01T23:59:59.999Z", "2024-02-29T12:00:00Z"]) {
      expect(ok(IsoTimestamp, good), good).toBe(true);
    }
    for (const bad of [
      "2025-12-01T00:00:00+00:00",
      "2025-12-01T00:00:00",
      "2025-12-01T00:00:00.1Z",
      "2025-12-01T00:00:00.123456Z",
      "2025-02-29T00:00:00Z",
      "2025-12-01 00:00:00Z",
      "2025-12-01T24:00:00Z",
    ]) {
      expect(ok(IsoTimestamp, bad), bad).toBe(false);
    }
    expect(ok(IsoDate, "2025-12-01")).toBe(true);
    expect(ok(IsoDate, "2025-13-01")).toBe(false);
  });

  it("pulse generatedAt requires exactly millisecond precision", () => {
    const record = fixtures["pulse-record"].valid;
    expect(ok(PulseRecord, record)).toBe(true);
    for (const generatedAt of ["2025-12-01T06:00:00Z", "2025-12-01T06:00:00.12Z", "2025-12-01T06:00:00.1234Z"]) {
      expect(ok(PulseRecord, { ...record, generatedAt }), generatedAt).toBe(false);
    }
  });

  it("risk level is low|medium|high|critical", () => {
    for (const level of ["low", "medium", "high", "critical"]) expect(ok(RiskLevel, level)).toBe(true);
    for (const level of ["Medium", "severe", "", "none"]) expect(ok(RiskLevel, level)).toBe(false);
    const attestation = fixtures["avm-companion-attestation"].valid;
    expect(ok(CompanionAttestation, { ...attestation, risk_level: "extreme" })).toBe(false);
  });

  it("ShardString: non-negative integer without leading zeros", () => {
    for (const good of ["0", "1", "1000000", "123456789012345678901234567890"])
      expect(ok(ShardString, good)).toBe(true);
    for (const bad of ["-1", "01", "1.5", "", "1e6", " 1", "+1", "1,000"])
      expect(ok(ShardString, bad), bad).toBe(false);
  });

  it("balance v2: the formatted value is exactly shards / 1,000,000 with 6 decimals (zod)", () => {
    expect(formatShardsAsMic(0n)).toBe("0.000000 MIC");
    expect(formatShardsAsMic(1n)).toBe("0.000001 MIC");
    expect(formatShardsAsMic(1_500_000n)).toBe("1.500000 MIC");
    expect(formatShardsAsMic(123_456_789_012_345_678_901n)).toBe("123456789012345.678901 MIC");
    expect(
      ok(BalanceV2, { balance_shards: "1500000", balance_credits: 1.5, balance_credits_formatted: "1.500000 MIC" }),
    ).toBe(true);
    expect(
      ok(BalanceV2, { balance_shards: "1500000", balance_credits: 1.5, balance_credits_formatted: "1.500001 MIC" }),
    ).toBe(false);
  });

  it("authority_context expires at most 90 days after creation (zod)", () => {
    const context = fixtures["avm-authority-context"].valid;
    expect(ok(AuthorityContext, { ...context, expires_at: "2026-03-01T00:00:00Z" })).toBe(true);
    expect(ok(AuthorityContext, { ...context, expires_at: "2026-03-01T00:00:00.001Z" })).toBe(false);
    expect(ok(AuthorityContext, { ...context, expires_at: context.created_at })).toBe(false);
  });

  it("pulse history count equals the number of items (zod)", () => {
    const history = fixtures["pulse-history"].valid;
    expect(ok(PulseHistoryResponse, history)).toBe(true);
    expect(ok(PulseHistoryResponse, { ...history, count: 2 })).toBe(false);
    expect(ok(PulseHistoryResponse, { count: 0, items: [] })).toBe(true);
  });

  it("open session participants are distinct (zod)", () => {
    const input = fixtures["consensus-open-session-input"].valid;
    expect(ok(OpenSessionInput, { ...input, participants: ["a", "b", "c", "a"] })).toBe(false);
  });

  it("audit trail data must be JSON text (zod)", () => {
    const row = fixtures["government/audit-trail-row"].valid;
    expect(ok(AuditTrailRow, { ...row, data: "{not json" })).toBe(false);
    expect(ok(AuditTrailRow, { ...row, data: "[]" })).toBe(true);
  });

  it("verify response accepts both the success and the failure shape (zod and ajv)", () => {
    const validate = newAjv().compile(toPublishedJsonSchema("avm-verify-response", AvmVerifyResponse));
    for (const body of [fixtures["avm-verify-success"].valid, fixtures["avm-verify-failure"].valid]) {
      expect(ok(AvmVerifyResponse, body)).toBe(true);
      expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
    }
  });

  it("check response without authority has null expiry", () => {
    expect(ok(AvmCheckResponse, { has_authority: false, scopes: [], expires_at: null })).toBe(true);
  });

  it("refinements do not throw on malformed input", () => {
    for (const schema of Object.values(publishedSchemas) as z.ZodType[]) {
      for (const input of [null, undefined, {}, [], "x", 1, { count: "1", items: "x" }]) {
        expect(() => schema.safeParse(input)).not.toThrow();
      }
    }
    expect(
      ok(BalanceV2, { balance_shards: "abc", balance_credits: 1, balance_credits_formatted: "1.000000 MIC" }),
    ).toBe(false);
  });
});
