/**
 * The ledger's storage interface, asynchronous so that any backend fits under it: the shared
 * implementation is store/ledger/ledger.ts over a backend (SQLite, the embedded default; PostgreSQL for
 * several API instances), and the pipeline reads either, or an export, through the read-only half.
 * A conditional write's `decide` stays synchronous and pure: it runs in memory inside the write
 * transaction (docs/ledger-store.md).
 */
import type { JsonObject, LedgerEntry } from "./entry.ts";
import type { Projection } from "./projection.ts";
import type { VerifyReport } from "./verify.ts";
import { CodedError } from "../errors.ts";

export interface NewEvent {
  type: string;
  payload: JsonObject;
  /** ISO 8601 UTC with milliseconds; defaults to the store's injected clock. */
  ts?: string;
}

/** An entry read back from storage, with its payload's JCS text exactly as stored. */
export interface StoredEntry {
  entry: LedgerEntry;
  /** What the entry's hash and Merkle leaf commit to (core/ledger/entry.ts entryText). */
  payloadText: string;
}

export interface LedgerReader {
  /** The log's origin: the first line of its checkpoints (C2SP tlog-checkpoint), e.g. "integrity-platform.example/ledger". */
  readonly origin: string;
  /** Number of entries committed, read from the store (never a remembered value). */
  size(): Promise<number>;
  /** Entries with start <= seq < end, in order, streamed a page at a time. */
  entries(start?: number, end?: number): AsyncIterable<LedgerEntry>;
  /** The same entries, each with its stored payload text: for a reader that rehashes what it reads. */
  storedEntries(start?: number, end?: number): AsyncIterable<StoredEntry>;
  /** RFC 9162 root of the first treeSize entries (default: all). */
  rootHash(treeSize?: number): Promise<Uint8Array>;
  inclusionProof(seq: number, treeSize?: number): Promise<Uint8Array[]>;
  consistencyProof(oldSize: number, newSize?: number): Promise<Uint8Array[]>;
  /** The newest signed checkpoint (C2SP signed note), or null if none was made. */
  latestCheckpoint(): Promise<string | null>;
  /** Re-derives everything from the stored entries and reports each broken seq. */
  verify(): Promise<LedgerVerifyReport>;
}

/** What a conditional write sees inside its transaction: the ledger at the tail, every process's entries included. */
export interface WriteTail {
  /** Entries in the ledger at this point of the transaction (those of earlier writes of the group included). */
  readonly size: number;
  /** The projection's state over those entries (folded only past what it had seen). Read it; never mutate it. */
  state<S>(projection: Projection<S>): S;
}

/** What a conditional write decided: the events to append (possibly none) and what to answer its caller. */
export interface WritePlan<R> {
  events: readonly NewEvent[];
  result: R;
}

/** Runs inside the write transaction, synchronously; throwing refuses this write alone. */
export type Decide<R> = (tail: WriteTail) => WritePlan<R>;

export interface Written<R> {
  /** The entries appended for this write, durable when the promise settles. */
  entries: LedgerEntry[];
  result: R;
}

/**
 * The durable asynchronous write path (group commit): concurrent writes share one transaction and
 * one sync to disk, each answered only once its own entries are durable, each all-or-nothing.
 */
export interface LedgerWriter {
  /** Appends the events as one write; rejects with a LedgerAppendError, writing none of them, if one is invalid. */
  appendAsync(events: readonly NewEvent[]): Promise<LedgerEntry[]>;
  /** A conditional write: `decide` sees the tail (earlier writes of its group included) and says what to append. */
  write<R>(decide: Decide<R>): Promise<Written<R>>;
  /** The read side: the projection's state caught up to the ledger's tail before it is returned. */
  state<S>(projection: Projection<S>): Promise<S>;
  /**
   * The projection's state over the entries this process has already seen, without reading
   * anything: it may lag other processes' writes. Only for hints a decision at the tail checks again.
   */
  stateSeen<S>(projection: Projection<S>): S;
}

/**
 * Whether this instance's last write reached the store: `failing` from a write the store itself
 * could not make (locked past its timeout, unable to catch up with the tail, an I/O error) until a
 * write commits again. A write refused for its content (LedgerAppendError, a decide that throws)
 * is not a store failure.
 */
export type WriteHealth = { ok: true } | { ok: false; since: string; reason: string };

/**
 * What the ledger refused to trust in its store (store/ledger/ledger.ts): the first row another writer
 * stored that does not verify (the instance then writes nothing more, folds and signs nothing past
 * it), and the last stored checkpoint it would not serve (a forged or foreign note, or one beyond
 * the verified tree).
 */
export interface LedgerIntegrity {
  refusedRow: { seq: number; problem: string; since: string } | null;
  refusedCheckpoint: { size: number; problem: string; since: string } | null;
}

/** Which backend holds the ledger: what /health reports. */
export interface StoreIdentity {
  /** The kind of store, as its driver names it ("sqlite", "postgresql": one per store driver). */
  kind: string;
  /** The SQLite file's path, or the PostgreSQL URL without its password. */
  location: string;
}

export interface LedgerStore extends LedgerReader, LedgerWriter {
  /** See WriteHealth: what /health reports, and why writes are refused while failing. */
  writeHealth(): WriteHealth;
  /** What the ledger refused to trust in its store, for /health (a store without the checks: none). */
  integrity?(): LedgerIntegrity;
  /** Appends all events in one transaction: all are recorded, or none. */
  append(events: readonly NewEvent[]): Promise<LedgerEntry[]>;
  /** Signs a checkpoint of the current tree, records it, and returns the signed note. */
  checkpoint(): Promise<string>;
  /** Commits the writes still waiting for their group, then closes the store. */
  close(): Promise<void>;
  readonly store: StoreIdentity;
}

export interface LedgerVerifyReport extends VerifyReport {
  /** How many stored checkpoints were checked against the recomputed tree. */
  checkpointsChecked: number;
}

/** Why an append was refused; nothing branches on the message. */
export type LedgerAppendCode =
  "not-an-event" | "invalid-event" | "invalid-ts" | "ts-before-tail" | "payload-too-large" | "migration-freeze";

/**
 * A rule on when an event may be dated, applied once the entry's `ts` is known (its own, or the
 * store clock's): null when the event may be recorded at `ts`, otherwise the refusal with its code.
 * The ledger knows no such rule itself; a store is handed its rules (the migration's freeze window,
 * core/migration/phases.ts `freezeRefusal`, is one).
 */
export type EventTimeRule = (type: string, ts: string) => { code: LedgerAppendCode; message: string } | null;

/** A refused append: nothing of it was written. `index` is the refused event's position in its write. */
export class LedgerAppendError extends CodedError<LedgerAppendCode> {
  readonly index: number;
  constructor(index: number, message: string, code: LedgerAppendCode = "invalid-event") {
    super(code, `event ${index}: ${message}`);
    this.index = index;
  }
}
