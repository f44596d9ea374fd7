import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalize } from "../../core/canonical.ts";
import { REFUSAL_CODES, REFUSAL_KIND, type RefusalCode } from "../../core/consensus/refusal.ts";
import { consensusProjection } from "../../core/consensus/state.ts";
import type { ProofDocument } from "../../core/schemas/consensus.ts";
import { sign } from "../../core/signature.ts";
import type { Ledger } from "../../store/ledger/ledger.ts";
import { createApp } from "../app.ts";
import { REFUSAL_STATUS } from "../problems/consensus.ts";
import { PROBLEM_BASE } from "../problems/problem.ts";
import { listen, type RunningServer } from "../server/server.ts";
import { manualClock, tempDir } from "../../test/support/api/helpers.ts";
import {
  ConsensusClient,
  issueToken,
  OFFICES,
  openTestLedger,
  PARTICIPANTS,
  proofRequest,
  registerOffices,
  serveLedger,
  TEST_LEDGER_PUBLIC_KEY,
  type Answer,
} from "../../test/support/api/routes/consensus.ts";

const CLI = join(import.meta.dirname, "../../cli/consensus-cli.ts");
const RACE_CHILD = join(import.meta.dirname, "../../test/support/api/routes/consensus-race-child.ts");

const { dir, cleanup } = tempDir("consensus-api-");
const clock = manualClock(Date.parse("2026-06-01T08:00:00.000Z"));
const ledgerPath = join(dir, "ledger.sqlite");
let ledger: Ledger;
let server: RunningServer;
let client: ConsensusClient;

beforeAll(async () => {
  ledger = await openTestLedger(ledgerPath, { now: clock.now });
  await registerOffices(ledger);
  const { token } = await issueToken(ledger, { nowMs: clock.now().getTime() });
  server = await serveLedger(ledger, dir, { now: clock.now });
  client = new ConsensusClient(server.url, token);
});

afterAll(async () => {
  await server?.close();
  ledger?.close();
  cleanup();
});

/** What a refusal must look like: its problem type, status by kind, `code`, problem+json. */
function expectRefusal(answer: Answer, code: RefusalCode): Record<string, unknown> {
  expect(answer.type, answer.text).toBe("application/problem+json");
  const body = answer.body as Record<string, unknown>;
  expect(body.type, answer.text).toBe(`${PROBLEM_BASE}consensus-${code}`);
  expect(answer.status).toBe(REFUSAL_STATUS[REFUSAL_KIND[code]]);
  expect(body.status).toBe(answer.status);
  expect(body.code).toBe(code);
  return body;
}

const consensusEntries = async (type: string) =>
  (await Array.fromAsync(ledger.entries())).filter((e) => e.type === type);

describe("a session end to end over HTTP, real signatures, a durable ledger", () => {
  it("records the cycle, opens, takes signed votes, generates, signs, validates, closes and seals; the proof verifies offline", async () => {
    const none = await client.request("GET", "/api/cycle/current");
    expect(none.status).toBe(404);
    expect((none.body as { type: string }).type).toBe(`${PROBLEM_BASE}not-found`);

    expect(await client.setCycle("C-151", 0.97)).toMatchObject({
      status: 200,
      body: { cycle: "C-151", gi: 0.97, room: "main" },
    });
    const opened = await client.open("ethics");
    expect(opened).toMatchObject({ status: 201, body: { sessionId: "CS-151-1" } });
    const sessionId = opened.body!.sessionId;
    expect((await client.request("GET", "/api/cycle/current")).body).toEqual({
      cycle: "C-151",
      gi: 0.97,
      room: "ethics",
    });

    const listed = await client.request<{ sessions: unknown[] }>("GET", "/v1/consensus/sessions");
    expect(listed.status).toBe(200);
    expect(listed.body.sessions).toEqual([
      {
        session_id: sessionId,
        cycle: "C-151",
        room: "ethics",
        gi_baseline: 0.97,
        opened_at: clock.now().toISOString(),
        participants: [
          { office: "ATLAS", priority: "critical", cathedral: "FOR-GOVERNMENTS", gi_at_opening: 0.97, gi: 0.97 },
          { office: "EVE", priority: "critical", cathedral: "FOR-PHILOSOPHERS", gi_at_opening: 0.981, gi: 0.981 },
          { office: "HERMES", priority: "high", cathedral: "FOR-GOVERNMENTS", gi_at_opening: 0.962, gi: 0.962 },
          { office: "SOPHIA", priority: "high", cathedral: "FOR-PHILOSOPHERS", gi_at_opening: 0.975, gi: 0.975 },
        ],
        votes: [],
        proof: null,
      },
    ]);

    const first = await client.vote(sessionId, "ATLAS", "APPROVE");
    expect(first).toMatchObject({
      status: 201,
      body: {
        session_id: sessionId,
        participant: "ATLAS",
        vote: "APPROVE",
        tally: { voted: 1, approve: 1, outcome: "NO_QUORUM" },
      },
    });
    expect((await client.vote(sessionId, "EVE", "APPROVE")).status).toBe(201);
    expect((await client.vote(sessionId, "HERMES", "APPROVE")).status).toBe(201);
    const last = await client.vote(sessionId, "SOPHIA", "REJECT");
    expect(last.body).toMatchObject({
      tally: { participants: 4, voted: 4, approve: 3, reject: 1, abstain: 0, outcome: "APPROVED" },
    });
    expect((await consensusEntries("consensus.vote")).map((e) => e.payload.participant)).toEqual([
      "ATLAS",
      "EVE",
      "HERMES",
      "SOPHIA",
    ]);

    // The client cannot supply what the server computes.
    const forged = await client.request("POST", `/v1/consensus/sessions/${sessionId}/proof`, {
      ...proofRequest(),
      consensus: 1,
    });
    expect(forged.status).toBe(400);
    const generated = await client.generate(sessionId);
    expect(generated.status).toBe(201);
    expect(generated.body.state).toBe("generated");
    expect(generated.body.proof).toMatchObject({
      delib_id: "DP-151-1",
      consensus: 0.75,
      gi_score: 0.972,
      model_signatures: [],
    });
    expect(generated.text).toBe(`${canonicalize(generated.body)}\n`);

    let doc = generated;
    for (const [i, office] of PARTICIPANTS.entries()) {
      doc = await client.modelSign(generated.body, office);
      expect(doc.status).toBe(200);
      expect(doc.body.state).toBe(i === 3 ? "model-signed" : "generated");
      expect(doc.body.proof.model_signatures).toHaveLength(i + 1);
    }
    const validated = await client.validate(doc.body, "JANUS");
    expect(validated.status).toBe(200);
    expect(validated.body.state).toBe("validator-signed");
    expect(validated.body.proof.validator_signature).toMatchObject({
      validator: "JANUS",
      gi: 0.99,
      public_key: OFFICES.JANUS.public_key,
    });

    const wrong = await client.close(sessionId, { outcome: "REJECTED", delibproof_id: "DP-151-1", gi_delta: 0.002 });
    const body = expectRefusal(wrong, "outcome-disagrees");
    expect(body).toMatchObject({
      requested: "REJECTED",
      tally: { approve: 3, reject: 1, abstain: 0, voted: 4, participants: 4, outcome: "APPROVED" },
    });
    expect(body.detail).toContain("3 APPROVE, 1 REJECT");

    const closed = await client.close(sessionId, {
      sessionId,
      outcome: "APPROVED",
      delibproof_id: "DP-151-1",
      gi_delta: 0.002,
    });
    expect(closed).toMatchObject({
      status: 200,
      body: { session_id: sessionId, outcome: "APPROVED", delib_id: "DP-151-1", tally: { outcome: "APPROVED" } },
    });
    const result = closed.body as { evaluated_seq: number; seal: { ledger_seq: number; merkle_root: string } };
    // One transaction: the evaluation and the seal are consecutive entries.
    expect(result.seal.ledger_seq).toBe(result.evaluated_seq + 1);
    expect(
      (await Array.fromAsync(ledger.entries(result.evaluated_seq, result.evaluated_seq + 2))).map((e) => e.type),
    ).toEqual(["consensus.evaluated", "delibproof.sealed"]);
    expect((await client.request<{ sessions: unknown[] }>("GET", "/v1/consensus/sessions")).body.sessions).toEqual([]);
    expect((await client.request("GET", "/api/cycle/current")).body).toMatchObject({ room: "main" });

    const sealed = await client.proof("DP-151-1");
    expect(sealed.status).toBe(200);
    expect(sealed.body.state).toBe("sealed");
    expect(sealed.body.proof.seal).toEqual(result.seal);
    expect(sealed.body.anchor!.entry.seq).toBe(result.seal.ledger_seq);
    expect(sealed.text).toBe(`${canonicalize(sealed.body)}\n`);

    // The body is the proof file: `npm run consensus -- verify-proof` accepts it, and no changed byte.
    const file = join(dir, "DP-151-1.json");
    writeFileSync(file, sealed.text);
    const verify = (path: string) =>
      spawnSync(process.execPath, [CLI, "verify-proof", path, "--db", ledgerPath, "--key", TEST_LEDGER_PUBLIC_KEY], {
        encoding: "utf8",
      });
    const ok = verify(file);
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toContain("ok:");
    const bytes = readFileSync(file);
    bytes[bytes.indexOf("0.972")] = "1".charCodeAt(0);
    writeFileSync(file, bytes);
    const bad = verify(file);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("FAILED");
  });

  it("reports the ledger and the consensus broker on /health", async () => {
    const health = await client.request<Record<string, unknown>>("GET", "/health");
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({
      status: "ok",
      ledger: { status: "ok", size: await ledger.size(), checkpoint_size: expect.any(Number) },
      consensus: {
        status: "ok",
        cycle: { cycle: "C-151", gi: 0.97, room: "main" },
        offices: 8,
        eligible_offices: 6,
        sessions: 1,
        sealed_proofs: 1,
        ignored_entries: 0,
      },
    });
  });
});

describe("every refusal is its problem", () => {
  const seen = new Set<RefusalCode>();
  const refusal = (answer: Answer, code: RefusalCode) => {
    seen.add(code);
    return expectRefusal(answer, code);
  };

  it("opening: unknown, unmeasured, below-minimum offices and the priority mix", async () => {
    const before = await ledger.size();
    refusal(await client.open("r0", ["NOBODY", "EVE", "HERMES", "SOPHIA"]), "unknown-office");
    refusal(await client.open("r0", ["ATLAS", "EVE", "HERMES", "SILENT"]), "gi-unmeasured");
    const below = refusal(await client.open("r0", ["CASSANDRA", "EVE", "HERMES", "SOPHIA"]), "gi-below-minimum");
    // Rule 5: the answer names the office and its GI.
    expect(below).toMatchObject({
      office: "CASSANDRA",
      gi: 0.91,
      minimum: 0.95,
      below: [{ office: "CASSANDRA", gi: 0.91 }],
    });
    expect(below.detail).toContain("CASSANDRA (office integrity 0.91)");
    const mix = refusal(await client.open("r0", ["ATLAS", "EVE", "ORACLE", "HERMES"]), "priority-mix");
    expect(mix).toMatchObject({ critical: ["ATLAS", "EVE", "ORACLE"], high: ["HERMES"] });
    // Not four distinct participants: the body's schema refuses it before any decision.
    expect((await client.open("r0", ["ATLAS", "ATLAS", "HERMES", "SOPHIA"])).status).toBe(400);
    expect(await ledger.size()).toBe(before);
  });

  it("votes, the proof's steps and the close, each refused with its code; nothing refused is recorded", async () => {
    const sessionId = (await client.open("r1")).body!.sessionId;
    const other = (await client.open("r2")).body!.sessionId;
    refusal(await client.vote("CS-999-1", "ATLAS", "APPROVE"), "unknown-session");
    refusal(await client.vote(sessionId, "JANUS", "APPROVE"), "not-a-participant");
    refusal(await client.vote(sessionId, "ATLAS", "APPROVE", OFFICES.EVE), "bad-signature");
    expect((await client.vote(sessionId, "ATLAS", "APPROVE")).status).toBe(201);
    refusal(await client.vote(sessionId, "ATLAS", "REJECT"), "already-voted");

    const stray = proofRequest([...PARTICIPANTS, "JANUS"]);
    const named = refusal(await client.generate(sessionId, stray), "round-participant");
    expect(named).toMatchObject({ participant: "JANUS" });
    const generated = (await client.generate(sessionId)).body;
    expect(generated.proof.consensus).toBe(0.25);
    refusal(await client.generate(sessionId), "proof-exists");
    refusal(await client.vote(sessionId, "EVE", "APPROVE"), "voting-closed");

    refusal(await client.proof("DP-999-1"), "unknown-proof");
    refusal(
      await client.request("POST", "/v1/consensus/proofs/DP-999-1/signatures", {
        participant: "ATLAS",
        signature: "00".repeat(64),
      }),
      "unknown-proof",
    );
    expect(refusal(await client.validate(generated, "JANUS"), "proof-state")).toMatchObject({ state: "generated" });
    refusal(await client.modelSign(generated, "JANUS"), "not-a-participant");
    refusal(await client.modelSign(generated, "EVE", OFFICES.ATLAS), "bad-signature");
    let doc: ProofDocument = generated;
    for (const office of PARTICIPANTS) doc = (await client.modelSign(generated, office)).body;
    expect(doc.state).toBe("model-signed");
    refusal(await client.modelSign(generated, "ATLAS"), "already-signed");

    refusal(await client.validate(doc, "ATLAS"), "validator-is-participant");
    refusal(
      await client.request("POST", `/v1/consensus/proofs/${doc.proof.delib_id}/validator`, {
        validator: "NOBODY",
        signature: "00".repeat(64),
      }),
      "unknown-office",
    );
    expect(refusal(await client.validate(doc, "CASSANDRA"), "gi-below-minimum")).toMatchObject({
      office: "CASSANDRA",
      gi: 0.91,
    });
    refusal(await client.validate(doc, "SILENT"), "gi-unmeasured");
    refusal(await client.validate(doc, "JANUS", OFFICES.ORACLE), "bad-signature");
    expect((await client.validate(doc, "JANUS")).body.state).toBe("validator-signed");
    expect(refusal(await client.modelSign(generated, "ATLAS"), "proof-state")).toMatchObject({
      state: "validator-signed",
    });

    // The other session's proof, generated without votes: it does not close this session.
    const otherProof = (await client.generate(other)).body.proof.delib_id;
    refusal(
      await client.close(sessionId, { outcome: "NO_QUORUM", delibproof_id: otherProof, gi_delta: 0 }),
      "proof-mismatch",
    );
    refusal(await client.close(other, { outcome: "NO_QUORUM", delibproof_id: otherProof, gi_delta: 0 }), "proof-state");
    refusal(
      await client.close(sessionId, { outcome: "APPROVED", delibproof_id: "DP-999-1", gi_delta: 0 }),
      "unknown-proof",
    );
    refusal(
      await client.close("CS-999-1", { outcome: "APPROVED", delibproof_id: doc.proof.delib_id, gi_delta: 0 }),
      "unknown-session",
    );
    const disagrees = refusal(
      await client.close(sessionId, { outcome: "APPROVED", delibproof_id: doc.proof.delib_id, gi_delta: 0 }),
      "outcome-disagrees",
    );
    expect(disagrees).toMatchObject({ tally: { voted: 1, approve: 1, outcome: "NO_QUORUM" } });
    const mismatched = await client.close(sessionId, {
      sessionId: other,
      outcome: "NO_QUORUM",
      delibproof_id: doc.proof.delib_id,
      gi_delta: 0,
    });
    expect(mismatched.status).toBe(400);
    expect((mismatched.body as { invalid_fields: { pointer: string }[] }).invalid_fields[0]!.pointer).toBe(
      "/sessionId",
    );

    const size = await ledger.size();
    expect(
      (await client.close(sessionId, { outcome: "NO_QUORUM", delibproof_id: doc.proof.delib_id, gi_delta: -0.001 }))
        .status,
    ).toBe(200);
    expect(await ledger.size()).toBe(size + 2);
    refusal(
      await client.close(sessionId, { outcome: "NO_QUORUM", delibproof_id: doc.proof.delib_id, gi_delta: 0 }),
      "session-closed",
    );
    refusal(await client.vote(sessionId, "EVE", "APPROVE"), "session-closed");
    // Nothing a refusal answered was recorded: the registry never had to ignore an entry.
    expect((await ledger.state(consensusProjection)).ignoredCount).toBe(0);
  });

  it("the cycle never goes back", async () => {
    expect((await client.setCycle("C-152", 0.968)).body).toEqual({ cycle: "C-152", gi: 0.968, room: "r2" });
    expect(refusal(await client.setCycle("C-150", 0.97), "cycle-regressed")).toMatchObject({
      current: "C-152",
      requested: "C-150",
    });
  });

  it("covers every code a route can answer (registration is the operator command's)", async () => {
    const registrationOnly: RefusalCode[] = ["office-exists", "key-in-use", "invalid-key"];
    expect([...seen].sort()).toEqual(REFUSAL_CODES.filter((c) => !registrationOnly.includes(c)));
  });
});

describe("write routes need a token with consensus.write (rule 3)", () => {
  const writes: [string, string, unknown][] = [
    ["POST", "/api/cycle/current", { cycle: "C-153", gi: 0.97 }],
    ["POST", "/v1/consensus/sessions", { cycle: "C-153", room: "auth", gi_baseline: 0.97, participants: PARTICIPANTS }],
    [
      "POST",
      "/v1/consensus/sessions/CS-151-1/votes",
      { participant: "ATLAS", vote: "APPROVE", signature: "00".repeat(64) },
    ],
    ["POST", "/v1/consensus/sessions/CS-151-1/proof", proofRequest()],
    ["POST", "/v1/consensus/proofs/DP-151-1/signatures", { participant: "ATLAS", signature: "00".repeat(64) }],
    ["POST", "/v1/consensus/proofs/DP-151-1/validator", { validator: "JANUS", signature: "00".repeat(64) }],
    ["POST", "/v1/consensus/sessions/CS-151-1/close", { outcome: "APPROVED", delibproof_id: "DP-151-1", gi_delta: 0 }],
  ];

  it("missing, malformed, unrecorded, insufficient, revoked and expired tokens → 401 on every write route; nothing recorded", async () => {
    const now = clock.now().getTime();
    const insufficient = (await issueToken(ledger, { permissions: ["avm.revoke"], nowMs: now })).token;
    const unrecorded = (await issueToken(ledger, { record: false, nowMs: now })).token;
    const revoked = await issueToken(ledger, { nowMs: now });
    await ledger.append([{ type: "token.revoked", payload: { jti: revoked.jti, reason: "rotated" } }]);
    const expiring = (await issueToken(ledger, { ttlSeconds: 60, nowMs: now })).token;
    clock.advance(61_000);
    const before = await ledger.size();
    const tokens: [string, string | null][] = [
      ["missing", null],
      ["malformed", "not-a-jwt"],
      ["unrecorded", unrecorded],
      ["insufficient", insufficient],
      ["revoked", revoked.token],
      ["expired", expiring],
    ];
    for (const [method, path, body] of writes) {
      for (const [what, token] of tokens) {
        const answer = await client.request(method, path, body, token);
        expect(answer.status, `${what} ${path}`).toBe(401);
        expect(answer.type).toBe("application/problem+json");
        expect((answer.body as { type: string }).type).toBe(`${PROBLEM_BASE}unauthorized`);
      }
    }
    expect(await ledger.size()).toBe(before);
    // Reads need no token.
    for (const path of ["/api/cycle/current", "/v1/consensus/sessions", "/v1/consensus/proofs/DP-151-1"])
      expect((await client.request("GET", path, undefined, null)).status).toBe(200);
  });

  it("a browser's preflight (the page's own origin) for a write may send the token and the JSON body", async () => {
    const res = await fetch(`${server.url}/v1/consensus/sessions/CS-151-1/votes`, {
      method: "OPTIONS",
      headers: {
        Origin: server.url,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type",
      },
    });
    expect(res.status).toBe(204);
    const allowed = (res.headers.get("access-control-allow-headers") ?? "").toLowerCase();
    expect(allowed).toContain("authorization");
    expect(allowed).toContain("content-type");
  });

  it("without a ledger: reads 503 ledger-unavailable, writes 401 (fail closed)", async () => {
    const bare = await listen(createApp({ dataDir: dir, log: () => {} }), "127.0.0.1", 0);
    try {
      const c = new ConsensusClient(bare.url, client.token);
      for (const path of ["/api/cycle/current", "/v1/consensus/sessions", "/v1/consensus/proofs/DP-151-1"]) {
        const answer = await c.request("GET", path);
        expect(answer.status).toBe(503);
        expect((answer.body as { type: string }).type).toBe(`${PROBLEM_BASE}ledger-unavailable`);
      }
      for (const [method, path, body] of writes) expect((await c.request(method, path, body)).status).toBe(401);
      expect((await c.request("GET", "/health")).body).toMatchObject({ ledger: { status: "absent" }, consensus: null });
    } finally {
      await bare.close();
    }
  });
});

describe("the duplicate guard is atomic", () => {
  it("100 concurrent opens of one cycle and room: exactly one session, 99 × null", async () => {
    const opens = await Promise.all(Array.from({ length: 100 }, () => client.open("race", PARTICIPANTS, "C-160")));
    expect(opens.filter((a) => a.status === 201)).toHaveLength(1);
    const nulls = opens.filter((a) => a.status === 200);
    expect(nulls).toHaveLength(99);
    for (const a of nulls) expect(a.text).toBe("null");
    const opened = (await consensusEntries("consensus.opened")).filter((e) => e.payload.cycle === "C-160");
    expect(opened.map((e) => e.payload.session_id)).toEqual([
      (opens.find((a) => a.status === 201)!.body as { sessionId: string }).sessionId,
    ]);
    // Another room of the same cycle opens.
    expect((await client.open("race-2", PARTICIPANTS, "C-160")).status).toBe(201);
  });

  it("two API processes on one ledger file, 50 opens each at once: exactly one session", async () => {
    const path = join(dir, "shared.sqlite");
    const shared = await openTestLedger(path);
    await registerOffices(shared);
    const { token } = await issueToken(shared);
    shared.close();

    const children: ChildProcess[] = [];
    const start = (name: string) =>
      new Promise<string>((resolve, reject) => {
        const data = join(dir, name);
        mkdirSync(data, { recursive: true });
        const child = spawn(process.execPath, [RACE_CHILD, path, data], { stdio: ["pipe", "pipe", "pipe"] });
        children.push(child);
        let out = "";
        let err = "";
        child.stdout!.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          const line = /^(http:\/\/\S+)\n/.exec(out);
          if (line) resolve(line[1]!);
        });
        child.stderr!.on("data", (chunk: Buffer) => (err += chunk.toString()));
        child.on("exit", (code) => reject(new Error(`the API process exited (${code}) before serving: ${err}`)));
      });
    try {
      const urls = await Promise.all([start("a"), start("b")]);
      const clients = urls.map((url) => new ConsensusClient(url, token));
      const opens = await Promise.all(
        Array.from({ length: 100 }, (_, i) => clients[i % 2]!.open("both", PARTICIPANTS, "C-170")),
      );
      expect(opens.filter((a) => a.status === 201)).toHaveLength(1);
      expect(opens.filter((a) => a.status === 200 && a.text === "null")).toHaveLength(99);
      // Both processes decide the same now: each sees the one session.
      for (const c of clients)
        expect(
          (await c.request<{ sessions: { room: string }[] }>("GET", "/v1/consensus/sessions")).body.sessions.map(
            (s) => s.room,
          ),
        ).toEqual(["both"]);
    } finally {
      await Promise.all(
        children.map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null) return resolve();
              child.once("exit", () => resolve());
              child.stdin!.end();
            }),
        ),
      );
    }
    const check = await openTestLedger(path);
    try {
      expect((await Array.fromAsync(check.entries())).filter((e) => e.type === "consensus.opened")).toHaveLength(1);
      expect(await check.verify()).toMatchObject({ ok: true });
    } finally {
      await check.close();
    }
  });
});

describe("a restart loses nothing", () => {
  it("a new process state over the same file answers the same and carries on", async () => {
    const sessionId = (await client.open("restart", PARTICIPANTS, "C-180")).body!.sessionId;
    expect((await client.vote(sessionId, "ATLAS", "APPROVE")).status).toBe(201);
    const sessions = (await client.request("GET", "/v1/consensus/sessions")).text;
    const proof = (await client.proof("DP-151-1")).text;
    const cycle = (await client.request("GET", "/api/cycle/current")).text;

    await server.close();
    await ledger.close();
    ledger = await openTestLedger(ledgerPath, { now: clock.now });
    server = await serveLedger(ledger, dir, { now: clock.now });
    client = new ConsensusClient(server.url, client.token);

    expect((await client.request("GET", "/v1/consensus/sessions")).text).toBe(sessions);
    expect((await client.proof("DP-151-1")).text).toBe(proof);
    expect((await client.request("GET", "/api/cycle/current")).text).toBe(cycle);
    expectRefusal(await client.vote(sessionId, "ATLAS", "APPROVE"), "already-voted");
    expect((await client.open("restart", PARTICIPANTS, "C-180")).text).toBe("null");
    // And the rest of a session runs on the restarted server.
    const done = await client.completeSession("after-restart", undefined, "C-180");
    expect(done.outcome).toBe("APPROVED");
  });
});

describe("the signed messages", () => {
  it("a vote signed over another session's id does not count here", async () => {
    const a = (await client.open("sig-a", PARTICIPANTS, "C-190")).body!.sessionId;
    const b = (await client.open("sig-b", PARTICIPANTS, "C-190")).body!.sessionId;
    const signature = sign(
      "ed25519",
      OFFICES.ATLAS.secret,
      new TextEncoder().encode(canonicalize({ participant: "ATLAS", session_id: a, vote: "APPROVE" })),
    );
    expect(
      (
        await client.request("POST", `/v1/consensus/sessions/${a}/votes`, {
          participant: "ATLAS",
          vote: "APPROVE",
          signature,
        })
      ).status,
    ).toBe(201);
    expectRefusal(
      await client.request("POST", `/v1/consensus/sessions/${b}/votes`, {
        participant: "ATLAS",
        vote: "APPROVE",
        signature,
      }),
      "bad-signature",
    );
  });
});
