/**
 * `npm run bench -- postgres`: the ledger on PostgreSQL (store/drivers/postgres/backend.ts) on a throwaway
 * cluster of its own with PostgreSQL's durable defaults (fsync on; test/support/postgres.ts).
 *
 * 1. Appends: 64 concurrent callers, each awaiting single-event `appendAsync` — the API's write
 *    pattern — spread over N = 1, 2, 3 ledger instances (each its own connection pool and group
 *    commit, all on one database, taking turns under the write lock), against the floor of raw
 *    one-row INSERT transactions of the same precomputed rows from 64 callers over a pool on the same
 *    server in the same run. Target: group commit at N = 1 >= 3x the floor's appends/s. Also: the
 *    wait per append (p50/p99), events per commit (group size, mean) and the lock waits: how many
 *    write transactions found the write lock held by another instance (count and share), and
 *    how long they waited for it in total (store/drivers/postgres/backend.ts lockWaits()).
 *    A lone instance sends each group as one statement (the conditional append, store/ledger/group-writes.ts
 *    #appendIfUnmoved); N instances taking turns find the tail moved and write in transactions.
 *    And, report only, what PostgreSQL itself takes: the groups' own statements with the rows
 *    precomputed — the one statement on the ledger's schema (the ceiling at N = 1) and on the same
 *    without the chain's foreign key, and the ordinary transaction of a contended group.
 * 2. Requests through HAProxy (test/support/cluster.ts) at N = 1 and 2 API instances on PostgreSQL,
 *    against one instance on SQLite: POST /avm/verify and balance lookups, p50/p99 (report only: on
 *    2 cores more instances share the same two cores, so no scaling is expected).
 */
import { cpSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import type { NewEvent } from "../core/ledger/store.ts";
import type { Ledger } from "../store/ledger/ledger.ts";
import { generateKeyPair } from "../core/signature.ts";
import { subtreesCompleted } from "../store/ledger-copy.ts";
import { openLedgerStore } from "../store/open-ledger.ts";
import {
  APPEND_IF_TAIL_DDL,
  APPEND_IF_TAIL_FUNCTION,
  APPEND_IF_TAIL_SQL,
  appendIfTailValues,
  checkpointStatement,
  GROUP_INSERT_SQL,
  groupInsertValues,
  TAIL_SQL,
} from "../store/drivers/postgres/statements.ts";
import { TRY_WRITE_LOCK_SQL } from "../store/drivers/postgres/backend.ts";
import type { EntryRow } from "../store/ledger/backend.ts";
import { PG_SCHEMA, PG_WRITE_LOCK_SCHEMA } from "../store/drivers/postgres/schema.ts";
import { sha256Hex } from "../core/digest.ts";
import { AvmFixture, TEST_TOKEN_SECRET, type Companion, type Holder } from "../test/support/api/avm.ts";
import { request, startApiCluster, type Answer } from "../test/support/cluster.ts";
import { sampleEvent, sealedRows, steppingClock } from "../test/support/store/helpers.ts";
import { freshDatabase as freshTestDatabase, startCluster, type PostgresCluster } from "../test/support/postgres.ts";
import { printComparisons } from "./harness.ts";

const CALLERS = 64;
const PER_CALLER = 40;
const ROUNDS = Number(process.env.BENCH_POSTGRES_ROUNDS ?? 3);
const EVENTS = CALLERS * PER_CALLER;

const freshDatabase = (cluster: PostgresCluster) => freshTestDatabase("bench", cluster.url);

/**
 * A CHECKPOINT just before a timed section: the setup's own writes — CREATE DATABASE copies its
 * template through the WAL (about 8 MB), the tables and the function — are flushed, and spent WAL
 * segments recycled, before the clock starts, so neither the floor nor the subject pays for them
 * inside its section (they came as 10–15 ms stalls at random points of either).
 */
async function quiesce(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("CHECKPOINT");
  } finally {
    await client.end();
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

interface AppendRound {
  seconds: number;
  waits: number[];
  commits: number;
  /** Write transactions of all instances, how many found the lock held by another instance, and how long they waited in total (ms). */
  lock: { transactions: number; waits: number; waitedMs: number };
}

/** 64 callers over `instances` ledgers on one database, each awaiting single-event appendAsync; checkpoints signed per group as the API does. */
async function groupCommitRound(
  url: string,
  instances: number,
  events: readonly NewEvent[],
  secretKeyHex: string,
): Promise<AppendRound> {
  const signer = { name: "bench/ledger", secretKeyHex };
  const ledgers: Ledger[] = [];
  for (let i = 0; i < instances; i++) {
    ledgers.push(
      await openLedgerStore({ origin: "bench/ledger", signer, now: steppingClock(), env: { DATABASE_URL: url } }),
    );
  }
  const waits: number[] = [];
  await quiesce(url);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CALLERS }, async (_, caller) => {
      const ledger = ledgers[caller % instances]!;
      for (let i = 0; i < PER_CALLER; i++) {
        const start = performance.now();
        await ledger.appendAsync([events[caller * PER_CALLER + i]!]);
        waits.push(performance.now() - start);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const check = ledgers[0]!;
  const report = await check.verify();
  if ((await check.size()) !== events.length || !report.ok)
    throw new Error(`the N=${instances} round did not write a sound ledger`);
  // One signed checkpoint per appending transaction (two instances never sign the same size twice).
  const commits = report.checkpointsChecked;
  const lock = { transactions: 0, waits: 0, waitedMs: 0 };
  for (const ledger of ledgers) {
    const counted = ledger.lockWaits();
    if (counted === null) throw new Error("the PostgreSQL backend did not count its lock waits");
    lock.transactions += counted.transactions;
    lock.waits += counted.waits;
    lock.waitedMs += counted.waitedMs;
    await ledger.close();
  }
  return { seconds, waits, commits, lock };
}

/** The floor: the same precomputed rows, one-row INSERT transactions from 64 callers over a pool. */
async function rawRound(url: string, rows: ReturnType<typeof sealedRows>): Promise<number> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  await pool.query(`CREATE TABLE raw_entries (seq bigint PRIMARY KEY, type text NOT NULL, payload text NOT NULL, ts text NOT NULL,
                    prev text, hash text NOT NULL, leaf bytea NOT NULL)`);
  await quiesce(url);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CALLERS }, async (_, caller) => {
      for (let i = 0; i < PER_CALLER; i++) {
        const row = rows[caller * PER_CALLER + i]!;
        await pool.query("INSERT INTO raw_entries VALUES ($1, $2, $3, $4, $5, $6, $7)", [
          row[0],
          row[1],
          row[2],
          row[3],
          row[4],
          row[5],
          Buffer.from(row[6]),
        ]);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  await pool.end();
  return seconds;
}

/**
 * What PostgreSQL itself takes for the groups: their statements on one connection with the rows
 * precomputed, so no sealing, deciding or bookkeeping. `one statement`: the conditional append a
 * lone instance sends per group (store/drivers/postgres/statements.ts APPEND_IF_TAIL_SQL) — the ceiling of
 * group commit at N = 1. `transaction`: the ordinary write transaction — BEGIN with the lock and the
 * tail, the group's insert, the checkpoint with COMMIT — which a contended group takes. `schema` is
 * the ledger's, or the same without the chain's foreign key (what that guard costs per group).
 */
async function statementsOnlyRound(
  url: string,
  rows: ReturnType<typeof sealedRows>,
  schema: string,
  mode: "one statement" | "transaction",
): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(schema);
    await client.query(PG_WRITE_LOCK_SCHEMA);
    await client.query(APPEND_IF_TAIL_DDL);
    const entries: EntryRow[] = rows.map(([seq, type, payload, ts, prev, hash, leaf]) => ({
      seq,
      type,
      payload,
      ts,
      prev,
      hash,
      leaf,
    }));
    await quiesce(url);
    const t0 = performance.now();
    for (let at = 0; at < entries.length; at += CALLERS) {
      const group = entries.slice(at, at + CALLERS);
      // What a group also writes: the stored subtrees it completes (any 32 bytes will do here) and its checkpoint.
      const size = at + group.length;
      const subtrees = subtreesCompleted(at, size).map((t) => ({ ...t, hash: ZERO_HASH }));
      const checkpoint = { size, note: CHECKPOINT_NOTE, createdAt: group.at(-1)!.ts };
      if (mode === "one statement") {
        const tail = at === 0 ? null : { seq: at - 1, hash: entries[at - 1]!.hash };
        const values = appendIfTailValues(tail, { rows: group, subtrees, checkpoint });
        const { rows: answer } = await client.query({
          name: APPEND_IF_TAIL_FUNCTION,
          text: APPEND_IF_TAIL_SQL,
          values,
        });
        if (answer[0].outcome !== "appended") throw new Error(`the ceiling's append answered ${answer[0].outcome}`);
        continue;
      }
      await client.query(`BEGIN ISOLATION LEVEL READ COMMITTED; ${TRY_WRITE_LOCK_SQL}; ${TAIL_SQL}`);
      await client.query({
        name: "group_insert",
        text: GROUP_INSERT_SQL,
        values: groupInsertValues(group, subtrees, []),
      });
      // The checkpoint rides with the COMMIT, as the ledger sends it.
      await client.query(`${checkpointStatement(checkpoint)}COMMIT`);
    }
    return (performance.now() - t0) / 1000;
  } finally {
    await client.end();
  }
}

const ZERO_HASH = new Uint8Array(32);

/** A signed checkpoint's size in text (origin, size, root, one Ed25519 signature line). */
const CHECKPOINT_NOTE = `bench/ledger\n2560\n${"A".repeat(44)}\n\n— bench/ledger ${"B".repeat(88)}\n`;

/** The ledger's schema without the foreign key from each entry to the previous one. */
const SCHEMA_WITHOUT_CHAIN_KEY = PG_SCHEMA.replace(
  /,\s*FOREIGN KEY \(prev_seq, prev\) REFERENCES ledger_entries \(seq, hash\)/,
  "",
);

const REPO_DATA = join(import.meta.dirname, "../data");
const LEDGER_SECRET = sha256Hex("avm test ledger key");
const VERIFIES = 200;
const LOOKUPS = 600;
const CLIENTS = 16;

/** `count` requests from CLIENTS concurrent clients, each waiting for its answer; the latency of each. */
async function load(
  count: number,
  send: (k: number) => Promise<Answer>,
  expected: number,
): Promise<{ seconds: number; latencies: number[] }> {
  const latencies: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < count) {
        const k = next++;
        const start = performance.now();
        const answer = await send(k);
        latencies.push(performance.now() - start);
        if (answer.status !== expected) throw new Error(`request ${k}: ${answer.status} ${answer.text.slice(0, 200)}`);
      }
    }),
  );
  return { seconds: (performance.now() - t0) / 1000, latencies: latencies.sort((a, b) => a - b) };
}

/**
 * POST /avm/verify (each a grant: a ledger write) and balance lookups through HAProxy: one instance
 * on SQLite, then N = 1 and 2 instances on one PostgreSQL database holding the same entries.
 * Clients are told apart by X-Forwarded-For (the instances trust the balancer on loopback), so the
 * verify quota of one address does not cap the run.
 */
async function apiThroughBalancer(pgCluster: PostgresCluster): Promise<void> {
  const fx = await AvmFixture.open();
  try {
    const holder: Holder = await fx.identity("bench");
    const companion: Companion = await fx.companion("athena");
    const pgUrl = await freshDatabase(pgCluster);
    const copy = await openLedgerStore({
      path: pgUrl,
      origin: fx.ledger.origin,
      signer: { name: fx.ledger.origin, secretKeyHex: LEDGER_SECRET },
    });
    await copy.append(
      (await Array.fromAsync(fx.ledger.entries())).map((e) => ({ type: e.type, payload: e.payload, ts: e.ts })),
    );
    await copy.close();
    const keys = { LEDGER_SIGNING_KEY: LEDGER_SECRET, TOKEN_SIGNING_KEY: TEST_TOKEN_SECRET };
    const variants = [
      { name: "SQLite, 1 instance", instances: 1, store: { LEDGER_DB: fx.path } },
      { name: "PostgreSQL, N = 1", instances: 1, store: { DATABASE_URL: pgUrl } },
      { name: "PostgreSQL, N = 2", instances: 2, store: { DATABASE_URL: pgUrl } },
    ];
    let attestations = 0;
    console.log("\npostgres: requests through HAProxy (report only; on 2 cores more instances share the same cores)");
    for (const variant of variants) {
      const cluster = await startApiCluster({
        instances: variant.instances,
        store: () => ({ ...variant.store, ...keys }),
      });
      try {
        // The balance lookups answer from the published migration snapshot plus the ledger's movements.
        for (const part of ["migration", "keys"])
          cpSync(join(REPO_DATA, part), join(cluster.dir, "data", part), { recursive: true });
        const verify = await load(
          VERIFIES,
          (k) => {
            const body = fx.body(holder, companion, ["api.read"], { issuedAt: fx.nowMs - 86_400_000 - ++attestations });
            return request(`${cluster.url}/avm/verify`, {
              method: "POST",
              headers: { "Content-Type": "application/json", "X-Forwarded-For": `10.9.${k >> 8}.${k & 255}` },
              body: JSON.stringify(body),
            });
          },
          200,
        );
        const lookup = await load(LOOKUPS, () => request(`${cluster.url}/balance/${holder.ledger_id}`), 200);
        const line = (what: string, r: { seconds: number; latencies: number[] }, n: number) =>
          `    ${variant.name}: ${what} ${(n / r.seconds).toFixed(0)}/s, p50 ${percentile(r.latencies, 50).toFixed(1)} ms, p99 ${percentile(r.latencies, 99).toFixed(1)} ms`;
        console.log(line("POST /avm/verify", verify, VERIFIES));
        console.log(line("GET /balance/{address}", lookup, LOOKUPS));
      } finally {
        await cluster.stop();
      }
    }
  } finally {
    await fx.close();
  }
}

export async function run(): Promise<void> {
  const cluster = await startCluster({ durable: true });
  try {
    const events = Array.from({ length: EVENTS }, (_, i) => sampleEvent(i));
    const rows = sealedRows(events);
    const secretKeyHex = generateKeyPair("ed25519").secretKey;
    // Warm-up of each side, then alternating rounds; the best of each, as the harness does.
    await rawRound(await freshDatabase(cluster), rows);
    await groupCommitRound(await freshDatabase(cluster), 1, events, secretKeyHex);
    if (SCHEMA_WITHOUT_CHAIN_KEY === PG_SCHEMA) throw new Error("the ledger schema's chain key was not found");
    let floor = Infinity;
    const ceiling = { oneStatement: Infinity, withoutChainKey: Infinity, transaction: Infinity };
    const best = new Map<number, AppendRound>();
    for (let r = 0; r < ROUNDS; r++) {
      floor = Math.min(floor, await rawRound(await freshDatabase(cluster), rows));
      ceiling.oneStatement = Math.min(
        ceiling.oneStatement,
        await statementsOnlyRound(await freshDatabase(cluster), rows, PG_SCHEMA, "one statement"),
      );
      ceiling.withoutChainKey = Math.min(
        ceiling.withoutChainKey,
        await statementsOnlyRound(await freshDatabase(cluster), rows, SCHEMA_WITHOUT_CHAIN_KEY, "one statement"),
      );
      ceiling.transaction = Math.min(
        ceiling.transaction,
        await statementsOnlyRound(await freshDatabase(cluster), rows, PG_SCHEMA, "transaction"),
      );
      for (const n of [1, 2, 3]) {
        const round = await groupCommitRound(await freshDatabase(cluster), n, events, secretKeyHex);
        if (!best.has(n) || round.seconds < best.get(n)!.seconds) best.set(n, round);
      }
    }
    printComparisons(
      "postgres: concurrent single-event appends on PostgreSQL (fsync on)",
      [1, 2, 3].map((n) => ({
        name: `${CALLERS} callers × ${PER_CALLER} appends over N = ${n} instance${n > 1 ? "s" : ""} (${EVENTS.toLocaleString("en")} events)`,
        subject: `group commit under the write lock, N = ${n}`,
        floor: "raw one-row INSERT transactions of the same rows, 64 callers over a pool of 10",
        subjectSeconds: best.get(n)!.seconds,
        floorSeconds: floor,
        items: EVENTS,
        kind: "speed" as const,
        ...(n === 1 ? { target: 3 } : {}),
      })),
    );
    printComparisons("postgres: what PostgreSQL itself takes for the same groups (report only)", [
      {
        name: `the groups' own statements on one connection, rows precomputed (${EVENTS / CALLERS} groups of ${CALLERS}): the ceiling of group commit at N = 1`,
        subject: "the conditional append, one statement per group",
        floor: "raw one-row INSERT transactions of the same rows, 64 callers over a pool of 10",
        subjectSeconds: ceiling.oneStatement,
        floorSeconds: floor,
        items: EVENTS,
        kind: "speed" as const,
      },
      {
        name: "the same on the ledger's schema without the foreign key that chains each entry to the previous one",
        subject: "the same statements, no chain key",
        floor: "raw one-row INSERT transactions of the same rows, 64 callers over a pool of 10",
        subjectSeconds: ceiling.withoutChainKey,
        floorSeconds: floor,
        items: EVENTS,
        kind: "speed" as const,
      },
      {
        name: "the ordinary write transaction a contended group takes (N >= 2), the same rows",
        subject: "BEGIN + lock + tail, the group's insert, the checkpoint + COMMIT",
        floor: "raw one-row INSERT transactions of the same rows, 64 callers over a pool of 10",
        subjectSeconds: ceiling.transaction,
        floorSeconds: floor,
        items: EVENTS,
        kind: "speed" as const,
      },
    ]);
    for (const n of [1, 2, 3]) {
      const round = best.get(n)!;
      const waits = round.waits.sort((a, b) => a - b);
      console.log(
        `    N = ${n}: ${(EVENTS / round.seconds).toFixed(0)} appends/s (floor ${(EVENTS / floor).toFixed(0)}/s); wait per append p50 ${percentile(waits, 50).toFixed(1)} ms, ` +
          `p99 ${percentile(waits, 99).toFixed(1)} ms; ${round.commits} groups, ${(EVENTS / round.commits).toFixed(1)} events per group (mean)`,
      );
      // Lock waits: write transactions (each instance's open() included) whose first try found the
      // write lock held by another instance, and the time they spent waiting for it.
      const { transactions, waits: lockWaits, waitedMs } = round.lock;
      console.log(
        `      lock waits: ${lockWaits} of ${transactions} write transactions (${((100 * lockWaits) / transactions).toFixed(1)}%), ` +
          `${waitedMs.toFixed(0)} ms waited in total${lockWaits > 0 ? `, ${(waitedMs / lockWaits).toFixed(1)} ms per wait` : ""}`,
      );
    }
    await apiThroughBalancer(cluster);
  } finally {
    cluster.remove();
  }
}
