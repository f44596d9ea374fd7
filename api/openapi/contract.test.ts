/**
 * The API description against the app: the document is valid OpenAPI 3.1, every route the app
 * registers is documented and every documented operation exists, every schema compiles and every
 * example fits its schema, and the contract check that every API test runs catches drift.
 */
import { join } from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, describe, expect, test } from "vitest";
import { z } from "@hono/zod-openapi";
import { createApp } from "../app.ts";
import { openApiDocument } from "./document.ts";
import { PROBLEM_BASE, PROBLEM_TYPES } from "../problems/problem.ts";
import { installedResponseCheck, installResponseCheck, type Exchange } from "./response-observer.ts";
import { body, headers, json } from "./responses.ts";
import { addRoute, defineRoute } from "./route.ts";
import { sampleHistory, tempDir, writeHistory } from "../../test/support/api/helpers.ts";
import { checkExchange } from "../../test/support/api/contract/check.ts";

const REPO_DATA = join(import.meta.dirname, "../../data");
const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

/** The app over the repository's data: every area file is a route. */
const app = createApp({ dataDir: REPO_DATA, log: () => {}, trustedOrigins: [] });
const doc = openApiDocument(app);

type Json = Record<string, unknown>;

/** Every object in the document with its JSON pointer. */
function* walk(node: unknown, pointer = ""): Generator<[string, Json]> {
  if (node === null || typeof node !== "object") return;
  yield [pointer, node as Json];
  for (const [key, value] of Object.entries(node))
    yield* walk(value, `${pointer}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`);
}

describe("the OpenAPI document", () => {
  test("is valid OpenAPI 3.1 (the official schemas, @seriousme/openapi-schema-validator)", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as never);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  test("every route the app registers is documented, and every documented operation is a route", () => {
    const registered = new Set(
      app.routes
        .filter((r) => r.method !== "ALL")
        .map((r) => `${r.method.toLowerCase()} ${r.path.replaceAll(/:([^/]+)/g, "{$1}")}`),
    );
    const documented = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      for (const method of Object.keys(item as Json)) if (METHODS.includes(method)) documented.add(`${method} ${path}`);
    }
    expect([...registered].filter((r) => !documented.has(r))).toEqual([]);
    expect([...documented].filter((d) => !registered.has(d))).toEqual([]);
    // The spec's routes are all there.
    for (const op of [
      "get /health",
      "get /v1/pulse/badge",
      "get /v1/pulse/history",
      "get /openapi.json",
      "get /government/ledger/export",
      "get /economy/supply",
      "get /diplomacy/standards.json",
    ]) {
      expect(documented, op).toContain(op);
    }
  });

  test("every operation documents its problems with their type URIs, and keyed files their security", () => {
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      for (const [method, op] of Object.entries(item as Json)) {
        const responses = (op as { responses: Json }).responses;
        for (const status of ["400", "413", "500"])
          expect(Object.keys(responses), `${method} ${path}`).toContain(status);
        for (const [status, response] of Object.entries(responses)) {
          if (Number(status) < 400) continue;
          const content = (response as { content: Json }).content;
          expect(Object.keys(content), `${method} ${path} ${status}`).toEqual(["application/problem+json"]);
        }
      }
    }
    const schemas = doc.components!.schemas as Record<string, { properties: { type: { enum: string[] } } }>;
    for (const [slug, { status }] of Object.entries(PROBLEM_TYPES)) {
      const schema = schemas[`problem.${slug}`];
      if (schema) expect(schema.properties.type.enum).toEqual([PROBLEM_BASE + slug]);
      expect(status).toBeGreaterThanOrEqual(400);
    }
    const keyed = (doc.paths!["/government/compliance-report.json"] as Json).get as {
      security: unknown;
      responses: Json;
    };
    expect(keyed.security).toEqual([{ governmentKey: [] }]);
    expect(Object.keys(keyed.responses)).toEqual(expect.arrayContaining(["200", "401", "403", "429", "503"]));
    const open = (doc.paths!["/economy/supply"] as Json).get as { security: unknown };
    expect(open.security).toEqual([{}, { institutionalKey: [] }, { economistKey: [] }]);
    const schemes = doc.components!.securitySchemes as Json;
    expect(Object.keys(schemes).sort()).toEqual([
      "academicKey",
      "bearerToken",
      "economistKey",
      "governmentKey",
      "institutionalKey",
    ]);
    for (const name of ["RateLimit-Policy", "RateLimit", "Retry-After", "ETag"])
      expect(Object.keys(doc.components!.headers as Json)).toContain(name);
    const history = (doc.paths!["/v1/pulse/history"] as Json).get as { responses: Json };
    expect(Object.keys(history.responses)).toEqual(expect.arrayContaining(["200", "304", "400", "503"]));
  });

  test("every schema compiles (JSON Schema 2020-12) and every example fits its schema", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addFormat("binary", true);
    ajv.addSchema({ ...(structuredClone(doc) as unknown as Json), $id: "doc" });
    let examples = 0;
    for (const [pointer, node] of walk(doc)) {
      if (pointer.endsWith("/schema") || /\/components\/schemas\/[^/]+$/.test(pointer)) {
        const validate = ajv.compile({ $ref: `doc#${pointer}` });
        for (const example of (node.examples as unknown[] | undefined) ?? []) {
          examples += 1;
          expect(validate(example), `${pointer}: ${ajv.errorsText(validate.errors)}`).toBe(true);
        }
      }
      if ("example" in node && "schema" in node) {
        examples += 1;
        const validate = ajv.compile({ $ref: `doc#${pointer}/schema` });
        expect(validate(node.example), `${pointer}: ${ajv.errorsText(validate.errors)}`).toBe(true);
      }
    }
    expect(examples).toBeGreaterThan(20);
  });

  test("is the same document for the same routes (generated, deterministic)", () => {
    const again = openApiDocument(createApp({ dataDir: REPO_DATA, log: () => {}, trustedOrigins: [] }));
    expect(JSON.stringify(again)).toBe(JSON.stringify(doc));
  });
});

describe("Instance-Id in the document", () => {
  test("is one header component, referenced on /health and on the 503s of the shared stores, and explained in the introduction", () => {
    const components = doc.components as {
      headers: Record<string, { required: boolean; schema: { pattern: string } }>;
    };
    const header = components.headers["Instance-Id"]!;
    expect(header.required).toBe(false);
    expect(new RegExp(header.schema.pattern).test("api-1")).toBe(true);
    expect(new RegExp(header.schema.pattern).test("api 1")).toBe(false);
    const ref = { $ref: "#/components/headers/Instance-Id" };
    const health = (doc.paths!["/health"] as { get: { responses: Record<string, { headers: Json }> } }).get;
    expect(health.responses["200"]!.headers["Instance-Id"]).toEqual(ref);
    const verify = (doc.paths!["/avm/verify"] as { post: { responses: Record<string, { headers?: Json }> } }).post;
    expect(verify.responses["503"]!.headers?.["Instance-Id"]).toEqual(ref);
    expect(doc.info.description).toMatch(/N instances.*`Instance-Id`/);
    expect(doc.info.description).toMatch(/expose [^;]*Instance-Id/);
  });
});

describe("the contract check", () => {
  test("is installed for every test (the vitest setup file)", () => {
    expect(installedResponseCheck()).not.toBeNull();
  });

  // An app of its own whose responses go to this test rather than to the suite's check.
  const seen: Exchange[] = [];
  const suiteCheck = installedResponseCheck();
  const { dir, cleanup } = tempDir("contract-");
  writeHistory(dir, sampleHistory(3));
  installResponseCheck((exchange) => seen.push(exchange));
  const drifting = createApp({ dataDir: dir, log: () => {}, trustedOrigins: [] });
  installResponseCheck(suiteCheck);
  afterAll(cleanup);

  const Thing = z.strictObject({ name: z.string(), size: z.number().int() });
  const thingRoute = defineRoute({
    method: "get",
    path: "/test/thing",
    summary: "test only",
    responses: { 200: json("a thing", Thing, { headers: headers("ETag", "Cache-Control") }) },
    problems: ["not-found"],
  });
  const wrong = {
    body: { name: "x", size: 1 } as unknown,
    status: 200,
    etag: ('"' + "a".repeat(64) + '"') as string | null,
    type: "application/json",
  };
  addRoute(drifting, thingRoute, (c) => {
    const headerFields: Record<string, string> = { "Cache-Control": "no-store", "Content-Type": wrong.type };
    if (wrong.etag) headerFields.ETag = wrong.etag;
    return c.body(JSON.stringify(wrong.body), wrong.status as 200, headerFields);
  });
  drifting.get("/test/undeclared-error", (c) => c.text("oops", 400));
  // Keep the textual body helper exercised with another media type.
  const svgRoute = defineRoute({
    method: "get",
    path: "/test/svg",
    summary: "test only",
    responses: { 200: body("svg", { "image/svg+xml": z.string() }) },
  });
  addRoute(drifting, svgRoute, (c) => c.body("<svg/>", 200, { "Content-Type": "image/svg+xml" }));

  async function problemsOf(path: string, init?: RequestInit): Promise<string[]> {
    seen.length = 0;
    await drifting.request(path, init);
    expect(seen).toHaveLength(1);
    return checkExchange(seen[0]!);
  }

  test("passes what the declaration says", async () => {
    Object.assign(wrong, {
      body: { name: "x", size: 1 },
      status: 200,
      etag: '"' + "a".repeat(64) + '"',
      type: "application/json",
    });
    expect(await problemsOf("/test/thing")).toEqual([]);
    expect(await problemsOf("/test/svg")).toEqual([]);
    expect(await problemsOf("/test/thing?x=1")).toEqual([]); // the 400 invalid-query problem is documented
    expect(await problemsOf("/nowhere")).toEqual([]); // an unmatched 404 problem
  });

  test("passes /health of an instance with an id: Instance-Id as declared", async () => {
    seen.length = 0;
    installResponseCheck((exchange) => seen.push(exchange));
    const instance = createApp({ dataDir: dir, log: () => {}, trustedOrigins: [], instanceId: "api-2" });
    installResponseCheck(suiteCheck);
    const res = await instance.request("/health");
    expect(res.headers.get("Instance-Id")).toBe("api-2");
    expect(seen).toHaveLength(1);
    expect(await checkExchange(seen[0]!)).toEqual([]);
  });

  test("catches a body that does not fit, an undocumented status, a wrong media type and a missing header", async () => {
    Object.assign(wrong, { body: { name: "x", size: "big" } });
    expect((await problemsOf("/test/thing")).join()).toMatch(/body does not match/);
    Object.assign(wrong, { body: { name: "x", size: 1 }, status: 202 });
    expect((await problemsOf("/test/thing")).join()).toMatch(/status 202 is not documented/);
    Object.assign(wrong, { status: 200, type: "text/plain" });
    expect((await problemsOf("/test/thing")).join()).toMatch(
      /content type text\/plain is not one of application\/json/,
    );
    Object.assign(wrong, { type: "application/json", etag: null });
    expect((await problemsOf("/test/thing")).join()).toMatch(/required header ETag is missing/);
    Object.assign(wrong, { etag: "W/weak" });
    expect((await problemsOf("/test/thing")).join()).toMatch(/header ETag/);
    Object.assign(wrong, {
      etag: '"' + "a".repeat(64) + '"',
      status: 404,
      type: "application/problem+json",
      body: { type: "about:blank" },
    });
    expect((await problemsOf("/test/thing")).join()).toMatch(/body does not match/);
    expect((await problemsOf("/test/undeclared-error")).join()).toMatch(/an error without a problem body/);
  });
});
