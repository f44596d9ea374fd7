/**
 * PostgreSQL failing under three API instances behind HAProxy, on a PostgreSQL
 * cluster of this file's own (test/support/postgres.ts `startCluster`) so that it can be stopped:
 *
 * - the server restarted mid-load (`pg_ctl stop -m immediate`, as a crash; then `-m fast`): while it
 *   is down every write answers 503 `ledger-unavailable` with Retry-After — never a 500, never a cut
 *   connection, never a hang — and /health says the store fails; once it is back the same instances
 *   write again (none restarted) and every acknowledged write is on the ledger;
 * - a lock holder that stopped (a raw client holding the ledger's write lock in an open
 *   transaction): writes answer 503 once the instances' `DATABASE_LOCK_TIMEOUT_MS` is spent, while
 *   the holder still holds it, and succeed again once it goes away.
 *
 * The fetches carry a generous abort as a hang detector, not a measurement: no time is asserted.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LedgerEntry } from "../core/ledger/entry.ts";
import { sha256Hex } from "../core/digest.ts";
import { WRITE_LOCK_SQL, WRITE_LOCK_TABLE } from "../store/drivers/postgres/backend.ts";
import { AvmFixture, TEST_TOKEN_SECRET } from "./support/api/avm.ts";
import { PARTICIPANTS, registerOffices } from "./support/api/routes/consensus.ts";
import { request, startApiCluster, type Answer, type ApiCluster } from "./support/cluster.ts";
import { startCluster, type PostgresCluster } from "./support/postgres.ts";

const INSTANCES = 3;
/** The instances' wait for the ledger's write lock (DATABASE_LOCK_TIMEOUT_MS). */
const LOCK_TIMEOUT_MS = 400;
/** Longer than any timeout of the instances (lock, statement, connection): past it, a request hangs. */
const HANG_MS = 20_000;

let server: PostgresCluster;
let databaseUrl: string;
let fx: AvmFixture;
let cluster: ApiCluster;
let token: string;
let rooms = 0;

beforeAll(async () => {
  server = await startCluster();
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  try {
    await admin.query("CREATE DATABASE faults");
  } finally {
    await admin.end();
  }
  databaseUrl = server.url.replace(/\/postgres$/, "/faults");
  fx = await AvmFixture.open(Date.now(), databaseUrl);
  await registerOffices(fx.ledger);
  token = (await fx.token(["consensus.write"])).token;
  cluster = await startApiCluster({
    instances: INSTANCES,
    store: () => ({
      DATABASE_URL: databaseUrl,
      DATABASE_LOCK_TIMEOUT_MS: String(LOCK_TIMEOUT_MS),
      LEDGER_SIGNING_KEY: sha256Hex("avm test ledger key"),
      TOKEN_SIGNING_KEY: TEST_TOKEN_SECRET,
    }),
  });
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
  await fx?.close();
  server?.remove();
});

interface Open {
  room: string;
  answer: Answer;
}

/** Opens a consensus session in a new room through the balancer; a cut connection or a hang is status 0. */
async function open(): Promise<Open> {
  const room = `fault-${rooms++}`;
  const answer = await request(`${cluster.url}/v1/consensus/sessions`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify({ cycle: "C-301", room, gi_baseline: 0.97, participants: PARTICIPANTS }),
    signal: AbortSignal.timeout(HANG_MS),
  }).catch((error: Error): Answer => ({
    status: 0,
    instance: null,
    headers: new Headers(),
    text: String(error.message),
  }));
  return { room, answer };
}

/** A refusal because the store failed: 503 `ledger-unavailable` from an instance, with Retry-After. */
function expectLedgerUnavailable(answer: Answer): void {
  expect(answer.status, answer.text).toBe(503);
  expect(answer.instance).not.toBeNull();
  expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);
  expect(JSON.parse(answer.text)).toMatchObject({ type: expect.stringMatching(/\/ledger-unavailable$/), status: 503 });
}

interface StoreHealth {
  status: string;
  store: string | null;
}
/** /health of an instance (or through the balancer): the instance's status and each shared store's. */
async function health(
  url: string,
): Promise<{ status: string; ledger: StoreHealth; access_ledger: StoreHealth; limits: StoreHealth }> {
  const answer = await request(`${url}/health`, { signal: AbortSignal.timeout(HANG_MS) });
  expect(answer.status).toBe(200);
  return JSON.parse(answer.text) as {
    status: string;
    ledger: StoreHealth;
    access_ledger: StoreHealth;
    limits: StoreHealth;
  };
}
async function ledgerHealth(url: string): Promise<StoreHealth> {
  return (await health(url)).ledger;
}

async function until(what: string, done: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + HANG_MS;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The rooms of the consensus sessions on the ledger (read by the test's own connection). */
async function openedRooms(): Promise<string[]> {
  const entries: LedgerEntry[] = await Array.fromAsync(fx.ledger.entries());
  return entries
    .filter((e) => e.type === "consensus.opened" && (e.payload as { cycle: string }).cycle === "C-301")
    .map((e) => (e.payload as { room: string }).room);
}

describe("three instances on one PostgreSQL behind HAProxy when PostgreSQL fails", () => {
  it("/health through the balancer names every shared store: postgresql", async () => {
    expect(await health(cluster.url)).toMatchObject({
      status: "ok",
      ledger: { status: "ok", store: "postgresql" },
      access_ledger: { status: "ok", store: "postgresql" },
      limits: { status: "ok", store: "postgresql" },
    });
  });

  for (const mode of ["immediate", "fast"] as const) {
    it(`a restart of PostgreSQL mid-load (stop -m ${mode}): 503 ledger-unavailable with Retry-After while down, then the same instances write again`, async () => {
      const pids = cluster.instances.map((i) => i.pid);
      const sent: (Open & { whileDown: boolean })[] = [];
      let down = false;
      let running = true;
      const worker = async () => {
        while (running) {
          const whileDown = down;
          const sentOne = await open();
          // Sent and answered while the server was down (it went down before and was still down after).
          sent.push({ ...sentOne, whileDown: whileDown && down });
        }
      };
      const acked = () => sent.filter((s) => s.answer.status === 201).length;
      const load = Promise.all(Array.from({ length: 4 }, worker));
      try {
        await until("writes before the stop", () => acked() >= 10);
        server.stop(mode);
        down = true;
        await until("refusals while down", () => sent.filter((s) => s.whileDown).length >= 12);
        // /health on every instance says the store fails (and still answers 200: the instance is alive).
        for (const instance of cluster.instances) {
          const stores = await health(instance.url);
          expect(stores.status).toBe("degraded");
          expect(stores.ledger.store).toBe("postgresql");
          expect(["unavailable", "failing"]).toContain(stores.ledger.status);
          expect(stores.access_ledger).toMatchObject({ status: "unavailable", store: "postgresql" });
          expect(stores.limits).toMatchObject({ status: "failing", store: "postgresql" });
        }
        server.start();
        down = false;
        const mark = acked();
        await until("writes after the restart", () => acked() >= mark + 10);
      } finally {
        running = false;
        down = false;
        await load;
      }

      // While down: every answer a refusal from an instance, with Retry-After.
      for (const s of sent.filter((x) => x.whileDown)) expectLedgerUnavailable(s.answer);
      // Around the stop and start: a write either succeeded or was refused so — no 500, no 502, no cut connection, no hang.
      for (const s of sent.filter((x) => x.answer.status !== 201)) expectLedgerUnavailable(s.answer);
      // No instance was restarted; each reports the store ok again.
      expect(cluster.instances.map((i) => i.pid)).toEqual(pids);
      for (const instance of cluster.instances) {
        expect(await health(instance.url)).toMatchObject({
          status: "ok",
          ledger: { status: "ok", store: "postgresql" },
          access_ledger: { status: "ok", store: "postgresql" },
          limits: { status: "ok", store: "postgresql" },
        });
      }
      // Every acknowledged write is on the ledger, once.
      const onLedger = await openedRooms();
      expect(new Set(onLedger).size).toBe(onLedger.length);
      for (const s of sent.filter((x) => x.answer.status === 201)) expect(onLedger).toContain(s.room);
      expect(await fx.ledger.verify()).toMatchObject({ ok: true });
    });
  }

  it("a stopped holder of the ledger's write lock: writes answer 503 ledger-unavailable after the lock timeout while it holds it, and succeed once it goes away", async () => {
    const holder = new pg.Client({ connectionString: databaseUrl });
    await holder.connect();
    try {
      await holder.query("BEGIN");
      await holder.query(WRITE_LOCK_SQL);
      // The holder sits: every write, on every instance, waits for the lock and gives up.
      const refused = await Promise.all(Array.from({ length: 2 * INSTANCES }, open));
      for (const { answer } of refused) expectLedgerUnavailable(answer);
      expect(new Set(refused.map((r) => r.answer.instance)).size).toBeGreaterThan(1);
      // Still held: the refusals came from the instances' timeout, not from the holder letting go.
      const { rows } = await holder.query<{ held: boolean }>(
        `SELECT count(*) > 0 AS held FROM pg_locks WHERE locktype = 'relation' AND relation = '${WRITE_LOCK_TABLE}'::regclass AND mode = 'RowShareLock' AND granted AND pid = pg_backend_pid()`,
      );
      expect(rows[0]!.held).toBe(true);
      const onLedger = await openedRooms();
      for (const { room } of refused) expect(onLedger).not.toContain(room);
    } finally {
      // The holder goes away (its connection ends: PostgreSQL releases the lock).
      await holder.end();
    }
    const after = await Promise.all(Array.from({ length: 2 * INSTANCES }, open));
    for (const { answer } of after) expect(answer.status, answer.text).toBe(201);
    const onLedger = await openedRooms();
    for (const { room } of after) expect(onLedger).toContain(room);
    for (const instance of cluster.instances)
      expect(await ledgerHealth(instance.url)).toMatchObject({ store: "postgresql" });
  });
});
