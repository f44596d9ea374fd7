/**
 * The embedded ledger backend: one SQLite file (node:sqlite), WAL journal, behind the primitives
 * of store/ledger/backend.ts.
 *
 * - `entries` holds each entry with its Merkle leaf hash; `subtrees` holds the hashes of the perfect
 *   subtrees of height >= STORED_LEVEL, so roots and proofs for any size are read, not recomputed.
 * - Triggers refuse UPDATE, DELETE and any INSERT over an existing key (REPLACE, UPSERT) on every
 *   table: the log can only grow.
 * - One connection: node:sqlite is synchronous, so a write transaction (BEGIN IMMEDIATE … COMMIT)
 *   runs to its end without another task reading through the connection in between; reads outside
 *   it are single statements, each its own snapshot. The file is created here, on `open`, only.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import {
  LedgerUnavailableError,
  subtreeKey,
  type AppendStrategy,
  type EntryRow,
  type LedgerBackend,
  type StoredCheckpoint,
  type StoredRow,
  type SubtreeRow,
  type TailRow,
  type WriteTransaction,
} from "../../ledger/backend.ts";

const FORMAT_VERSION = "1";
/** Rows per INSERT statement on the batched path (one VDBE run for them). */
const BATCH_ROWS = 16;

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
CREATE TABLE IF NOT EXISTS entries (
  seq INTEGER PRIMARY KEY CHECK (seq >= 0),
  type TEXT NOT NULL,
  payload TEXT NOT NULL,
  ts TEXT NOT NULL,
  prev TEXT,
  hash TEXT NOT NULL,
  leaf BLOB NOT NULL CHECK (length(leaf) = 32)
) STRICT;
CREATE TABLE IF NOT EXISTS subtrees (
  level INTEGER NOT NULL,
  idx INTEGER NOT NULL,
  hash BLOB NOT NULL CHECK (length(hash) = 32),
  PRIMARY KEY (level, idx)
) STRICT, WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS checkpoints (size INTEGER PRIMARY KEY, note TEXT NOT NULL, created_at TEXT NOT NULL) STRICT;
`;

/**
 * Every table and its primary key. A row, once written, is never changed: triggers refuse UPDATE
 * and DELETE, and an INSERT whose key is taken. The last one is what stops INSERT OR REPLACE,
 * REPLACE and UPSERT (ON CONFLICT DO UPDATE): REPLACE deletes the old row without firing a DELETE
 * trigger unless the connection turned `recursive_triggers` on, which no other connection has to
 * do — a BEFORE INSERT trigger fires for every connection, before any conflict is resolved.
 */
export const APPEND_ONLY_TABLES: Readonly<Record<string, readonly string[]>> = {
  meta: ["key"],
  entries: ["seq"],
  subtrees: ["level", "idx"],
  checkpoints: ["size"],
};
const refuse = (table: string, what: string) =>
  `BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: ${what} on ${table} refused'); END;`;

/** The BEFORE INSERT trigger that refuses an INSERT whose key is taken (what stops REPLACE). */
function rewriteGuard(table: string): string {
  const taken = APPEND_ONLY_TABLES[table]!.map((column) => `${column} = NEW.${column}`).join(" AND ");
  return `CREATE TRIGGER IF NOT EXISTS ${table}_no_rewrite BEFORE INSERT ON ${table}
              WHEN EXISTS (SELECT 1 FROM ${table} WHERE ${taken}) ${refuse(table, "rewriting an existing row")}`;
}

export const triggers = Object.keys(APPEND_ONLY_TABLES)
  .map(
    (table) => `CREATE TRIGGER IF NOT EXISTS ${table}_no_update BEFORE UPDATE ON ${table} ${refuse(table, "UPDATE")}
            CREATE TRIGGER IF NOT EXISTS ${table}_no_delete BEFORE DELETE ON ${table} ${refuse(table, "DELETE")}
            ${rewriteGuard(table)}`,
  )
  .join("\n");

export interface SqliteBackendOptions {
  /** "full" fsyncs every commit (survives power loss); "normal" survives process crashes only. */
  durability?: "full" | "normal";
  /** How long a write waits for another connection's write lock before it fails (default 10 s). */
  busyTimeoutMs?: number;
}

type Statements = Record<
  | "last"
  | "insertEntry"
  | "insertEntries"
  | "insertSubtree"
  | "insertSubtrees"
  | "subtree"
  | "leaves"
  | "page"
  | "storedPage"
  | "insertCheckpoint"
  | "checkpointAt"
  | "checkpoints"
  | "latestCheckpoint"
  | "checkpointAtMost"
  | "subtreeCount",
  StatementSync
>;

/** No round trip to save: every write is a transaction. */
const SQLITE_APPENDS: AppendStrategy = { kind: "transaction" };

export class SqliteBackend implements LedgerBackend, WriteTransaction {
  readonly kind = "sqlite" as const;
  readonly location: string;
  readonly #options: SqliteBackendOptions;
  #db: DatabaseSync | null = null;
  #stmt: Statements | null = null;
  #inTransaction = false;
  /** Set by `bulkLoad` in the open transaction: the entries' rewrite guard is lifted until its commit. */
  #guardLifted = false;

  constructor(path: string, options: SqliteBackendOptions = {}) {
    this.location = path;
    this.#options = options;
  }

  async open(origin: string): Promise<void> {
    if (this.#db) throw new Error(`${this.location}: the ledger backend is already open`);
    const path = this.location;
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    const db = new DatabaseSync(path);
    try {
      // The busy timeout first: switching a new file to WAL takes a lock another process may hold.
      db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.trunc(this.#options.busyTimeoutMs ?? 10_000))}; PRAGMA journal_mode = WAL;
               PRAGMA synchronous = ${this.#options.durability === "normal" ? "NORMAL" : "FULL"};`);
      db.exec("BEGIN IMMEDIATE");
      try {
        db.exec(SCHEMA + triggers);
        checkMeta(db, path, origin);
        db.exec("COMMIT");
      } catch (error) {
        db.exec("ROLLBACK");
        throw error;
      }
    } catch (error) {
      db.close();
      throw error;
    }
    const p = (sql: string) => db.prepare(sql);
    this.#stmt = {
      last: p("SELECT seq, hash, ts FROM entries ORDER BY seq DESC LIMIT 1"),
      insertEntry: p("INSERT INTO entries (seq, type, payload, ts, prev, hash, leaf) VALUES (?, ?, ?, ?, ?, ?, ?)"),
      insertEntries: p(
        `INSERT INTO entries (seq, type, payload, ts, prev, hash, leaf) VALUES ${Array(BATCH_ROWS).fill("(?, ?, ?, ?, ?, ?, ?)").join(", ")}`,
      ),
      insertSubtree: p("INSERT INTO subtrees (level, idx, hash) VALUES (?, ?, ?)"),
      insertSubtrees: p(
        `INSERT INTO subtrees (level, idx, hash) VALUES ${Array(BATCH_ROWS).fill("(?, ?, ?)").join(", ")}`,
      ),
      subtree: p("SELECT hash FROM subtrees WHERE level = ? AND idx = ?"),
      leaves: p("SELECT leaf FROM entries WHERE seq >= ? AND seq < ? ORDER BY seq"),
      page: p(
        "SELECT seq, type, payload, ts, prev, hash, leaf FROM entries WHERE seq >= ? AND seq < ? ORDER BY seq LIMIT ?",
      ),
      storedPage: p(
        "SELECT seq, type, payload, ts, prev, hash FROM entries WHERE seq >= ? AND seq < ? ORDER BY seq LIMIT ?",
      ),
      insertCheckpoint: p("INSERT INTO checkpoints (size, note, created_at) VALUES (?, ?, ?)"),
      checkpointAt: p("SELECT 1 FROM checkpoints WHERE size = ?"),
      checkpoints: p("SELECT size, note, created_at AS createdAt FROM checkpoints ORDER BY size"),
      latestCheckpoint: p("SELECT note FROM checkpoints ORDER BY size DESC LIMIT 1"),
      checkpointAtMost: p(
        "SELECT size, note, created_at AS createdAt FROM checkpoints WHERE size <= ? ORDER BY size DESC LIMIT 1",
      ),
      subtreeCount: p("SELECT count(*) AS n FROM subtrees WHERE level >= ?"),
    };
    this.#db = db;
  }

  get #s(): Statements {
    if (!this.#stmt || !this.#db?.isOpen) throw new LedgerUnavailableError(`${this.location}: the ledger is closed`);
    return this.#stmt;
  }

  async last(): Promise<TailRow | null> {
    return (this.#s.last.get() as TailRow | undefined) ?? null;
  }

  /** One finished statement per call: no read snapshot stays open between two pages (see store/ledger/follow-tail.test.ts). */
  async rows(start: number, end: number, limit: number): Promise<EntryRow[]> {
    return this.#s.page.all(start, clampEnd(end), limit) as unknown as EntryRow[];
  }

  async storedRows(start: number, end: number, limit: number): Promise<StoredRow[]> {
    return this.#s.storedPage.all(start, clampEnd(end), limit) as unknown as StoredRow[];
  }

  async leaves(start: number, end: number): Promise<Uint8Array[]> {
    return (this.#s.leaves.all(start, clampEnd(end)) as { leaf: Uint8Array }[]).map((r) => r.leaf);
  }

  async subtrees(keys: readonly { level: number; idx: number }[]): Promise<Map<string, Uint8Array>> {
    const found = new Map<string, Uint8Array>();
    const subtree = this.#s.subtree;
    for (const { level, idx } of keys) {
      const row = subtree.get(level, idx) as { hash: Uint8Array } | undefined;
      if (row) found.set(subtreeKey(level, idx), row.hash);
    }
    return found;
  }

  async subtreeCount(fromLevel: number): Promise<number> {
    return (this.#s.subtreeCount.get(fromLevel) as { n: number }).n;
  }

  async latestCheckpoint(): Promise<string | null> {
    return (this.#s.latestCheckpoint.get() as { note: string } | undefined)?.note ?? null;
  }

  async checkpoints(): Promise<StoredCheckpoint[]> {
    return this.#s.checkpoints.all() as unknown as StoredCheckpoint[];
  }

  async checkpointAtMost(size: number): Promise<StoredCheckpoint | null> {
    return (this.#s.checkpointAtMost.get(size) as unknown as StoredCheckpoint | undefined) ?? null;
  }

  /**
   * A large batch of new entries follows in this transaction: the per-row check of the entries'
   * rewrite guard (a BEFORE INSERT trigger, about a third of a bulk insert's SQLite time) is lifted
   * until the transaction ends and created again before its COMMIT. No other connection can write
   * while this one holds the write lock, and none can read the schema without it, so none ever
   * finds the guard missing; this transaction's own inserts are plain INSERTs of new sequence
   * numbers, which the primary key alone refuses to repeat.
   */
  async bulkLoad(): Promise<void> {
    if (!this.#inTransaction) throw new Error(`${this.location}: bulkLoad outside a write transaction`);
    if (this.#guardLifted) return;
    this.#db!.exec("DROP TRIGGER IF EXISTS entries_no_rewrite");
    this.#guardLifted = true;
  }

  async insertRows(rows: readonly EntryRow[]): Promise<void> {
    insertBatched(rows, 7, this.#s.insertEntries, this.#s.insertEntry, putEntry);
  }

  async insertSubtrees(subtrees: readonly SubtreeRow[]): Promise<void> {
    insertBatched(subtrees, 3, this.#s.insertSubtrees, this.#s.insertSubtree, putSubtree);
  }

  async insertCheckpointIfAbsent(size: number, note: string, createdAt: string): Promise<void> {
    const s = this.#s;
    if (!s.checkpointAt.get(size)) s.insertCheckpoint.run(size, note, createdAt);
  }

  /** `meanwhile` runs once BEGIN IMMEDIATE holds the lock: nothing it computed waited. */
  readonly lockWaited = false;

  /** Every insert is written when called: nothing is held back to send. */
  async sendBuffered(): Promise<void> {}

  appendStrategy(): AppendStrategy {
    return SQLITE_APPENDS;
  }

  /** Waits for the file's lock (busy_timeout) are not counted. */
  lockWaits(): null {
    return null;
  }

  async withWriteLock<T>(fn: (tx: WriteTransaction) => Promise<T>, meanwhile?: () => void): Promise<T> {
    this.#s; // closed: refuse before locking
    if (this.#inTransaction)
      throw new Error(`${this.location}: a write transaction is already open on this connection`);
    const db = this.#db!;
    db.exec("BEGIN IMMEDIATE");
    this.#inTransaction = true;
    try {
      // The lock is held: BEGIN IMMEDIATE has no round trip to overlap, and nothing done now is stale.
      meanwhile?.();
      const result = await fn(this);
      if (this.#guardLifted) db.exec(rewriteGuard("entries"));
      db.exec("COMMIT");
      return result;
    } catch (error) {
      // A rollback undoes the lifting with the rest.
      if (db.isOpen && db.isTransaction) db.exec("ROLLBACK");
      throw error;
    } finally {
      this.#inTransaction = false;
      this.#guardLifted = false;
    }
  }

  async close(): Promise<void> {
    if (this.#db?.isOpen) this.#db.close();
  }
}

/**
 * Inserts `items` BATCH_ROWS at a time through `many` (one statement run for them, constraints and
 * triggers still per row), the rest one by one through `one`; `put` lays an item's `width` values out
 * from `at`.
 */
function insertBatched<T>(
  items: readonly T[],
  width: number,
  many: StatementSync,
  one: StatementSync,
  put: (item: T, values: SQLInputValue[], at: number) => void,
): void {
  const values: SQLInputValue[] = new Array(BATCH_ROWS * width);
  let i = 0;
  for (; i + BATCH_ROWS <= items.length; i += BATCH_ROWS) {
    for (let j = 0; j < BATCH_ROWS; j++) put(items[i + j]!, values, j * width);
    many.run(...values);
  }
  const single: SQLInputValue[] = new Array(width);
  for (; i < items.length; i++) {
    put(items[i]!, single, 0);
    one.run(...single);
  }
}

function putEntry(r: EntryRow, values: SQLInputValue[], at: number): void {
  values[at] = r.seq;
  values[at + 1] = r.type;
  values[at + 2] = r.payload;
  values[at + 3] = r.ts;
  values[at + 4] = r.prev;
  values[at + 5] = r.hash;
  values[at + 6] = r.leaf;
}

function putSubtree(s: SubtreeRow, values: SQLInputValue[], at: number): void {
  values[at] = s.level;
  values[at + 1] = s.idx;
  values[at + 2] = s.hash;
}

function clampEnd(end: number): number {
  return Math.min(end, Number.MAX_SAFE_INTEGER);
}

function checkMeta(db: DatabaseSync, path: string, origin: string): void {
  const get = db.prepare("SELECT value FROM meta WHERE key = ?");
  const put = db.prepare("INSERT INTO meta (key, value) VALUES (?, ?)");
  const version = get.get("format_version") as { value: string } | undefined;
  if (!version) {
    put.run("format_version", FORMAT_VERSION);
    put.run("origin", origin);
    return;
  }
  if (version.value !== FORMAT_VERSION)
    throw new Error(`${path}: ledger format ${version.value}, this code reads ${FORMAT_VERSION}`);
  const stored = (get.get("origin") as { value: string }).value;
  if (stored !== origin) throw new Error(`${path}: ledger origin is "${stored}", opened as "${origin}"`);
}
