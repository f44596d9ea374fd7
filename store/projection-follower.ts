/**
 * The one way a projection catches up with the ledger: each projection's state is kept with its
 * watermark (the entries folded so far), and asking for it at a size reads only the entries past
 * the watermark ("entries since N") and folds them. The size is read from the store's tail by the
 * caller, after the question was asked — `size()`, a write transaction's tail, or a read shared by
 * the requests of one turn (store/tail-reads.ts) — so every entry any process appended before the
 * question is folded before the answer, and no answer depends on what this process remembered.
 *
 * Users: the ledger's own `state()`/`stateSeen()` and its write transactions (store/sqlite-ledger.ts,
 * which hands in its just-written rows), the balance lookups and the live supply (api/balances.ts).
 * `at` is the only place that reads and folds: an async store (PostgreSQL) changes it alone.
 */
import type { LedgerEntry } from "../core/ledger/entry.ts";
import type { Projection } from "../core/ledger/projection.ts";

/** Where the entries come from: `entries(start, end)` yields start <= seq < end, in order. */
export interface EntrySource {
  entries(start: number, end: number): Iterable<LedgerEntry>;
}

interface Folded {
  state: unknown;
  /** Entries folded: the state is the fold of seq 0 .. watermark - 1. */
  watermark: number;
}

export class ProjectionFollower {
  readonly #source: EntrySource;
  readonly #folded = new Map<Projection<unknown>, Folded>();

  constructor(source: EntrySource) {
    this.#source = source;
  }

  /**
   * The projection's state covering at least the first `size` entries (a projection is known by
   * its identity). A state already past `size` is answered as it is: the ledger only grows, so it
   * covers those entries and later committed ones (entries rolled back are dropped by forgetPast).
   */
  at<S>(projection: Projection<S>, size: number): S {
    const key = projection as Projection<unknown>;
    let folded = this.#folded.get(key);
    if (!folded) {
      folded = { state: projection.initial(), watermark: 0 };
      this.#folded.set(key, folded);
    }
    if (folded.watermark >= size) return folded.state as S;
    // A read that fails leaves the state folded up to its watermark, consistent: the next call goes on from there.
    const entries = this.#source.entries(folded.watermark, size)[Symbol.iterator]();
    for (let next = entries.next(); !next.done; next = entries.next()) {
      try {
        folded.state = projection.apply(folded.state as S, next.value);
      } catch (error) {
        // apply may have changed the state in place: a half-applied state is never used again.
        this.#folded.delete(key);
        throw error;
      }
      folded.watermark = next.value.seq + 1;
    }
    return folded.state as S;
  }

  /** How many entries the projection has folded (0 when it was never asked for). */
  watermark(projection: Projection<unknown>): number {
    return this.#folded.get(projection)?.watermark ?? 0;
  }

  /** Forgets every state that folded entries past `size`: those entries were rolled back. */
  forgetPast(size: number): void {
    for (const [projection, folded] of this.#folded) if (folded.watermark > size) this.#folded.delete(projection);
  }
}
