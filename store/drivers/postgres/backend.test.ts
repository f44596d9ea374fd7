/**
 * The PostgreSQL backend against a real server (test/support/postgres.ts): the primitives (the
 * shared conformance tests), the schema's guards, the write lock across two pools, opening a new
 * database twice at once, and the store failing — lock timeout, a terminated session, a server
 * restart — as LedgerUnavailableError with recovery by itself.
 */
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../../../core/digest.ts";
import { hasCode } from "../../../core/errors.ts";
import {
  LedgerUnavailableError,
  type AppendIfTailFn,
  type AppendStrategy,
  type LedgerBackend,
} from "../../ledger/backend.ts";
import { Ledger } from "../../ledger/ledger.ts";
import { PostgresBackend, WRITE_LOCK_SQL, WRITE_LOCK_TABLE, type PostgresBackendOptions } from "./backend.ts";
import { PostgresLedgerError, sqlState } from "./failures.ts";
import { PG_TABLES } from "./schema.ts";
import { APPEND_IF_TAIL_SIGNATURE, APPEND_IF_TAIL_SQL, appendIfTailValues } from "./statements.ts";
import {
  backendConformance,
  chainRows,
  CONFORMANCE_ORIGIN,
  subtreeRow,
} from "../../../test/support/store/backend-conformance.ts";
import { freshDatabase, startCluster, type PostgresCluster } from "../../../test/support/postgres.ts";
import { sampleEvent, steppingClock } from "../../../test/support/store/helpers.ts";

backendConformance(async () => new PostgresBackend(await freshDatabase("conformance")));

const ORIGIN = CONFORMANCE_ORIGIN;
const SIGNER_KEY = sha256Hex("postgres backend test ledger key");
const open: { end(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.allSettled(open.splice(0).map((o) => o.end()));
});

function backend(url: string, options?: PostgresBackendOptions): PostgresBackend {
  const b = new PostgresBackend(url, options);
  open.push({ end: () => b.close() });
  return b;
}
async function rawClient(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => undefined); // a session this test terminates
  await client.connect();
  open.push({ end: () => client.end() });
  return client;
}
async function stateOf(promise: Promise<unknown>): Promise<string | null> {
  try {
    await promise;
    return null;
  } catch (error) {
    return sqlState(error) ?? `not a server error: ${String(error)}`;
  }
}
/** A raw session holding the ledger's write lock in an open transaction (COMMIT or ROLLBACK lets go). */
async function lockHolder(url: string): Promise<pg.Client> {
  const holder = await rawClient(url);
  await holder.query("BEGIN");
  await holder.query(WRITE_LOCK_SQL);
  return holder;
}
/** Polls `check` until it holds (each poll a round trip to the server; no time asserted), a bounded number of times. */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let poll = 0; poll < 1500; poll++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`gave up waiting: ${what}`);
}
/**
 * The pids holding (granted) or waiting for (not granted) the write lock of the ledger in `schema`:
 * a session that asked for the lock row holds a RowShareLock on the lock table; it waits while it
 * has a lock not granted (the row's tuple or its holder's transaction).
 */
async function lockSessions(client: pg.Client, granted: boolean, schema = "public"): Promise<number[]> {
  const { rows } = await client.query<{ pid: number }>(
    `SELECT l.pid FROM pg_locks l WHERE l.locktype = 'relation' AND l.relation = $1::regclass AND l.mode = 'RowShareLock' AND l.granted
       AND EXISTS (SELECT 1 FROM pg_locks w WHERE w.pid = l.pid AND NOT w.granted) = NOT $2`,
    [`${schema}.ledger_write_lock`, granted],
  );
  return rows.map((r) => r.pid);
}
/** A deferred: a promise and the function that resolves it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** The driver's conditional append: the strategy a PostgreSQL ledger opened by its owner offers. */
function conditional(store: LedgerBackend): AppendIfTailFn {
  const strategy = store.appendStrategy();
  if (strategy.kind !== "conditional") throw new Error("the backend offers no conditional append");
  return strategy.appendIfTail;
}

describe("PostgresBackend: a ledger in a schema of its own (the access ledger's)", () => {
  it("creates the schema and its tables, keeps its rows and origin apart from the default schema's, and takes a lock of its own", async () => {
    const url = await freshDatabase("schema");
    const main = backend(url);
    const access = backend(url, { schema: "access" });
    await main.open(ORIGIN);
    await access.open("conformance.example/access"); // another origin: refused if the tables were shared
    expect(access.location).toContain("(schema access)");
    const client = await rawClient(url);
    const { rows } = await client.query<{ schemaname: string }>(
      "SELECT DISTINCT schemaname FROM pg_tables WHERE tablename = 'ledger_entries' ORDER BY 1",
    );
    expect(rows.map((r) => r.schemaname)).toEqual(["access", "public"]);

    await access.withWriteLock((tx) => tx.insertRows(chainRows(3)));
    expect((await access.last())?.seq).toBe(2);
    expect(await main.last()).toBeNull();
    // A write holding the access ledger's lock does not hold up the main ledger's writes.
    const held = gate();
    const holding = access.withWriteLock(() => held.promise);
    await until(
      async () =>
        (await lockSessions(client, true)).length === 0 && (await lockSessions(client, true, "access")).length === 1,
      "the access lock held",
    );
    await main.withWriteLock((tx) => tx.insertRows(chainRows(1)));
    held.open();
    await holding;
    expect((await main.last())?.seq).toBe(0);
    // Reopening finds the schema's tables and their origin.
    await backend(url, { schema: "access" }).open("conformance.example/access");
    await expect(backend(url, { schema: "access" }).open(ORIGIN)).rejects.toSatisfy((e) =>
      hasCode(e, "origin-mismatch"),
    );
  });

  it("refuses a schema name that is not a plain lower-case identifier", () => {
    expect(() => new PostgresBackend("postgres://db.example/ledger", { schema: 'x"; DROP TABLE y; --' })).toThrow(
      PostgresLedgerError,
    );
  });
});

describe("PostgresBackend: construction", () => {
  it("shows its location without the password and refuses URLs that are not postgres://", async () => {
    const b = backend("postgres://ledger:s3cret@db.example:5432/ledger");
    expect(b.kind).toBe("postgresql");
    expect(b.location).not.toContain("s3cret");
    expect(b.location).toBe("postgres://ledger@db.example:5432/ledger");
    expect(() => new PostgresBackend("sqlite:///tmp/ledger.sqlite")).toThrow(PostgresLedgerError);
    expect(() => new PostgresBackend("not a url")).toThrow(PostgresLedgerError);
  });

  it("refuses a database holding a ledger of another origin", async () => {
    const url = await freshDatabase("origin");
    await backend(url).open(ORIGIN);
    await backend(url).open(ORIGIN); // the same origin opens again
    const error = await backend(url)
      .open("other.example/ledger")
      .catch((e: unknown) => e);
    expect(hasCode(error, "origin-mismatch")).toBe(true);
  });

  it("two instances opening a new database at once both succeed, with one schema", async () => {
    const url = await freshDatabase("race_open");
    const instances = Array.from({ length: 4 }, () => backend(url));
    await Promise.all(instances.map((b) => b.open(ORIGIN)));
    const client = await rawClient(url);
    const tables = await client.query(
      "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename",
    );
    expect(tables.rows.map((r) => r.tablename)).toEqual([...PG_TABLES, WRITE_LOCK_TABLE].sort());
    const meta = await client.query("SELECT key, value FROM ledger_meta ORDER BY key");
    expect(meta.rows).toEqual([
      { key: "format_version", value: "1" },
      { key: "origin", value: ORIGIN },
    ]);
  });
});

describe("PostgresBackend: the schema guards the log", () => {
  let url: string;
  let client: pg.Client;
  let b: PostgresBackend;
  const rows = chainRows(3);
  beforeAll(async () => {
    url = await freshDatabase("guards");
    const setup = new PostgresBackend(url);
    await setup.open(ORIGIN);
    await setup.withWriteLock(async (tx) => {
      await tx.insertRows(rows);
      await tx.insertSubtrees([subtreeRow(4, 0)]);
      await tx.insertCheckpointIfAbsent(3, "three\n", "2026-01-01T00:00:00.000Z");
    });
    await setup.close();
  });
  async function contents(c: pg.Client): Promise<unknown[]> {
    const out: unknown[] = [];
    for (const table of PG_TABLES) out.push((await c.query(`SELECT * FROM ${table} ORDER BY 1`)).rows);
    return out;
  }

  it("refuses UPDATE, DELETE, TRUNCATE and upserts that rewrite, on every table", async () => {
    client = await rawClient(url);
    const before = await contents(client);
    const attempts: Record<string, string[]> = {
      ledger_meta: [
        "UPDATE ledger_meta SET value = 'x'",
        "INSERT INTO ledger_meta VALUES ('origin', 'x') ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      ],
      ledger_entries: [
        "UPDATE ledger_entries SET type = 'x' WHERE seq = 2",
        "INSERT INTO ledger_entries (seq, type, payload, ts, prev, hash, leaf) SELECT seq, 'x', payload, ts, prev, hash, leaf FROM ledger_entries WHERE seq = 2 ON CONFLICT (seq) DO UPDATE SET type = excluded.type",
      ],
      ledger_subtrees: [
        "UPDATE ledger_subtrees SET idx = 7",
        "INSERT INTO ledger_subtrees VALUES (4, 0, '\\x" +
          "00".repeat(32) +
          "') ON CONFLICT (level, idx) DO UPDATE SET hash = excluded.hash",
      ],
      ledger_checkpoints: [
        "UPDATE ledger_checkpoints SET note = 'x'",
        "INSERT INTO ledger_checkpoints VALUES (3, 'x', 'y') ON CONFLICT (size) DO UPDATE SET note = excluded.note",
      ],
    };
    for (const table of PG_TABLES) {
      for (const sql of [...attempts[table]!, `DELETE FROM ${table}`, `TRUNCATE ${table} CASCADE`]) {
        expect({ sql, state: await stateOf(client.query(sql)) }).toEqual({ sql, state: "P0001" });
      }
    }
    expect(await contents(client)).toEqual(before);
  });

  it("refuses an entry whose prev is not the previous hash, a gap in seq, and malformed rows", async () => {
    client = await rawClient(url);
    const next = chainRows(2, rows[2]!);
    const insert = (r: { seq: number; prev: string | null; leaf?: Uint8Array }) =>
      client.query(
        "INSERT INTO ledger_entries (seq, type, payload, ts, prev, hash, leaf) VALUES ($1, 'x', '{}', 't', $2, 'h', $3)",
        [r.seq, r.prev, r.leaf ?? new Uint8Array(32)],
      );
    expect(await stateOf(insert({ seq: 3, prev: rows[1]!.hash }))).toBe("23503"); // prev is not entry 2's hash
    expect(await stateOf(insert({ seq: 4, prev: next[0]!.hash }))).toBe("23503"); // seq 3 is missing
    expect(await stateOf(insert({ seq: 3, prev: null }))).toBe("23514"); // only seq 0 has no prev
    expect(await stateOf(insert({ seq: -1, prev: null }))).toBe("23514");
    expect(await stateOf(insert({ seq: 3, prev: rows[2]!.hash, leaf: new Uint8Array(31) }))).toBe("23514");
    expect(await stateOf(insert({ seq: 2, prev: rows[1]!.hash }))).toBe("23505"); // taken
    expect(
      await stateOf(
        client.query(
          "INSERT INTO ledger_entries (seq, type, payload, ts, prev, hash, leaf, prev_seq) VALUES (3, 'x', '{}', 't', 'h', 'h', $1, 1)",
          [new Uint8Array(32)],
        ),
      ),
    ).toBe("428C9");
  });

  it("a write the schema refuses is not LedgerUnavailableError, rolls back, and the backend goes on", async () => {
    b = backend(url);
    const next = chainRows(3, rows[2]!);
    const forged = { ...next[1]!, prev: rows[0]!.hash };
    const error = await b.withWriteLock((tx) => tx.insertRows([next[0]!, forged, next[2]!])).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(LedgerUnavailableError);
    expect(sqlState(error)).toBe("23503");
    const gap = await b.withWriteLock((tx) => tx.insertRows([next[1]!])).catch((e: unknown) => e);
    expect(sqlState(gap)).toBe("23503");
    expect((await b.last())?.seq).toBe(2);
    await b.withWriteLock((tx) => tx.insertRows(next));
    expect((await b.last())?.seq).toBe(5);
  });

  it("a group's text columns travel joined on U+001F: payloads with quotes, backslashes, escapes and any script come back byte for byte; a value holding U+001F or an empty text is refused before it is sent", async () => {
    b = backend(url);
    const last = (await b.last())!;
    const odd = ['{"a":"\\\\"}', '{"q":"\\"\\u001f\\n"}', '{"s":"— ✓ 𝄞 ,{}"}'];
    const [first, second, third] = chainRows(3, last);
    const sent = [
      { ...first!, payload: odd[0]! },
      { ...second!, payload: odd[1]! },
      { ...third!, payload: odd[2]! },
    ];
    for (const bad of [
      { ...first!, payload: "{\u001f}" },
      { ...first!, type: "" },
      { ...first!, hash: "a\u001fb" },
    ]) {
      const error = await b.withWriteLock((tx) => tx.insertRows([bad])).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PostgresLedgerError);
      expect(hasCode(error, "unsendable-value")).toBe(true);
    }
    expect((await b.last())?.seq).toBe(last.seq);
    await b.withWriteLock((tx) => tx.insertRows(sent));
    const back = await b.rows(last.seq + 1, last.seq + 4, 10);
    expect(back.map((r) => [r.seq, r.type, r.payload, r.ts, r.prev, r.hash, [...r.leaf]])).toEqual(
      sent.map((r) => [r.seq, r.type, r.payload, r.ts, r.prev, r.hash, [...r.leaf]]),
    );
  });

  it("a body that swallows a failed statement does not commit silently", async () => {
    b = backend(url);
    const last = (await b.last())!;
    const error = await b
      .withWriteLock(async (tx) => {
        await tx.insertRows(chainRows(1, last));
        await tx.insertRows(chainRows(1, { seq: last.seq + 5, hash: "sha256:none" })).catch(() => undefined);
      })
      .catch((e: unknown) => e);
    // The inserts go as one statement before COMMIT, so the guard's refusal (the chain's foreign key)
    // fails the write itself; a failure swallowed between statements is answered `rolled-back`.
    expect(hasCode(error, "rolled-back") || (error as { code?: unknown }).code === "23503").toBe(true);
    expect((await b.last())?.seq).toBe(last.seq);
  });
});

describe("PostgresBackend: a checkpoint rides with the COMMIT", () => {
  it("sent after the entries (sendBuffered), it commits with them; when the server refuses it, nothing of the transaction is kept and the one connection is clean for the next write", async () => {
    const url = await freshDatabase("ride");
    const b = backend(url, { poolSize: 1 });
    await b.open(ORIGIN);
    // A refusal only this test makes: a trigger that raises on one note.
    const raw = await rawClient(url);
    await raw.query(`CREATE FUNCTION refuse_note() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused note'; END $$;
      CREATE TRIGGER refuse_note BEFORE INSERT ON ledger_checkpoints FOR EACH ROW WHEN (NEW.note = 'refuse\n') EXECUTE FUNCTION refuse_note()`);
    const rows = chainRows(4);
    const write = (group: typeof rows, note: string) =>
      b.withWriteLock(async (tx) => {
        await tx.insertRows(group);
        await tx.sendBuffered!();
        await tx.insertCheckpointIfAbsent(group.at(-1)!.seq + 1, note, group.at(-1)!.ts);
      });
    await write(rows.slice(0, 2), "two\n");
    const error = await write(rows.slice(2), "refuse\n").catch((e: unknown) => e);
    expect(sqlState(error)).toBe("P0001");
    expect(error).not.toBeInstanceOf(LedgerUnavailableError);
    expect((await b.last())?.seq).toBe(1);
    // A body that swallows its failed insert: the checkpoint before the COMMIT meets the aborted
    // transaction, and the write is answered rolled-back, nothing kept.
    const swallowed = await b
      .withWriteLock(async (tx) => {
        await tx.insertRows(chainRows(1, { seq: 7, hash: "sha256:none" }));
        await tx.sendBuffered!().catch(() => undefined);
        await tx.insertCheckpointIfAbsent(9, "nine\n", "2026-01-01T00:00:00.000Z");
      })
      .catch((e: unknown) => e);
    expect(hasCode(swallowed, "rolled-back")).toBe(true);
    expect((await b.last())?.seq).toBe(1);
    await write(rows.slice(2), "four\n");
    expect((await b.last())?.seq).toBe(3);
    expect((await b.checkpoints()).map((c) => [c.size, c.note])).toEqual([
      [2, "two\n"],
      [4, "four\n"],
    ]);
  });
});

describe("PostgresBackend: a database that refuses writes", () => {
  it("a read-only database (a standby, a failover under way) is LedgerUnavailableError, not a refusal of the data", async () => {
    const url = await freshDatabase("read_only");
    await backend(url).open(ORIGIN);
    const admin = await rawClient(url);
    await admin.query("ALTER DATABASE " + new URL(url).pathname.slice(1) + " SET default_transaction_read_only = on");
    const b = backend(url);
    expect(await b.last()).toBeNull(); // reads go on
    const error = await b.withWriteLock((tx) => tx.insertRows(chainRows(1))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LedgerUnavailableError);
    expect(sqlState((error as Error).cause)).toBe("25006");
  });
});

describe("PostgresBackend: the write lock across instances", () => {
  it("two instances' writes never overlap, and each continues the chain the other committed", async () => {
    const url = await freshDatabase("lock");
    const [a, b] = [backend(url), backend(url)];
    await a.open(ORIGIN);
    await b.open(ORIGIN);
    const watcher = await rawClient(url);

    // One holder, one waiter: B enters only after A has left.
    const log: string[] = [];
    const aInside = gate();
    const first = a.withWriteLock(async (tx) => {
      log.push("A in");
      aInside.open();
      await until(async () => (await lockSessions(watcher, false)).length === 1, "B waiting for the lock");
      await tx.insertRows(chainRows(1, await tx.last()));
      log.push("A out");
    });
    await aInside.promise;
    const second = b.withWriteLock(async (tx) => {
      log.push("B in");
      await tx.insertRows(chainRows(1, await tx.last()));
      log.push("B out");
    });
    await Promise.all([first, second]);
    expect(log).toEqual(["A in", "A out", "B in", "B out"]);

    // Many at once over both pools: enter/exit strictly alternate, the chain has no gap or fork.
    const events: string[] = [];
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        (i % 2 ? a : b).withWriteLock(async (tx) => {
          events.push(`in ${i}`);
          const tail = await tx.last();
          await new Promise((resolve) => setTimeout(resolve, 5));
          await tx.insertRows(chainRows(2, tail));
          events.push(`out ${i}`);
        }),
      ),
    );
    for (let k = 0; k < events.length; k += 2) {
      expect(events[k]!.startsWith("in ")).toBe(true);
      expect(events[k + 1]).toBe(`out ${events[k]!.slice(3)}`);
    }
    const rows = await a.rows(0, 100, 100);
    expect(rows.map((r) => r.seq)).toEqual([...Array(26).keys()]);
    rows.forEach((row, i) => expect(row.prev).toBe(i === 0 ? null : rows[i - 1]!.hash));
  });

  it("a holder that never finishes makes the other fail with LedgerUnavailableError after lock_timeout", async () => {
    const url = await freshDatabase("lock_timeout");
    const holder = backend(url);
    const waiter = backend(url, { lockTimeoutMs: 300 });
    await holder.open(ORIGIN);
    const inside = gate();
    const release = gate();
    const held = holder.withWriteLock(async () => {
      inside.open();
      await release.promise;
    });
    await inside.promise;
    const error = await waiter.withWriteLock(async () => "entered").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LedgerUnavailableError);
    expect(sqlState((error as Error).cause)).toBe("55P03");
    // Without a lock timeout, the statement timeout ends the wait: the same answer.
    const patient = backend(url, { lockTimeoutMs: 0, statementTimeoutMs: 300 });
    const cancelled = await patient.withWriteLock(async () => "entered").catch((e: unknown) => e);
    expect(cancelled).toBeInstanceOf(LedgerUnavailableError);
    expect(sqlState((cancelled as Error).cause)).toBe("57014");
    release.open();
    await held;
    expect(await waiter.withWriteLock(async () => "entered")).toBe("entered");
  });
});

describe("PostgresBackend: lock waits", () => {
  it("a write that finds the lock held by another session waits (nothing committed), then commits once it is free, and is counted", async () => {
    const url = await freshDatabase("lock_waits");
    const store = backend(url);
    const ledger = await Ledger.open(store, { origin: ORIGIN, now: steppingClock() });
    await ledger.append([sampleEvent(0)]);
    // Uncontended: every transaction took the lock on its first try.
    expect(ledger.lockWaits()).toEqual({ transactions: 2, waits: 0, waitedMs: 0 });

    const holder = await lockHolder(url);
    const watcher = await rawClient(url);
    const append = ledger.append([sampleEvent(1)]);
    const settled = append.then(
      () => "committed",
      () => "failed",
    );
    await until(async () => (await lockSessions(watcher, false)).length === 1, "the append waiting for the lock");
    const entries = async () =>
      Number((await watcher.query<{ n: string }>("SELECT count(*) AS n FROM ledger_entries")).rows[0]!.n);
    expect(await entries()).toBe(1);
    expect(await Promise.race([settled, Promise.resolve("pending")])).toBe("pending");
    expect(ledger.lockWaits()).toMatchObject({ transactions: 3, waits: 1 });

    // The holder appends an entry of its own before it lets go: the waiting write must see it (its
    // tail is read after the wait, not the one read beside the try that failed).
    const [tail] = (
      await holder.query<{ seq: string; hash: string }>(
        "SELECT seq, hash FROM ledger_entries ORDER BY seq DESC LIMIT 1",
      )
    ).rows;
    const [row] = chainRows(1, { seq: Number(tail!.seq), hash: tail!.hash });
    await holder.query(
      "INSERT INTO ledger_entries (seq, type, payload, ts, prev, hash, leaf) VALUES ($1, $2, $3, $4, $5, $6, $7)",
      [row!.seq, row!.type, row!.payload, row!.ts, row!.prev, row!.hash, row!.leaf],
    );
    await holder.query("COMMIT");
    expect((await append).map((e) => e.seq)).toEqual([2]);
    expect(await entries()).toBe(3);
    const waits = ledger.lockWaits()!;
    expect(waits).toMatchObject({ transactions: 3, waits: 1 });
    expect(waits.waitedMs).toBeGreaterThan(0);
  });

  it("an append that waited for the lock is stamped when it got the lock: what was sealed while it asked is dropped", async () => {
    const url = await freshDatabase("stamp_after_wait");
    let now = Date.parse("2026-01-01T00:00:00.000Z");
    const ledger = await Ledger.open(backend(url), { origin: ORIGIN, now: () => new Date(now) });
    // Two groups first: the instance then seals its appends while it asks for the lock.
    await ledger.appendAsync([sampleEvent(0)]);
    await ledger.appendAsync([sampleEvent(1)]);
    const holder = await lockHolder(url);
    const watcher = await rawClient(url);
    const append = ledger.appendAsync([sampleEvent(2)]);
    await until(async () => (await lockSessions(watcher, false)).length === 1, "the append waiting for the lock");
    now += 60_000; // a minute passes while it waits
    await holder.query("COMMIT");
    const [entry] = await append;
    expect(entry!.ts).toBe("2026-01-01T00:01:00.000Z");
    expect((await ledger.verify()).ok).toBe(true);
  });
});

describe("PostgresBackend: the conditional append in one statement (appendIfTail)", () => {
  const count = async (client: pg.Client, table: string) =>
    Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n);

  it("appends after the tail it names with the lock free, and otherwise writes nothing: moved (another tail) or busy (the lock held)", async () => {
    const url = await freshDatabase("append_if_tail");
    const store = backend(url);
    await store.open(ORIGIN);
    const watcher = await rawClient(url);
    const first = chainRows(3);
    const checkpoint = (size: number) => ({ size, note: `note ${size}\n`, createdAt: "2026-01-01T00:00:00.000Z" });
    // An empty log is named by null; naming a tail it does not have is "moved".
    expect(await conditional(store)(first[2]!, { rows: chainRows(1, first[2]!), subtrees: [], checkpoint: null })).toBe(
      "moved",
    );
    expect(
      await conditional(store)(null, { rows: first, subtrees: [subtreeRow(8, 0)], checkpoint: checkpoint(3) }),
    ).toBe("appended");
    expect(await store.last()).toMatchObject({ seq: 2, hash: first[2]!.hash });
    expect((await store.subtrees([{ level: 8, idx: 0 }])).size).toBe(1);
    expect(await store.checkpoints()).toEqual([checkpoint(3)]);
    expect(store.lockWaits()).toMatchObject({ transactions: 2, waits: 0 }); // open() and the append

    // A stale tail (the empty log again, or an earlier entry): nothing written, not even the checkpoint.
    const next = chainRows(2, first[2]!);
    expect(await conditional(store)(null, { rows: first, subtrees: [], checkpoint: checkpoint(3) })).toBe("moved");
    expect(await conditional(store)(first[1]!, { rows: next, subtrees: [], checkpoint: checkpoint(5) })).toBe("moved");
    // The lock held by another session: answered at once, nothing written, nothing waited for.
    const holder = await lockHolder(url);
    expect(await conditional(store)(first[2]!, { rows: next, subtrees: [], checkpoint: checkpoint(5) })).toBe("busy");
    expect(await lockSessions(watcher, false)).toEqual([]);
    expect([await count(watcher, "ledger_entries"), await count(watcher, "ledger_checkpoints")]).toEqual([3, 1]);
    await holder.query("COMMIT");
    expect(store.lockWaits()).toMatchObject({ transactions: 2, waits: 0 });

    expect(await conditional(store)(first[2]!, { rows: next, subtrees: [], checkpoint: checkpoint(5) })).toBe(
      "appended",
    );
    expect((await store.rows(0, 10, 10)).map((r) => r.seq)).toEqual([0, 1, 2, 3, 4]);
    expect((await store.checkpoints()).map((c) => c.size)).toEqual([3, 5]);
    // The schema still guards the chain underneath: rows that do not chain on the tail named are refused whole.
    expect(
      await stateOf(conditional(store)(next[1]!, { rows: chainRows(1, first[2]!), subtrees: [], checkpoint: null })),
    ).toBe("23505");
    expect(await count(watcher, "ledger_entries")).toBe(5);
  });

  /** A database holding a ledger made before the function existed (opened, then the function dropped), and an admin session on it. */
  async function ledgerWithoutFunction(label: string): Promise<{ url: string; admin: pg.Client }> {
    const url = await freshDatabase(label);
    const older = backend(url);
    await older.open(ORIGIN);
    await older.close();
    open.pop();
    const admin = await rawClient(url);
    await admin.query(`DROP FUNCTION ${APPEND_IF_TAIL_SIGNATURE}`);
    return { url, admin };
  }

  it("open() adds the function to a database created before it existed", async () => {
    const { url } = await ledgerWithoutFunction("append_if_tail_added");
    const store = backend(url);
    await store.open(ORIGIN);
    expect(await conditional(store)(null, { rows: chainRows(2), subtrees: [], checkpoint: null })).toBe("appended");
    expect((await store.last())?.seq).toBe(1);
  });

  it("its statements reuse one connection (given back between quiet spells); once the server ends it, the next statement takes another", async () => {
    const url = await freshDatabase("append_if_tail_kept");
    const store = backend(url);
    await store.open(ORIGIN);
    const watcher = await rawClient(url);
    const sessions = async () =>
      (
        await watcher.query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = 'integrity-ledger'",
        )
      ).rows.map((r) => r.pid);
    const first = chainRows(2);
    expect(await conditional(store)(null, { rows: first, subtrees: [], checkpoint: null })).toBe("appended");
    const [pid] = (
      await watcher.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE '%ledger_append_if_tail%'",
      )
    ).rows.map((r) => r.pid);
    expect(pid).toBeDefined();
    const next = chainRows(2, first[1]!);
    expect(await conditional(store)(first[1]!, { rows: next.slice(0, 1), subtrees: [], checkpoint: null })).toBe(
      "appended",
    );
    const [again] = (
      await watcher.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE '%ledger_append_if_tail%'",
      )
    ).rows.map((r) => r.pid);
    expect(again).toBe(pid); // the same connection: kept, or given back and handed out again first
    // The server ends every session of the ledger's (a restart, an administrator): that connection is not used again.
    for (const session of await sessions()) await watcher.query("SELECT pg_terminate_backend($1)", [session]);
    await until(async () => (await sessions()).length === 0, "the sessions ended");
    await watcher.query("SELECT 1"); // one more turn of the loop: the client has read its termination
    expect(await conditional(store)(next[0]!, { rows: next.slice(1), subtrees: [], checkpoint: null })).toBe(
      "appended",
    );
    expect((await store.last())?.seq).toBe(3);
  });

  it("runs under READ COMMITTED whatever the database's default, which the function itself insists on", async () => {
    const url = await freshDatabase("append_if_tail_isolation");
    const admin = await rawClient(url);
    await admin.query(
      `ALTER DATABASE ${new URL(url).pathname.slice(1)} SET default_transaction_isolation = 'serializable'`,
    );
    const store = backend(url);
    await store.open(ORIGIN);
    expect(await conditional(store)(null, { rows: chainRows(2), subtrees: [], checkpoint: null })).toBe("appended");
    // Outside the backend's connections the database's default holds, and there the function declines.
    const other = await rawClient(url);
    expect(
      (await other.query<{ level: string }>("SELECT current_setting('transaction_isolation') AS level")).rows[0]!.level,
    ).toBe("serializable");
    const tail = (await store.last())!;
    const values = appendIfTailValues(tail, { rows: chainRows(1, tail), subtrees: [], checkpoint: null });
    expect((await other.query({ text: APPEND_IF_TAIL_SQL, values })).rows[0].outcome).toBe("busy");
  });

  it("a role that may only select and insert (and take the write lock) opens the ledger without the function and writes in transactions; a role refused its EXECUTE does too", async () => {
    const { url, admin } = await ledgerWithoutFunction("append_if_tail_roles");
    const role = `ledger_app_${process.pid}_${Date.now().toString(36)}`;
    await admin.query(`CREATE ROLE ${role} LOGIN`);
    await admin.query(`GRANT SELECT, INSERT ON ${PG_TABLES.join(", ")} TO ${role}`);
    await admin.query(`GRANT SELECT, UPDATE ON ${WRITE_LOCK_TABLE} TO ${role}`);
    await admin.query(`REVOKE CREATE ON SCHEMA public FROM PUBLIC`);
    const asRole = new URL(url);
    asRole.username = role;
    const app = backend(asRole.href);
    const ledger = await Ledger.open(app, { origin: ORIGIN, now: steppingClock() });
    expect(app.appendStrategy().kind).toBe("transaction");
    for (let i = 0; i < 3; i++) expect((await ledger.appendAsync([sampleEvent(i)]))[0]!.seq).toBe(i);

    // The owner adds the function; the role is refused its EXECUTE: busy, then no more tries.
    const again = backend(url);
    await again.open(ORIGIN);
    await admin.query(`REVOKE EXECUTE ON FUNCTION ${APPEND_IF_TAIL_SIGNATURE} FROM PUBLIC`);
    const refused = backend(asRole.href);
    const second = await Ledger.open(refused, { origin: ORIGIN, now: steppingClock() });
    expect(refused.appendStrategy().kind).toBe("conditional");
    for (let i = 3; i < 6; i++) expect((await second.appendAsync([sampleEvent(i)]))[0]!.seq).toBe(i);
    expect(refused.appendStrategy().kind).toBe("transaction");
    expect((await second.verify()).ok).toBe(true);
  });

  it("with a pool of one connection, reads still get it between appends", async () => {
    const url = await freshDatabase("append_if_tail_pool_of_one");
    const store = backend(url, { poolSize: 1, connectTimeoutMs: 2_000 });
    const ledger = await Ledger.open(store, { origin: ORIGIN, now: steppingClock() });
    for (let i = 0; i < 4; i++) {
      await Promise.all([ledger.appendAsync([sampleEvent(2 * i)]), ledger.appendAsync([sampleEvent(2 * i + 1)])]);
      expect(await store.last()).toMatchObject({ seq: 2 * i + 1 });
    }
    expect((await ledger.verify()).ok).toBe(true);
  });

  /** The backend with every conditional append's answer recorded (the real backend does the work). */
  function recorded(
    store: PostgresBackend,
    log: string[] = [],
    held?: Promise<void>,
  ): { store: LedgerBackend; answers: string[] } {
    const answers: string[] = [];
    const wrapped = new Proxy(store, {
      get(target, property) {
        if (property === "appendStrategy") {
          return (): AppendStrategy => {
            const strategy = target.appendStrategy();
            if (strategy.kind !== "conditional") return strategy;
            return {
              kind: "conditional",
              appendIfTail: async (...args) => {
                log.push(`sent after ${args[0]?.seq ?? "nothing"}`);
                await held; // the statement held back by the test, when it asks
                const answer = await strategy.appendIfTail(...args);
                log.push(answer);
                answers.push(answer);
                return answer;
              },
            };
          };
        }
        const value = Reflect.get(target, property, target) as unknown;
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    return { store: wrapped, answers };
  }

  it("a lone instance's groups go in one statement; another writer's entries or lock send the group through the ordinary transaction, sealed after them", async () => {
    const url = await freshDatabase("append_if_tail_ledger");
    const { store, answers } = recorded(backend(url));
    const ledger = await Ledger.open(store, {
      origin: ORIGIN,
      signer: { name: ORIGIN, secretKeyHex: SIGNER_KEY },
      now: steppingClock(),
    });
    const other = await Ledger.open(backend(url), { origin: ORIGIN, now: steppingClock() });
    // The first group reads the tail in a transaction; the next ones know it and send one statement
    // each — two writes in one turn go as two groups, the second sealed while the first is on its way.
    await ledger.appendAsync([sampleEvent(0)]);
    expect(answers).toEqual([]);
    await Promise.all([ledger.appendAsync([sampleEvent(1)]), ledger.appendAsync([sampleEvent(2)])]);
    expect(answers).toEqual(["appended", "appended"]);
    // Another instance appends: the next group's statement finds the tail moved and writes nothing;
    // the group is sealed again after the other's entry, in the ordinary transaction.
    await other.append([sampleEvent(3)]);
    const [after] = await ledger.appendAsync([sampleEvent(4)]);
    expect(answers).toEqual(["appended", "appended", "moved"]);
    const stored = await store.rows(0, 10, 10);
    expect(after).toMatchObject({ seq: 4, prev: stored[3]!.hash });
    // That transaction found another writer's entry: the next group takes a transaction too, and
    // once one finds the tail unmoved, the statement again.
    await ledger.appendAsync([sampleEvent(5)]);
    await ledger.appendAsync([sampleEvent(6)]);
    expect(answers).toEqual(["appended", "appended", "moved", "appended"]);
    // The lock held elsewhere: busy, then the ordinary transaction waits for it.
    const holder = await lockHolder(url);
    const watcher = await rawClient(url);
    const waiting = ledger.appendAsync([sampleEvent(7)]);
    await until(async () => (await lockSessions(watcher, false)).length === 1, "the group waiting for the lock");
    expect(answers).toEqual(["appended", "appended", "moved", "appended", "busy"]);
    await holder.query("COMMIT");
    expect((await waiting)[0]!.seq).toBe(7);
    // One checkpoint per appending write of this instance (the other has no signer), all sound.
    const report = await ledger.verify();
    expect(report.ok).toBe(true);
    expect((await store.checkpoints()).map((c) => c.size)).toEqual([1, 2, 3, 5, 6, 7, 8]);
    expect((await store.rows(0, 10, 10)).map((r) => r.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  /** A session inserting the entry after `tail` without the write lock, not committed: an insert of that seq waits for it. */
  async function intruder(url: string, tail: { seq: number; hash: string }): Promise<pg.Client> {
    const client = await rawClient(url);
    const [row] = chainRows(1, tail);
    await client.query("BEGIN");
    await client.query(
      "INSERT INTO ledger_entries (seq, type, payload, ts, prev, hash, leaf) VALUES ($1, $2, $3, $4, $5, $6, $7)",
      [row!.seq, row!.type, row!.payload, row!.ts, row!.prev, row!.hash, row!.leaf],
    );
    return client;
  }

  it("the next group is sealed while the group before it is on its way, after the tail that one leaves, and sent once it has committed", async () => {
    const url = await freshDatabase("append_if_tail_pipelined");
    const log: string[] = [];
    const { store } = recorded(backend(url), log);
    let now = Date.parse("2026-01-01T00:00:00.000Z");
    const ledger = await Ledger.open(store, {
      origin: ORIGIN,
      now: () => (log.push("sealed"), new Date((now += 1000))),
    });
    await ledger.appendAsync([sampleEvent(0)]);
    expect(log).toEqual(["sealed"]); // the first group, in a transaction
    // The first group's statement is held on its way (its insert waits for another session's row).
    const held = await intruder(url, (await store.last())!);
    const both = [ledger.appendAsync([sampleEvent(1)]), ledger.appendAsync([sampleEvent(2)])];
    await until(async () => log.length === 4, "the second group sealed");
    expect(log).toEqual(["sealed", "sealed", "sent after 0", "sealed"]);
    await held.query("ROLLBACK");
    const [first, second] = (await Promise.all(both)).map((entries) => entries[0]);
    expect(log).toEqual(["sealed", "sealed", "sent after 0", "sealed", "appended", "sent after 1", "appended"]);
    expect([first!.seq, second!.seq, second!.prev]).toEqual([1, 2, first!.hash]);
    expect(second!.ts > first!.ts).toBe(true);
    expect((await ledger.verify()).ok).toBe(true);
  });

  it("a group whose statement is not taken commits in its own turn: before a write submitted after it", async () => {
    const url = await freshDatabase("append_if_tail_order");
    const log: string[] = [];
    const hold = gate();
    let holding = false;
    const { store } = recorded(backend(url), log, {
      then: (resolve: () => void) => (holding ? hold.promise.then(resolve) : resolve()),
    } as unknown as Promise<void>);
    const ledger = await Ledger.open(store, { origin: ORIGIN, now: steppingClock() });
    await ledger.appendAsync([sampleEvent(0)]);
    await ledger.appendAsync([sampleEvent(1)]);
    // The next group's statement is held on its way while another instance holds the lock.
    const holder = await lockHolder(url);
    holding = true;
    const first = ledger.appendAsync([sampleEvent(2)]);
    await until(async () => log.length === 3, "the statement on its way");
    // A write submitted now starts as the second group on its way, its transaction queued behind the first's turn.
    const later = ledger.write(() => ({ events: [sampleEvent(3)], result: "later" }));
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    hold.open();
    await until(async () => log.length === 4, "the statement answered");
    expect(log).toEqual(["sent after 0", "appended", "sent after 1", "busy"]);
    await holder.query("COMMIT");
    const [[entry], written] = await Promise.all([first, later]);
    expect([entry!.seq, written.entries[0]!.seq]).toEqual([2, 3]);
    expect((await ledger.verify()).ok).toBe(true);
  });

  it("a group sealed after one that fails is not appended after it: it takes the ordinary transaction, after the tail the store has", async () => {
    const url = await freshDatabase("append_if_tail_pipelined_fails");
    const log: string[] = [];
    const { store } = recorded(backend(url, { lockTimeoutMs: 1000 }), log);
    const ledger = await Ledger.open(store, { origin: ORIGIN, now: steppingClock() });
    const [zero] = await ledger.appendAsync([sampleEvent(0)]);
    const held = await intruder(url, (await store.last())!);
    const first = ledger.appendAsync([sampleEvent(1)]);
    const second = ledger.appendAsync([sampleEvent(2)]);
    // The first statement waits for the intruder's row past lock_timeout; the intruder then gives up.
    const failed = await first.then(
      () => null,
      (error: unknown) => error,
    );
    await held.query("ROLLBACK");
    expect(failed).toBeInstanceOf(LedgerUnavailableError);
    const [entry] = await second;
    expect(entry).toMatchObject({ seq: 1, prev: zero!.hash });
    expect(log).toEqual(["sent after 0"]); // the second group never sent its statement
    expect(await store.rows(0, 10, 10)).toHaveLength(2);
    expect((await ledger.verify()).ok).toBe(true);
  });

  it("a statement that fails (here its lock timeout, behind a session writing without the write lock) is LedgerUnavailableError; nothing is kept and the next group works", async () => {
    const url = await freshDatabase("append_if_tail_fails");
    const { store, answers } = recorded(backend(url, { lockTimeoutMs: 300 }));
    const ledger = await Ledger.open(store, { origin: ORIGIN, now: steppingClock() });
    await ledger.appendAsync([sampleEvent(0)]);
    await ledger.appendAsync([sampleEvent(1)]);
    expect(answers).toEqual(["appended"]);
    // A session inserting the next entry without the write lock, not yet committed: the statement's
    // insert waits for it on the primary key, past lock_timeout.
    const tail = (await store.last())!;
    const held = await intruder(url, tail);
    const failed = await ledger.appendAsync([sampleEvent(2)]).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(LedgerUnavailableError);
    expect(ledger.writeHealth().ok).toBe(false);
    await held.query("ROLLBACK");
    // After a failure the next group takes the ordinary transaction (which reads the tail first).
    const [entry] = await ledger.appendAsync([sampleEvent(3)]);
    expect(entry).toMatchObject({ seq: 2, prev: tail.hash });
    expect(answers).toEqual(["appended"]);
    expect(ledger.writeHealth().ok).toBe(true);
    expect((await ledger.verify()).ok).toBe(true);
  });
});

describe("PostgresBackend: a lost session recovers by itself", () => {
  async function holderPid(watcher: pg.Client): Promise<number> {
    let pids: number[] = [];
    await until(async () => (pids = await lockSessions(watcher, true)).length === 1, "a session holding the lock");
    return pids[0]!;
  }

  it("the lock holder's session terminated (pg_terminate_backend): LedgerUnavailableError, then the next write works", async () => {
    const url = await freshDatabase("terminate");
    const b = backend(url);
    await b.open(ORIGIN);
    const watcher = await rawClient(url);
    const inside = gate();
    const terminated = gate();
    const write = b.withWriteLock(async (tx) => {
      inside.open();
      await terminated.promise;
      await tx.insertRows(chainRows(1, await tx.last()));
    });
    // Terminated once the write holds its session: the lock can show as granted before BEGIN's
    // answer has reached the client, and a session lost at BEGIN is replaced (nothing was written).
    await inside.promise;
    const pid = await holderPid(watcher);
    await watcher.query("SELECT pg_terminate_backend($1)", [pid]);
    await until(
      async () => (await watcher.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [pid])).rowCount === 0,
      "the session gone",
    );
    terminated.open();
    await expect(write).rejects.toBeInstanceOf(LedgerUnavailableError);
    await b.withWriteLock(async (tx) => tx.insertRows(chainRows(1, await tx.last())));
    expect((await b.last())?.seq).toBe(0);
  });

  it("a write left idle past idle_in_transaction_session_timeout: LedgerUnavailableError, then the next write works", async () => {
    const url = await freshDatabase("idle_tx");
    const b = backend(url, { idleInTransactionTimeoutMs: 300 });
    await b.open(ORIGIN);
    const watcher = await rawClient(url);
    const inside = gate();
    const ended = gate();
    const write = b.withWriteLock(async (tx) => {
      inside.open();
      await ended.promise;
      return tx.last();
    });
    await inside.promise; // the write holds its session (see the test above)
    const pid = await holderPid(watcher);
    await until(
      async () => (await watcher.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [pid])).rowCount === 0,
      "the session gone",
    );
    ended.open();
    const error = await write.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LedgerUnavailableError);
    await b.withWriteLock(async (tx) => tx.insertRows(chainRows(1, await tx.last())));
    expect((await b.last())?.seq).toBe(0);
  });

  it("idle pooled connections the server dropped are replaced: the next read works", async () => {
    const url = await freshDatabase("idle_pool");
    const b = backend(url, { poolSize: 3 });
    await b.open(ORIGIN);
    await Promise.all([b.last(), b.last(), b.last()]); // three idle connections in the pool
    const watcher = await rawClient(url);
    await watcher.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'integrity-ledger' AND datname = current_database()",
    );
    expect(await b.last()).toBeNull();
    await b.withWriteLock(async (tx) => tx.insertRows(chainRows(1, await tx.last())));
    expect((await b.last())?.seq).toBe(0);
  });
});

describe("PostgresBackend: a PostgreSQL restart", () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startCluster();
  });
  afterAll(() => cluster?.remove());

  it("calls fail with LedgerUnavailableError while the server is down; the same backend works once it is back", async () => {
    const b: LedgerBackend = backend(cluster.url, { connectTimeoutMs: 2_000 });
    await b.open(ORIGIN);
    await b.withWriteLock(async (tx) => tx.insertRows(chainRows(2, await tx.last())));

    cluster.stop("immediate");
    await expect(b.last()).rejects.toBeInstanceOf(LedgerUnavailableError);
    await expect(b.withWriteLock(async (tx) => tx.last())).rejects.toBeInstanceOf(LedgerUnavailableError);
    await expect(b.checkpoints()).rejects.toBeInstanceOf(LedgerUnavailableError);

    cluster.start();
    expect((await b.last())?.seq).toBe(1);
    await b.withWriteLock(async (tx) => tx.insertRows(chainRows(1, await tx.last())));
    expect((await b.rows(0, 10, 10)).map((r) => r.seq)).toEqual([0, 1, 2]);
  });

  it("a restart between two calls is not seen: pooled connections the server closed are replaced before use", async () => {
    const b = backend(cluster.url, { connectTimeoutMs: 2_000, poolSize: 2 });
    await b.open(ORIGIN);
    await Promise.all([b.last(), b.last()]); // two idle connections
    cluster.stop("immediate");
    cluster.start(); // both synchronous: the pool has not yet seen its connections close
    await b.withWriteLock(async (tx) => tx.insertRows(chainRows(1, await tx.last())));
    cluster.stop("immediate");
    cluster.start();
    expect((await b.last())?.seq).toBe(3);
  });
});
