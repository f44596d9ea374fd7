/**
 * Group commit: writes submitted while a group is being committed wait for the next group, and a
 * group is committed by one call — one transaction, one sync to disk — so that many concurrent
 * single-event writes cost one fsync, not one each. The store runs the group (in submission order)
 * and says how each write ended; each promise settles only after its group's commit returned, so a
 * write is never answered before its entries are durable. A group starts on the next turn of the
 * event loop (setImmediate): every request already read from the network joins it.
 *
 * One group is in flight at a time — unless the store pipelines: then a group that has done its own
 * work and only waits for the database says so (`handOff`), and the next group may start its work
 * (sealing, signing) meanwhile, so that this thread and the database work at once instead of in
 * turn. To give that next group writes to work on, a pipelined store's first group takes half of
 * the writes waiting — when every one of them can be pipelined — and the other half follows it.
 * The store keeps the groups' commits in order.
 */
import type { Decide, Written } from "../../core/ledger/store.ts";

/** How one write of a group ended. */
export type WriteOutcome = { ok: true; written: Written<unknown> } | { ok: false; error: unknown };

/**
 * Commits a group: returns one outcome per write, in order, once the group is durable; throws when
 * nothing of the group was committed (every write then fails with that error). `handOff`, called
 * at most once, says the next group may start while this one waits for its commit.
 */
export type CommitGroup = (
  decides: readonly Decide<unknown>[],
  handOff: () => void,
) => WriteOutcome[] | Promise<WriteOutcome[]>;

export interface GroupCommitOptions {
  /** The most writes in one transaction (so how long it holds the write lock); default 1024. */
  maxGroup?: number;
  /** Whether a write can go in a pipelined group (absent: the store never pipelines). */
  pipelines?: (decide: Decide<unknown>) => boolean;
}

interface Pending {
  decide: Decide<unknown>;
  resolve: (written: Written<unknown>) => void;
  reject: (error: unknown) => void;
}

/** A group being committed: whether it handed off, and its end. */
interface Flight {
  handedOff: boolean;
  done: Promise<void>;
}

export class GroupCommit {
  readonly #commit: CommitGroup;
  readonly #maxGroup: number;
  readonly #pipelines: ((decide: Decide<unknown>) => boolean) | undefined;
  #pending: Pending[] = [];
  #scheduled = false;
  /** The groups being committed, oldest first: at most two, the first one handed off. */
  readonly #flights: Flight[] = [];

  constructor(commit: CommitGroup, options: GroupCommitOptions = {}) {
    this.#commit = commit;
    this.#maxGroup = options.maxGroup ?? 1024;
    this.#pipelines = options.pipelines;
  }

  submit<R>(decide: Decide<R>): Promise<Written<R>> {
    return new Promise<Written<R>>((resolve, reject) => {
      this.#pending.push({ decide, resolve: resolve as (written: Written<unknown>) => void, reject });
      this.#schedule();
    });
  }

  /** Commits every waiting write now, group by group (before the store closes). */
  async flush(): Promise<void> {
    while (this.#flights.length > 0 || this.#pending.length > 0) {
      if (this.#flights.length > 0) await this.#flights.at(-1)!.done;
      else this.#start();
    }
  }

  /** Writes waiting for their group. */
  get waiting(): number {
    return this.#pending.length;
  }

  /** Whether a group may start now: none in flight, or one that handed off. */
  #mayStart(): boolean {
    return this.#flights.length === 0 || (this.#flights.length === 1 && this.#flights[0]!.handedOff);
  }

  #schedule(): void {
    if (this.#scheduled || this.#pending.length === 0) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      // Otherwise a group in flight starts the next one when it hands off or ends.
      if (this.#mayStart()) this.#start();
    });
  }

  #start(): void {
    let size = Math.min(this.#pending.length, this.#maxGroup);
    if (size === 0) return;
    const pipelines = this.#pipelines;
    if (
      pipelines &&
      this.#flights.length === 0 &&
      size >= 2 &&
      this.#pending.slice(0, size).every((p) => pipelines(p.decide))
    )
      size = Math.ceil(size / 2);
    const group = this.#pending.splice(0, size);
    const flight: Flight = { handedOff: false, done: Promise.resolve() };
    const handOff = () => {
      if (flight.handedOff || !pipelines) return;
      flight.handedOff = true;
      this.#schedule();
    };
    flight.done = this.#run(group, handOff).finally(() => {
      this.#flights.splice(this.#flights.indexOf(flight), 1);
      this.#schedule();
    });
    this.#flights.push(flight);
  }

  async #run(group: Pending[], handOff: () => void): Promise<void> {
    let outcomes: WriteOutcome[];
    try {
      outcomes = await this.#commit(
        group.map((p) => p.decide),
        handOff,
      );
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
