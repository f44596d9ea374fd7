/**
 * The ledger's storage interface. The embedded implementation is SQLite (store/sqlite-ledger.ts);
 * a PostgreSQL one can serve several API instances later, and the pipeline reads either, or an
 * export, through the read-only half.
 */
import type { JsonObject, LedgerEntry } from "./entry.ts";
import type { VerifyReport } from "./verify.ts";

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
  /** Number of entries. */
  size(): number;
  /** Entries with start <= seq < end, in order, streamed. */
  entries(start?: number, end?: number): IterableIterator<LedgerEntry>;
  /** The same entries, each with its stored payload text: for a reader that rehashes what it reads. */
  storedEntries(start?: number, end?: number): IterableIterator<StoredEntry>;
  /** RFC 9162 root of the first treeSize entries (default: all). */
  rootHash(treeSize?: number): Uint8Array;
  inclusionProof(seq: number, treeSize?: number): Uint8Array[];
  consistencyProof(oldSize: number, newSize?: number): Uint8Array[];
  /** The newest signed checkpoint (C2SP signed note), or null if none was made. */
  latestCheckpoint(): string | null;
  /** Re-derives everything from the stored entries and reports each broken seq. */
  verify(): LedgerVerifyReport;
}

export interface LedgerStore extends LedgerReader {
  /** Appends all events in one transaction: all are recorded, or none. */
  append(events: readonly NewEvent[]): LedgerEntry[];
  /** Signs a checkpoint of the current tree, records it, and returns the signed note. */
  checkpoint(): string;
  close(): void;
}

export interface LedgerVerifyReport extends VerifyReport {
  /** How many stored checkpoints were checked against the recomputed tree. */
  checkpointsChecked: number;
}

/** Why an append was refused: an invalid event, or a monetary event inside the migration freeze. */
export type LedgerAppendCode = "invalid-event" | "migration-freeze";

/** A refused append: nothing was written. `field` names the offending input when there is one. */
export class LedgerAppendError extends Error {
  readonly index: number;
  readonly code: LedgerAppendCode;
  constructor(index: number, message: string, code: LedgerAppendCode = "invalid-event") {
    super(`event ${index}: ${message}`);
    this.name = "LedgerAppendError";
    this.index = index;
    this.code = code;
  }
}
