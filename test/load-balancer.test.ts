/**
 * Three API processes (`api/start.ts --serve-only`) on ONE shared ledger behind a real HAProxy
 * (deploy/haproxy.cfg, test/support/cluster.ts), over real HTTP on loopback: the balancer spreads
 * the requests, a write through one instance is read through another, the decisions taken at the
 * ledger's tail stay single under concurrent requests spread over the instances, and `kill -9` of
 * an instance under load loses no acknowledged write while HAProxy takes it out of rotation.
 *
 * The same tests run on both stores: one PostgreSQL database (`DATABASE_URL`: no SQLite ledger file
 * is created anywhere) and one SQLite file shared by the processes (store/ledger/follow-tail.test.ts). On
 * PostgreSQL the 30 verifies' registry is also compared with the same requests replayed on a single
 * SQLite instance, and the instances count the limits there too: a client's daily quota is exact
 * across the instances, and the client is the address HAProxy forwarded. What PostgreSQL does when
 * it fails under the instances is test/load-balancer-postgres-faults.test.ts.
 */
import { cpSync, existsSync, readdirSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LedgerEntry } from "../core/ledger/entry.ts";
import type { EventPayload } from "../core/events/registry.ts";
import { avmRegistry, type AvmRegistry } from "../core/avm/registry.ts";
import { sha256Hex } from "../core/digest.ts";
import { AvmFixture, TEST_TOKEN_SECRET, attestationHash, type Companion, type Holder } from "./support/api/avm.ts";
import { ConsensusClient, PARTICIPANTS, registerOffices } from "./support/api/routes/consensus.ts";
import { tempDir } from "./support/api/helpers.ts";
import { postJson, request, startApiCluster, type Answer, type ApiCluster } from "./support/cluster.ts";
import { freshDatabase } from "./support/postgres.ts";

/** Registers nothing: a case that only the PostgreSQL variant has is not declared for SQLite (not a skipped test). */
const noTest = (..._args: Parameters<typeof it>): void => undefined;

const REPO_DATA = join(import.meta.dirname, "../data");
const INSTANCES = 3;
const STORES = ["postgresql", "sqlite"] as const;
/** A file of the government area: counted against the daily quota. */
const FILE = "/government/sentinel-status.json";

describe.each(STORES)("N instances behind HAProxy on one shared ledger: %s", (store) => {
  let fx: AvmFixture;
  let cluster: ApiCluster;
  let token: string;
  let holder: Holder;
  let companion: Companion;
  let data: { dir: string; cleanup: () => void };

  beforeAll(async () => {
    // The shared ledger, prepared before any instance starts: offices for consensus, an identity
    // with stake and a companion for verifies, an operator token for consensus writes.
    fx = await AvmFixture.open(Date.now(), store === "postgresql" ? await freshDatabase("balanced_ledger") : undefined);
    await registerOffices(fx.ledger);
    holder = await fx.identity("balanced");
    companion = await fx.companion("athena");
    token = (await fx.token(["consensus.write"])).token;
    // The government area and the dataset keys the instances serve (the quota test reads them).
    data = tempDir("load-balancer-data-");
    cpSync(join(REPO_DATA, "areas", "government"), join(data.dir, "areas", "government"), { recursive: true });
    cpSync(join(REPO_DATA, "keys"), join(data.dir, "keys"), { recursive: true });
    const location = store === "postgresql" ? { DATABASE_URL: fx.path } : { LEDGER_DB: fx.path };
    cluster = await startApiCluster({
      instances: INSTANCES,
      store: () => ({
        ...location,
        DATA_DIR: data.dir,
        LEDGER_SIGNING_KEY: sha256Hex("avm test ledger key"),
        TOKEN_SIGNING_KEY: TEST_TOKEN_SECRET,
      }),
    });
  }, 60_000);

  afterAll(async () => {
    await cluster?.stop();
    await fx?.close();
    data?.cleanup();
  });

  const ids = () => cluster.instances.map((i) => i.id);
  const entries = (): Promise<LedgerEntry[]> => Array.fromAsync(fx.ledger.entries());

  it("spreads requests over every instance, each naming itself; /health names the store", async () => {
    const answers: Answer[] = [];
    for (let k = 0; k < 3 * INSTANCES; k++) answers.push(await request(`${cluster.url}/health`));
    for (const a of answers) expect(a.status).toBe(200);
    expect(new Set(answers.map((a) => a.instance))).toEqual(new Set(ids()));
    const health = JSON.parse(answers[0]!.text) as { ledger: { status: string; store: string; size: number } };
    expect(health.ledger).toMatchObject({ status: "ok", store });
    // Every instance reads the same ledger.
    const sizes = await Promise.all(
      cluster.instances.map(
        async (i) => (JSON.parse((await request(`${i.url}/health`)).text) as typeof health).ledger.size,
      ),
    );
    expect(new Set(sizes).size).toBe(1);
  });

  (store === "postgresql" ? it : noTest)(
    "with DATABASE_URL no SQLite ledger file is created: not in the instances' state folder, not next to the fixture",
    () => {
      const sqliteLedgers = (dir: string) => readdirSync(dir).filter((name) => name.startsWith("ledger.sqlite"));
      expect(sqliteLedgers(join(cluster.dir, "state"))).toEqual([]);
      expect(sqliteLedgers(fx.dir)).toEqual([]);
      expect(existsSync(join(cluster.dir, "state", "ledger.sqlite"))).toBe(false);
    },
  );

  it("a write through one instance is read through another, asked after the answer", async () => {
    const opened = await postJson(
      `${cluster.url}/v1/consensus/sessions`,
      { cycle: "C-201", room: "visible", gi_baseline: 0.97, participants: PARTICIPANTS },
      token,
    );
    expect(opened.status, opened.text).toBe(201);
    const sessionId = (JSON.parse(opened.text) as { sessionId: string }).sessionId;
    for (const other of cluster.instances.filter((i) => i.id !== opened.instance)) {
      const listed = await request(`${other.url}/v1/consensus/sessions`);
      expect(listed.instance).toBe(other.id);
      expect(
        (JSON.parse(listed.text) as { sessions: { session_id: string }[] }).sessions.map((s) => s.session_id),
      ).toContain(sessionId);
    }
  });

  it("100 concurrent opens of one cycle and room through the balancer: exactly one session, every instance lists it", async () => {
    const client = new ConsensusClient(cluster.url, token);
    const opens = await Promise.all(Array.from({ length: 100 }, () => client.open("stampede", PARTICIPANTS, "C-202")));
    expect(opens.filter((a) => a.status === 201)).toHaveLength(1);
    expect(opens.filter((a) => a.status === 200 && a.text === "null")).toHaveLength(99);
    const sessionId = opens.find((a) => a.status === 201)!.body!.sessionId;
    for (const instance of cluster.instances) {
      const listed = (
        await new ConsensusClient(instance.url, token).request<{ sessions: { session_id: string; room: string }[] }>(
          "GET",
          "/v1/consensus/sessions",
        )
      ).body;
      expect(listed.sessions.filter((s) => s.room === "stampede").map((s) => s.session_id)).toEqual([sessionId]);
    }
    const opened = (await entries()).filter(
      (e) => e.type === "consensus.opened" && (e.payload as { cycle: string }).cycle === "C-202",
    );
    expect(opened.map((e) => (e.payload as { session_id: string }).session_id)).toEqual([sessionId]);
  });

  it("30 concurrent verifies through the balancer: 30 attempts logged once each, contiguous, the ledger verifies, the registry one instance alone makes of them", async () => {
    const before = await fx.ledger.size();
    const now = fx.nowMs;
    // Thirty distinct attestations (a replayed one is refused): issued a millisecond apart.
    const bodies = Array.from({ length: 30 }, (_, k) =>
      fx.body(holder, companion, ["api.read"], { issuedAt: now - 86_400_000 - k }),
    );
    const answers = await Promise.all(bodies.map((body) => postJson(`${cluster.url}/avm/verify`, body)));
    for (const a of answers) expect(a.status, a.text).toBe(200);
    expect(new Set(answers.map((a) => a.instance)).size).toBeGreaterThan(1);
    const written = (await entries()).slice(before);
    const attempts = written.filter((e) => e.type === "avm.attempt");
    expect(attempts).toHaveLength(30);
    // Each answer's Ledger-Seq is its own write (attempt, then grant when verified), and together
    // the writes are the whole new tail: nothing twice, nothing missing.
    const seqs = answers.map((a) => Number(a.headers.get("ledger-seq")));
    expect(new Set(seqs).size).toBe(30);
    const all = await entries();
    const covered = seqs
      .flatMap((seq) => (all[seq]!.type === "avm.grant" ? [seq - 1, seq] : [seq]))
      .sort((a, b) => a - b);
    expect(covered).toEqual(written.map((e) => e.seq));
    expect(written.map((e) => e.seq)).toEqual(Array.from({ length: written.length }, (_, k) => before + k));
    expect(await fx.ledger.verify()).toMatchObject({ ok: true });

    // The same requests, replayed one by one in the order the shared ledger recorded them, on a
    // single instance over a SQLite file holding the same identity and companion: the same
    // attempts and the same registry — the instances decided what one instance alone decides.
    const twin = await AvmFixture.open(fx.nowMs);
    try {
      await twin.identity("balanced");
      await twin.companion("athena");
      const single = await twin.serve();
      const bodyOf = new Map(bodies.map((body) => [attestationHash(body.companion_attestation), body]));
      const twinBefore = await twin.ledger.size();
      for (const attempt of attempts) {
        const body = bodyOf.get((attempt.payload as EventPayload<"avm.attempt">).attestation_hash!);
        expect(body).toBeDefined();
        const answer = await single.post("/avm/verify", body);
        expect(answer.status, await answer.text()).toBe(200);
      }
      const twinAttempts = (await Array.fromAsync(twin.ledger.entries()))
        .slice(twinBefore)
        .filter((e) => e.type === "avm.attempt");
      expect(twinAttempts.map((e) => e.payload)).toEqual(attempts.map((e) => e.payload));
      expect(comparableRegistry(await twin.ledger.state(avmRegistry))).toEqual(
        comparableRegistry(await fx.ledger.state(avmRegistry)),
      );
    } finally {
      await twin.close();
    }
  });

  it("kill -9 of one instance under load, three times: every acknowledged write is on the ledger, the others keep writing, HAProxy takes it out", async () => {
    interface Sent {
      room: string;
      answer: Answer;
      /** The instance HAProxy had marked DOWN when the request was sent (null: none). */
      downWhenSent: string | null;
    }
    const sent: Sent[] = [];
    let down: string | null = null;
    let running = true;
    let next = 0;
    const worker = async () => {
      while (running) {
        const room = `load-${next++}`;
        const downWhenSent = down;
        // A connection cut with its instance is no answer: status 0.
        const answer = await postJson(
          `${cluster.url}/v1/consensus/sessions`,
          { cycle: "C-203", room, gi_baseline: 0.97, participants: PARTICIPANTS },
          token,
        ).catch((error: Error): Answer => ({
          status: 0,
          instance: null,
          headers: new Headers(),
          text: String((error.cause as Error | undefined)?.message ?? error.message),
        }));
        sent.push({ room, answer, downWhenSent });
      }
    };
    const acked = (from: string | null = null) =>
      sent.filter((s) => s.answer.status === 201 && (from === null || s.answer.instance === from)).length;
    const until = async (what: string, done: () => boolean) => {
      const deadline = Date.now() + 20_000;
      while (!done()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const load = Promise.all(Array.from({ length: 6 }, worker));
    try {
      for (const victim of [0, 1, 2]) {
        const id = cluster.instances[victim]!.id;
        const mark = acked();
        await until("writes before the kill", () => acked() >= mark + 15);
        await cluster.kill(victim, "SIGKILL");
        await cluster.waitFor(victim, "DOWN");
        down = id;
        // The others keep writing while it is down…
        const others = acked();
        await until("writes while one instance is down", () => acked() >= others + 30);
        down = null;
        await cluster.restart(victim);
        // …and, back UP, it takes its share again.
        const own = acked(id);
        await until(`writes through the restarted ${id}`, () => acked(id) > own);
      }
    } finally {
      running = false;
      await load;
    }

    // Sent after HAProxy marked an instance DOWN: every one answered, by another instance.
    const afterDown = sent.filter((s) => s.downWhenSent !== null);
    expect(afterDown.length).toBeGreaterThanOrEqual(3 * 20);
    for (const s of afterDown) {
      expect(s.answer.status, s.answer.text).toBe(201);
      expect(s.answer.instance).not.toBe(s.downWhenSent);
    }
    // A request lost with its instance is HAProxy's 502, or — when it was not the first on its
    // kept-alive connection — that connection closed without an answer (status 0). A POST is never
    // retried once sent; nothing else fails.
    const failed = sent.filter((s) => s.answer.status !== 201);
    for (const s of failed) expect([502, 0]).toContain(s.answer.status);
    for (const s of failed) expect(s.answer.instance).toBeNull();
    expect(failed.length).toBeLessThanOrEqual(3 * 6);

    // Every acknowledged open is on the ledger, once; a room is never opened twice.
    const opened = (await entries()).filter(
      (e) => e.type === "consensus.opened" && (e.payload as { cycle: string }).cycle === "C-203",
    );
    const rooms = opened.map((e) => (e.payload as { room: string }).room);
    expect(new Set(rooms).size).toBe(rooms.length);
    const sessionOf = new Map(
      opened.map((e) => [(e.payload as { room: string }).room, (e.payload as { session_id: string }).session_id]),
    );
    for (const s of sent.filter((x) => x.answer.status === 201))
      expect(sessionOf.get(s.room)).toBe((JSON.parse(s.answer.text) as { sessionId: string }).sessionId);
    expect(await fx.ledger.verify()).toMatchObject({ ok: true });
  });

  (store === "postgresql" ? it : noTest)(
    "150 parallel requests of one client spread over three instances → exactly 100 answered; the client is the one HAProxy forwarded",
    async () => {
      const answers = await Promise.all(
        Array.from({ length: 150 }, () => requestFrom(`${cluster.url}${FILE}`, "127.0.4.1")),
      );
      expect(answers.filter((a) => a.status === 200)).toHaveLength(100);
      expect(answers.filter((a) => a.status === 429)).toHaveLength(50);
      expect(new Set(answers.map((a) => a.instance)).size).toBe(INSTANCES);
      // Another address through the same balancer is another client (X-Forwarded-For from a trusted
      // proxy): its quota is whole.
      const other = await requestFrom(`${cluster.url}${FILE}`, "127.0.4.2");
      expect(other.status).toBe(200);
      expect(other.rateLimit).toMatch(/;r=99;/);
    },
  );
});

/** A GET from a given loopback address (all of 127.0.0.0/8 is loopback on Linux): one client per address. */
function requestFrom(
  url: string,
  localAddress: string,
): Promise<{ status: number; instance: string | null; rateLimit: string | null }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { localAddress, headers: { Connection: "close" } }, (res) => {
      res.resume();
      res.on("end", () =>
        resolve({
          status: res.statusCode!,
          instance: (res.headers["instance-id"] as string | undefined) ?? null,
          rateLimit: (res.headers.ratelimit as string | undefined) ?? null,
        }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

/**
 * What the verifies decided in an AVM registry, without what depends on where on the ledger or when
 * it was written (seqs, times, the ledger's size) or on what else the ledger holds (operator tokens):
 * identities with their grants, keys, stakes, companions, the attestations used.
 */
function comparableRegistry(registry: AvmRegistry): unknown {
  const strip = (value: unknown): unknown => {
    if (typeof value === "bigint") return value.toString();
    if (Array.isArray(value)) return value.map(strip);
    if (value instanceof Map)
      return [...value].map(([key, v]) => [key, strip(v)]).sort(([a], [b]) => String(a).localeCompare(String(b)));
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(
        Object.entries(value)
          .filter(([key]) => !/^seq$|_at$|AtMs$/.test(key))
          .map(([key, v]) => [key, strip(v)]),
      );
    }
    return value;
  };
  return strip({
    identities: registry.identities,
    identityByKey: registry.identityByKey,
    stakes: registry.stakes,
    companions: registry.companions,
    usedAttestations: [...registry.usedAttestations.keys()].sort(),
  });
}
