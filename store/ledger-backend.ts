/**
 * The backend primitives under the shared ledger (store/ledger.ts): what a storage engine must do,
 * and nothing more. Sealing, the compact range, projections, group commit and checkpoint signing
 * live in the shared class; a backend only stores and reads rows, subtrees and checkpoints, and
 * holds the ledger's write lock for one transaction. SQLite: store/sqlite-backend.ts. Only
 * store/open-ledger.ts picks one. A backend reports a store it cannot reach (closed, lost, locked
 * past its timeout) as core/ledger/store.ts `LedgerUnavailableError`: the API answers 503.
 */

export interface EntryRow {
  seq: number;
  type: string;
  payload: string;
  ts: string;
  prev: string | null;
  hash: string;
  leaf: Uint8Array;
}
export interface SubtreeRow {
  level: number;
  idx: number;
  hash: Uint8Array;
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
  /** Leaf hashes of start <= seq < end, in order. */
  leaves(start: number, end: number): Promise<Uint8Array[]>;
  /** The stored subtrees asked for (key `${level}/${idx}`); missing ones are absent from the map. */
  subtrees(keys: readonly { level: number; idx: number }[]): Promise<Map<string, Uint8Array>>;
  subtreeCount(): Promise<number>;
  latestCheckpoint(): Promise<string | null>;
  checkpoints(): Promise<{ size: number; note: string }[]>;
}

export interface BackendWrites {
  insertRows(rows: readonly EntryRow[]): Promise<void>;
  insertSubtrees(subtrees: readonly SubtreeRow[]): Promise<void>;
  /** Records the note unless a checkpoint of that size exists (the first one stays). */
  insertCheckpointIfAbsent(size: number, note: string, createdAt: string): Promise<void>;
}

export interface LedgerBackend extends BackendReads {
  readonly kind: "sqlite" | "postgresql";
  /** Where the data lives, safe to show (no password). */
  readonly location: string;
  /** Creates the tables if absent and checks the stored format version and origin (throws on mismatch). */
  open(origin: string): Promise<void>;
  /**
   * Runs `fn` in one write transaction holding the ledger's write lock (SQLite: BEGIN IMMEDIATE;
   * PostgreSQL: BEGIN + pg_advisory_xact_lock, reads in a separate statement after the lock).
   * Commits when fn resolves, rolls back when it throws (and rethrows).
   */
  withWriteLock<T>(fn: (tx: BackendReads & BackendWrites) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** The key of a subtree in `BackendReads.subtrees`' answer. */
export function subtreeKey(level: number, idx: number): string {
  return `${level}/${idx}`;
}
