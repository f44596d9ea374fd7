/**
 * The hostile-input suite: every endpoint of the API — one row each in ENDPOINTS; a new endpoint
 * joins by adding a row, and a test fails while a documented operation has none — tried with
 * hostile queries, paths, methods, header fields, bodies and HTTP framing, over a real server on
 * loopback with the committed datasets, keys and a static site. Whatever the input: no 5xx, no
 * connection dropped without an answer, and every error is an RFC 9457 problem (the contract
 * check also holds every answer to /openapi.json). The counts per category are printed.
 *
 * Before it, the reproductions of the HTTP edges this API got wrong, each a regression test.
 */
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Socket } from "node:net";
import { z } from "@hono/zod-openapi";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { balanceInterface, migrationPhase } from "../core/migration/phases.ts";
import { ApiKeyStore, type KeyTier } from "./clients/api-keys.ts";
import { createApp } from "./app.ts";
import { trustedProxies } from "./clients/forwarded-for.ts";
import { openApiDocument, type OpenApiDocument } from "./openapi/document.ts";
import { PROBLEM_BASE } from "./problems/problem.ts";
import { json } from "./openapi/responses.ts";
import { addRoute, defineRoute } from "./openapi/route.ts";
import { listen, type RunningServer } from "./server/server.ts";
import { registerOffices, stageSessions } from "../test/support/api/routes/consensus.ts";
import { tokenClaims, tokenIssuedEvent } from "../core/avm/token.ts";
import { publicKeyFromSecret } from "../core/signature.ts";
import { AvmFixture, TEST_TOKEN_PUBLIC, TEST_TOKEN_SECRET } from "../test/support/api/avm.ts";
import { rawRequest, sampleHistory, tempDir, writeHistory, type RawResponse } from "../test/support/api/helpers.ts";

interface Endpoint {
  method: "GET" | "POST";
  path: string;
  /** The documented path when `path` fills in its parameters (`/v1/consensus/sessions/{id}/votes`). */
  route?: string;
  /** Sends the operator token (avm.revoke, avm.operate, consensus.write) with every probe but those about credentials. */
  token?: boolean;
  /** A valid query; hostile probes add to it or replace it. */
  query?: string;
  /** The key tier sent with every probe but those about keys (keyed files; the highest quota otherwise). */
  key?: KeyTier;
  /** A valid JSON body, for a route that takes one. */
  body?: string;
  /** Large answer: probes that would download it use HEAD. */
  large?: boolean;
  /** The status of the valid request when it is not 200 (a WebSocket endpoint asked over plain HTTP: 426). */
  validStatus?: number;
}

/** v1 balances answer 410 from the sunset on; the suite runs on the real clock. */
const V1_STATUS = balanceInterface(migrationPhase(new Date())).v1 === "gone" ? 410 : 200;
const V2_STATUS = balanceInterface(migrationPhase(new Date())).v2 === "absent" ? 404 : 200;
// The suite's ledger: for the authority routes an identity, companions and stake set up through the
// operations; for consensus, offices and a session staged at each step.
const avm = await AvmFixture.open();
const avmCompanion = await avm.companion("athena");
const avmHolder = await avm.identity("hostile-holder");
const spareToken = await (async () => {
  const claims = tokenClaims(
    { jti: "3f6c1d2e-9a8b-4c7d-8e6f-5a4b3c2d1e0f", subject: "spare", permissions: ["avm.revoke"], ttlSeconds: 3600 },
    avm.nowMs,
  );
  await avm.ledger.append([tokenIssuedEvent(claims)]);
  return claims.jti;
})();
const EVIDENCE = `sha256:${"5e".repeat(32)}`;
await registerOffices(avm.ledger);
const sessions = await stageSessions(avm.ledger);

/** Every endpoint of the API. */
const ENDPOINTS: Endpoint[] = [
  { method: "GET", path: "/health" },
  { method: "GET", path: "/openapi.json", large: true },
  { method: "GET", path: "/v1/pulse/badge", query: "metric=gi" },
  { method: "GET", path: "/v1/pulse/history", query: "limit=5" },
  { method: "GET", path: "/government/compliance-report.json", key: "government" },
  { method: "GET", path: "/government/policy-impact.json", key: "government" },
  { method: "GET", path: "/government/ledger/export", query: "filter=agent:nobody&format=csv", key: "government" },
  { method: "GET", path: "/government/ledger/export.json", key: "government", large: true },
  { method: "GET", path: "/government/ledger/export.csv", key: "government", large: true },
  { method: "GET", path: "/government/sentinel-status.json", key: "government" },
  { method: "GET", path: "/government/transparency.pdf", key: "government" },
  { method: "GET", path: "/government/authority-activity.json", key: "government" },
  { method: "GET", path: "/academics/dataset.json", key: "institutional" },
  { method: "GET", path: "/academics/mii-timeline.csv", key: "institutional" },
  { method: "GET", path: "/academics/mii-timeline.parquet", key: "institutional" },
  { method: "GET", path: "/academics/sentinel-coordination.json", key: "institutional" },
  { method: "GET", path: "/academics/papers.json", key: "institutional" },
  { method: "GET", path: "/academics/citations.bib", key: "institutional" },
  { method: "GET", path: "/philosophy/deliberations.json", key: "institutional", large: true },
  { method: "GET", path: "/philosophy/virtues.json", key: "institutional" },
  { method: "GET", path: "/philosophy/decisions.json", key: "institutional" },
  { method: "GET", path: "/philosophy/drift-analysis.json", key: "institutional" },
  { method: "GET", path: "/philosophy/consensus-monitoring.json", key: "institutional" },
  { method: "GET", path: "/philosophy/consensus-registry.json", key: "institutional" },
  { method: "GET", path: "/philosophy/simulation", validStatus: 426 },
  { method: "GET", path: "/asyncapi.json" },
  { method: "GET", path: "/economy/supply", key: "institutional" },
  { method: "GET", path: "/economy/supply.json", key: "institutional" },
  { method: "GET", path: "/economy/mii", key: "institutional" },
  { method: "GET", path: "/economy/mii.json", key: "institutional" },
  { method: "GET", path: "/economy/coordination", key: "institutional" },
  { method: "GET", path: "/economy/coordination.json", key: "institutional" },
  { method: "GET", path: "/economy/roi", key: "institutional" },
  { method: "GET", path: "/economy/roi.json", key: "institutional" },
  { method: "GET", path: "/economy/sentinel-roi.json", key: "institutional" },
  { method: "GET", path: "/economy/mic-history.csv", key: "institutional", large: true },
  { method: "GET", path: "/economy/mic-history.parquet", key: "institutional", large: true },
  { method: "GET", path: "/economy/cathedral-multipliers.csv", key: "institutional" },
  { method: "GET", path: "/economy/cathedral-multipliers.parquet", key: "institutional" },
  { method: "GET", path: "/diplomacy/treaty-framework.json", key: "institutional" },
  { method: "GET", path: "/diplomacy/standards.json", key: "institutional" },
  { method: "GET", path: "/diplomacy/protocols.json", key: "institutional" },
  { method: "GET", path: "/v1/balance/ATLAS", route: "/v1/balance/{address}", validStatus: V1_STATUS },
  { method: "GET", path: "/v2/balance/ATLAS", route: "/v2/balance/{address}", validStatus: V2_STATUS },
  { method: "GET", path: "/balance/ATLAS", route: "/balance/{address}" },
  { method: "GET", path: "/migration/proof/ATLAS", route: "/migration/proof/{address}" },
  // Authority verification and ledger proofs: a real ledger, an operator token with every permission.
  { method: "POST", path: "/avm/verify", body: JSON.stringify(avm.body(avmHolder, avmCompanion, ["api.read"])) },
  { method: "GET", path: `/avm/check/${avmHolder.ledger_id}`, route: "/avm/check/{ledger_id}" },
  {
    method: "POST",
    path: "/avm/revoke",
    token: true,
    body: JSON.stringify({ ledger_id: avmHolder.ledger_id, reason: "requested_by_holder", evidence_hash: EVIDENCE }),
  },
  { method: "GET", path: "/ledger/entries/0/inclusion", route: "/ledger/entries/{seq}/inclusion" },
  {
    method: "POST",
    path: "/avm/operator/register-identity",
    token: true,
    body: JSON.stringify({
      algorithm: "ed25519",
      public_key: publicKeyFromSecret("ed25519", "11".repeat(32)),
      role: "viewer",
      reputation: 0.5,
    }),
  },
  {
    method: "POST",
    path: "/avm/operator/register-companion",
    token: true,
    body: JSON.stringify({
      companion_id: "hostile-companion",
      algorithm: "ed25519",
      public_key: publicKeyFromSecret("ed25519", "22".repeat(32)),
    }),
  },
  {
    method: "POST",
    path: "/avm/operator/lock-stake",
    token: true,
    body: JSON.stringify({ ledger_id: avmHolder.ledger_id, amount: "1", slashing_conditions_accepted: true }),
  },
  {
    method: "POST",
    path: "/avm/operator/withdraw-stake",
    token: true,
    body: JSON.stringify({ ledger_id: avmHolder.ledger_id, amount: "0.000001" }),
  },
  {
    method: "POST",
    path: "/avm/operator/record-drift",
    token: true,
    body: JSON.stringify({ ledger_id: avmHolder.ledger_id, drift_score: 0.01, source: "monitor" }),
  },
  {
    method: "POST",
    path: "/avm/operator/report-violation",
    token: true,
    body: JSON.stringify({ ledger_id: avmHolder.ledger_id, evidence_hash: EVIDENCE, detected_by: "auditor" }),
  },
  {
    method: "POST",
    path: "/avm/operator/signal-concern",
    token: true,
    body: JSON.stringify({ companion_id: "athena", ledger_id: avmHolder.ledger_id, evidence_hash: EVIDENCE }),
  },
  {
    method: "POST",
    path: "/avm/operator/issue-token",
    token: true,
    body: JSON.stringify({ subject: "hostile-deputy", permissions: ["avm.revoke"], ttl_seconds: 60 }),
  },
  {
    method: "POST",
    path: "/avm/operator/revoke-token",
    token: true,
    body: JSON.stringify({ jti: spareToken, reason: "hostile suite" }),
  },
  // Consensus: each write's valid request succeeds once (a session staged at each step); repeats are refused.
  { method: "GET", path: "/api/cycle/current" },
  {
    method: "POST",
    path: "/api/cycle/current",
    token: true,
    body: JSON.stringify({ cycle: sessions.cycle, gi: 0.97 }),
  },
  { method: "GET", path: "/v1/consensus/sessions" },
  {
    method: "POST",
    path: "/v1/consensus/sessions",
    token: true,
    body: JSON.stringify({
      cycle: sessions.cycle,
      room: sessions.freeRoom,
      gi_baseline: 0.97,
      participants: ["ATLAS", "EVE", "HERMES", "SOPHIA"],
    }),
    validStatus: 201,
  },
  {
    method: "POST",
    path: `/v1/consensus/sessions/${sessions.voting.sessionId}/votes`,
    route: "/v1/consensus/sessions/{id}/votes",
    token: true,
    body: JSON.stringify(sessions.voting.vote),
    validStatus: 201,
  },
  {
    method: "POST",
    path: `/v1/consensus/sessions/${sessions.proving.sessionId}/proof`,
    route: "/v1/consensus/sessions/{id}/proof",
    token: true,
    body: JSON.stringify(sessions.proving.request),
    validStatus: 201,
  },
  {
    method: "POST",
    path: `/v1/consensus/proofs/${sessions.signing.delibId}/signatures`,
    route: "/v1/consensus/proofs/{delib_id}/signatures",
    token: true,
    body: JSON.stringify(sessions.signing.signature),
  },
  {
    method: "POST",
    path: `/v1/consensus/proofs/${sessions.validating.delibId}/validator`,
    route: "/v1/consensus/proofs/{delib_id}/validator",
    token: true,
    body: JSON.stringify(sessions.validating.signature),
  },
  { method: "GET", path: `/v1/consensus/proofs/${sessions.sealed.delibId}`, route: "/v1/consensus/proofs/{delib_id}" },
  {
    method: "POST",
    path: `/v1/consensus/sessions/${sessions.closing.sessionId}/close`,
    route: "/v1/consensus/sessions/{id}/close",
    token: true,
    body: JSON.stringify(sessions.closing.close),
  },
  // Key requests: recorded on the suite's access ledger (no daily quota here, or the probes would spend it).
  {
    method: "POST",
    path: "/keys/requests",
    body: JSON.stringify({
      tier: "academic",
      affiliation: "Hostile University",
      contact: "probe@hostile.example.edu",
      purpose: "probing",
      expected_volume: 10,
    }),
    validStatus: 201,
  },
  // Test-only: a declared write route, so the suite exercises the body handling every write route gets.
  { method: "POST", path: "/test/echo", body: '{"name":"probe","count":1}' },
];

const REPO_DATA = join(import.meta.dirname, "../data");
let server: RunningServer;
let doc: OpenApiDocument;
let cleanup: () => void;
const keys: Partial<Record<KeyTier, string>> = {};
let operatorToken = "";

const Echo = z.strictObject({ name: z.string().max(100), count: z.number().int().min(0) });
const echoRoute = defineRoute({
  method: "post",
  path: "/test/echo",
  summary: "Test only: echoes a small JSON body",
  request: { body: { required: true, content: { "application/json": { schema: Echo } } } },
  responses: { 200: json("The body", Echo) },
});

beforeAll(async () => {
  const made = tempDir("hostile-");
  cleanup = made.cleanup;
  const dataDir = join(made.dir, "data");
  cpSync(join(REPO_DATA, "areas"), join(dataDir, "areas"), { recursive: true });
  cpSync(join(REPO_DATA, "keys"), join(dataDir, "keys"), { recursive: true });
  cpSync(join(REPO_DATA, "migration"), join(dataDir, "migration"), { recursive: true });
  writeHistory(dataDir, sampleHistory(30));
  const site = join(made.dir, "site");
  mkdirSync(site, { recursive: true });
  writeFileSync(join(site, "index.html"), "<!doctype html><title>home</title>");
  writeFileSync(join(site, "404.html"), "<!doctype html><title>not found</title>");
  const store = new ApiKeyStore(join(made.dir, "access.sqlite"));
  for (const tier of ["government", "institutional", "academic"] as const)
    keys[tier] = (await store.issue(tier, `hostile ${tier}`, new Date())).token;
  operatorToken = (await avm.token(["avm.revoke", "avm.operate", "consensus.write"])).token;
  const app = createApp({
    dataDir,
    siteDir: site,
    keys: store,
    log: () => {},
    trustedOrigins: [],
    ledger: avm.ledger,
    tokenPublicKeyHex: TEST_TOKEN_PUBLIC,
    tokenSecretKeyHex: TEST_TOKEN_SECRET,
    keyRequestQuota: null,
    trustedProxies: trustedProxies(["127.0.0.1"]),
  });
  addRoute(app, echoRoute, (c) => c.json(c.req.valid("json"), 200));
  doc = openApiDocument(app);
  server = await listen(app, "127.0.0.1", 0);
});
afterAll(async () => {
  await server?.close();
  cleanup?.();
  await avm.close();
});

// ---------------------------------------------------------------------------------------------
// Requests on the wire

type Header = [string, string];

function wire(method: string, target: string, headers: Header[], body: string | Buffer = ""): Buffer {
  const head = [`${method} ${target} HTTP/1.1`, ...headers.map(([name, value]) => `${name}: ${value}`), "", ""].join(
    "\r\n",
  );
  return Buffer.concat([Buffer.from(head, "latin1"), typeof body === "string" ? Buffer.from(body, "utf8") : body]);
}

function baseHeaders(endpoint: Endpoint | null, extra: Header[] = [], options: { key?: boolean } = {}): Header[] {
  const headers: Header[] = [
    ["Host", `127.0.0.1:${server.port}`],
    ["Connection", "close"],
  ];
  if (endpoint?.key && options.key !== false) headers.push(["Authorization", `Bearer ${keys[endpoint.key]}`]);
  if (endpoint?.token && options.key !== false) headers.push(["Authorization", `Bearer ${operatorToken}`]);
  return [...headers, ...extra];
}

function target(endpoint: Endpoint, query = endpoint.query): string {
  return query ? `${endpoint.path}?${query}` : endpoint.path;
}

/** A request the endpoint accepts, with `extra` header fields. */
function valid(endpoint: Endpoint, extra: Header[] = [], method: string = endpoint.method): Buffer {
  const body = method === "POST" ? (endpoint.body ?? "") : "";
  const contentHeaders: Header[] = body
    ? [
        ["Content-Type", "application/json"],
        ["Content-Length", String(Buffer.byteLength(body))],
      ]
    : [];
  return wire(method, target(endpoint), baseHeaders(endpoint, [...contentHeaders, ...extra]), body);
}

interface Outcome {
  category: string;
  probe: string;
  response: RawResponse | null;
  head: boolean;
}

/** Why an answer breaks the invariants, or null. */
function breach(outcome: Outcome): string | null {
  const { response } = outcome;
  if (!response) return "no answer";
  if (response.status >= 500) return `${response.status}`;
  if (response.status < 400) return null;
  if (response.headers["content-type"] !== "application/problem+json")
    return `error without problem+json (${response.headers["content-type"] ?? "none"})`;
  if (outcome.head) return null;
  try {
    const body = JSON.parse(response.body) as { type?: unknown; status?: unknown; title?: unknown; detail?: unknown };
    if (
      typeof body.type !== "string" ||
      body.status !== response.status ||
      typeof body.title !== "string" ||
      typeof body.detail !== "string"
    )
      return "malformed problem";
  } catch {
    return "problem body is not JSON";
  }
  return null;
}

async function run(
  category: string,
  probes: { probe: string; bytes: Buffer; body?: (socket: Socket) => void; head?: boolean }[],
): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  const queue = [...probes];
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const response = await rawRequest(server.port, next.bytes, {
        ...(next.body ? { body: next.body } : {}),
        timeoutMs: 15_000,
      });
      outcomes.push({ category, probe: next.probe, response, head: next.head ?? false });
    }
  };
  await Promise.all(Array.from({ length: 6 }, worker));
  return outcomes;
}

// ---------------------------------------------------------------------------------------------
// The issue's reproductions

const problemType = (response: RawResponse | null) =>
  response ? (JSON.parse(response.body) as { type: string }).type : null;
const paramNames = (response: RawResponse | null) =>
  (JSON.parse(response!.body) as { invalid_params: { name: string }[] }).invalid_params.map((p) => p.name);

describe("HTTP edges", () => {
  const health: Endpoint = { method: "GET", path: "/health" };

  test("a GET with content over 64 KiB, a huge Content-Length or a chunked body over the limit → 413", async () => {
    const big = "x".repeat(64 * 1024 + 1);
    for (const path of ["/health", "/v1/pulse/badge", "/diplomacy/standards.json"]) {
      const endpoint: Endpoint = { method: "GET", path };
      const withLength = await rawRequest(
        server.port,
        wire("GET", path, baseHeaders(endpoint, [["Content-Length", String(big.length)]]), big),
      );
      expect(withLength?.status, path).toBe(413);
      expect(problemType(withLength)).toBe(`${PROBLEM_BASE}payload-too-large`);
      const huge = await rawRequest(
        server.port,
        wire("GET", path, baseHeaders(endpoint, [["Content-Length", "99999999999999"]])),
      );
      expect(huge?.status, path).toBe(413);
      const chunked = await rawRequest(
        server.port,
        wire("GET", path, baseHeaders(endpoint, [["Transfer-Encoding", "chunked"]])),
        {
          body: (socket) => {
            for (let i = 0; i < 5; i++) socket.write(`4e20\r\n${"y".repeat(20_000)}\r\n`);
            socket.write("0\r\n\r\n");
          },
        },
      );
      expect(chunked?.status, path).toBe(413);
      expect(JSON.parse(chunked!.body)).toMatchObject({ max_bytes: 65536 });
    }
    // Within the limit, content on a GET is ignored (chunked or not).
    const small = await rawRequest(
      server.port,
      wire("GET", "/health", baseHeaders(health, [["Transfer-Encoding", "chunked"]]), "5\r\nhello\r\n0\r\n\r\n"),
    );
    expect(small?.status).toBe(200);
  });

  test("unknown, repeated, prototype-named and ill-formed query parameters are 400 naming the parameter on every route, with no key", async () => {
    const cases: [string, string, string][] = [
      ["/health", "x=1", "x"],
      ["/health", "x=1&x=2", "x"],
      ["/diplomacy/standards.json", "format=csv", "format"],
      ["/diplomacy/standards.json", "x=1&x=2", "x"],
      ["/v1/pulse/badge", "__proto__=1", "__proto__"],
      ["/v1/pulse/history", "__proto__=1", "__proto__"],
      ["/government/ledger/export", "__proto__=1", "__proto__"],
      ["/government/ledger/export", "from=nonsense", "from"],
      ["/government/ledger/export", "from=2026-02-01&to=2026-01-01", "from"],
      ["/government/ledger/export", "filter=sentinel:ATLAS", "filter"],
      ["/v1/pulse/badge", "constructor=1", "constructor"],
      ["/v1/pulse/history", "limit=5&limit=6", "limit"],
      ["/openapi.json", "v=2", "v"],
    ];
    for (const [path, query, name] of cases) {
      const endpoint = ENDPOINTS.find((e) => e.path === path)!;
      // Refused before the route's handler: a keyed route needs no key to say so (docs/api.md).
      const response = await rawRequest(
        server.port,
        wire("GET", `${path}?${query}`, baseHeaders(endpoint, [], { key: false })),
      );
      expect(response?.status, `${path}?${query}`).toBe(400);
      expect(problemType(response)).toBe(`${PROBLEM_BASE}invalid-query`);
      expect(paramNames(response), `${path}?${query}`).toContain(name);
      expect(response?.headers["ratelimit"], `${path}?${query}: no quota counted`).toBeUndefined();
    }
  });

  test("requests Node's parser refuses are answered with problem+json", async () => {
    const host = `Host: 127.0.0.1:${server.port}\r\nConnection: close\r\n`;
    const cases: [string, Buffer, number, string][] = [
      ["unknown method", Buffer.from(`FROB /health HTTP/1.1\r\n${host}\r\n`), 400, "bad-request"],
      [
        "raw non-ASCII in the path",
        Buffer.concat([
          Buffer.from("GET /h\u00e9alth"),
          Buffer.from([0xff, 0xfe]),
          Buffer.from(` HTTP/1.1\r\n${host}\r\n`),
        ]),
        400,
        "bad-request",
      ],
      ["a space in the target", Buffer.from(`GET /a b HTTP/1.1\r\n${host}\r\n`), 400, "bad-request"],
      [
        "bad Content-Length",
        Buffer.from(`POST /health HTTP/1.1\r\n${host}Content-Length: 12abc\r\n\r\n`),
        400,
        "bad-request",
      ],
      [
        "two different Content-Lengths",
        Buffer.from(`POST /health HTTP/1.1\r\n${host}Content-Length: 1\r\nContent-Length: 2\r\n\r\nab`),
        400,
        "bad-request",
      ],
      [
        "Transfer-Encoding and Content-Length",
        Buffer.from(`POST /health HTTP/1.1\r\n${host}Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n`),
        400,
        "bad-request",
      ],
      [
        "oversized header fields",
        Buffer.from(`GET /health HTTP/1.1\r\n${host}X-Big: ${"a".repeat(20_000)}\r\n\r\n`),
        431,
        "header-fields-too-large",
      ],
      [
        "a NUL in a header field",
        Buffer.from(`GET /health HTTP/1.1\r\n${host}X-Nul: a\0b\r\n\r\n`),
        400,
        "bad-request",
      ],
      [
        "a garbage request line",
        Buffer.from("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", "latin1"),
        400,
        "bad-request",
      ],
    ];
    for (const [what, bytes, status, slug] of cases) {
      const response = await rawRequest(server.port, bytes);
      expect(response?.status, what).toBe(status);
      expect(response?.headers["content-type"], what).toBe("application/problem+json");
      expect(problemType(response), what).toBe(PROBLEM_BASE + slug);
    }
  });

  test("two Host header fields, none on HTTP/1.1, a malformed one, or a target that is no path → 400 (RFC 9112 §3.2)", async () => {
    const cases: [string, string][] = [
      [
        "two",
        `GET /health HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nHost: evil.example\r\nConnection: close\r\n\r\n`,
      ],
      ["none", "GET /health HTTP/1.1\r\nConnection: close\r\n\r\n"],
      ["malformed", "GET /health HTTP/1.1\r\nHost: a b@c\r\nConnection: close\r\n\r\n"],
      ["port over 65535", "GET /health HTTP/1.1\r\nHost: 127.0.0.1:99999\r\nConnection: close\r\n\r\n"],
      ["empty", "GET /health HTTP/1.1\r\nHost: \r\nConnection: close\r\n\r\n"],
      ["asterisk target on GET", `GET * HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nConnection: close\r\n\r\n`],
      [
        "absolute-form that is no URL",
        `GET http://[::1/health HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nConnection: close\r\n\r\n`,
      ],
    ];
    for (const [what, text] of cases) {
      const response = await rawRequest(server.port, text);
      expect(response?.status, what).toBe(400);
      expect(problemType(response), what).toBe(`${PROBLEM_BASE}bad-request`);
    }
    // HTTP/1.0 needs no Host; OPTIONS * describes the server.
    expect((await rawRequest(server.port, "GET /health HTTP/1.0\r\n\r\n"))?.status).toBe(200);
    const server204 = await rawRequest(
      server.port,
      `OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nConnection: close\r\n\r\n`,
    );
    expect(server204?.status).toBe(204);
    expect(server204?.headers.allow).toBe("GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS");
  });

  test("a Host that names no origin of this server → 421 on every route but /health (DNS rebinding)", async () => {
    const evil = `evil.example:${server.port}`;
    const answers = await Promise.all(
      ENDPOINTS.map(async (e) => {
        const body = e.method === "POST" ? (e.body ?? "") : "";
        const headers: Header[] = [
          ["Host", evil],
          ["Origin", `http://${evil}`],
          ["Sec-Fetch-Site", "same-origin"],
          ["Connection", "close"],
        ];
        if (body)
          headers.push(["Content-Type", "application/json"], ["Content-Length", String(Buffer.byteLength(body))]);
        const response = await rawRequest(server.port, wire(e.large ? "HEAD" : e.method, target(e), headers, body));
        return `${e.method} ${e.path} ${response?.status} ${e.large ? "" : (problemType(response) ?? "")}`;
      }),
    );
    const expected = ENDPOINTS.map(
      (e) =>
        `${e.method} ${e.path} ${e.path === "/health" ? `200 ` : `421 ${e.large ? "" : `${PROBLEM_BASE}misdirected-request`}`}`,
    );
    expect(answers).toEqual(expected);
  });

  test("PUT /v1/nonexistent → 404 (the static site is not a route); CONNECT → 405 problem", async () => {
    const put = await rawRequest(
      server.port,
      wire("PUT", "/v1/nonexistent", baseHeaders(null, [["Content-Length", "0"]])),
    );
    expect(put?.status).toBe(404);
    expect(problemType(put)).toBe(`${PROBLEM_BASE}not-found`);
    const connect = await rawRequest(
      server.port,
      `CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n`,
    );
    expect(connect?.status).toBe(405);
    expect(problemType(connect)).toBe(`${PROBLEM_BASE}method-not-allowed`);
  });

  test("a write route: malformed JSON, another media type, unknown fields, oversized → problems", async () => {
    const echo = ENDPOINTS.find((e) => e.path === "/test/echo")!;
    const post = (body: string, type = "application/json") =>
      rawRequest(
        server.port,
        wire(
          "POST",
          "/test/echo",
          baseHeaders(echo, [
            ["Content-Type", type],
            ["Content-Length", String(Buffer.byteLength(body))],
          ]),
          body,
        ),
      );
    expect((await post(echo.body!))?.status).toBe(200);
    expect(problemType(await post("{not json"))).toBe(`${PROBLEM_BASE}bad-request`);
    expect(problemType(await post(echo.body!, "text/plain"))).toBe(`${PROBLEM_BASE}unsupported-media-type`);
    const unknown = await post('{"name":"x","count":1,"admin":true}');
    expect(problemType(unknown)).toBe(`${PROBLEM_BASE}invalid-body`);
    expect(JSON.parse(unknown!.body).invalid_fields[0].reason).toContain("admin");
    const wrongType = await post('{"name":"x","count":"1"}');
    expect(JSON.parse(wrongType!.body).invalid_fields).toEqual([{ pointer: "/count", reason: expect.any(String) }]);
    expect((await post(`{"name":"${"x".repeat(70_000)}","count":1}`))?.status).toBe(413);
    const notUtf8 = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('","count":1}')]);
    const latin = await rawRequest(
      server.port,
      wire(
        "POST",
        "/test/echo",
        baseHeaders(echo, [
          ["Content-Type", "application/json"],
          ["Content-Length", String(notUtf8.length)],
        ]),
        notUtf8,
      ),
    );
    expect(problemType(latin)).toBe(`${PROBLEM_BASE}bad-request`);
  });
});

describe("caching, revalidation and request text", () => {
  const get = (path: string, extra: Header[]) =>
    rawRequest(
      server.port,
      wire("GET", path, [["Host", `127.0.0.1:${server.port}`], ["Connection", "close"], ...extra]),
    );

  test("a public file asked for with a key is private and varies on Authorization; without one it stays public", async () => {
    const keyed = await get("/academics/papers.json", [["Authorization", `Bearer ${keys.academic}`]]);
    expect(keyed?.status).toBe(200);
    expect(keyed?.headers["cache-control"]).toBe("private, max-age=300");
    expect(String(keyed?.headers.vary).split(/,\s*/)).toContain("Authorization");
    expect(keyed?.headers.ratelimit).toBeDefined();
    // A made-up key is anonymous, but the answer still depends on the field: private too.
    const madeUp = await get("/academics/papers.json", [["Authorization", `Bearer ipk_${"A".repeat(43)}`]]);
    expect([madeUp?.status, madeUp?.headers["cache-control"]]).toEqual([200, "private, max-age=300"]);
    const anonymous = await get("/academics/papers.json", []);
    expect([anonymous?.headers["cache-control"], anonymous?.headers.vary]).toEqual([
      "public, max-age=300",
      "Accept-Encoding",
    ]);
  });

  test("If-None-Match: * on the filtered export is 304 without a body, as it is counted", async () => {
    const auth: Header = ["Authorization", `Bearer ${keys.government}`];
    const whole = await get("/government/ledger/export", [auth]);
    expect(whole?.status).toBe(200);
    const before = Number(/r=(\d+)/.exec(String(whole?.headers.ratelimit))?.[1]);
    for (const query of ["", "?format=csv"]) {
      const revalidated = await get(`/government/ledger/export${query}`, [auth, ["If-None-Match", "*"]]);
      expect(revalidated?.status, query).toBe(304);
      expect(revalidated?.body, query).toBe("");
      expect(Number(/r=(\d+)/.exec(String(revalidated?.headers.ratelimit))?.[1]), query).toBe(before);
    }
  });

  test.each([
    ["affiliation", "Ministry \u202Eecnanif"],
    ["affiliation", "Ministry\u2028of Finance"],
    ["purpose", "audit\u2029work"],
    ["purpose", "zero\u200Bwidth"],
    ["affiliation", "Minis\uFEFFtry"],
    ["purpose", "tag \u{E0041} character"],
    ["contact", "ops\u202E@ministry.example.gov"],
  ])(
    "a key request whose %s holds a format or separator character (%j) is 400 invalid-body naming the field",
    async (field, value) => {
      const body = JSON.stringify({
        tier: "government",
        affiliation: "Ministry of Finance",
        contact: "ops@ministry.example.gov",
        purpose: "audits",
        [field]: value,
      });
      const res = await rawRequest(
        server.port,
        wire(
          "POST",
          "/keys/requests",
          [
            ["Host", `127.0.0.1:${server.port}`],
            ["Connection", "close"],
            ["Content-Type", "application/json"],
            ["Content-Length", String(Buffer.byteLength(body))],
          ],
          body,
        ),
      );
      expect(res?.status).toBe(400);
      expect(problemType(res)).toBe(`${PROBLEM_BASE}invalid-body`);
      expect(JSON.parse(res!.body).invalid_fields.map((f: { pointer: string }) => f.pointer)).toEqual([`/${field}`]);
    },
  );
});

// ---------------------------------------------------------------------------------------------
// The table-driven suite

const QUERY_PROBES: [string, (valid: string | undefined) => string][] = [
  ["unknown parameter", () => "x=1"],
  ["valid plus unknown", (v) => (v ? `${v}&zz=1` : "zz=1")],
  ["repeated", (v) => (v ? `${v}&${v}` : "a=1&a=2")],
  ["__proto__", () => "__proto__=1"],
  ["__proto__ nested", () => "__proto__[x]=1"],
  ["constructor", () => "constructor=1"],
  ["toString", () => "toString=1"],
  ["empty name", () => "=1"],
  ["bad percent-encoding", () => "%zz=%zz"],
  ["NUL", () => "a=%00"],
  ["overlong UTF-8", () => "a=%C0%AF"],
  ["array syntax", () => "a[]=1&a[]=2"],
  ["300 parameters", () => Array.from({ length: 300 }, (_, i) => `p${i}=${i}`).join("&")],
  ["4 KB name", () => `${"n".repeat(4096)}=1`],
  ["8 KB value", (v) => `${(v ?? "a=1").split("=")[0]}=${"v".repeat(8192)}`],
  ["only separators", () => "&&&;;"],
];

const PATH_PROBES: [string, (path: string) => string][] = [
  ["trailing slash", (p) => `${p}/`],
  ["extra segment", (p) => `${p}/extra`],
  ["dot-segment", (p) => `${p}/../${p.split("/").pop()}`],
  ["encoded dot-segments", (p) => `${p}/%2e%2e/%2e%2e/etc/passwd`],
  ["double slash", (p) => p.replace("/", "//")],
  ["encoded slash", (p) => p.replace(/\/(?=[^/]*$)/, "%2f")],
  ["double-encoded slash", (p) => p.replace(/\/(?=[^/]*$)/, "%252f")],
  ["NUL", (p) => `${p}%00`],
  ["matrix parameter", (p) => `${p};x=1`],
  ["upper case", (p) => p.toUpperCase()],
  ["backslash", (p) => p.replace(/\/(?=[^/]*$)/, "%5c")],
  ["8 KB segment", (p) => `${p}/${"s".repeat(8192)}`],
  ["unicode", (p) => `${p}%F0%9F%92%A9`],
];

const METHOD_PROBES = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "PROPFIND", "get"];

function headerProbes(endpoint: Endpoint): [string, Header[], { key?: boolean }][] {
  const token = endpoint.token ? operatorToken : endpoint.key ? keys[endpoint.key]! : keys.academic!;
  return [
    ["no key", [], { key: false }],
    ["empty bearer", [["Authorization", "Bearer"]], { key: false }],
    ["lower-case scheme", [["Authorization", `bearer ${token}`]], { key: false }],
    ["basic scheme", [["Authorization", `Basic ${token}`]], { key: false }],
    ["8 KB token", [["Authorization", `Bearer ${"t".repeat(8192)}`]], { key: false }],
    ["token plus garbage", [["Authorization", `Bearer ${token} x`]], { key: false }],
    ["non-ASCII token", [["Authorization", "Bearer \u00ff\u00fe"]], { key: false }],
    ["Accept garbage", [["Accept", "*/*;q=abc, /, ;;"]], {}],
    ["Accept 4 KB", [["Accept", "text/plain;q=0.1,".repeat(250)]], {}],
    ["Accept HTML", [["Accept", "text/html"]], {}],
    ["If-None-Match *", [["If-None-Match", "*"]], {}],
    ["If-None-Match garbage", [["If-None-Match", 'W/"x", "", ,,,"' + "e".repeat(2000)]], {}],
    ["X-Request-Id garbage", [["X-Request-Id", "id\u00ff with spaces"]], {}],
    ["Origin elsewhere", [["Origin", "https://evil.example"]], {}],
    ["Range", [["Range", "bytes=0-10,-5,999999999-"]], {}],
    ["Content-Type garbage", [["Content-Type", "application/json; charset=ebcdic; ;="]], {}],
    [
      "Forwarded spoofing",
      [
        ["X-Forwarded-For", "1.2.3.4"],
        ["Forwarded", "for=evil"],
      ],
      {},
    ],
    // The suite's server trusts loopback as a proxy (TRUSTED_PROXIES), so these reach the parser.
    ["X-Forwarded-For garbage", [["X-Forwarded-For", "evil, ;;, \u00ff, -1"]], {}],
    ["X-Forwarded-For port and brackets", [["X-Forwarded-For", "[2001:db8::1]:443, 203.0.113.7:80"]], {}],
    ["X-Forwarded-For zone and mapped", [["X-Forwarded-For", "fe80::1%eth0, ::ffff:127.0.0.1"]], {}],
    ["X-Forwarded-For empty hops", [["X-Forwarded-For", ",,,"]], {}],
    ["X-Forwarded-For 8 KB chain", [["X-Forwarded-For", "127.0.0.1,".repeat(800) + "203.0.113.7"]], {}],
    [
      "X-Forwarded-For twice",
      [
        ["X-Forwarded-For", "198.51.100.1"],
        ["X-Forwarded-For", "2001:db8:1:2::99"],
      ],
      {},
    ],
    ["obs-fold", [["X-Folded", "a\r\n b"]], {}],
  ];
}

function bodyProbes(endpoint: Endpoint): { probe: string; bytes: Buffer; body?: (socket: Socket) => void }[] {
  const method = endpoint.method;
  const t = target(endpoint);
  const big = "x".repeat(64 * 1024 + 1);
  const probes: { probe: string; bytes: Buffer; body?: (socket: Socket) => void }[] = [
    {
      probe: "content over 64 KiB",
      bytes: wire(
        method,
        t,
        baseHeaders(endpoint, [
          ["Content-Type", "application/json"],
          ["Content-Length", String(big.length)],
        ]),
        big,
      ),
    },
    {
      probe: "huge Content-Length",
      bytes: wire(
        method,
        t,
        baseHeaders(endpoint, [
          ["Content-Type", "application/json"],
          ["Content-Length", "99999999999999"],
        ]),
      ),
    },
    {
      probe: "chunked over 64 KiB",
      bytes: wire(
        method,
        t,
        baseHeaders(endpoint, [
          ["Content-Type", "application/json"],
          ["Transfer-Encoding", "chunked"],
        ]),
      ),
      body: (socket) => {
        for (let i = 0; i < 4; i++) socket.write(`4e20\r\n${"z".repeat(20_000)}\r\n`);
        socket.write("0\r\n\r\n");
      },
    },
    {
      probe: "small chunked",
      bytes: wire(
        method,
        t,
        baseHeaders(endpoint, [
          ["Content-Type", "application/json"],
          ["Transfer-Encoding", "chunked"],
        ]),
        `${(endpoint.body ?? "{}").length.toString(16)}\r\n${endpoint.body ?? "{}"}\r\n0\r\n\r\n`,
      ),
    },
  ];
  const withBody = (probe: string, type: string, body: string | Buffer) => ({
    probe,
    bytes: wire(
      method,
      t,
      baseHeaders(endpoint, [
        ["Content-Type", type],
        ["Content-Length", String(Buffer.byteLength(body))],
      ]),
      body,
    ),
  });
  probes.push(
    withBody("malformed JSON", "application/json", "{not json"),
    withBody("deep nesting", "application/json", `${"[".repeat(10_000)}${"]".repeat(10_000)}`),
    withBody("wrong media type", "text/plain", endpoint.body ?? "{}"),
    withBody("no media type", "", endpoint.body ?? "{}"),
    withBody(
      "prototype pollution",
      "application/json",
      '{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}',
    ),
    withBody(
      "unknown field",
      "application/json",
      (endpoint.body ?? "{}").replace(/}$/, ',"unexpected":true}').replace("{,", "{"),
    ),
    withBody(
      "invalid UTF-8",
      "application/json; charset=utf-8",
      Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('","count":1}')]),
    ),
    withBody("JSON null", "application/json", "null"),
    withBody("huge number", "application/json", '{"name":"x","count":1e400}'),
  );
  return probes;
}

/**
 * The route's valid body with one field at a time — and for the verify body, a field inside the
 * attestation — nested 6,000 arrays deep (12 KB): refused as 400 `invalid-body` where the body is
 * parsed, before anything recursive sees it.
 */
function depthProbes(endpoint: Endpoint): { probe: string; bytes: Buffer }[] {
  if (endpoint.method !== "POST" || !endpoint.body) return [];
  const deep = `${"[".repeat(6000)}${"]".repeat(6000)}`;
  const fields = Object.keys(JSON.parse(endpoint.body) as Record<string, unknown>);
  const bodies = fields.map(
    (field) =>
      [field, endpoint.body!.replace(new RegExp(`"${field}":`), `"${field}":${deep},"${field}-was":`)] as const,
  );
  if (endpoint.path === "/avm/verify")
    bodies.push([
      "companion_attestation.x",
      endpoint.body.replace('"companion_attestation":{', `"companion_attestation":{"x":${deep},`),
    ]);
  return bodies.map(([field, body]) => ({
    probe: `deep ${field}`,
    bytes: wire(
      "POST",
      target(endpoint),
      baseHeaders(endpoint, [
        ["Content-Type", "application/json"],
        ["Content-Length", String(Buffer.byteLength(body))],
      ]),
      body,
    ),
  }));
}

/**
 * The route's valid body with one odd value inside: JSON that parses, and that a route's schema may
 * accept, but that the ledger could not record as sent — its first member given twice, a member
 * named `__proto__`, a string field as a lone surrogate, a number field beyond double range.
 * Refused as 400 `invalid-body` at the edge (core/json-body.ts), before any route reads it.
 */
function oddValueProbes(endpoint: Endpoint): { probe: string; bytes: Buffer }[] {
  if (endpoint.method !== "POST" || !endpoint.body) return [];
  const valid = JSON.parse(endpoint.body) as Record<string, unknown>;
  const keys = Object.keys(valid);
  const bodies: [string, string][] = [
    ["a __proto__ member", endpoint.body.replace("{", '{"__proto__":{"admin":true},')],
  ];
  if (keys[0]) bodies.push([`${keys[0]} given twice`, endpoint.body.replace("{", `{${JSON.stringify(keys[0])}:null,`)]);
  const text = keys.find((k) => typeof valid[k] === "string");
  if (text) bodies.push([`a lone surrogate in ${text}`, JSON.stringify({ ...valid, [text]: "\ud800" })]);
  const number = keys.find((k) => typeof valid[k] === "number");
  if (number)
    bodies.push([`${number} 1e400`, JSON.stringify({ ...valid, [number]: "HUGE" }).replace('"HUGE"', "1e400")]);
  return bodies.map(([what, body]) => ({
    probe: what,
    bytes: wire(
      "POST",
      target(endpoint),
      baseHeaders(endpoint, [
        ["Content-Type", "application/json"],
        ["Content-Length", String(Buffer.byteLength(body))],
      ]),
      body,
    ),
  }));
}

function framingProbes(endpoint: Endpoint): { probe: string; bytes: Buffer }[] {
  const host = `Host: 127.0.0.1:${server.port}\r\nConnection: close\r\n`;
  const t = target(endpoint);
  return [
    { probe: "unknown method", bytes: Buffer.from(`FROB ${t} HTTP/1.1\r\n${host}\r\n`) },
    {
      probe: "raw non-ASCII target",
      bytes: Buffer.concat([
        Buffer.from(`GET ${t}`),
        Buffer.from([0xc3, 0xa9, 0xff]),
        Buffer.from(` HTTP/1.1\r\n${host}\r\n`),
      ]),
    },
    {
      probe: "bad Content-Length",
      bytes: Buffer.from(`${endpoint.method} ${t} HTTP/1.1\r\n${host}Content-Length: -1\r\n\r\n`),
    },
    {
      probe: "duplicate Content-Length",
      bytes: Buffer.from(
        `${endpoint.method} ${t} HTTP/1.1\r\n${host}Content-Length: 2\r\nContent-Length: 3\r\n\r\nabc`,
      ),
    },
    {
      probe: "Transfer-Encoding and Content-Length",
      bytes: Buffer.from(
        `${endpoint.method} ${t} HTTP/1.1\r\n${host}Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      ),
    },
    {
      probe: "unknown transfer coding",
      bytes: Buffer.from(`${endpoint.method} ${t} HTTP/1.1\r\n${host}Transfer-Encoding: gzip\r\n\r\n`),
    },
    {
      probe: "oversized header fields",
      bytes: Buffer.from(`GET ${t} HTTP/1.1\r\n${host}Cookie: ${"c".repeat(17_000)}\r\n\r\n`),
    },
    { probe: "two Host fields", bytes: Buffer.from(`GET ${t} HTTP/1.1\r\n${host}Host: evil.example\r\n\r\n`) },
    { probe: "no Host", bytes: Buffer.from(`GET ${t} HTTP/1.1\r\nConnection: close\r\n\r\n`) },
    { probe: "absolute-form target", bytes: Buffer.from(`GET http://evil.example${t} HTTP/1.1\r\n${host}\r\n`) },
    { probe: "HTTP/1.0", bytes: Buffer.from(`GET ${t} HTTP/1.0\r\n\r\n`) },
    { probe: "HTTP/2 version", bytes: Buffer.from(`GET ${t} HTTP/2.0\r\n${host}\r\n`) },
    { probe: "lower-case method", bytes: Buffer.from(`get ${t} HTTP/1.1\r\n${host}\r\n`) },
    {
      probe: "bare LF line ends",
      bytes: Buffer.from(`GET ${t} HTTP/1.1\nHost: 127.0.0.1:${server.port}\nConnection: close\n\n`),
    },
    { probe: "asterisk target", bytes: Buffer.from(`${endpoint.method} * HTTP/1.1\r\n${host}\r\n`) },
    { probe: "absolute-form, not a URL", bytes: Buffer.from(`GET http://[::1${t} HTTP/1.1\r\n${host}\r\n`) },
    { probe: "backslash in the path", bytes: Buffer.from(`GET ${t}\\x HTTP/1.1\r\n${host}\r\n`) },
    {
      probe: "Host port over 65535",
      bytes: Buffer.from(`GET ${t} HTTP/1.1\r\nHost: 127.0.0.1:99999\r\nConnection: close\r\n\r\n`),
    },
    {
      probe: "Host another name",
      bytes: Buffer.from(
        `GET ${t} HTTP/1.1\r\nHost: evil.example:${server.port}\r\nSec-Fetch-Site: same-origin\r\nConnection: close\r\n\r\n`,
      ),
    },
    {
      probe: "Host with a trailing dot",
      bytes: Buffer.from(`GET ${t} HTTP/1.1\r\nHost: 127.0.0.1.:${server.port}\r\nConnection: close\r\n\r\n`),
    },
    {
      probe: "Host on another port",
      bytes: Buffer.from(`GET ${t} HTTP/1.1\r\nHost: 127.0.0.1:1\r\nConnection: close\r\n\r\n`),
    },
    {
      probe: "Host 8 KB",
      bytes: Buffer.from(`GET ${t} HTTP/1.1\r\nHost: ${"h".repeat(8192)}\r\nConnection: close\r\n\r\n`),
    },
    {
      probe: "Host localhost",
      bytes: Buffer.from(`GET ${t} HTTP/1.1\r\nHost: LOCALHOST:${server.port}\r\nConnection: close\r\n\r\n`),
    },
    {
      probe: "Host the URL parser rewrites",
      bytes: Buffer.from(`GET ${t} HTTP/1.1\r\nHost: [::ffff:127.0.0.1]\r\nConnection: close\r\n\r\n`),
    },
  ];
}

describe("hostile input against every endpoint", () => {
  test("every documented operation has a row, and every row is documented", () => {
    const documented = Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
      Object.keys(item as object).map((m) => `${m.toUpperCase()} ${path}`),
    );
    const rows = ENDPOINTS.map((e) => `${e.method} ${e.route ?? e.path}`);
    expect(documented.filter((d) => !rows.includes(d))).toEqual([]);
    expect(rows.filter((r) => !documented.includes(r))).toEqual([]);
  });

  test("no 5xx, no dropped connection, every error a problem", { timeout: 600_000 }, async () => {
    const outcomes: Outcome[] = [];
    // Valid requests first: the baseline every probe is compared with.
    outcomes.push(
      ...(await run(
        "valid",
        ENDPOINTS.map((e) => ({
          probe: `${e.method} ${e.path}`,
          bytes: valid(e, [], e.large ? (e.method === "GET" ? "HEAD" : e.method) : e.method),
          head: e.large === true && e.method === "GET",
        })),
      )),
    );
    // Before the other probes spend the verify quota: every route with a body refuses a deep one as 400.
    const depth = await run(
      "depth",
      ENDPOINTS.flatMap((e) => depthProbes(e).map((p) => ({ ...p, probe: `${e.path}: ${p.probe}` }))),
    );
    outcomes.push(...depth);
    expect(new Set(depth.map((o) => o.probe.split(":")[0])).size).toBe(ENDPOINTS.filter((e) => e.body).length);
    expect(
      depth
        .filter((o) => o.response?.status !== 400 || problemType(o.response) !== `${PROBLEM_BASE}invalid-body`)
        .map((o) => `${o.probe} ${o.response?.status}`),
    ).toEqual([]);
    const odd = await run(
      "odd values",
      ENDPOINTS.flatMap((e) => oddValueProbes(e).map((p) => ({ ...p, probe: `${e.path}: ${p.probe}` }))),
    );
    outcomes.push(...odd);
    expect(odd.filter((o) => o.probe.includes("lone surrogate")).length).toBeGreaterThan(10);
    expect(
      odd
        .filter((o) => o.response?.status !== 400 || problemType(o.response) !== `${PROBLEM_BASE}invalid-body`)
        .map((o) => `${o.probe} ${o.response?.status}`),
    ).toEqual([]);
    outcomes.push(
      ...(await run(
        "query",
        ENDPOINTS.flatMap((e) =>
          QUERY_PROBES.map(([probe, make]) => ({
            probe: `${e.path}: ${probe}`,
            bytes: wire(e.method, `${e.path}?${make(e.query)}`, baseHeaders(e)),
          })),
        ),
      )),
    );
    outcomes.push(
      ...(await run(
        "path",
        ENDPOINTS.flatMap((e) =>
          PATH_PROBES.map(([probe, make]) => ({
            probe: `${e.path}: ${probe}`,
            bytes: wire(e.method, make(e.path), baseHeaders(e)),
          })),
        ),
      )),
    );
    outcomes.push(
      ...(await run(
        "method",
        ENDPOINTS.flatMap((e) =>
          METHOD_PROBES.map((method) => {
            const head = method === "HEAD" || (e.large === true && method === "GET");
            return {
              probe: `${method} ${e.path}`,
              bytes: valid(
                e,
                [["Content-Length", "0"]].filter(() => method !== "GET" && method !== "HEAD") as Header[],
                head ? "HEAD" : method,
              ),
              head,
            };
          }),
        ),
      )),
    );
    outcomes.push(
      ...(await run(
        "headers",
        ENDPOINTS.flatMap((e) =>
          headerProbes(e).map(([probe, extra, options]) => {
            const method = e.large && e.method === "GET" ? "HEAD" : e.method;
            const body = method === "POST" ? (e.body ?? "") : "";
            const content: Header[] =
              body && !extra.some(([n]) => n === "Content-Type") ? [["Content-Type", "application/json"]] : [];
            const length: Header[] = body ? [["Content-Length", String(Buffer.byteLength(body))]] : [];
            return {
              probe: `${e.path}: ${probe}`,
              bytes: wire(method, target(e), baseHeaders(e, [...content, ...length, ...extra], options), body),
              head: method === "HEAD",
            };
          }),
        ),
      )),
    );
    outcomes.push(
      ...(await run(
        "body",
        ENDPOINTS.flatMap((e) => bodyProbes(e).map((p) => ({ ...p, probe: `${e.path}: ${p.probe}` }))),
      )),
    );
    outcomes.push(
      ...(await run(
        "framing",
        ENDPOINTS.flatMap((e) => framingProbes(e).map((p) => ({ ...p, probe: `${e.path}: ${p.probe}`, head: false }))),
      )),
    );

    const categories = [...new Set(outcomes.map((o) => o.category))];
    const rows = categories.map((category) => {
      const mine = outcomes.filter((o) => o.category === category);
      const statuses = new Map<number, number>();
      for (const o of mine) statuses.set(o.response?.status ?? 0, (statuses.get(o.response?.status ?? 0) ?? 0) + 1);
      return {
        category,
        requests: mine.length,
        "5xx": mine.filter((o) => (o.response?.status ?? 0) >= 500).length,
        "non-problem errors": mine.filter((o) => {
          const b = breach(o);
          return b !== null && b !== "no answer" && !/^5\d\d$/.test(b);
        }).length,
        "no answer": mine.filter((o) => o.response === null).length,
        statuses: [...statuses]
          .sort((a, b) => a[0] - b[0])
          .map(([s, n]) => `${s}×${n}`)
          .join(" "),
      };
    });
    console.log(`hostile-input suite: ${outcomes.length} requests against ${ENDPOINTS.length} endpoints`);
    console.table(rows);
    const breaches = outcomes
      .map((o) => [o, breach(o)] as const)
      .filter(([, b]) => b !== null)
      .map(([o, b]) => `${o.category} ${o.probe.slice(0, 120)}: ${b}`);
    expect(breaches).toEqual([]);
    // The valid requests succeed: the probes are measured against working endpoints.
    const validStatuses = outcomes.filter((o) => o.category === "valid").map((o) => `${o.probe} ${o.response?.status}`);
    expect(validStatuses.sort()).toEqual(ENDPOINTS.map((e) => `${e.method} ${e.path} ${e.validStatus ?? 200}`).sort());
  });
});
