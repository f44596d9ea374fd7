/**
 * The generated API description passes Redocly's `recommended` ruleset with no errors (run offline,
 * the real `redocly lint` on the document the app serves), and has what generated clients need:
 * an operationId on every operation (unique, derived from method and path unless declared), a
 * root `security` and a `servers` entry relative to where the document is served.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { createApp } from "../app.ts";
import { openApiDocument } from "./document.ts";
import { operationIdOf } from "./route.ts";
import { tempDir } from "../../test/support/api/helpers.ts";

const ROOT = join(import.meta.dirname, "../..");
const document = openApiDocument(createApp({ dataDir: join(ROOT, "data"), log: () => {} }));
const operations = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
  Object.entries(item as Record<string, { operationId?: string }>)
    .filter(([method]) => ["get", "put", "post", "delete", "patch", "head", "options"].includes(method))
    .map(([method, operation]) => ({ method, path, operationId: operation.operationId })),
);
const temp = tempDir("openapi-lint-");
afterAll(() => temp.cleanup());

describe("the OpenAPI document", () => {
  test("operationIds: one per operation, unique, from method and path", () => {
    expect(operations.length).toBeGreaterThan(60);
    for (const op of operations) expect(op.operationId, `${op.method} ${op.path}`).toMatch(/^[a-z][A-Za-z0-9]*$/);
    expect(new Set(operations.map((op) => op.operationId)).size).toBe(operations.length);
    expect(operationIdOf("get", "/avm/check/{ledger_id}")).toBe("getAvmCheckByLedgerId");
    expect(operationIdOf("post", "/keys/requests")).toBe("postKeysRequests");
    expect(operationIdOf("get", "/government/compliance-report.json")).toBe("getGovernmentComplianceReportJson");
  });

  test("root security (public unless an operation says otherwise) and servers relative to the served origin", () => {
    expect(document.security).toEqual([{}]);
    expect(document.servers).toEqual([{ url: "/", description: expect.any(String) }]);
  });

  test("Redocly's recommended ruleset finds no error", () => {
    const file = join(temp.dir, "openapi.json");
    writeFileSync(file, JSON.stringify(document));
    const env = { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" };
    const run = spawnSync(
      join(ROOT, "node_modules", ".bin", "redocly"),
      ["lint", file, "--extends", "recommended", "--format", "json"],
      { cwd: temp.dir, env, encoding: "utf8", timeout: 120_000 },
    );
    const report = JSON.parse(run.stdout) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; severity: string; message: string }[];
    };
    const errors = report.problems.filter((p) => p.severity === "error").map((p) => `${p.ruleId}: ${p.message}`);
    expect(errors).toEqual([]);
    expect(report.totals.errors).toBe(0);
    expect(run.status).toBe(0);
  }, 150_000);
});
