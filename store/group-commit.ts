/**
 * Group commit: writes submitted while a group is being committed wait for the next group, and a
 * group is committed by one call — one transaction, one sync to disk — so that many concurrent
 * single-event writes cost one fsync, not one each. The store runs the group (in submission order)
 * and says how each write ended; each promise settles only after its group's commit returned, so a
 * write is never answered before its entries are durable. A group starts on the next turn of the
 * event loop (setImmediate): every request already read from the network joins it. One group is in
 * flight at a time: writes submitted while it commits form the next one.
 */
import type { Decide, Written } from "../core/ledger/store.ts";

/** How one write of a group ended. */
export type WriteOutcome = { ok: true; written: Written<unknown> } | { ok: false; error: unknown };

/**
 * Commits a group: returns one outcome per write, in order, once the group is durable; throws when
 * nothing of the group was committed (every write then fails with that error).
 */
export type CommitGroup = (decides: readonly Decide<unknown>[]) => WriteOutcome[] | Promise<WriteOutcome[]>;

interface Pending {
  decide: Decide<unknown>;
  resolve: (written: Written<unknown>) => void;
  reject: (error: unknown) => void;
}

export class GroupCommit {
  readonly #commit: CommitGroup;
  readonly #maxGroup: number;
  #pending: Pending[] = [];
  #scheduled = false;
  /** The group being committed, if any. */
  #inFlight: Promise<void> | null = null;

  /** `maxGroup` bounds the writes of one transaction (and so how long it holds the write lock). */
  constructor(commit: CommitGroup, maxGroup = 1024) {
    this.#commit = commit;
    this.#maxGroup = maxGroup;
  }

  submit<R>(decide: Decide<R>): Promise<Written<R>> {
    return new Promise<Written<R>>((resolve, reject) => {
      this.#pending.push({ decide, resolve: resolve as (written: Written<unknown>) => void, reject });
      this.#schedule();
    });
  }

  /** Commits every waiting write now, group by group (before the store closes). */
  async flush(): Promise<void> {
    while (this.#inFlight || this.#pending.length > 0) {
      if (this.#inFlight) await this.#inFlight;
      else await this.#start();
    }
  }

  /** Writes waiting for their group. */
  get waiting(): number {
    return this.#pending.length;
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      // A group in flight starts the next one when it ends.
      if (!this.#inFlight) void this.#start();
    });
  }

  #start(): Promise<void> {
    const run = this.#run().finally(() => {
      this.#inFlight = null;
      if (this.#pending.length > 0) this.#schedule();
    });
    this.#inFlight = run;
    return run;
  }

  async #run(): Promise<void> {
    const group = this.#pending.splice(0, this.#maxGroup);
    if (group.length === 0) return;
    let outcomes: WriteOutcome[];
    try {
      outcomes = await this.#commit(group.map((p) => p.decide));
    } catch (error) {
      for (const p of group) p.reject(error);
      return;
    }
    group.forEach((p, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) p.resolve(outcome.written);
      else p.reject(outcome.error);
    });
  }
}
