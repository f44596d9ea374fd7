import { cpSync } from "node:fs";
import { join } from "node:path";
import { z } from "@hono/zod-openapi";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ApiKeyStore } from "../clients/api-keys.ts";
import { createApp } from "../app.ts";
import { canonicalOrigin, crossOriginRefusal, EXPOSED_HEADERS, originsFromEnv } from "./cors.ts";
import { PROBLEM_BASE } from "../problems/problem.ts";
import { json } from "../openapi/responses.ts";
import { addRoute, defineRoute } from "../openapi/route.ts";
import { listen, type RunningServer } from "../server/server.ts";
import { sampleHistory, tempDir, writeHistory } from "../../test/support/api/helpers.ts";

const TRUSTED = "https://dashboard.example";
const Note = z.strictObject({ text: z.string().max(200) });
/** A test-only route that writes: the origin check every write route gets. */
const noteRoute = defineRoute({
  method: "post",
  path: "/test/notes",
  summary: "Test only: a route that writes",
  security: [{ bearerToken: [] }],
  request: { body: { required: true, content: { "application/json": { schema: Note } } } },
  responses: { 200: json("Stored", Note) },
});

describe("crossOriginRefusal (Go's CrossOriginProtection rule)", () => {
  const trusted = new Set([TRUSTED]);
  const check = (headers: Record<string, string>) => crossOriginRefusal((name) => headers[name], trusted);
  test.each([
    ["no Origin, no Sec-Fetch-Site (not a browser)", { host: "api.example" }, true],
    [
      "Sec-Fetch-Site: same-origin",
      { "sec-fetch-site": "same-origin", origin: "https://api.example", host: "api.example" },
      true,
    ],
    ["Sec-Fetch-Site: none (typed by the user)", { "sec-fetch-site": "none" }, true],
    ["Origin host is the request's Host", { origin: "http://api.example:4321", host: "api.example:4321" }, true],
    ["a trusted origin", { "sec-fetch-site": "cross-site", origin: TRUSTED, host: "api.example" }, true],
    ["a trusted origin with a default port", { origin: "https://dashboard.example:443", host: "api.example" }, true],
    ["another origin", { origin: "https://evil.example", host: "api.example" }, false],
    [
      "cross-site even when Origin claims the host",
      { "sec-fetch-site": "cross-site", origin: "https://api.example", host: "api.example" },
      false,
    ],
    [
      "same-site is not same-origin",
      { "sec-fetch-site": "same-site", origin: "https://a.api.example", host: "api.example" },
      false,
    ],
    ["the null origin", { origin: "null", host: "api.example" }, false],
    ["a port that differs", { origin: "http://api.example:1", host: "api.example:2" }, false],
  ])("%s", (_what, headers, allowed) => {
    expect(check(headers) === null).toBe(allowed);
  });

  test("origins are canonical; ALLOWED_ORIGINS is a comma-separated list of them", () => {
    expect(canonicalOrigin("HTTPS://Dashboard.Example:443")).toBe("https://dashboard.example");
    for (const bad of [
      "dashboard.example",
      "https://a.example/path",
      "ftp://a.example",
      "https://a.example?x=1",
      "null",
      "",
    ])
      expect(canonicalOrigin(bad), bad).toBeNull();
    expect(originsFromEnv({ ALLOWED_ORIGINS: " https://a.example , http://127.0.0.1:8080" })).toEqual([
      "https://a.example",
      "http://127.0.0.1:8080",
    ]);
    expect(originsFromEnv({})).toEqual([]);
    expect(() => originsFromEnv({ ALLOWED_ORIGINS: "https://a.example/x" })).toThrow(/ALLOWED_ORIGINS/);
  });

  test("the portal's origin, SITE_URL (the setting the site is built with), is trusted too", () => {
    expect(originsFromEnv({ SITE_URL: "https://data.example.org/" })).toEqual(["https://data.example.org"]);
    expect(originsFromEnv({ ALLOWED_ORIGINS: "https://a.example", SITE_URL: "https://data.example.org" })).toEqual([
      "https://a.example",
      "https://data.example.org",
    ]);
    expect(
      originsFromEnv({ ALLOWED_ORIGINS: "https://data.example.org", SITE_URL: "https://data.example.org" }),
    ).toEqual(["https://data.example.org"]);
    expect(() => originsFromEnv({ SITE_URL: "https://data.example.org/portal" })).toThrow(/SITE_URL/);
  });
});

describe("CORS over HTTP", () => {
  let server: RunningServer;
  let cleanup: () => void;
  let key: string;
  beforeAll(async () => {
    const made = tempDir("cors-");
    cleanup = made.cleanup;
    const dataDir = join(made.dir, "data");
    cpSync(join(import.meta.dirname, "../../data/areas"), join(dataDir, "areas"), { recursive: true });
    writeHistory(dataDir, sampleHistory(120));
    const keys = new ApiKeyStore(join(made.dir, "keys.json"));
    key = (await keys.issue("government", "cors", new Date(0))).token;
    const app = createApp({ dataDir, keys, log: () => {}, trustedOrigins: [TRUSTED], instanceId: "api-3" });
    addRoute(app, noteRoute, (c) => c.json(c.req.valid("json"), 200));
    server = await listen(app, "127.0.0.1", 0);
  });
  afterAll(async () => {
    await server.close();
    cleanup();
  });
  const at = (path: string, init?: RequestInit) => fetch(server.url + path, init);

  test("reads answer Access-Control-Allow-Origin: * and expose what a client needs", async () => {
    for (const [path, init] of [
      ["/v1/pulse/history?limit=2", {}],
      ["/v1/pulse/badge", {}],
      ["/health", {}],
      ["/diplomacy/standards.json", {}],
      ["/government/compliance-report.json", { headers: { Authorization: `Bearer ${key}` } }],
      ["/government/compliance-report.json", {}], // a 401 is readable too
      ["/nowhere", {}],
    ] as const) {
      const res = await at(path, {
        ...init,
        headers: { ...(init as RequestInit).headers, Origin: "https://notebook.example" },
      });
      expect(res.headers.get("access-control-allow-origin"), path).toBe("*");
      expect(res.headers.get("access-control-expose-headers"), path).toBe(EXPOSED_HEADERS);
      await res.body?.cancel();
    }
    for (const name of [
      "ETag",
      "Link",
      "RateLimit",
      "RateLimit-Policy",
      "Retry-After",
      "Deprecation",
      "Sunset",
      "X-Limit-Clamped",
      "X-Request-Id",
      "Instance-Id",
    ]) {
      expect(EXPOSED_HEADERS.split(", ")).toContain(name);
    }
  });

  test("Instance-Id is sent and exposed to other origins, on reads and on writes from a trusted origin", async () => {
    const read = await at("/health", { headers: { Origin: "https://notebook.example" } });
    expect(read.headers.get("instance-id")).toBe("api-3");
    expect(read.headers.get("access-control-expose-headers")!.split(", ")).toContain("Instance-Id");
    await read.body?.cancel();
    const write = await at("/test/notes", {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: TRUSTED },
      body: JSON.stringify({ text: "hi" }),
    });
    expect(write.status).toBe(200);
    expect(write.headers.get("instance-id")).toBe("api-3");
    expect(write.headers.get("access-control-expose-headers")!.split(", ")).toContain("Instance-Id");
    await write.body?.cancel();
  });

  test("a preflight gets 204 with the methods, and Authorization for keyed routes", async () => {
    const preflight = (path: string, headers: Record<string, string>) =>
      at(path, { method: "OPTIONS", headers: { Origin: "https://notebook.example", ...headers } });
    const keyed = await preflight("/government/compliance-report.json", {
      "Access-Control-Request-Method": "GET",
      "Access-Control-Request-Headers": "authorization",
    });
    expect(keyed.status).toBe(204);
    expect(keyed.headers.get("access-control-allow-origin")).toBe("*");
    expect(keyed.headers.get("access-control-allow-methods")).toBe("GET, HEAD, OPTIONS");
    expect(keyed.headers.get("access-control-allow-headers")!.split(", ")).toContain("Authorization");
    expect(keyed.headers.get("access-control-max-age")).toBe("7200");
    const open = await preflight("/v1/pulse/history", {
      "Access-Control-Request-Method": "GET",
      "Access-Control-Request-Headers": "if-none-match",
    });
    expect(open.status).toBe(204);
    expect(open.headers.get("access-control-allow-headers")).toBe("If-None-Match, X-Request-Id");
    // Public area files take an optional key (a higher quota): Authorization is allowed there too.
    const area = await preflight("/economy/supply", { "Access-Control-Request-Method": "GET" });
    expect(area.headers.get("access-control-allow-headers")!.split(", ")).toContain("Authorization");
    const plain = await at("/v1/pulse/badge", { method: "OPTIONS" });
    expect(plain.status).toBe(204);
    expect(plain.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    expect(plain.headers.get("access-control-allow-origin")).toBeNull();
    expect((await at("/no/such/path", { method: "OPTIONS" })).status).toBe(404);
  });

  test("a route that writes: same origin, trusted origins and non-browsers pass; other origins get 403", async () => {
    const post = (headers: Record<string, string>) =>
      at("/test/notes", {
        method: "POST",
        headers: { "Content-Type": "application/json", ...headers },
        body: JSON.stringify({ text: "hi" }),
      });
    const host = new URL(server.url).host;
    const passing: Record<string, string>[] = [
      {},
      { Origin: `http://${host}` },
      { Origin: TRUSTED },
      { "Sec-Fetch-Site": "same-origin", Origin: `http://${host}` },
    ];
    for (const headers of passing) {
      const res = await post(headers);
      expect(res.status, JSON.stringify(headers)).toBe(200);
      if (headers.Origin) {
        expect(res.headers.get("access-control-allow-origin")).toBe(headers.Origin);
        expect(res.headers.get("vary")).toContain("Origin");
      }
      await res.body?.cancel();
    }
    const refusedOnes: Record<string, string>[] = [
      { Origin: "https://evil.example" },
      { "Sec-Fetch-Site": "cross-site", Origin: `http://${host}` },
      { Origin: "null" },
    ];
    for (const headers of refusedOnes) {
      const res = await post(headers);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(((await res.json()) as { type: string }).type).toBe(`${PROBLEM_BASE}origin-not-allowed`);
      expect(res.headers.get("access-control-allow-origin")).toBeNull();
    }
    const preflight = (origin: string) =>
      at("/test/notes", {
        method: "OPTIONS",
        headers: {
          Origin: origin,
          "Access-Control-Request-Method": "POST",
          "Access-Control-Request-Headers": "content-type, authorization",
        },
      });
    const trusted = await preflight(TRUSTED);
    expect(trusted.status).toBe(204);
    expect(trusted.headers.get("access-control-allow-origin")).toBe(TRUSTED);
    expect(trusted.headers.get("access-control-allow-methods")).toBe("POST, OPTIONS");
    expect(trusted.headers.get("access-control-allow-headers")).toBe(
      "If-None-Match, X-Request-Id, Authorization, Content-Type",
    );
    expect(trusted.headers.get("vary")).toBe("Origin");
    const refused = await preflight("https://evil.example");
    expect(refused.status).toBe(403);
    expect(refused.headers.get("access-control-allow-origin")).toBeNull();
    await refused.body?.cancel();
  });
});
