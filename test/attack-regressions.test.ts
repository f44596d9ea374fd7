/**
 * The holes an attack on the API found, each a regression test over real HTTP on loopback against the
 * real app on a real durable ledger and the committed signed data (docs/trust-rules.md lists
 * every item with its test). Each failed before its fix.
 */
import { randomBytes } from "node:crypto";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApiKeyStore } from "../api/clients/api-keys.ts";
import { AvmFixture, type Companion, type Holder } from "./support/api/avm.ts";
import { PROBLEM_BASE } from "../api/problems/problem.ts";
import { DailyQuotas } from "../api/clients/quotas.ts";
import { rawRequest } from "./support/api/helpers.ts";
import * as ops from "../core/avm/operations.ts";
import type { LedgerEntry } from "../core/ledger/entry.ts";

const REPO_DATA = join(import.meta.dirname, "../data");

let fx: AvmFixture;
let athena: Companion;
let holder: Holder;
let keys: ApiKeyStore;

beforeEach(async () => {
  fx = await AvmFixture.open();
  athena = await fx.companion("athena");
  holder = await fx.identity("holder");
  cpSync(join(REPO_DATA, "areas"), join(fx.dir, "areas"), { recursive: true });
  cpSync(join(REPO_DATA, "keys"), join(fx.dir, "keys"), { recursive: true });
  keys = new ApiKeyStore(join(fx.dir, "access.sqlite"));
});
afterEach(async () => {
  await fx.close();
  await keys.close();
});

const serve = (options: Parameters<AvmFixture["serve"]>[0] = {}) =>
  fx.serve({ keys, quotas: new DailyQuotas({ now: fx.clock.now }), ...options });
const ledgerSince = async (size: number): Promise<LedgerEntry[]> => Array.fromAsync(fx.ledger.entries(size));
const accessSince = async (size: number): Promise<LedgerEntry[]> =>
  Array.fromAsync((await keys.ledger()).entries(size));
const problemType = async (res: Response) => ((await res.json()) as { type: string }).type;
const deep = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

describe("1. deep nesting is refused where bodies are parsed, and the verify attempt is logged", () => {
  it("a verify body whose attestation nests 6,000 arrays deep is 400 problem+json and an avm.attempt (request_malformed)", async () => {
    const api = await serve();
    const body = JSON.stringify(fx.body(holder, athena, ["api.read"])).replace(
      '"companion_attestation":{',
      `"companion_attestation":{"x":${deep(6000)},`,
    );
    const before = await fx.ledger.size();
    const res = await api.post("/avm/verify", body);
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(await problemType(res)).toBe(`${PROBLEM_BASE}invalid-body`);
    const logged = await ledgerSince(before);
    expect((await logged).map((e) => e.type)).toEqual(["avm.attempt"]);
    expect(logged[0]!.payload).toMatchObject({
      ledger_id: null,
      verified: false,
      error: "request_malformed",
      attestation_hash: null,
    });
    expect(res.headers.get("ledger-seq")).toBe(String(logged[0]!.seq));
  });

  it("a consensus write and an operator write with a deep field are 400, not 500", async () => {
    const api = await serve();
    const { token } = await fx.token(["avm.operate", "consensus.write"]);
    for (const [path, body] of [
      ["/avm/operator/record-drift", `{"ledger_id":"${holder.ledger_id}","drift_score":0.01,"source":${deep(6000)}}`],
      ["/v1/consensus/sessions", `{"cycle":"C-1","room":${deep(6000)}}`],
      ["/api/cycle/current", `{"cycle":${deep(6000)},"gi":0.9}`],
    ] as const) {
      const res = await api.post(path, body, token);
      expect(res.status, path).toBe(400);
      expect(await problemType(res), path).toBe(`${PROBLEM_BASE}invalid-body`);
    }
  });
});

describe("6. every refusal of a verify is an attempt with its reason", () => {
  it("a 70 KB body (413) is logged as request_too_large", async () => {
    const api = await serve();
    const before = await fx.ledger.size();
    const res = await api.post("/avm/verify", JSON.stringify({ ledger_id: holder.ledger_id, pad: "x".repeat(70_000) }));
    expect(res.status).toBe(413);
    const logged = await ledgerSince(before);
    expect((await logged).map((e) => e.type)).toEqual(["avm.attempt"]);
    expect(logged[0]!.payload).toMatchObject({ ledger_id: null, verified: false, error: "request_too_large" });
    expect(res.headers.get("ledger-seq")).toBe(String(logged[0]!.seq));
  });

  it("a cross-origin POST (403) is logged as origin_not_allowed, with the body's ledger_id", async () => {
    const api = await serve();
    const before = await fx.ledger.size();
    const res = await fetch(`${api.url}/avm/verify`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" },
      body: JSON.stringify(fx.body(holder, athena, ["api.read"])),
    });
    expect(res.status).toBe(403);
    const logged = await ledgerSince(before);
    expect((await logged).map((e) => e.type)).toEqual(["avm.attempt"]);
    expect(logged[0]!.payload).toMatchObject({
      ledger_id: holder.ledger_id,
      verified: false,
      error: "origin_not_allowed",
    });
  });

  it("refusals count against the verify quota, so they cannot flood the ledger either", async () => {
    const api = await serve({ verifyQuota: 3 });
    const before = await fx.ledger.size();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await api.post("/avm/verify", JSON.stringify({ pad: "x".repeat(70_000) }))).status);
    expect(statuses).toEqual([413, 413, 413, 429, 429]);
    expect((await ledgerSince(before)).length).toBe(3);
  });
});

describe("7. the access audit records the tier actually applied", () => {
  it("a revoked academic key is served on the anonymous quota and audited as tier anonymous", async () => {
    const { token, key } = await keys.issue("academic", "revoked academic", fx.clock.now());
    await keys.revoke(key.id, "test", fx.clock.now());
    const api = await serve();
    const before = await (await keys.ledger()).size();
    const res = await fetch(`${api.url}/academics/papers.json`, { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("ratelimit-policy")).toContain("q=100;");
    const audited = await accessSince(before);
    expect(audited.map((e) => e.payload)).toEqual([
      expect.objectContaining({ key_id: key.id, key_status: "revoked", tier: "anonymous", outcome: "served" }),
    ]);
  });
});

describe("2. anonymous refusals do not cost a durable write each", () => {
  it("150 anonymous and 20 made-up-key requests for a keyed file write nothing at once, then one count per window and reason", async () => {
    const api = await serve();
    const before = await (await keys.ledger()).size();
    const statuses = new Map<number, number>();
    for (let i = 0; i < 150; i++) {
      const res = await fetch(`${api.url}/government/compliance-report.json`);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${api.url}/government/compliance-report.json`, {
        headers: { Authorization: `Bearer ipk_${randomBytes(32).toString("base64url")}` },
      });
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
    expect([...statuses].sort()).toEqual([
      [401, 100],
      [429, 70],
    ]);
    expect(await (await keys.ledger()).size()).toBe(before);
    // The window's counts are written once a later window begins.
    fx.clock.advance(61_000);
    await fetch(`${api.url}/government/compliance-report.json`);
    const written = await accessSince(before);
    expect(written.every((e) => e.type === "access.refusals")).toBe(true);
    expect(written.length).toBe(3);
    expect(written.map((e) => e.payload)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          credential: "none",
          area: "government",
          file: "compliance-report.json",
          outcome: "rate-limited",
          status: 429,
          count: 50,
        }),
        expect.objectContaining({
          credential: "none",
          area: "government",
          file: "compliance-report.json",
          outcome: "unauthorized",
          status: 401,
          count: 100,
        }),
        expect.objectContaining({
          credential: "unknown",
          area: "government",
          file: "compliance-report.json",
          outcome: "rate-limited",
          status: 429,
          count: 20,
        }),
      ]),
    );
  });

  it("a known key's refusal is still one access entry, written before the answer", async () => {
    const { token, key } = await keys.issue("academic", "wrong tier", fx.clock.now());
    const api = await serve();
    const before = await (await keys.ledger()).size();
    const res = await fetch(`${api.url}/government/compliance-report.json`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(403);
    expect((await accessSince(before)).map((e) => e.payload)).toEqual([
      expect.objectContaining({ key_id: key.id, outcome: "forbidden", status: 403 }),
    ]);
  });
});

describe("3. a token issued by a token falls with its issuer", () => {
  it("revoking T0 refuses T1 (issued by T0) and T2 (issued by T1); token.issued records the issuer", async () => {
    const api = await serve();
    const t0 = await fx.token(["avm.operate", "avm.revoke"]);
    const issue = async (by: string, subject: string) => {
      const res = await api.post(
        "/avm/operator/issue-token",
        { subject, permissions: ["avm.operate", "avm.revoke"], ttl_seconds: 3600 },
        by,
      );
      expect(res.status).toBe(200);
      return (await res.json()) as { token: string; jti: string };
    };
    const t1 = await issue(t0.token, "deputy");
    const t2 = await issue(t1.token, "deputy-of-deputy");
    const issued = (await Array.fromAsync(fx.ledger.entries()))
      .filter((e) => e.type === "token.issued")
      .map((e) => e.payload as { jti: string; issued_by?: string });
    expect(issued.find((p) => p.jti === t1.jti)?.issued_by).toBe(t0.jti);
    expect(issued.find((p) => p.jti === t2.jti)?.issued_by).toBe(t1.jti);
    const drift = (token: string) =>
      api.post(
        "/avm/operator/record-drift",
        { ledger_id: holder.ledger_id, drift_score: 0.01, source: "monitor" },
        token,
      );
    expect((await drift(t2.token)).status).toBe(200);

    // Revoked by the CLI path (another process appending token.revoked).
    await fx.apply((registry) => ops.revokeToken(registry, { jti: t0.jti, reason: "compromised" }));
    expect((await drift(t0.token)).status).toBe(401);
    expect((await drift(t1.token)).status).toBe(401);
    expect((await drift(t2.token)).status).toBe(401);
    const grandchild = await api.post(
      "/avm/operator/issue-token",
      { subject: "late", permissions: ["avm.revoke"], ttl_seconds: 60 },
      t2.token,
    );
    expect(grandchild.status).toBe(401);
    const revoke = await api.post(
      "/avm/revoke",
      { ledger_id: holder.ledger_id, reason: "requested_by_holder", evidence_hash: `sha256:${"ab".repeat(32)}` },
      t1.token,
    );
    expect(revoke.status).toBe(401);
  });

  it("revoking the middle of the chain leaves its issuer standing", async () => {
    const api = await serve();
    const t0 = await fx.token(["avm.operate"]);
    const res = await api.post(
      "/avm/operator/issue-token",
      { subject: "deputy", permissions: ["avm.operate"], ttl_seconds: 600 },
      t0.token,
    );
    const t1 = (await res.json()) as { token: string; jti: string };
    await fx.apply((registry) => ops.revokeToken(registry, { jti: t1.jti, reason: "left" }));
    const drift = (token: string) =>
      api.post(
        "/avm/operator/record-drift",
        { ledger_id: holder.ledger_id, drift_score: 0.01, source: "monitor" },
        token,
      );
    expect((await drift(t1.token)).status).toBe(401);
    expect((await drift(t0.token)).status).toBe(200);
  });
});

export { rawRequest };
