/**
 * Projections kept caught up to a ledger's tail. Each projection's state is remembered with its
 * watermark (the entries folded so far); asking for it at a size folds only the entries past the
 * watermark, read from the store, so every entry any process appended is seen before a decision.
 */
import type { LedgerEntry } from "../core/ledger/entry.ts";
import type { Projection } from "../core/ledger/projection.ts";

interface Folded {
  state: unknown;
  /** Entries folded: the state is the fold of seq 0 .. watermark - 1. */
  watermark: number;
}

export class LiveProjections {
  readonly #read: (start: number, end: number) => Iterable<LedgerEntry>;
  readonly #folded = new Map<Projection<unknown>, Folded>();

  /** `read(start, end)`: the entries start <= seq < end, in order. */
  constructor(read: (start: number, end: number) => Iterable<LedgerEntry>) {
    this.#read = read;
  }

  /** The projection's state after the first `size` entries (a projection is known by its identity). */
  at<S>(projection: Projection<S>, size: number): S {
    let folded = this.#folded.get(projection as Projection<unknown>);
    if (!folded || folded.watermark > size) {
      folded = { state: projection.initial(), watermark: 0 };
      this.#folded.set(projection as Projection<unknown>, folded);
    }
    if (folded.watermark < size) {
      try {
        for (const entry of this.#read(folded.watermark, size)) {
          folded.state = projection.apply(folded.state as S, entry);
          folded.watermark = entry.seq + 1;
        }
      } catch (error) {
        // apply may have changed the state in place: a half-applied state is never used again.
        this.#folded.delete(projection as Projection<unknown>);
        throw error;
      }
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
