/**
 * Streaming verification of a ledger, entry by entry, as a downloader or the store itself runs it:
 * sequence numbers, the hash of each entry, the chain of `prev` hashes, canonical encoding, the event
 * schema, non-decreasing timestamps, and the Merkle root recomputed from the entries' content.
 * Each problem names the `seq` it was found at; the chain continues from the recorded hashes so
 * that one damaged entry is reported once, not as a cascade.
 */
import { canonicalize } from "../canonical.ts";
import { CompactRange, type SubtreeListener } from "../compact-range.ts";
import { equalBytes } from "../merkle.ts";
import { entryShapeProblem, sealEntry, type LedgerEntry } from "./entry.ts";

export interface VerifyProblem {
  seq: number;
  problem: string;
}

export interface VerifyReport {
  ok: boolean;
  size: number;
  rootHash: Uint8Array;
  problems: VerifyProblem[];
}

/** Returns an error message for an unknown type or an invalid payload, or null when valid. */
export type PayloadValidator = (type: string, payload: unknown) => string | null;

export interface StoredForm {
  /** The entry's canonical text as it was stored (export line); checked to be canonical. */
  text?: string;
  /** The payload text as stored; checked to be canonical. */
  payloadText?: string;
  /** The leaf hash as stored; checked against the recomputed one. */
  leafHash?: Uint8Array;
}

export class ChainVerifier {
  readonly #validate: PayloadValidator;
  readonly #maxProblems: number;
  readonly #range = CompactRange.empty();
  readonly #problems: VerifyProblem[] = [];
  #prev: string | null = null;
  #prevTs = "";
  #truncated = false;
  /** Called for every perfect subtree of the recomputed tree, so a store can compare its own. */
  onSubtree: SubtreeListener | undefined;

  constructor(validate: PayloadValidator, maxProblems = 100) {
    this.#validate = validate;
    this.#maxProblems = maxProblems;
  }

  #report(seq: number, problem: string): void {
    if (this.#problems.length < this.#maxProblems) this.#problems.push({ seq, problem });
    else this.#truncated = true;
  }

  /** Reports a problem found by the caller (e.g. a stored subtree that disagrees). */
  flag(seq: number, problem: string): void {
    this.#report(seq, problem);
  }

  /** Feeds one export line (the entry's canonical JSON). */
  addLine(line: string): void {
    const seq = this.#range.size;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      this.#report(seq, "line is not valid JSON");
      this.#range.append(new Uint8Array(32)); // keep counting so later problems keep their seq
      return;
    }
    const shape = entryShapeProblem(parsed);
    if (shape) {
      this.#report(seq, shape);
      this.#range.append(new Uint8Array(32));
      return;
    }
    this.add(parsed as LedgerEntry, { text: line });
  }

  add(entry: LedgerEntry, stored: StoredForm = {}): void {
    const seq = this.#range.size;
    if (entry.seq !== seq) this.#report(seq, `seq is ${entry.seq}, expected ${seq}`);
    if (entry.prev !== this.#prev) this.#report(seq, `prev is ${entry.prev}, expected ${this.#prev} (the hash of entry ${seq - 1})`);
    if (entry.ts < this.#prevTs) this.#report(seq, `ts ${entry.ts} is earlier than the previous entry's ${this.#prevTs}`);

    let sealed;
    try {
      sealed = sealEntry({ seq: entry.seq, type: entry.type, payload: entry.payload, ts: entry.ts, prev: entry.prev });
    } catch (error) {
      this.#report(seq, `entry cannot be canonicalized: ${(error as Error).message}`);
      this.#range.append(new Uint8Array(32));
      this.#advance(entry);
      return;
    }
    if (sealed.entry.hash !== entry.hash) this.#report(seq, `hash mismatch: recorded ${entry.hash}, content hashes to ${sealed.entry.hash}`);
    if (stored.text !== undefined && stored.text !== sealed.text) this.#report(seq, "entry is not in canonical (JCS) form");
    if (stored.payloadText !== undefined && stored.payloadText !== canonicalize(entry.payload)) {
      this.#report(seq, "stored payload is not in canonical (JCS) form");
    }
    if (stored.leafHash !== undefined && !equalBytes(stored.leafHash, sealed.leafHash)) {
      this.#report(seq, "stored Merkle leaf hash does not match the entry");
    }
    const invalid = this.#validate(entry.type, entry.payload);
    if (invalid) this.#report(seq, invalid);

    // Like the chain, the tree continues from the stored leaf when there is one, so a damaged entry
    // is reported at its seq instead of again at every subtree and checkpoint above it.
    this.#range.append(stored.leafHash ?? sealed.leafHash, this.onSubtree);
    this.#advance(entry);
  }

  #advance(entry: LedgerEntry): void {
    this.#prev = entry.hash; // continue from the recorded hash: one bad entry is one problem
    if (entry.ts > this.#prevTs) this.#prevTs = entry.ts;
  }

  get size(): number {
    return this.#range.size;
  }

  report(): VerifyReport {
    const problems = this.#problems.slice();
    if (this.#truncated) problems.push({ seq: this.#range.size, problem: `more than ${this.#maxProblems} problems; the rest are not listed` });
    return { ok: problems.length === 0, size: this.#range.size, rootHash: this.#range.root(), problems };
  }
}
