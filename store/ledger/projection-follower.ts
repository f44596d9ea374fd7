/**
 * The one way a projection catches up with the ledger: each projection's state is kept with its
 * watermark (the entries folded so far), and asking for it at a size reads only the entries past
 * the watermark ("entries since N") and folds them. The size is read from the store's tail by the
 * caller, after the question was asked — `size()`, a write transaction's tail, or a read shared by
 * the requests of one turn (store/ledger/tail-reads.ts) — so every entry any process appended before the
 * question is folded before the answer, and no answer depends on what this process remembered.
 *
 * Users: the ledger's own `state()`/`stateSeen()` and its write transactions (store/ledger/ledger.ts, which
 * folds the rows of the transaction from memory with `inMemory`), the balance lookups and the live
 * supply (api/sources/balances.ts). `at` is the only place that reads and folds; one fold per projection
 * runs at a time, so two callers never fold the same entries twice.
 */
import type { LedgerEntry } from "../../core/ledger/entry.ts";
import type { Projection } from "../../core/ledger/projection.ts";
import { CodedError } from "../../core/errors.ts";

/** Where the entries come from: `entries(start, end)` yields start <= seq < end, in order. */
export interface EntrySource {
  entries(start: number, end: number): AsyncIterable<LedgerEntry> | Iterable<LedgerEntry>;
}

interface Folded {
  state: unknown;
  /** Entries folded: the state is the fold of seq 0 .. watermark - 1. */
  watermark: number;
  /** The hash of the last entry folded (null before the first): the next one must chain on to it. */
  lastHash: string | null;
}

/** Thrown by a synchronous fold that needs entries it does not hold: the caller catches up (`at`) and asks again. */
export class CatchUpNeeded extends CodedError<"catch-up-needed"> {
  readonly projection: Projection<unknown>;
  constructor(projection: Projection<unknown>) {
    super("catch-up-needed", "the projection must catch up with the ledger before it is folded in memory");
    this.projection = projection;
  }
}

export class ProjectionFollower {
  readonly #source: EntrySource;
  readonly #folded = new Map<Projection<unknown>, Folded>();
  /** The fold in progress per projection: the next one waits for it. */
  readonly #busy = new Map<Projection<unknown>, Promise<unknown>>();

  constructor(source: EntrySource) {
    this.#source = source;
  }

  #entry(projection: Projection<unknown>): Folded {
    let folded = this.#folded.get(projection);
    if (!folded) {
      folded = { state: projection.initial(), watermark: 0, lastHash: null };
      this.#folded.set(projection, folded);
    }
    return folded;
  }

  /**
   * The projection's state covering at least the first `size` entries (a projection is known by
   * its identity). A state already past `size` is answered as it is: the ledger only grows, so it
   * covers those entries and later committed ones (entries rolled back are dropped by forgetPast).
   */
  async at<S>(projection: Projection<S>, size: number, source: EntrySource = this.#source): Promise<S> {
    const key = projection as Projection<unknown>;
    for (let busy = this.#busy.get(key); busy; busy = this.#busy.get(key)) await busy.catch(() => undefined);
    const folded = this.#entry(key);
    if (folded.watermark >= size) return folded.state as S;
    const run = this.#fold(key, folded, size, source);
    this.#busy.set(key, run);
    try {
      return (await run) as S;
    } finally {
      this.#busy.delete(key);
    }
  }

  async #fold(projection: Projection<unknown>, folded: Folded, size: number, source: EntrySource): Promise<unknown> {
    // A read that fails leaves the state folded up to its watermark, consistent: the next call goes on from there.
    let chained = folded.watermark === 0;
    for await (const entry of source.entries(folded.watermark, size)) {
      if (!chained && entry.prev !== folded.lastHash) {
        // The store no longer holds the entries this state was folded from (it went back, then
        // grew again: a restore, a failover). The state is folded again from the first entry.
        folded.state = projection.initial();
        folded.watermark = 0;
        folded.lastHash = null;
        return this.#fold(projection, folded, size, source);
      }
      chained = true;
      this.#apply(projection, folded, entry);
    }
    return folded.state;
  }

  #apply(projection: Projection<unknown>, folded: Folded, entry: LedgerEntry): void {
    try {
      folded.state = projection.apply(folded.state, entry);
    } catch (error) {
      // apply may have changed the state in place: a half-applied state is never used again.
      if (this.#folded.get(projection) === folded) this.#folded.delete(projection);
      throw error;
    }
    folded.watermark = entry.seq + 1;
    folded.lastHash = entry.hash;
  }

  /**
   * The state at `size`, folded synchronously from entries held in memory (`entryAt`, undefined
   * where it holds none). Throws CatchUpNeeded when an entry is not held or a fold is in progress.
   */
  inMemory<S>(projection: Projection<S>, size: number, entryAt: (seq: number) => LedgerEntry | undefined): S {
    const key = projection as Projection<unknown>;
    if (this.#busy.has(key)) throw new CatchUpNeeded(key);
    const folded = this.#entry(key);
    while (folded.watermark < size) {
      const entry = entryAt(folded.watermark);
      if (!entry) throw new CatchUpNeeded(key);
      this.#apply(key, folded, entry);
    }
    return folded.state as S;
  }

  /** The state as folded so far, reading nothing (the initial state when never asked for). */
  folded<S>(projection: Projection<S>): S {
    return this.#entry(projection as Projection<unknown>).state as S;
  }

  /** How many entries the projection has folded (0 when it was never asked for). */
  watermark(projection: Projection<unknown>): number {
    return this.#folded.get(projection)?.watermark ?? 0;
  }

  /** The projections asked for so far. */
  known(): Projection<unknown>[] {
    return [...this.#folded.keys()];
  }

  /** Forgets every state that folded entries past `size`: those entries were rolled back. */
  forgetPast(size: number): void {
    for (const [projection, folded] of this.#folded) if (folded.watermark > size) this.#folded.delete(projection);
  }
}
