/**
 * A live ledger read as of one signed checkpoint. A store that other processes keep appending to
 * (the API instances on PostgreSQL) has no fixed size: a regeneration that read entries up to one
 * size and published a checkpoint of a later one would sign over rows it never read. Pinned at a
 * checkpoint that verifies with a trusted key, the reader answers as the log stood then — size,
 * entries and proofs up to that size, and the checkpoint itself as the one to publish — and
 * re-verifies every entry it streams (shape, hash, canonical payload, event schema, the prev chain),
 * so that the recomputed root must equal the signed one at the end, as an export's reader does. It
 * never writes: a reader with SELECT alone is enough.
 */
import { verifyCheckpoint, type Checkpoint, type NoteVerifier } from "../checkpoint.ts";
import { formatDigest } from "../digest.ts";
import { CodedError } from "../errors.ts";
import { equalBytes } from "../merkle.ts";
import type { LedgerEntry } from "./entry.ts";
import type { LedgerReader, LedgerVerifyReport, StoredEntry } from "./store.ts";
import { ChainVerifier, type PayloadValidator } from "./verify.ts";

export type PinnedReaderCode =
  /** The store holds no signed checkpoint to pin to. */
  | "no-checkpoint"
  /** The store's newest checkpoint does not verify with the trusted keys, or names another log. */
  | "checkpoint-unverified"
  /** The checkpoint claims more entries than the store holds. */
  | "checkpoint-ahead"
  /** An entry under the checkpoint does not verify, or the entries do not hash to its root. */
  | "entries-unverified";

export class PinnedReaderError extends CodedError<PinnedReaderCode> {}

export class PinnedLedgerReader implements LedgerReader {
  readonly checkpoint: Checkpoint;
  readonly #inner: LedgerReader;
  readonly #note: string;
  readonly #validate: PayloadValidator;

  private constructor(inner: LedgerReader, note: string, checkpoint: Checkpoint, validate: PayloadValidator) {
    this.#inner = inner;
    this.#validate = validate;
    this.#note = note;
    this.checkpoint = checkpoint;
  }

  /**
   * Pins `inner` at its newest stored checkpoint, which must verify with one of `verifiers` and cover no more than the store holds;
   * every entry it streams is checked with `validate` (the event registry's: core/events/registry.ts validateEvent).
   */
  static async open(
    inner: LedgerReader,
    verifiers: NoteVerifier[],
    validate: PayloadValidator,
  ): Promise<PinnedLedgerReader> {
    const note = await inner.latestCheckpoint();
    if (note === null)
      throw new PinnedReaderError("no-checkpoint", "the ledger holds no signed checkpoint to read it at");
    let checkpoint: Checkpoint;
    try {
      checkpoint = verifyCheckpoint(note, verifiers);
    } catch (error) {
      throw new PinnedReaderError(
        "checkpoint-unverified",
        `the ledger's newest checkpoint does not verify with the trusted ledger keys: ${(error as Error).message}`,
      );
    }
    if (checkpoint.origin !== inner.origin) {
      throw new PinnedReaderError(
        "checkpoint-unverified",
        `the ledger's newest checkpoint names the log "${checkpoint.origin}", the ledger is "${inner.origin}"`,
      );
    }
    const held = await inner.size();
    if (checkpoint.size > held)
      throw new PinnedReaderError(
        "checkpoint-ahead",
        `the ledger's newest checkpoint covers ${checkpoint.size} entries, the ledger holds ${held}`,
      );
    return new PinnedLedgerReader(inner, note, checkpoint, validate);
  }

  get origin(): string {
    return this.checkpoint.origin;
  }

  async size(): Promise<number> {
    return this.checkpoint.size;
  }

  async rootHash(treeSize: number = this.checkpoint.size): Promise<Uint8Array> {
    if (treeSize === this.checkpoint.size) return this.checkpoint.rootHash;
    return this.#inner.rootHash(this.#within(treeSize));
  }

  async inclusionProof(seq: number, treeSize: number = this.checkpoint.size): Promise<Uint8Array[]> {
    return this.#inner.inclusionProof(seq, this.#within(treeSize));
  }

  async consistencyProof(oldSize: number, newSize: number = this.checkpoint.size): Promise<Uint8Array[]> {
    return this.#inner.consistencyProof(oldSize, this.#within(newSize));
  }

  async latestCheckpoint(): Promise<string> {
    return this.#note;
  }

  async *entries(start = 0, end?: number): AsyncIterableIterator<LedgerEntry> {
    for await (const { entry } of this.storedEntries(start, end)) yield entry;
  }

  /**
   * Entries start <= seq < end (at most the checkpoint's size). The chain is verified from seq 0
   * whatever start is, and a read that reaches the checkpoint's size ends by checking the root; a
   * caller writes nothing until the stream has ended without an error.
   */
  async *storedEntries(start = 0, end?: number): AsyncIterableIterator<StoredEntry> {
    const stop = Math.min(end ?? this.checkpoint.size, this.checkpoint.size);
    const verifier = new ChainVerifier(this.#validate, 1);
    let read = 0;
    for await (const stored of this.#inner.storedEntries(0, stop)) {
      // Problems are reported once at the end: report() recomputes the root, so not per entry.
      verifier.add(stored.entry, { payloadText: stored.payloadText });
      read += 1;
      if (stored.entry.seq >= start) yield stored;
    }
    const report = verifier.report();
    const problem = report.problems[0];
    if (problem) throw new PinnedReaderError("entries-unverified", `ledger entry ${problem.seq}: ${problem.problem}`);
    if (read < stop)
      throw new PinnedReaderError(
        "entries-unverified",
        `the ledger gave ${read} entries, the checkpoint covers ${stop}`,
      );
    const root = report.rootHash;
    if (stop === this.checkpoint.size && !equalBytes(root, this.checkpoint.rootHash)) {
      throw new PinnedReaderError(
        "entries-unverified",
        `the entries hash to root ${formatDigest(root)}, the checkpoint signs ${formatDigest(this.checkpoint.rootHash)}`,
      );
    }
  }

  verify(): Promise<LedgerVerifyReport> {
    return this.#inner.verify();
  }

  #within(treeSize: number): number {
    if (treeSize > this.checkpoint.size)
      throw new RangeError(`tree size ${treeSize} is past the pinned checkpoint's ${this.checkpoint.size}`);
    return treeSize;
  }
}
