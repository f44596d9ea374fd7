/**
 * The stored checkpoints a ledger serves and trusts: the newest one that verifies — signed for this
 * origin by a key of the ledger's (when it has one), at a size the verified tree has, with that
 * tree's root. One that does not is refused: never served or used, reported once in the log and on
 * /health (`Ledger.integrity()`), and the next older one is tried.
 */
import { parseCheckpoint, verifyCheckpoint, type NoteVerifier } from "../../core/checkpoint.ts";
import { CompactRange } from "../../core/compact-range.ts";
import { formatDigest } from "../../core/digest.ts";
import type { LedgerIntegrity } from "../../core/ledger/store.ts";
import { equalBytes, rootHash } from "../../core/merkle.ts";
import type { BackendReads, StoredCheckpoint } from "./backend.ts";
import { withStoredNodes } from "./merkle-reads.ts";
import type { Tail } from "./seal.ts";

/** Stored checkpoints refused in a row before latestCheckpoint answers none (each refusal is one more read). */
const MAX_REFUSED_CHECKPOINTS = 8;

export class StoredCheckpoints {
  readonly #origin: string;
  readonly #verifiers: NoteVerifier[];
  readonly #now: () => Date;
  readonly #log: (line: string) => void;
  /** The last stored checkpoint refused (forged, foreign, beyond the tree), for /health. */
  refused: LedgerIntegrity["refusedCheckpoint"] = null;
  /** The stored checkpoint last verified and served: served again without verifying while it is the newest. */
  served: { size: number; note: string } | null = null;

  constructor(origin: string, verifiers: NoteVerifier[], now: () => Date, log: (line: string) => void) {
    this.#origin = origin;
    this.#verifiers = verifiers;
    this.#now = now;
    this.#log = log;
  }

  /**
   * The newest stored checkpoint that verifies, or null; `size` reads the store's size, `verifiedOf`
   * says how much of a size is verified (all of it, unless a row was refused). The one served last
   * is served again without verifying while it stays the newest: one read per call.
   *
   * The size and the checkpoint are two reads: another writer may commit entries and their
   * checkpoint between them. A checkpoint is committed with its entries, so a stored one past the
   * size read before it is judged against the size read again, after it: only a checkpoint beyond
   * what the store holds then is refused, never an honest one that came in between.
   */
  async latest(
    reads: BackendReads,
    size: () => Promise<number>,
    verifiedOf: (size: number) => number,
    tail: () => Tail | null,
  ): Promise<string | null> {
    let known = await size();
    let verified = verifiedOf(known);
    let below = Number.MAX_SAFE_INTEGER;
    for (let tries = 0; tries < MAX_REFUSED_CHECKPOINTS; tries++) {
      const stored = await reads.checkpointAtMost(below);
      if (stored === null) return null;
      if (stored.size > known) {
        // Read again at most once: every later checkpoint asked for is at most the verified size.
        known = await size();
        verified = verifiedOf(known);
      }
      const served = this.served;
      if (served !== null && served.size === stored.size && served.note === stored.note && stored.size <= verified)
        return stored.note;
      const problem = await this.problem(reads, stored, verified, tail());
      if (problem === null) {
        this.served = { size: stored.size, note: stored.note };
        return stored.note;
      }
      this.refuse(stored.size, problem);
      if (stored.size === 0) return null;
      below = Math.min(stored.size - 1, verified);
    }
    return null;
  }

  /** Why a stored checkpoint may not be served or used, or null: its signature, origin, size and root against the tree of `verified` entries. */
  async problem(
    reads: BackendReads,
    stored: StoredCheckpoint,
    verified: number,
    tail: Tail | null,
  ): Promise<string | null> {
    if (stored.size > verified)
      return `its size ${stored.size} is beyond the ${verified} entries of the verified ledger`;
    let signed;
    try {
      signed =
        this.#verifiers.length > 0
          ? verifyCheckpoint(stored.note, this.#verifiers)
          : parseCheckpoint(stored.note.slice(0, stored.note.indexOf("\n\n") + 1));
    } catch (error) {
      return `its note does not verify with the ledger's key: ${(error as Error).message}`;
    }
    if (signed.origin !== this.#origin) return `its origin is "${signed.origin}", not "${this.#origin}"`;
    if (signed.size !== stored.size) return `it signs size ${signed.size} in the row of size ${stored.size}`;
    const root =
      tail !== null && tail.range.size === stored.size
        ? tail.range.root()
        : stored.size === 0
          ? rootHash([])
          : (await withStoredNodes(reads, (perfect) => CompactRange.fromPerfect(stored.size, perfect))).root();
    if (!equalBytes(root, signed.rootHash))
      return `its root ${formatDigest(signed.rootHash)} is not the ledger's ${formatDigest(root)} at size ${stored.size}`;
    return null;
  }

  /** Reports a refused stored checkpoint (once per size and reason: the log line and /health). */
  refuse(size: number, problem: string): void {
    const last = this.refused;
    if (last !== null && last.size === size && last.problem === problem) return;
    this.refused = { size, problem, since: this.#now().toISOString() };
    this.#log(`ledger ${this.#origin}: stored checkpoint of size ${size} refused, not served or used: ${problem}`);
  }
}
