/**
 * The group-commit path (`appendAsync`, `write(decide)`): the writes of one event-loop turn share a
 * transaction (store/ledger/group-commit.ts), every decide runs synchronously, in order, against the
 * tail in memory. Where the driver's append strategy is `conditional` (store/ledger/backend.ts
 * `AppendStrategy`: PostgreSQL), a group of appendAsync's writes is sealed and signed before its
 * turn and inserted in one round trip while the tail is unmoved; otherwise it is a transaction.
 * This module is the one place the engine asks its driver how it appends (`#conditionalAppend`).
 */
import type { Decide, NewEvent, WriteTail, Written } from "../../core/ledger/store.ts";
import type { LedgerEntry } from "../../core/ledger/entry.ts";
import type { Projection } from "../../core/ledger/projection.ts";
import type { AppendIfTailFn, EntryRow, LedgerBackend, SubtreeRow, WriteTransaction } from "./backend.ts";
import { GroupCommit, type WriteOutcome } from "./group-commit.ts";
import { CatchUpNeeded, type EntrySource, type ProjectionFollower } from "./projection-follower.ts";
import { batchClock, rowToEntry, type Sealer, type Tail, type TransactionWrite } from "./seal.ts";
import { FOLLOW_MAX, type CommittedTail } from "./tail.ts";
import type { Transactions } from "./transactions.ts";

/** A decide asking for more projections than this, each needing a catch-up, is refused. */
const MAX_CATCH_UPS = 64;

/** A group's leading fixed writes sealed against `start` before the transaction read the tail (#sealAhead). */
interface SealedAhead {
  start: Tail;
  tail: Tail;
  rows: EntryRow[];
  subtrees: SubtreeRow[];
  outcomes: WriteOutcome[];
}

export interface GroupWritesOptions {
  backend: LedgerBackend;
  committed: CommittedTail;
  projections: ProjectionFollower;
  transactions: Transactions;
  sealer: Sealer;
  now: () => Date;
}

export class GroupWrites {
  readonly #backend: LedgerBackend;
  readonly #committed: CommittedTail;
  readonly #projections: ProjectionFollower;
  readonly #tx: Transactions;
  readonly #sealer: Sealer;
  readonly #now: () => Date;
  readonly #group: GroupCommit;
  /**
   * The tail a one-statement group sealed and not yet settled leaves if it commits (#appendIfUnmoved):
   * the next group seals after it while it is on its way.
   */
  #sealedAfter: Tail | null = null;
  /** The events of appendAsync's writes, known before the tail: a group seals them ahead (#sealAhead). */
  readonly #fixed = new WeakMap<Decide<unknown>, readonly NewEvent[]>();
  /** Set when Ledger.state() hands out a state, until the next macrotask (#readersDone). */
  #handedOut = false;

  constructor(options: GroupWritesOptions) {
    this.#backend = options.backend;
    this.#committed = options.committed;
    this.#projections = options.projections;
    this.#tx = options.transactions;
    this.#sealer = options.sealer;
    this.#now = options.now;
    // Pipelined where groups of appendAsync's writes go in one statement each (#appendIfUnmoved) —
    // while they do: not while other writers' entries or a failure send groups through transactions.
    this.#group = new GroupCommit((decides, handOff) => this.#commitGroup(decides, handOff), {
      pipelines: (decide) => this.#conditionalAppend() !== null && this.#appendsAhead() && this.#fixed.has(decide),
    });
  }

  appendAsync(events: readonly NewEvent[]): Promise<LedgerEntry[]> {
    const batch = [...events];
    const decide: Decide<undefined> = () => ({ events: batch, result: undefined });
    this.#fixed.set(decide, batch);
    return this.#group.submit(decide).then((written) => written.entries);
  }

  write<R>(decide: Decide<R>): Promise<Written<R>> {
    return this.#group.submit(decide);
  }

  /** Commits the writes still waiting for their group. */
  flush(): Promise<void> {
    return this.#group.flush();
  }

  /** A state was handed out by Ledger.state(): its caller reads it until the next macrotask. */
  handedOut(): void {
    if (this.#handedOut) return;
    this.#handedOut = true;
    setImmediate(() => (this.#handedOut = false));
  }

  /** The driver's conditional append, while its strategy offers one (store/ledger/backend.ts AppendStrategy). */
  #conditionalAppend(): AppendIfTailFn | null {
    const strategy = this.#backend.appendStrategy();
    return strategy.kind === "conditional" ? strategy.appendIfTail : null;
  }

  /**
   * Before a write folds rows it has not committed into a projection's state, which projections may
   * update in place: a state `state()` has just handed out is still being read by its caller, in a
   * continuation (a microtask). Waiting for the next macrotask lets every such continuation run.
   */
  async #readersDone(): Promise<void> {
    if (this.#handedOut) await new Promise<void>((resolve) => setImmediate(resolve));
  }

  /**
   * One group of writes (store/ledger/group-commit.ts) in one transaction: every known projection
   * caught up to the tail, then each decide in order against the tail in memory — a decide that
   * throws or returns an invalid event drops its own rows only — then one insert for all.
   */
  #commitGroup(decides: readonly Decide<unknown>[], handOff: () => void): Promise<WriteOutcome[]> {
    const appending = this.#appendIfUnmoved(decides, handOff);
    if (appending) return appending;
    const { write, meanwhile } = this.#groupTransaction(decides);
    return this.#tx.run(write, meanwhile);
  }

  /**
   * The group's transaction: `write` for Transactions.transact, and `meanwhile`, which seals the
   * group's leading appendAsync writes while the lock's round trip travels (#sealAhead).
   */
  #groupTransaction(decides: readonly Decide<unknown>[]): {
    write: (tx: WriteTransaction, start: Tail) => Promise<TransactionWrite<WriteOutcome[]>>;
    meanwhile: () => void;
  } {
    // The group's one clock reading: the guess's, taken when the lock was asked for, when the guess
    // is kept; otherwise one taken now, after the lock, as for any group.
    const aheadClock = batchClock(this.#now);
    let ahead: SealedAhead | null = null;
    const write = async (tx: WriteTransaction, start: Tail): Promise<TransactionWrite<WriteOutcome[]>> => {
      const source: EntrySource = { entries: (from, to) => this.#committed.committedEntries(tx, from, to) };
      const size = start.range.size;
      for (const projection of this.#projections.known()) await this.#projections.at(projection, size, source);
      // Sealed ahead against the tail this transaction starts from, the lock having come at once:
      // kept. Otherwise (a writer elsewhere appended, the tail was rebuilt, or the lock was waited
      // for, which makes the guess's time stale): dropped, and those writes are sealed below.
      const kept = ahead !== null && ahead.start === start && !tx.lockWaited ? ahead : null;
      const clock = kept ? aheadClock : batchClock(this.#now);
      const rows: EntryRow[] = kept ? kept.rows : [];
      const subtrees: SubtreeRow[] = kept ? kept.subtrees : [];
      let tail = kept ? kept.tail : start;
      const entryAt = (seq: number): LedgerEntry | undefined => {
        const row = seq >= size ? rows[seq - size] : this.#committed.held.get(seq);
        return row ? rowToEntry(row) : undefined;
      };
      const view: WriteTail = {
        get size() {
          return tail.range.size;
        },
        state: <S>(projection: Projection<S>) => this.#projections.inMemory(projection, tail.range.size, entryAt),
      };
      const outcomes: WriteOutcome[] = kept ? kept.outcomes : [];
      await this.#readersDone();
      for (const decide of kept ? decides.slice(kept.outcomes.length) : decides) {
        for (let catchUps = 0; ; catchUps++) {
          try {
            const decision = decide(view);
            if (
              typeof decision !== "object" ||
              decision === null ||
              !Array.isArray(decision.events) ||
              "then" in decision
            ) {
              throw new TypeError("decide must return { events: NewEvent[], result } synchronously");
            }
            const after = this.#sealer.sealWrite(decision.events, tail, clock, rows, subtrees);
            tail = after.tail;
            outcomes.push({ ok: true, written: { entries: after.written, result: decision.result } });
          } catch (error) {
            if (error instanceof CatchUpNeeded && catchUps < MAX_CATCH_UPS) {
              // Decides are pure: catch the projection up to the transaction's start, then ask again.
              await this.#projections.at(error.projection, size, source);
              await this.#readersDone();
              continue;
            }
            outcomes.push({ ok: false, error });
          }
          break;
        }
      }
      return { result: outcomes, after: tail, rows, subtrees };
    };
    return { write, meanwhile: () => (ahead = this.#sealAhead(decides, aheadClock, this.#committed.tail)) };
  }

  /**
   * A group of appendAsync's writes only, on a driver that appends conditionally in one round trip
   * (AppendStrategy `conditional`: PostgreSQL): sealed and signed at once — after the tail the group
   * before it leaves if that one is still on its way, else after the committed tail — then, in its
   * turn among this instance's writes, inserted only if the write lock is free and the store's tail
   * is the one sealed after: the conditional write, checked inside the write, in one statement
   * instead of a transaction of three round trips. Once sealed it hands off
   * (store/ledger/group-commit.ts), so the next group seals while this one is on its way. Tried
   * while this instance's writes succeed and find no other writer's entries, as a lone instance's
   * do; null when not tried. When the statement is not sent (the group before did not leave that
   * tail) or not taken (another writer appended or holds the lock), the group's transaction runs in
   * the same turn, sealed anew — so groups commit in the order they were submitted — and nothing is
   * sealed ahead until a transaction finds the tail unmoved again.
   */
  #appendIfUnmoved(decides: readonly Decide<unknown>[], handOff: () => void): Promise<WriteOutcome[]> | null {
    const appendIfTail = this.#conditionalAppend();
    if (!appendIfTail || !this.#appendsAhead() || !decides.every((decide) => this.#fixed.has(decide))) return null;
    const ahead = this.#sealAhead(decides, batchClock(this.#now), this.#sealedAfter ?? this.#committed.tail);
    if (ahead === null || ahead.rows.length === 0) return null;
    const after = ahead.tail;
    const signer = this.#tx.signer;
    const checkpoint = signer
      ? { size: after.range.size, note: this.#tx.sign(signer, after), createdAt: after.lastTs }
      : null;
    const named =
      ahead.start.lastHash === null ? null : { seq: ahead.start.range.size - 1, hash: ahead.start.lastHash };
    const forget = () => {
      if (this.#sealedAfter === after) this.#sealedAfter = null;
    };
    this.#sealedAfter = after;
    const committed = this.#committed;
    const turn = this.#tx.serially(async () => {
      if (committed.tail === ahead.start && this.#tx.health.ok) {
        this.#tx.inTransaction = true;
        try {
          const outcome = await appendIfTail(named, { rows: ahead.rows, subtrees: ahead.subtrees, checkpoint });
          if (outcome === "appended") {
            committed.tail = after;
            committed.wrote(ahead.start.range.size, after.range.size, checkpoint);
            // Held on top of the rows held before: no projection was caught up here, so they may
            // still be needed (up to FOLLOW_MAX rows in all; past it a projection reads the store).
            if (committed.held.size + ahead.rows.length > FOLLOW_MAX) committed.held = new Map();
            if (ahead.rows.length <= FOLLOW_MAX) for (const row of ahead.rows) committed.held.set(row.seq, row);
            this.#tx.health = { ok: true };
            return ahead.outcomes;
          }
          this.#tx.othersWrote = true;
        } catch (error) {
          this.#tx.noteFailure(error);
          throw error;
        } finally {
          this.#tx.inTransaction = false;
        }
      }
      forget();
      return this.#tx.transact(this.#groupTransaction(decides).write);
    });
    handOff();
    return turn.finally(forget);
  }

  /**
   * Whether groups of appendAsync's writes are sealed before their transaction: once the tail is
   * known, while this instance's last write found no other writer's entries and did not fail — after
   * a failure the ordinary transaction runs first: its BEGIN replaces pooled connections the server
   * closed, and its tail read says whether the failed write landed.
   */
  #appendsAhead(): boolean {
    return this.#committed.tail !== null && !this.#tx.othersWrote && this.#tx.health.ok;
  }

  /**
   * The leading writes of a group whose events are known before the tail (appendAsync's), checked
   * and sealed against `start` — the tail as this instance last saw it, or the one a group still on
   * its way leaves — before the transaction reads the tail: while the driver takes the write lock
   * (LedgerBackend.withWriteLock's `meanwhile`), or while the group before it commits
   * (#appendIfUnmoved), so that work overlaps PostgreSQL's instead of following it. Pure: nothing of
   * the instance changes, so a guess that misses (another writer appended) costs only the work — and
   * none is made while the last transaction found another writer's entries, as every one does when
   * N instances take turns. Stops at the first write that decides.
   */
  #sealAhead(decides: readonly Decide<unknown>[], clock: () => string, start: Tail | null): SealedAhead | null {
    // While other writers keep appending between this instance's transactions, a guess would miss.
    if (start === null || this.#tx.othersWrote) return null;
    const ahead: SealedAhead = { start, tail: start, rows: [], subtrees: [], outcomes: [] };
    for (const decide of decides) {
      const events = this.#fixed.get(decide);
      if (events === undefined) break;
      try {
        const after = this.#sealer.sealWrite(events, ahead.tail, clock, ahead.rows, ahead.subtrees);
        ahead.tail = after.tail;
        ahead.outcomes.push({ ok: true, written: { entries: after.written, result: undefined } });
      } catch (error) {
        ahead.outcomes.push({ ok: false, error });
      }
    }
    return ahead;
  }
}
