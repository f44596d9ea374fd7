/**
 * A projection kept caught up with a growing ledger: `catchUp()` applies only the entries appended
 * since the last call, so a live figure (the supply, the balances after the migration snapshot)
 * costs the new entries, not a re-read of the log. Call it before answering: the state then reflects
 * the ledger's tail, including entries another process appended to the same store.
 */
import type { LedgerReader } from "../core/ledger/store.ts";
import type { Projection } from "../core/ledger/projection.ts";

export class ProjectionFollower<S> {
  readonly #reader: LedgerReader;
  readonly #projection: Projection<S>;
  #state: S;
  #position = 0;

  constructor(reader: LedgerReader, projection: Projection<S>) {
    this.#reader = reader;
    this.#projection = projection;
    this.#state = projection.initial();
  }

  /** How many entries the state covers. */
  get position(): number {
    return this.#position;
  }

  /** Applies the entries appended since the last call and returns the state. */
  catchUp(): S {
    const size = this.#reader.size();
    if (size < this.#position) throw new Error(`the ledger has ${size} entries, fewer than the ${this.#position} already applied`);
    return this.catchUpTo(size);
  }

  /**
   * The same, given a size read from the tail after the question was asked (store/tail-reads.ts): a
   * state that already covers more entries (a later read) is answered as it is.
   */
  catchUpTo(size: number): S {
    if (size <= this.#position) return this.#state;
    let state = this.#state;
    for (const entry of this.#reader.entries(this.#position, size)) state = this.#projection.apply(state, entry);
    this.#state = state;
    this.#position = size;
    return state;
  }
}
