/**
 * The AVM routes over real HTTP on loopback, on a real durable SQLite ledger: every stage failure,
 * replay (sequential and concurrent), malformed input and its log, the rate limit, check with the
 * injected clock, revoke and its token, the operator routes, revocation by each trigger taking
 * effect on the next request — also when another process appends it — and two API instances on
 * one ledger file deciding the same.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { lockStake } from "../../core/avm/operations.ts";
import { avmRegistry } from "../../core/avm/registry.ts";
import { grantEvent } from "../../core/avm/verifier.ts";
import { sha256Hex } from "../../core/digest.ts";
import { verifyEntryInclusion, type InclusionAnswer } from "../../core/ledger/inclusion.ts";
import type { AuthorityContext, AvmFailure } from "../../core/schemas/avm.ts";
import { publicKeyFromSecret } from "../../core/signature.ts";
import { AvmFixture, DAY, type ApiOnLoopback, type Companion, type Holder } from "../../test/support/api/avm.ts";
import { PROBLEM_BASE } from "../problems/problem.ts";

const EVIDENCE = `sha256:${sha256Hex("evidence")}`;
const REPO = join(import.meta.dirname, "../..");

let fx: AvmFixture;
let api: ApiOnLoopback;
let athena: Companion;
let hermes: Companion;

beforeEach(async () => {
  fx = await AvmFixture.open();
  athena = await fx.companion("athena");
  hermes = await fx.companion("hermes", "secp256k1");
  api = await fx.serve();
});
afterEach(async () => {
  await fx.close();
});

async function verify(body: unknown, on: ApiOnLoopback = api) {
  const res = await on.post("/avm/verify", body);
  const json = (await res.json()) as {
    verified: boolean;
    authority_context?: AuthorityContext;
  } & Partial<AvmFailure> & { type?: string; invalid_fields?: { pointer: string }[] };
  return { res, json, seq: res.headers.get("ledger-seq") === null ? null : Number(res.headers.get("ledger-seq")) };
}

async function check(id: string, on: ApiOnLoopback = api) {
  return (await (await on.get(`/avm/check/${id}`)).json()) as {
    has_authority: boolean;
    scopes: string[];
    expires_at: string | null;
  };
}

const entries = () => Array.fromAsync(fx.ledger.entries());
const last = async () => (await entries()).at(-1)!;

describe("POST /avm/verify", () => {
  it("answers stake_locked past 2^53 shards exactly: stake_locked_shards, and the number's text written from it", async () => {
    const shards = 2n ** 53n + 2n; // 9007199254.740994 MIC; through a double it reads …740993
    // One lock is at most 1,000,000,000 MIC: the stake is bonded in ten locks.
    const holder = await fx.identity("deployer", { stake: "7199254.740994" });
    for (let i = 0; i < 9; i++)
      await fx.apply((r) =>
        lockStake(r, { ledger_id: holder.ledger_id, amount: "1000000000", slashing_conditions_accepted: true }),
      );
    const res = await api.post("/avm/verify", fx.body(holder, athena, ["api.read"]));
    expect(res.status).toBe(200);
    const text = await res.text();
    const context = (JSON.parse(text) as { authority_context: AuthorityContext }).authority_context;
    expect(context.stake_locked_shards).toBe(shards.toString());
    expect(text).toContain('"stake_locked":9007199254.740994,');
  });

  it("grants: the authority_context, the attempt and the grant in one write, Ledger-Seq of the grant, its inclusion proof", async () => {
    const holder = await fx.identity("deployer", { stake: "12500" });
    const before = await fx.ledger.size();
    const { res, json, seq } = await verify(fx.body(holder, athena, ["api.read", "api.deploy.staging"]));
    expect(res.status).toBe(200);
    expect(json.verified).toBe(true);
    const context = json.authority_context!;
    expect(context).toMatchObject({
      verified: true,
      ledger_id: holder.ledger_id,
      scopes: ["api.read", "api.deploy.staging"],
      risk_level: "medium",
      stake_locked: 12500,
      stake_locked_shards: "12500000000",
    });
    expect(context.validation_chain).toEqual([
      "identity:pass",
      "stake:pass",
      "attestation:pass",
      "scope:pass",
      "temporal:pass",
    ]);
    expect(Date.parse(context.expires_at) - Date.parse(context.created_at)).toBe(30 * DAY); // fewer than 5 attestations: 30 days
    expect(res.headers.get("ratelimit-policy")).toBe('"daily";q=100;w=86400');
    expect(res.headers.get("ratelimit")).toMatch(/^"daily";r=99;t=\d+$/);
    const written = (await entries()).slice(before);
    expect(written.map((e) => e.type)).toEqual(["avm.attempt", "avm.grant"]);
    expect(written[0]!.ts).toBe(written[1]!.ts); // one transaction
    expect(seq).toBe(written[1]!.seq);

    // The client rebuilds its grant entry from the authority_context and checks it offline.
    const proof = await api.get(`/ledger/entries/${seq}/inclusion`);
    expect(proof.status).toBe(200);
    const answer = (await proof.json()) as InclusionAnswer & { entry: { payload?: unknown } };
    expect(answer.entry.payload).toBeUndefined();
    const verifier = {
      name: "integrity-platform.example/ledger",
      publicKeyHex: publicKeyFromSecret("ed25519", sha256Hex("avm test ledger key")),
    };
    expect(verifyEntryInclusion(grantEvent(context).payload, answer, [verifier])).toMatchObject({ ok: true });
    expect(
      verifyEntryInclusion({ ...grantEvent(context).payload, scopes: ["api.*"] }, answer, [verifier]),
    ).toMatchObject({ ok: false });
    expect((await api.get(`/ledger/entries/${await fx.ledger.size()}/inclusion`)).status).toBe(404);
    expect((await api.get("/ledger/entries/01/inclusion")).status).toBe(400);
  });

  it("answers every stage's failure with verified: false (200), its code and rule, and logs the attempt", async () => {
    const deployer = await fx.identity("d1");
    const viewer = await fx.identity("viewer", { role: "viewer", reputation: 0.5 });
    const unstaked = await fx.identity("unstaked", { stake: "0" });
    const unbonded = await fx.identity("unbonded", { stake: "500", acceptSlashing: false });
    const poor = await fx.identity("poor", { stake: "150" });
    const nobody = await fx.identity("nobody", { reputation: 0 });
    const barred = await fx.identity("barred");
    await fx.ledger.append([
      {
        type: "integrity.violation",
        payload: { ledger_id: barred.ledger_id, evidence_hash: EVIDENCE, detected_by: "monitor" },
      },
    ]);
    const drifting = await fx.identity("drifting");
    await fx.ledger.append([
      { type: "identity.drift", payload: { ledger_id: drifting.ledger_id, drift_score: 0.3, source: "monitor" } },
    ]);
    const stranger = fx.body(deployer, athena, ["api.read"]);
    const other = { algorithm: "ed25519" as const, secretKeyHex: sha256Hex("someone else") };
    const now = fx.nowMs;
    const cases: [string, unknown, string, string, string][] = [
      [
        "unknown ledger_id",
        { ...stranger, ledger_id: "00000000-0000-4000-8000-000000000001" },
        "identity",
        "AVM_001",
        "identity_not_found",
      ],
      ["barred identity", fx.body(barred, athena, ["api.read"]), "identity", "AVM_001", "identity_revoked"],
      ["reputation 0", fx.body(nobody, athena, ["api.read"]), "identity", "AVM_001", "reputation_not_positive"],
      [
        "wallet signature by another key",
        fx.body(deployer, athena, ["api.read"], { wallet: other }),
        "stake",
        "AVM_002",
        "wallet_signature_invalid",
      ],
      ["no stake", fx.body(unstaked, athena, ["api.read"]), "stake", "AVM_007", "insufficient_stake"],
      ["slashing not accepted", fx.body(unbonded, athena, ["api.read"]), "stake", "AVM_007", "slashing_not_accepted"],
      [
        "expired attestation",
        fx.body(deployer, athena, ["api.read"], { issuedAt: now - 10 * DAY, expiresAt: now - DAY }),
        "attestation",
        "AVM_003",
        "attestation_expired",
      ],
      [
        "not yet valid",
        fx.body(deployer, athena, ["api.read"], { issuedAt: now + DAY, expiresAt: now + 10 * DAY }),
        "attestation",
        "AVM_003",
        "attestation_not_yet_valid",
      ],
      [
        "unregistered companion",
        fx.body(deployer, { ...athena, companion_id: "ghost" }, ["api.read"]),
        "attestation",
        "AVM_004",
        "attestation_signature_invalid",
      ],
      [
        "subject mismatch",
        fx.body(deployer, athena, ["api.read"], { subject: viewer.ledger_id }),
        "attestation",
        "AVM_004",
        "attestation_invalid",
      ],
      [
        "placeholder EJ hash",
        fx.body(deployer, hermes, ["api.read"], { ej_hash: `sha256:${"0".repeat(64)}` }),
        "attestation",
        "AVM_004",
        "attestation_invalid",
      ],
      [
        "scope beyond the role",
        fx.body(viewer, athena, ["api.deploy.staging"], { scopes: ["api.deploy.staging"] }),
        "scope",
        "AVM_005",
        "scope_not_permitted",
      ],
      [
        "production without 10,000 MIC",
        fx.body(poor, athena, ["api.deploy.production"], { scopes: ["api.deploy.production"] }),
        "scope",
        "AVM_007",
        "insufficient_stake",
      ],
      ["drift above 0.1", fx.body(drifting, athena, ["api.read"]), "scope", "AVM_008", "drift_threshold_exceeded"],
      [
        "attestation valid for 91 days",
        fx.body(deployer, athena, ["api.read"], { issuedAt: now - DAY, expiresAt: now + 90 * DAY }),
        "temporal",
        "AVM_006",
        "duration_exceeds_maximum",
      ],
    ];
    for (const [what, body, stage, code, error] of cases) {
      const { res, json, seq } = await verify(body);
      expect(res.status, what).toBe(200);
      expect(json, what).toMatchObject({ verified: false, failed_at_stage: stage, code, error });
      expect(json.error_detail, what).toMatch(/^[a-z]+\.[a-z_]+: /);
      const attempt = await last();
      expect(seq, what).toBe(attempt.seq);
      expect(attempt.type, what).toBe("avm.attempt");
      expect(attempt.payload, what).toMatchObject({ verified: false, failed_at_stage: stage, code, error });
    }
    // A bad wallet signature on a well-formed body is also AVM_002 at stake.
    const tampered = { ...fx.body(deployer, athena, ["api.read"]), wallet_signature: "ab".repeat(64) };
    expect((await verify(tampered)).json).toMatchObject({ failed_at_stage: "stake", code: "AVM_002" });
  });

  it("grants an attestation once: a replay fails at the attestation stage, also when ten requests race", async () => {
    const holder = await fx.identity("replayer");
    const body = fx.body(holder, athena, ["api.read"]);
    expect((await verify(body)).json.verified).toBe(true);
    expect((await verify(body)).json).toMatchObject({
      verified: false,
      failed_at_stage: "attestation",
      code: "AVM_003",
      error: "attestation_replayed",
    });

    const racer = await fx.identity("racer");
    const raced = fx.body(racer, athena, ["api.read"]);
    const answers = await Promise.all(Array.from({ length: 10 }, () => verify(raced)));
    expect(answers.filter((a) => a.json.verified)).toHaveLength(1);
    expect(answers.filter((a) => a.json.error === "attestation_replayed")).toHaveLength(9);
    expect(
      (await entries()).filter((e) => e.type === "avm.grant" && e.payload.ledger_id === racer.ledger_id),
    ).toHaveLength(1);
  });

  it("renews with a new attestation while the grant is in force; drift above 0.1 is AVM_008", async () => {
    const holder = await fx.identity("renewer");
    const first = (await verify(fx.body(holder, athena, ["api.read"]))).json.authority_context!;
    fx.clock.advance(DAY);
    const second = await verify(fx.body(holder, hermes, ["api.read", "api.write"]));
    expect(second.json.verified).toBe(true);
    expect(await check(holder.ledger_id)).toEqual({
      has_authority: true,
      scopes: ["api.read", "api.write"],
      expires_at: second.json.authority_context!.expires_at,
    });
    expect(second.json.authority_context!.attestation_hash).not.toBe(first.attestation_hash);
    await verify(fx.body(holder, athena, ["api.read"])); // a third, still in force
    await fx.ledger.append([
      { type: "identity.drift", payload: { ledger_id: holder.ledger_id, drift_score: 0.05, source: "monitor" } },
    ]);
    expect((await verify(fx.body(holder, hermes, ["api.read"]))).json.verified).toBe(true);
    const drift = await api.post(
      "/avm/operator/record-drift",
      { ledger_id: holder.ledger_id, drift_score: 0.2, source: "monitor" },
      (await fx.token(["avm.operate"])).token,
    );
    expect(await drift.json()).toMatchObject({ revoked: true });
    fx.clock.advance(60_000); // a new attestation (the same fields at the same instant would be a replay)
    expect((await verify(fx.body(holder, athena, ["api.read"]))).json).toMatchObject({
      verified: false,
      code: "AVM_008",
      failed_at_stage: "scope",
    });
  });

  it("answers malformed input 400 naming the field, another media type 415, too large 413 — and logs each with its reason, never the raw body", async () => {
    const holder = await fx.identity("sloppy");
    const good = fx.body(holder, athena, ["api.read"]);
    let size = await fx.ledger.size();
    const logged = async () => {
      const added = (await entries()).slice(size);
      size = await fx.ledger.size();
      return added;
    };

    const missing = await verify({ ...good, wallet_signature: undefined });
    expect(missing.res.status).toBe(400);
    expect(missing.json.type).toBe(`${PROBLEM_BASE}invalid-body`);
    expect(missing.json.invalid_fields![0]!.pointer).toBe("/wallet_signature");
    const [attempt] = await logged();
    expect(attempt).toMatchObject({
      type: "avm.attempt",
      payload: {
        ledger_id: holder.ledger_id,
        requested_scopes: ["api.read"],
        verified: false,
        failed_at_stage: null,
        code: null,
        error: "request_malformed",
      },
    });
    expect(attempt!.payload.attestation_hash).toMatch(/^sha256:/);

    const secret = "do-not-log-me";
    const broken = await api.post("/avm/verify", `{"ledger_id": "${secret}", `);
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { type: string }).type).toBe(`${PROBLEM_BASE}bad-request`);
    const [brokenAttempt] = await logged();
    expect(brokenAttempt!.payload).toEqual({
      ledger_id: null,
      requested_scopes: [],
      verified: false,
      failed_at_stage: null,
      code: null,
      attestation_hash: null,
      error: "request_malformed",
    });

    const unknown = await verify({ ...good, requested_scopes: ["api.read", secret], extra: secret });
    expect(unknown.res.status).toBe(400);
    expect(JSON.stringify(await logged())).not.toContain(secret);

    const text = await fetch(`${api.url}/avm/verify`, {
      method: "POST",
      headers: { "Content-Type": "text/plain" },
      body: JSON.stringify(good),
    });
    expect(text.status).toBe(415);
    expect((await logged()).map((e) => e.payload.error)).toEqual(["request_malformed"]);

    const huge = await api.post("/avm/verify", JSON.stringify({ ...good, padding: "x".repeat(70_000) }));
    expect(huge.status).toBe(413);
    // Every refusal is an attempt with its reason (api/middleware/verify-attempts.ts); the body over the limit is never read.
    expect((await logged()).map((e) => e.payload)).toEqual([
      expect.objectContaining({ ledger_id: null, error: "request_too_large" }),
    ]);
    expect((await api.post("/avm/verify?x=1", good)).status).toBe(400);
    expect((await logged()).map((e) => e.payload.error)).toEqual(["request_malformed"]);
  });

  it("limits each client per UTC day: 429 with RateLimit fields and Retry-After, not logged; the next day it resets", async () => {
    const limited = await fx.serve({ verifyQuota: 3 });
    const holder = await fx.identity("busy");
    for (let i = 0; i < 3; i++)
      expect((await verify(fx.body(holder, athena, ["api.read"]), limited)).res.status).toBe(200);
    const size = await fx.ledger.size();
    const refused = await limited.post("/avm/verify", fx.body(holder, athena, ["api.read"]));
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { type: string }).type).toBe(`${PROBLEM_BASE}rate-limited`);
    expect(refused.headers.get("ratelimit")).toMatch(/^"daily";r=0;t=\d+$/);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await fx.ledger.size()).toBe(size);
    // Malformed bodies count too: the quota is what bounds the log.
    expect((await limited.post("/avm/verify", "{")).status).toBe(429);
    fx.clock.advance(DAY);
    expect((await verify(fx.body(holder, athena, ["api.read"]), limited)).res.status).toBe(200);
  });

  it("fails closed: no ledger → 503; a store closed under the running server → 503, nothing granted", async () => {
    const bare = await fx.serve({ ledger: undefined as never });
    const holder = await fx.identity("closed");
    const body = fx.body(holder, athena, ["api.read"]);
    expect((await bare.post("/avm/verify", body)).status).toBe(503);
    expect((await bare.get(`/avm/check/${holder.ledger_id}`)).status).toBe(503);
    expect(
      (
        await bare.post("/avm/revoke", {
          ledger_id: holder.ledger_id,
          reason: "key_compromise",
          evidence_hash: EVIDENCE,
        })
      ).status,
    ).toBe(401);
    expect((await bare.get("/ledger/entries/0/inclusion")).status).toBe(503);

    const second = await fx.secondConnection();
    const other = await fx.serve({}, second);
    await second.close();
    const res = await other.post("/avm/verify", body);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { type: string }).type).toBe(`${PROBLEM_BASE}ledger-unavailable`);
    expect((await other.get(`/avm/check/${holder.ledger_id}`)).status).toBe(503);
    expect((await fx.ledger.state(avmRegistry)).identities.get(holder.ledger_id)!.grant).toBeNull();
  });
});

describe("GET /avm/check and POST /avm/revoke", () => {
  it("check: the grant in force at the injected now; an expired grant is no authority", async () => {
    const holder = await fx.identity("checker");
    expect(await check(holder.ledger_id)).toEqual({ has_authority: false, scopes: [], expires_at: null });
    const context = (await verify(fx.body(holder, athena, ["api.read"]))).json.authority_context!;
    expect(await check(holder.ledger_id)).toEqual({
      has_authority: true,
      scopes: ["api.read"],
      expires_at: context.expires_at,
    });
    fx.clock.advance(Date.parse(context.expires_at) - fx.nowMs - 1);
    expect((await check(holder.ledger_id)).has_authority).toBe(true);
    fx.clock.advance(1);
    expect(await check(holder.ledger_id)).toEqual({ has_authority: false, scopes: [], expires_at: null });
    expect((await api.get("/avm/check/not-a-uuid")).status).toBe(400);
  });

  it("revoke: 401 without a token with avm.revoke; with one, immediate and recorded", async () => {
    const holder = await fx.identity("revoked");
    await verify(fx.body(holder, athena, ["api.read"]));
    const body = { ledger_id: holder.ledger_id, reason: "requested_by_holder", evidence_hash: EVIDENCE };
    const none = await api.post("/avm/revoke", body);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer /);
    expect((await api.post("/avm/revoke", body, (await fx.token(["avm.operate"])).token)).status).toBe(401);
    const { token, jti } = await fx.token(["avm.revoke"]);
    const res = await api.post("/avm/revoke", body, token);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ revoked: true, revoked_at: fx.clock.now().toISOString() });
    expect(await last()).toMatchObject({
      seq: Number(res.headers.get("ledger-seq")),
      type: "avm.revoke",
      payload: body,
    });
    expect((await check(holder.ledger_id)).has_authority).toBe(false);
    // Recorded again, with nothing in force; an unknown identity is 404; a revoked token is refused.
    expect(await (await api.post("/avm/revoke", body, token)).json()).toMatchObject({ revoked: false });
    expect(
      (await api.post("/avm/revoke", { ...body, ledger_id: "00000000-0000-4000-8000-000000000009" }, token)).status,
    ).toBe(404);
    await fx.ledger.append([{ type: "token.revoked", payload: { jti, reason: "rotated" } }]);
    expect((await api.post("/avm/revoke", body, token)).status).toBe(401);
  });
});

describe("revocation by each trigger takes effect on the next request", () => {
  async function granted(label: string, stake = "20000"): Promise<Holder> {
    const holder = await fx.identity(label, { stake });
    expect((await verify(fx.body(holder, athena, ["api.read", "api.deploy.staging"]))).json.verified).toBe(true);
    expect((await check(holder.ledger_id)).has_authority).toBe(true);
    return holder;
  }

  it("through the operator routes: stake withdrawn, drift, integrity violation, companion concern", async () => {
    const { token } = await fx.token(["avm.operate"]);
    const cases: [string, (h: Holder) => [string, object], string][] = [
      [
        "withdraw-stake",
        (h) => ["/avm/operator/withdraw-stake", { ledger_id: h.ledger_id, amount: "19950" }],
        "stake_withdrawn",
      ],
      [
        "record-drift",
        (h) => ["/avm/operator/record-drift", { ledger_id: h.ledger_id, drift_score: 0.11, source: "monitor" }],
        "drift_exceeded",
      ],
      [
        "report-violation",
        (h) => [
          "/avm/operator/report-violation",
          { ledger_id: h.ledger_id, evidence_hash: EVIDENCE, detected_by: "auditor" },
        ],
        "integrity_violation",
      ],
      [
        "signal-concern",
        (h) => [
          "/avm/operator/signal-concern",
          { companion_id: "hermes", ledger_id: h.ledger_id, evidence_hash: EVIDENCE },
        ],
        "companion_concern",
      ],
    ];
    for (const [what, make, reason] of cases) {
      const holder = await granted(what);
      const [path, body] = make(holder);
      const res = await api.post(path, body, token);
      expect(res.status, what).toBe(200);
      expect(await res.json(), what).toMatchObject({ revoked: true });
      const [trigger, revoke] = (await entries()).slice(Number(res.headers.get("ledger-seq")));
      expect(revoke, what).toMatchObject({ type: "avm.revoke", payload: { ledger_id: holder.ledger_id, reason } });
      expect(revoke!.ts, what).toBe(trigger!.ts);
      expect(await check(holder.ledger_id), what).toEqual({ has_authority: false, scopes: [], expires_at: null });
    }
  });

  it("appended by another process on the same ledger file (npm run avm, npm run ledger -- append)", async () => {
    const env = { ...process.env, LEDGER_DB: fx.path, STATE_DIR: join(fx.dir, "state") };
    const run = (script: string, args: string[]) =>
      new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        const child = spawn(process.execPath, [join(REPO, "cli", script), ...args], {
          env,
          stdio: ["ignore", "pipe", "pipe"],
        });
        let out = "";
        let err = "";
        child.stdout.on("data", (d: Buffer) => (out += d.toString()));
        child.stderr.on("data", (d: Buffer) => (err += d.toString()));
        child.once("exit", (code) => resolve({ code, out, err }));
      });
    const drifting = await granted("other-process-drift");
    const drift = await run("avm-cli.ts", [
      "record-drift",
      "--ledger-id",
      drifting.ledger_id,
      "--drift-score",
      "0.5",
      "--source",
      "monitor",
    ]);
    expect(drift.code, drift.err).toBe(0);
    expect(JSON.parse(drift.out)).toMatchObject({ revoked: true });
    expect(await check(drifting.ledger_id)).toEqual({ has_authority: false, scopes: [], expires_at: null });

    const violated = await granted("other-process-violation");
    const appended = await run("ledger-cli.ts", [
      "append",
      "integrity.violation",
      JSON.stringify({ ledger_id: violated.ledger_id, evidence_hash: EVIDENCE, detected_by: "auditor" }),
    ]);
    expect(appended.code, appended.err).toBe(0);
    expect((await check(violated.ledger_id)).has_authority).toBe(false);
    expect((await verify(fx.body(violated, athena, ["api.read"]))).json).toMatchObject({
      verified: false,
      failed_at_stage: "identity",
      error: "identity_revoked",
    });
  }, 60_000);
});

describe("two API instances on one ledger file", () => {
  it("decide the same: a grant on one is seen by the other, a revocation on the other by the first, a racing replay grants once", async () => {
    const second = await fx.secondConnection();
    const b = await fx.serve({}, second);
    try {
      const holder = await fx.identity("shared");
      const context = (await verify(fx.body(holder, athena, ["api.read"]), api)).json.authority_context!;
      expect(await check(holder.ledger_id, b)).toEqual({
        has_authority: true,
        scopes: ["api.read"],
        expires_at: context.expires_at,
      });
      const { token } = await fx.token(["avm.revoke"]);
      expect(
        (
          await b.post(
            "/avm/revoke",
            { ledger_id: holder.ledger_id, reason: "key_compromise", evidence_hash: EVIDENCE },
            token,
          )
        ).status,
      ).toBe(200);
      expect((await check(holder.ledger_id, api)).has_authority).toBe(false);
      expect((await verify(fx.body(holder, athena, ["api.read"]), api)).json.error).toBe("identity_revoked");

      const racer = await fx.identity("two-instance-racer");
      const body = fx.body(racer, athena, ["api.read"]);
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => verify(body, i % 2 === 0 ? api : b)));
      expect(answers.filter((a) => a.json.verified)).toHaveLength(1);
      expect((await second.state(avmRegistry)).identities.get(racer.ledger_id)!.attestationCount).toBe(1);
    } finally {
      await b.close();
      await second.close();
    }
  });
});

describe("the operator routes (avm.operate)", () => {
  it("register, stake and tokens over HTTP, with the refusals of the operations as problems", async () => {
    const { token } = await fx.token(["avm.operate", "avm.revoke"], { ttlSeconds: 3600 });
    const key = publicKeyFromSecret("ed25519", sha256Hex("http wallet"));
    expect(
      (
        await api.post("/avm/operator/register-identity", {
          algorithm: "ed25519",
          public_key: key,
          role: "contributor",
          reputation: 0.9,
        })
      ).status,
    ).toBe(401);
    const registered = await api.post(
      "/avm/operator/register-identity",
      { algorithm: "ed25519", public_key: key, role: "contributor", reputation: 0.9 },
      token,
    );
    expect(registered.status).toBe(200);
    const { ledger_id } = (await registered.json()) as { ledger_id: string };
    expect(await last()).toMatchObject({
      seq: Number(registered.headers.get("ledger-seq")),
      type: "identity.registered",
    });
    expect(
      (
        await api.post(
          "/avm/operator/register-identity",
          { algorithm: "ed25519", public_key: key, role: "admin", reputation: 1 },
          token,
        )
      ).status,
    ).toBe(409);
    const offCurve = await api.post(
      "/avm/operator/register-identity",
      { algorithm: "ed25519", public_key: "00".repeat(32), role: "viewer", reputation: 0.5 },
      token,
    );
    expect(offCurve.status).toBe(400);
    expect(
      (
        await api.post(
          "/avm/operator/register-identity",
          { algorithm: "ed25519", public_key: key, role: "root", reputation: 1 },
          token,
        )
      ).status,
    ).toBe(400);

    const locked = await api.post(
      "/avm/operator/lock-stake",
      { ledger_id, amount: "250.5", slashing_conditions_accepted: true },
      token,
    );
    expect(await locked.json()).toEqual({
      ledger_id,
      amount_shards: "250500000",
      bonded_shards: "250500000",
      unbonded_shards: "0",
    });
    expect(
      (
        await api.post(
          "/avm/operator/lock-stake",
          { ledger_id, amount: "1.0000001", slashing_conditions_accepted: true },
          token,
        )
      ).status,
    ).toBe(400);
    expect(
      (
        await api.post(
          "/avm/operator/lock-stake",
          { ledger_id: "00000000-0000-4000-8000-000000000002", amount: "1", slashing_conditions_accepted: true },
          token,
        )
      ).status,
    ).toBe(404);
    expect(
      await (await api.post("/avm/operator/withdraw-stake", { ledger_id, amount: "0.5" }, token)).json(),
    ).toMatchObject({ bonded_shards: "250000000", revoked: false });
    expect(
      (
        await api.post(
          "/avm/operator/register-companion",
          { companion_id: "athena", algorithm: "ed25519", public_key: key },
          token,
        )
      ).status,
    ).toBe(409);
    expect(
      (
        await api.post(
          "/avm/operator/signal-concern",
          { companion_id: "ghost", ledger_id, evidence_hash: EVIDENCE },
          token,
        )
      ).status,
    ).toBe(404);

    // Tokens: within the caller's permissions and lifetime, signed, recorded, revocable.
    const issued = await api.post(
      "/avm/operator/issue-token",
      { subject: "deputy", permissions: ["avm.revoke"], ttl_seconds: 600 },
      token,
    );
    expect(issued.status).toBe(200);
    const deputy = (await issued.json()) as { token: string; jti: string; permissions: string[] };
    expect(deputy.permissions).toEqual(["avm.revoke"]);
    expect(JSON.stringify(entries())).not.toContain(deputy.token.split(".")[2]);
    expect(
      (
        await api.post(
          "/avm/revoke",
          { ledger_id, reason: "requested_by_holder", evidence_hash: EVIDENCE },
          deputy.token,
        )
      ).status,
    ).toBe(200);
    expect(
      (await api.post("/avm/operator/issue-token", { subject: "x", permissions: ["consensus.write"] }, token)).status,
    ).toBe(403);
    expect(
      (
        await api.post(
          "/avm/operator/issue-token",
          { subject: "x", permissions: ["avm.revoke"], ttl_seconds: 7200 },
          token,
        )
      ).status,
    ).toBe(403);
    const revoked = await api.post("/avm/operator/revoke-token", { jti: deputy.jti, reason: "done" }, token);
    expect(await revoked.json()).toEqual({ jti: deputy.jti, revoked: true });
    expect((await api.post("/avm/operator/revoke-token", { jti: deputy.jti, reason: "again" }, token)).status).toBe(
      409,
    );
    expect(
      (
        await api.post(
          "/avm/revoke",
          { ledger_id, reason: "requested_by_holder", evidence_hash: EVIDENCE },
          deputy.token,
        )
      ).status,
    ).toBe(401);

    const unsigned = await fx.serve({ tokenSecretKeyHex: undefined as never });
    const noKey = await unsigned.post(
      "/avm/operator/issue-token",
      { subject: "x", permissions: ["avm.revoke"], ttl_seconds: 60 },
      token,
    );
    expect(noKey.status).toBe(503);
    expect(((await noKey.json()) as { type: string }).type).toBe(`${PROBLEM_BASE}signing-unavailable`);
  });
});
