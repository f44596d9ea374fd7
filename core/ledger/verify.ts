/**
 * Streaming verification of a ledger, entry by entry, as a downloader or the store itself runs it:
 * sequence numbers, the hash of each entry, the chain of `prev` hashes, canonical encoding, the event
 * schema, non-decreasing timestamps, and the Merkle root recomputed from the entries' content.
 * Each problem names the `seq` it was found at; the chain continues from the recorded hashes so
 * that one damaged entry is reported once, not as a cascade, and missing entries are one problem
 * at the first missing seq.
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
  /** The size of the log read: the seq after the last entry's. */
  size: number;
  /** RFC 9162 root of the entries read; of those before `brokenAt` when the tree broke there. */
  rootHash: Uint8Array;
  problems: VerifyProblem[];
  /**
   * Where entries are missing, out of order or unreadable: the tree is not recomputed past this seq,
   * so no subtree, root or checkpoint that needs it is checked (the problem at this seq says why).
   */
  brokenAt?: number;
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

/** The previous entry's hash is not known (it is missing or unreadable): its successor's prev is not checked. */
const UNKNOWN = Symbol("unknown");

export class ChainVerifier {
  readonly #validate: PayloadValidator;
  readonly #maxProblems: number;
  readonly #range = CompactRange.empty();
  readonly #problems: VerifyProblem[] = [];
  /** The seq the next entry should have: the size of the log read so far, as its entries number it. */
  #next = 0;
  #prev: string | null | typeof UNKNOWN = null;
  #prevTs = "";
  #brokenAt: number | null = null;
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
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      this.addUnreadable("line is not valid JSON");
      return;
    }
    const shape = entryShapeProblem(parsed);
    if (shape) this.addUnreadable(shape);
    else this.add(parsed as LedgerEntry, { text: line });
  }

  /**
   * An entry that cannot be read, reported at the seq it should have (or its recorded one). With
   * its recorded hash and stored leaf the chain and the tree continue from them; without, the chain
   * resumes at the next entry and the tree is not recomputed past it.
   */
  addUnreadable(problem: string, recorded?: { seq: number; hash: string; leafHash: Uint8Array }): void {
    const seq = recorded ? this.#arrive(recorded.seq) : this.#next;
    this.#report(seq, problem);
    if (recorded) {
      this.#appendLeaf(recorded.leafHash);
      this.#prev = recorded.hash;
    } else {
      this.#breakTree(seq);
      this.#prev = UNKNOWN;
    }
    this.#next = seq + 1;
  }

  /**
   * Checks that `seq` is the one expected next and returns the seq the entry is checked at. A gap
   * (or a misplaced entry) is one problem; counting resumes from the recorded seq, so the entries
   * after it are not all reported as misnumbered.
   */
  #arrive(seq: number): number {
    const expected = this.#next;
    if (seq === expected) return seq;
    const numbered = Number.isSafeInteger(seq) && seq >= 0;
    const notChecked = "the Merkle tree is not recomputed past it, so later subtrees and checkpoints are not checked";
    this.#report(
      expected,
      numbered && seq > expected
        ? `${seq - 1 === expected ? `entry ${expected} is` : `entries ${expected}..${seq - 1} are`} missing (the next entry is seq ${seq}); ${notChecked}`
        : `seq is ${seq}, expected ${expected}; ${notChecked}`,
    );
    this.#breakTree(expected);
    this.#prev = UNKNOWN;
    if (numbered) this.#next = seq;
    return this.#next;
  }

  add(entry: LedgerEntry, stored: StoredForm = {}): void {
    const seq = this.#arrive(entry.seq);
    if (this.#prev !== UNKNOWN && entry.prev !== this.#prev)
      this.#report(seq, `prev is ${entry.prev}, expected ${this.#prev} (the hash of entry ${seq - 1})`);
    if (entry.ts < this.#prevTs)
      this.#report(seq, `ts ${entry.ts} is earlier than the previous entry's ${this.#prevTs}`);
    let sealed;
    try {
      sealed = sealEntry({ seq: entry.seq, type: entry.type, payload: entry.payload, ts: entry.ts, prev: entry.prev });
    } catch (error) {
      this.#report(seq, `entry cannot be canonicalized: ${(error as Error).message}`);
      if (stored.leafHash) this.#appendLeaf(stored.leafHash);
      else this.#breakTree(seq);
      this.#advance(entry);
      return;
    }
    if (sealed.entry.hash !== entry.hash)
      this.#report(seq, `hash mismatch: recorded ${entry.hash}, content hashes to ${sealed.entry.hash}`);
    if (stored.text !== undefined && stored.text !== sealed.text)
      this.#report(seq, "entry is not in canonical (JCS) form");
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
    this.#appendLeaf(stored.leafHash ?? sealed.leafHash);
    this.#advance(entry);
  }

  #appendLeaf(leaf: Uint8Array): void {
    if (this.#brokenAt === null) this.#range.append(leaf, this.onSubtree);
  }

  #breakTree(seq: number): void {
    this.#brokenAt ??= seq;
  }

  #advance(entry: LedgerEntry): void {
    this.#prev = entry.hash; // continue from the recorded hash: one bad entry is one problem
    if (entry.ts > this.#prevTs) this.#prevTs = entry.ts;
    this.#next += 1;
  }

  /** The size of the log read so far (the seq after the last entry's). */
  get size(): number {
    return this.#next;
  }

  /** The seq from which the tree is not recomputed, or null while it is whole. */
  get brokenAt(): number | null {
    return this.#brokenAt;
  }

  report(): VerifyReport {
    const problems = this.#problems.slice();
    if (this.#truncated)
      problems.push({ seq: this.#next, problem: `more than ${this.#maxProblems} problems; the rest are not listed` });
    return {
      ok: problems.length === 0,
      size: this.#next,
      rootHash: this.#range.root(),
      problems,
      ...(this.#brokenAt === null ? {} : { brokenAt: this.#brokenAt }),
    };
  }
}
