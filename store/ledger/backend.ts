/**
 * What a store driver gives the ledger engine (store/ledger/): lock the tail, read rows since N,
 * insert rows and subtrees, read subtrees, insert a checkpoint if absent, and its append strategy.
 * Sealing, the compact range, projections and group commit are the engine's; a driver only stores.
 * Every member is one every driver has: what only some drivers can do is asked for through
 * `appendStrategy()` and answered by every driver (store/ledger/group-writes.ts). SQLite
 * (store/drivers/sqlite/) is the embedded default; PostgreSQL (store/drivers/postgres/) serves N API
 * instances. docs/ledger-store.md explains the split.
 */
import type { StoredRow as LedgerRow } from "../../core/ledger/row-check.ts";
import { CodedError } from "../../core/errors.ts";

/** A stored row: the entry's columns, its payload's JCS text exactly as stored (core/ledger/row-check.ts). */
export type EntryRow = LedgerRow;
/** A row without its leaf hash: what a read that only parses entries needs. */
export type StoredRow = Omit<EntryRow, "leaf">;
export interface SubtreeRow {
  level: number;
  idx: number;
  hash: Uint8Array;
}
export interface StoredCheckpoint {
  size: number;
  note: string;
  createdAt: string;
}
export interface TailRow {
  seq: number;
  hash: string;
  ts: string;
}

/** Reads; outside a transaction each call is one statement (one consistent snapshot). */
export interface BackendReads {
  last(): Promise<TailRow | null>;
  /** Rows start <= seq < end in order, at most `limit`. */
  rows(start: number, end: number, limit: number): Promise<EntryRow[]>;
  /** The same rows without their leaf hashes (`entries()`: one buffer less per row to make and collect). */
  storedRows(start: number, end: number, limit: number): Promise<StoredRow[]>;
  /** Leaf hashes of start <= seq < end, in order. */
  leaves(start: number, end: number): Promise<Uint8Array[]>;
  /** The stored subtrees asked for (key `${level}/${idx}`); missing ones are absent from the map. */
  subtrees(keys: readonly { level: number; idx: number }[]): Promise<Map<string, Uint8Array>>;
  /** How many subtrees of at least `fromLevel` are stored. */
  subtreeCount(fromLevel: number): Promise<number>;
  latestCheckpoint(): Promise<string | null>;
  /** The stored checkpoint of the largest size at most `size`, or null: what the ledger verifies before it serves one. */
  checkpointAtMost(size: number): Promise<StoredCheckpoint | null>;
  /** Every stored checkpoint, by size, as recorded. */
  checkpoints(): Promise<StoredCheckpoint[]>;
}

export interface BackendWrites {
  insertRows(rows: readonly EntryRow[]): Promise<void>;
  insertSubtrees(subtrees: readonly SubtreeRow[]): Promise<void>;
  /** Records the note unless a checkpoint of that size exists (the first one stays). */
  insertCheckpointIfAbsent(size: number, note: string, createdAt: string): Promise<void>;
}

/** One write transaction under the write lock: the reads, the writes, and what the engine asks of it. */
export interface WriteTransaction extends BackendReads, BackendWrites {
  /**
   * Starts sending the inserts buffered so far: the engine signs the checkpoint while they travel.
   * A driver that writes every insert when called (SQLite) has nothing to send.
   */
  sendBuffered(): Promise<void>;
  /**
   * A large batch of new entries follows in this transaction (the bulk path): a driver may set
   * aside per-row work that only other writers need, as long as no other connection can see it set
   * aside (SQLite: store/drivers/sqlite/backend.ts `bulkLoad`); one with no such work does nothing.
   */
  bulkLoad(): Promise<void>;
  /**
   * Whether this transaction found the write lock held by another writer and waited for it after
   * `withWriteLock`'s `meanwhile` ran: what that computed before the wait may be stale (false where
   * `meanwhile` runs once the lock is held, as on SQLite).
   */
  readonly lockWaited: boolean;
}

/**
 * How a driver appends, asked for by the engine in one place (store/ledger/group-writes.ts)
 * before each group of writes, since a driver may lose an ability while open:
 *
 * - `transaction`: every write is one transaction under `withWriteLock` (SQLite: no round trip to
 *   save).
 * - `conditional`: a group sealed ahead against the tail this writer last committed goes in one
 *   round trip, `appendIfTail`, and takes the transaction only when that finds the lock held or the
 *   tail moved (PostgreSQL, while its function is there and may be executed).
 */
export type AppendStrategy = { kind: "transaction" } | { kind: "conditional"; appendIfTail: AppendIfTailFn };

/**
 * The conditional write in one round trip, for rows sealed before the transaction against the
 * tail this writer last committed. Takes the write lock only if it is free, reads the committed
 * tail after it, and only if that tail is `after` (null: the log is empty) inserts `write` and
 * commits; otherwise writes nothing and answers why: `busy` (another writer holds the lock) or
 * `moved` (another writer appended). The caller then takes withWriteLock. A failure leaves the
 * outcome unknown, as a failed COMMIT does: the next write reads the tail and finds out.
 */
export type AppendIfTailFn = (after: { seq: number; hash: string } | null, write: AppendWrite) => Promise<AppendIfTail>;

export interface LedgerBackend extends BackendReads {
  /** The driver's kind (store/drivers/registry.ts). */
  readonly kind: string;
  /** Where the data lives, safe to show (no password). */
  readonly location: string;
  /** Creates the tables if absent and checks the stored format version and origin (throws on mismatch). */
  open(origin: string): Promise<void>;
  /**
   * Runs `fn` in one write transaction holding the ledger's write lock (SQLite: BEGIN IMMEDIATE;
   * PostgreSQL: BEGIN + pg_advisory_xact_lock, reads in a separate statement after the lock).
   * Commits when fn resolves, rolls back when it throws (and rethrows). `meanwhile`, if given, runs
   * once before fn: on PostgreSQL as soon as the lock has been asked for, so work that needs nothing
   * of the transaction overlaps the lock's round trip (`lockWaited` then says whether the lock came
   * at once); on SQLite once the lock is held, there being no round trip to overlap. It must not throw.
   */
  withWriteLock<T>(fn: (tx: WriteTransaction) => Promise<T>, meanwhile?: () => void): Promise<T>;
  /** How this driver appends, as it stands now (see AppendStrategy). */
  appendStrategy(): AppendStrategy;
  /** How often this driver's writes waited for the write lock held by another instance; null where it does not count them. */
  lockWaits(): LockWaits | null;
  close(): Promise<void>;
}

/** What `AppendStrategy.appendIfTail` inserts: a group's rows, the subtrees they complete, its checkpoint. */
export interface AppendWrite {
  rows: readonly EntryRow[];
  subtrees: readonly SubtreeRow[];
  checkpoint: StoredCheckpoint | null;
}

export type AppendIfTail = "appended" | "busy" | "moved";

/** Write transactions, how many found the lock held by another session, and the time they waited (ms). */
export interface LockWaits {
  transactions: number;
  waits: number;
  waitedMs: number;
}

/**
 * The store itself failed — locked past its timeout, the connection lost, the server restarting,
 * an I/O error — so nothing was decided and the caller may try again: the API answers 503
 * `ledger-unavailable` with Retry-After. A write refused for its content is never this.
 */
export class LedgerUnavailableError extends CodedError<"ledger-unavailable"> {
  constructor(message: string, options?: { cause?: unknown }) {
    super("ledger-unavailable", message, options);
  }
}

/**
 * A row another writer stored is not an entry this code could have sealed (its hash or leaf is not
 * that of its content, its payload is not canonical JSON of a valid event, it does not chain): the
 * ledger refuses to fold it, to sign over it and to write after it (store/ledger/). A store
 * failure to the API — 503 `ledger-unavailable` with Retry-After, fail closed — that lasts until
 * an operator deals with the row and restarts the instance.
 */
export class LedgerIntegrityError extends LedgerUnavailableError {
  readonly seq: number;
  constructor(seq: number, message: string) {
    super(message);
    this.seq = seq;
  }
}

/** The key of a subtree in `BackendReads.subtrees`' answer. */
export function subtreeKey(level: number, idx: number): string {
  return `${level}/${idx}`;
}
