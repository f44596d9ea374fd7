/**
 * The PostgreSQL ledger's statements (store/drivers/postgres/backend.ts runs them): the reads of the
 * backend interface, and a write transaction's inserts — held back and sent as one statement, the
 * rows' text columns joined for the server to split, a lone checkpoint sent with the COMMIT.
 * docs/postgresql.md explains the choices.
 */
import pg from "pg";
import type {
  AppendWrite,
  BackendReads,
  WriteTransaction,
  EntryRow,
  StoredCheckpoint,
  StoredRow,
  SubtreeRow,
  TailRow,
} from "../../ledger/backend.ts";
import { subtreeKey } from "../../ledger/backend.ts";
import { PostgresLedgerError } from "./failures.ts";
import { TRY_WRITE_LOCK_SQL } from "./schema.ts";

/**
 * Runs one statement: on the pool (any connection) or on the one client of a write. `name` makes
 * it a prepared statement of the connection (parsed and planned once).
 */
export type Run = <R extends pg.QueryResultRow>(sql: string, params?: unknown[], name?: string) => Promise<R[]>;

const STORED_COLUMNS = "seq, type, payload, ts, prev, hash";
const ENTRY_COLUMNS = `${STORED_COLUMNS}, leaf`;
/** The committed tail: the last entry's seq, hash and time. */
export const TAIL_SQL = "SELECT seq, hash, ts FROM ledger_entries ORDER BY seq DESC LIMIT 1";
/**
 * A group's one insert: its entries, subtrees and checkpoint ($1–$7 the entries' columns, $8–$10
 * the subtrees', $11–$13 the checkpoints'). The entries' text columns each travel as ONE text,
 * joined on U+001F and split by the server (`string_to_array`; in `prev` the empty string is NULL):
 * a text array would have every payload's quotes escaped by the client and unescaped by the server,
 * which cost a group of 64 about 0.4 ms of the 1.8 ms its statements take (bench/perf-notes.md).
 * U+001F is a control character that no stored value holds — canonical JSON escapes it, and types,
 * times and hashes are printable — and groupInsertValues refuses a value holding it.
 */
const GROUP_INSERTS = [
  `INSERT INTO ledger_entries (${ENTRY_COLUMNS})
  SELECT * FROM unnest($1::bigint[], string_to_array($2, chr(31)), string_to_array($3, chr(31)), string_to_array($4, chr(31)),
                       string_to_array($5, chr(31), ''), string_to_array($6, chr(31)), $7::bytea[])`,
  "INSERT INTO ledger_subtrees (level, idx, hash) SELECT * FROM unnest($8::integer[], $9::bigint[], $10::bytea[])",
  `INSERT INTO ledger_checkpoints (size, note, created_at) SELECT * FROM unnest($11::bigint[], $12::text[], $13::text[])
  ON CONFLICT (size) DO NOTHING`,
] as const;
export const GROUP_INSERT_SQL = `WITH entries AS (${GROUP_INSERTS[0]}), subtrees AS (${GROUP_INSERTS[1]}), checkpoints AS (${GROUP_INSERTS[2]})
SELECT 1`;

/**
 * The conditional append in one statement (store/drivers/postgres/backend.ts `appendIfTail`): a function,
 * created by open(), that takes the write lock (the row of ledger_write_lock, as a transaction
 * does) only if it is free, reads the committed tail in a
 * statement of its own (so from a snapshot taken with the lock held), and inserts the group — the
 * same three inserts as GROUP_INSERT_SQL, on the same $1–$13 — only if that tail is the one the
 * rows were sealed after ($14, $15: seq and hash, both null for an empty log). Outside a
 * transaction the call commits by itself: one round trip instead of three. It answers `appended`,
 * `busy` (another session holds the lock) or `moved` (another writer appended); the last two write
 * nothing. The name carries a version: a change to the function is a new function.
 */
export const APPEND_IF_TAIL_FUNCTION = "ledger_append_if_tail_v2";
const APPEND_IF_TAIL_ARGS =
  "bigint[], text, text, text, text, text, bytea[], integer[], bigint[], bytea[], bigint[], text[], text[], bigint, text";
export const APPEND_IF_TAIL_SIGNATURE = `${APPEND_IF_TAIL_FUNCTION}(${APPEND_IF_TAIL_ARGS})`;
export const APPEND_IF_TAIL_DDL = `CREATE FUNCTION ${APPEND_IF_TAIL_SIGNATURE} RETURNS text LANGUAGE plpgsql AS $fn$
DECLARE
  last_seq bigint;
  last_hash text;
BEGIN
  -- Only under READ COMMITTED does the tail read below see every commit made before the lock.
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RETURN 'busy';
  END IF;
  PERFORM * FROM (${TRY_WRITE_LOCK_SQL}) AS lock;
  IF NOT FOUND THEN
    RETURN 'busy';
  END IF;
  SELECT seq, hash INTO last_seq, last_hash FROM ledger_entries ORDER BY seq DESC LIMIT 1;
  IF last_seq IS DISTINCT FROM $14 OR last_hash IS DISTINCT FROM $15 THEN
    RETURN 'moved';
  END IF;
  ${GROUP_INSERTS.join(";\n  ")};
  RETURN 'appended';
END
$fn$`;
export const APPEND_IF_TAIL_SQL = `SELECT ${APPEND_IF_TAIL_FUNCTION}(${Array.from({ length: 15 }, (_, i) => `$${i + 1}`).join(", ")}) AS outcome`;

const SEPARATOR = "\x1f";

/** One text column of a group's entries as the one text GROUP_INSERT_SQL splits (null as the empty string). */
function joinedColumn(rows: readonly EntryRow[], column: "type" | "payload" | "ts" | "prev" | "hash"): string {
  let joined = "";
  for (let i = 0; i < rows.length; i++) {
    const value = rows[i]![column];
    // Only `prev` may be null (the empty string stands for it); no value may be empty or hold U+001F.
    if (
      value === null ? column !== "prev" : typeof value !== "string" || value.length === 0 || value.includes(SEPARATOR)
    ) {
      throw new PostgresLedgerError(
        "unsendable-value",
        `entry ${rows[i]!.seq}: its ${column} is missing, empty or holds U+001F, which no sealed entry's does`,
      );
    }
    joined += i === 0 ? (value ?? "") : SEPARATOR + (value ?? "");
  }
  return joined;
}

/** The parameters of GROUP_INSERT_SQL for a group's rows, subtrees and checkpoints. */
export function groupInsertValues(
  rows: readonly EntryRow[],
  subtrees: readonly SubtreeRow[],
  checkpoints: readonly StoredCheckpoint[],
): unknown[] {
  return [
    rows.map((x) => x.seq),
    joinedColumn(rows, "type"),
    joinedColumn(rows, "payload"),
    joinedColumn(rows, "ts"),
    joinedColumn(rows, "prev"),
    joinedColumn(rows, "hash"),
    rows.map((x) => x.leaf),
    subtrees.map((x) => x.level),
    subtrees.map((x) => x.idx),
    subtrees.map((x) => x.hash),
    checkpoints.map((x) => x.size),
    checkpoints.map((x) => x.note),
    checkpoints.map((x) => x.createdAt),
  ];
}

/** The parameters of APPEND_IF_TAIL_SQL: the group's (as GROUP_INSERT_SQL's), then the tail named (null: the log is empty). */
export function appendIfTailValues(after: { seq: number; hash: string } | null, write: AppendWrite): unknown[] {
  const checkpoints = write.checkpoint === null ? [] : [write.checkpoint];
  return [...groupInsertValues(write.rows, write.subtrees, checkpoints), after?.seq ?? null, after?.hash ?? null];
}

/** The reads of the interface, over whatever runs the statements (the writes: bufferedWrites). */
export function primitives(run: Run): BackendReads {
  return {
    async last() {
      const [row] = await run<TailRow>(TAIL_SQL);
      return row ?? null;
    },
    rows(start, end, limit) {
      return run<EntryRow>(
        `SELECT ${ENTRY_COLUMNS} FROM ledger_entries WHERE seq >= $1 AND seq < $2 ORDER BY seq LIMIT $3`,
        [start, end, limit],
      );
    },
    storedRows(start, end, limit) {
      return run<StoredRow>(
        `SELECT ${STORED_COLUMNS} FROM ledger_entries WHERE seq >= $1 AND seq < $2 ORDER BY seq LIMIT $3`,
        [start, end, limit],
      );
    },
    async leaves(start, end) {
      const rows = await run<{ leaf: Uint8Array }>(
        "SELECT leaf FROM ledger_entries WHERE seq >= $1 AND seq < $2 ORDER BY seq",
        [start, end],
      );
      return rows.map((r) => r.leaf);
    },
    async subtrees(keys) {
      const found = new Map<string, Uint8Array>();
      if (keys.length === 0) return found;
      const rows = await run<SubtreeRow>(
        "SELECT s.level, s.idx, s.hash FROM ledger_subtrees s JOIN unnest($1::integer[], $2::bigint[]) AS k(level, idx) ON s.level = k.level AND s.idx = k.idx",
        [keys.map((k) => k.level), keys.map((k) => k.idx)],
      );
      for (const row of rows) found.set(subtreeKey(row.level, row.idx), row.hash);
      return found;
    },
    async subtreeCount(fromLevel: number) {
      const [row] = await run<{ n: number }>("SELECT count(*) AS n FROM ledger_subtrees WHERE level >= $1", [
        fromLevel,
      ]);
      return row!.n;
    },
    async latestCheckpoint() {
      const [row] = await run<{ note: string }>("SELECT note FROM ledger_checkpoints ORDER BY size DESC LIMIT 1");
      return row?.note ?? null;
    },
    checkpoints() {
      return run<StoredCheckpoint>(
        'SELECT size, note, created_at AS "createdAt" FROM ledger_checkpoints ORDER BY size',
      );
    },
    async checkpointAtMost(size: number) {
      const [row] = await run<StoredCheckpoint>(
        'SELECT size, note, created_at AS "createdAt" FROM ledger_checkpoints WHERE size <= $1 ORDER BY size DESC LIMIT 1',
        [size],
      );
      return row ?? null;
    },
  };
}

/**
 * A write transaction's primitives with its inserts held back and sent as ONE statement (three
 * data-modifying CTEs) before the next read, on `sendBuffered`, or at the end: a group costs three
 * round trips (BEGIN with the lock and the tail, the inserts, COMMIT) instead of seven. The foreign
 * key that guards the chain is checked at the end of that statement, over every row of it. A
 * checkpoint left alone at the end (the ledger signs it while its entries are being inserted, after
 * `sendBuffered`) rides with the COMMIT: `finish` returns it as a statement to send before it.
 */
export function bufferedWrites(
  run: Run,
  lockedTail: TailRow | null | undefined,
  lockWaited: boolean,
): WriteTransaction & { finish(): Promise<string> } {
  const direct = primitives(run);
  // The tail read in the lock's round trip answers the first last() — until anything is inserted.
  let tail = lockedTail;
  let rows: EntryRow[] = [];
  let subtrees: SubtreeRow[] = [];
  let checkpoints: StoredCheckpoint[] = [];
  const flush = async () => {
    if (rows.length === 0 && subtrees.length === 0 && checkpoints.length === 0) return;
    const [r, s, c] = [rows, subtrees, checkpoints];
    rows = [];
    subtrees = [];
    checkpoints = [];
    await run(
      GROUP_INSERT_SQL,
      groupInsertValues(r, s, c),
      // Prepared per connection: every group sends the same statement, so it is planned once.
      "ledger_group_insert",
    );
  };
  const read =
    <A extends unknown[], R>(f: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      await flush();
      return f(...args);
    };
  const last = read(direct.last);
  return {
    last() {
      if (tail === undefined) return last();
      const known = tail;
      tail = undefined;
      return Promise.resolve(known);
    },
    rows: read(direct.rows),
    storedRows: read(direct.storedRows),
    leaves: read(direct.leaves),
    subtrees: read(direct.subtrees),
    subtreeCount: read(direct.subtreeCount),
    latestCheckpoint: read(direct.latestCheckpoint),
    checkpoints: read(direct.checkpoints),
    checkpointAtMost: read(direct.checkpointAtMost),
    async insertRows(more) {
      tail = undefined;
      rows = rows.concat(more);
    },
    async insertSubtrees(more) {
      subtrees = subtrees.concat(more);
    },
    async insertCheckpointIfAbsent(size, note, createdAt) {
      checkpoints.push({ size, note, createdAt });
    },
    sendBuffered: flush,
    // No per-row work to set aside: the guards are checked once per statement already.
    async bulkLoad() {},
    lockWaited,
    async finish() {
      // One checkpoint left alone rides with the COMMIT; anything more goes as the one statement.
      if (rows.length > 0 || subtrees.length > 0 || checkpoints.length > 1) await flush();
      const alone = checkpoints[0];
      checkpoints = [];
      return alone ? checkpointStatement(alone) : "";
    },
  };
}

/**
 * A checkpoint's insert as literal SQL, to send in one simple query with the COMMIT (no parameters
 * there): the size an integer, the texts quoted by pg's escapeLiteral.
 */
export function checkpointStatement(c: StoredCheckpoint): string {
  if (!Number.isSafeInteger(c.size) || c.size < 0) throw new RangeError(`checkpoint size ${c.size} is not a count`);
  // escapeLiteral quotes strings only (anything else becomes ''): a note must arrive as written.
  if (typeof c.note !== "string" || typeof c.createdAt !== "string")
    throw new TypeError("a checkpoint's note and time must be strings");
  return `INSERT INTO ledger_checkpoints (size, note, created_at) VALUES (${c.size}, ${pg.escapeLiteral(c.note)}, ${pg.escapeLiteral(c.createdAt)}) ON CONFLICT (size) DO NOTHING; `;
}
