/**
 * The ledger engine over any store driver (store/ledger/backend.ts): everything but storage lives
 * in this folder, once — event checks, timestamps and the time rule, sealing, the payload limit
 * (seal.ts), the in-memory tail and following other writers (tail.ts), group commit
 * (group-writes.ts, group-commit.ts), transactions (transactions.ts), projections
 * (projection-follower.ts), a signed checkpoint per appending transaction, the stored checkpoints
 * served (checkpoints.ts), reads and proofs (this class, merkle-reads.ts, paged-reads.ts) and
 * verify() (verify.ts). docs/ledger-store.md explains the design.
 *
 * Every write is one transaction under the driver's write lock that first brings the in-memory
 * tail up to what any writer committed — reading exactly the rows appended since, after the lock —
 * then seals its events in memory and inserts them in one batch: `append` (one call), `appendBulk`
 * (a large batch, sealed on a worker thread), and the group-commit path `appendAsync` /
 * `write(decide)`, where the writes of one event-loop turn share a transaction and every decide runs
 * synchronously, in order, against the tail in memory. This instance runs one transaction at a time.
 */
import type { NoteSigner, NoteVerifier } from "../../core/checkpoint.ts";
import type { LedgerEntry } from "../../core/ledger/entry.ts";
import type { Projection } from "../../core/ledger/projection.ts";
import type {
  Decide,
  EventTimeRule,
  LedgerIntegrity,
  LedgerStore,
  LedgerVerifyReport,
  NewEvent,
  StoredEntry,
  StoreIdentity,
  WriteHealth,
  Written,
} from "../../core/ledger/store.ts";
import { composeRange, consistencyProofWith, inclusionProofWith, rootHash } from "../../core/merkle.ts";
import { freezeRefusal } from "../../core/migration/phases.ts";
import { publicKeyFromSecret } from "../../core/signature.ts";
import type { EntryRow, LedgerBackend, LockWaits, SubtreeRow } from "./backend.ts";
import { BULK_MIN, sealBulk } from "./bulk-append.ts";
import { BulkSealer } from "./bulk-seal.ts";
import { GroupWrites } from "./group-writes.ts";
import { withStoredNodes } from "./merkle-reads.ts";
import { pagedRows } from "./paged-reads.ts";
import { CatchUpNeeded, ProjectionFollower } from "./projection-follower.ts";
import { batchClock, checkEvents, rowToEntry, Sealer } from "./seal.ts";
import { CommittedTail, TX_PAGE } from "./tail.ts";
import { Transactions } from "./transactions.ts";
import { verifyLedger } from "./verify.ts";

export { STORED_LEVEL } from "./merkle-reads.ts";
export { BULK_MIN } from "./bulk-append.ts";
export { MAX_PAYLOAD_BYTES } from "./seal.ts";
export { failureReason } from "./transactions.ts";

/** Rows per read of `entries()` and its kin: each page is one finished statement. */
const READ_PAGE = 128;

export interface LedgerOptions {
  /** Checkpoint origin line, e.g. "integrity-platform.example/ledger". */
  origin: string;
  /** Signs checkpoints: one for every write that appends, and on `checkpoint()` (which refuses without it). */
  signer?: NoteSigner;
  /** Keys that `verify()` accepts on stored checkpoints (the signer's own key is added). */
  verifiers?: NoteVerifier[];
  /** Injected clock for entries appended without `ts`. */
  now?: () => Date;
  /** When an event may be dated (default: the migration's freeze window, core/migration/phases.ts). */
  timeRule?: EventTimeRule;
  /** Where a refused row or checkpoint is reported, one line each (default: stderr). */
  log?: (line: string) => void;
}

export class Ledger implements LedgerStore {
  readonly origin: string;
  readonly store: StoreIdentity;
  readonly #backend: LedgerBackend;
  readonly #verifiers: NoteVerifier[];
  readonly #now: () => Date;
  readonly #sealer: Sealer;
  readonly #projections: ProjectionFollower;
  /** The committed tail, the rows held for projections, what was refused. */
  readonly #committed: CommittedTail;
  readonly #tx: Transactions;
  readonly #groups: GroupWrites;
  #closed = false;

  /** Opens the driver's store (creating its tables, checking its origin) and the ledger over it. */
  static async open(backend: LedgerBackend, options: LedgerOptions): Promise<Ledger> {
    await backend.open(options.origin);
    return new Ledger(backend, options);
  }

  private constructor(backend: LedgerBackend, options: LedgerOptions) {
    this.#backend = backend;
    this.origin = options.origin;
    this.store = { kind: backend.kind, location: backend.location };
    this.#now = options.now ?? (() => new Date());
    this.#sealer = new Sealer(options.timeRule ?? freezeRefusal);
    const log = options.log ?? ((line: string) => console.error(line));
    const signer = options.signer;
    this.#verifiers = [...(options.verifiers ?? [])];
    if (signer && !this.#verifiers.some((v) => v.name === signer.name)) {
      this.#verifiers.push({ name: signer.name, publicKeyHex: publicKeyFromSecret("ed25519", signer.secretKeyHex) });
    }
    this.#projections = new ProjectionFollower({
      entries: (start, end) => this.#committed.committedEntries(this.#backend, start, end),
    });
    const shared = { backend, projections: this.#projections, now: this.#now };
    this.#committed = new CommittedTail({ ...shared, origin: this.origin, verifiers: this.#verifiers, log });
    this.#tx = new Transactions({ ...shared, committed: this.#committed, origin: this.origin, signer });
    this.#groups = new GroupWrites({
      ...shared,
      committed: this.#committed,
      transactions: this.#tx,
      sealer: this.#sealer,
    });
    // The tail is read on first use, not here: a damaged store still opens, so that verify() can say what is wrong.
  }

  // ---- reads ----

  async size(): Promise<number> {
    const last = await this.#backend.last();
    const size = last ? last.seq + 1 : 0;
    const known = this.#committed.tail;
    // The log only grows: a tail behind the one this instance knows, or beside it, is a store that
    // went back (a restore, a failover). What was folded from the entries it knew is forgotten, and
    // the next write rebuilds its tail from the store.
    if (
      known &&
      !this.#tx.inTransaction &&
      (size < known.range.size || (size === known.range.size && (last?.hash ?? null) !== known.lastHash))
    ) {
      this.#committed.forgetHistory();
      this.#committed.tail = null;
    }
    return size;
  }

  entries(start = 0, end?: number): AsyncIterableIterator<LedgerEntry> {
    return pagedRows(this.#storedRows, start, end ?? Number.MAX_SAFE_INTEGER, READ_PAGE, rowToEntry);
  }

  storedEntries(start = 0, end?: number): AsyncIterableIterator<StoredEntry> {
    return pagedRows(this.#storedRows, start, end ?? Number.MAX_SAFE_INTEGER, READ_PAGE, (row) => ({
      entry: rowToEntry(row),
      payloadText: row.payload,
    }));
  }

  readonly #storedRows = (start: number, end: number, limit: number) => this.#backend.storedRows(start, end, limit);

  async rootHash(treeSize?: number): Promise<Uint8Array> {
    const size = await this.#sizeAsked(treeSize);
    if (size === 0) return rootHash([]);
    const tail = this.#committed.tail;
    if (tail && size === tail.range.size) return tail.range.root();
    return withStoredNodes(this.#backend, (perfect) => composeRange(perfect)(0, size));
  }

  async inclusionProof(seq: number, treeSize?: number): Promise<Uint8Array[]> {
    const size = await this.#sizeAsked(treeSize);
    return withStoredNodes(this.#backend, (perfect) => inclusionProofWith(composeRange(perfect), seq, size));
  }

  async consistencyProof(oldSize: number, newSize?: number): Promise<Uint8Array[]> {
    const size = await this.#sizeAsked(newSize);
    return withStoredNodes(this.#backend, (perfect) => consistencyProofWith(composeRange(perfect), oldSize, size));
  }

  /** The tree size a proof is asked at: the given one, checked against the tail, or the tail's. */
  async #sizeAsked(treeSize: number | undefined): Promise<number> {
    const current = await this.size();
    const size = treeSize ?? current;
    if (!Number.isSafeInteger(size) || size < 0 || size > current)
      throw new RangeError(`tree size ${size} is out of range [0, ${current}]`);
    return size;
  }

  /**
   * The newest stored checkpoint that verifies, or null (store/ledger/checkpoints.ts): one that
   * does not is refused, reported once in the log and on /health (`integrity()`), and the next
   * older one is tried.
   */
  latestCheckpoint(): Promise<string | null> {
    const committed = this.#committed;
    return committed.checkpoints.latest(
      this.#backend,
      () => this.size(),
      (size) => committed.verifiedOf(size),
      () => committed.tail,
    );
  }

  /** What the ledger refused to trust in its store: the first foreign row that did not verify, the last checkpoint refused. */
  integrity(): LedgerIntegrity {
    return this.#committed.integrity();
  }

  /** The projection caught up to the tail, or to `size` when the caller read the tail itself (a TailReads of its turn, store/ledger/tail-reads.ts). */
  async state<S>(projection: Projection<S>, size?: number): Promise<S> {
    size ??= await this.size();
    for (;;) {
      // A state that folded the rows of a transaction not yet committed waits for its end (commit or rollback).
      while (this.#foldedAhead(projection)) await this.#tx.settled();
      const state = await this.#projections.at(projection, size);
      // `at` may have waited for a catch-up the write started, and the write may then have folded
      // its rows before this continued: ask again. Otherwise the state is the caller's for its
      // continuation, which the write lets run before it folds rows of its own (GroupWrites).
      if (this.#foldedAhead(projection)) continue;
      this.#groups.handedOut();
      return state;
    }
  }

  /** Whether the projection folded rows of the transaction in progress, past the committed tail. */
  #foldedAhead(projection: Projection<unknown>): boolean {
    return this.#tx.inTransaction && this.#projections.watermark(projection) > (this.#committed.tail?.range.size ?? 0);
  }

  stateSeen<S>(projection: Projection<S>): S {
    const seen = this.#committed.tail?.range.size ?? 0;
    try {
      return this.#projections.inMemory(projection, seen, (seq) => {
        const row = this.#committed.held.get(seq);
        return row ? rowToEntry(row) : undefined;
      });
    } catch (error) {
      if (!(error instanceof CatchUpNeeded)) throw error;
      return this.#projections.folded(projection); // a hint: what is folded so far
    }
  }

  // ---- writes ----

  /** The default append: this thread, one transaction, durable when it resolves. */
  async append(events: readonly NewEvent[]): Promise<LedgerEntry[]> {
    if (events.length === 0) return [];
    checkEvents(events, true);
    const clock = batchClock(this.#now);
    return this.#tx.run(async (_tx, start) => {
      const rows: EntryRow[] = [];
      const subtrees: SubtreeRow[] = [];
      const after = this.#sealer.seal(events, start, clock, rows, subtrees);
      return { result: after.written, after: after.tail, rows, subtrees };
    });
  }

  /**
   * The opt-in bulk path for large batches (the seeder, the benchmark): the same rows, errors and
   * all-or-nothing transaction as `append`, with validation and hashing on the seal worker thread
   * (store/ledger/bulk-append.ts). Batches under BULK_MIN, or without a worker, take the default path.
   */
  async appendBulk(events: readonly NewEvent[]): Promise<LedgerEntry[]> {
    const sealer = events.length >= BULK_MIN ? BulkSealer.shared() : null;
    if (!sealer) return this.append(events);
    checkEvents(events, false); // the bulk path validates payloads, chunk by chunk
    const clock = batchClock(this.#now);
    return this.#tx.run((tx, start) => sealBulk(this.#sealer, events, sealer, tx, start, clock, TX_PAGE));
  }

  appendAsync(events: readonly NewEvent[]): Promise<LedgerEntry[]> {
    return this.#groups.appendAsync(events);
  }

  write<R>(decide: Decide<R>): Promise<Written<R>> {
    return this.#groups.write(decide);
  }

  async checkpoint(): Promise<string> {
    const signer = this.#tx.signer;
    if (!signer) throw new Error("no checkpoint signing key configured for this ledger");
    // One transaction: the tree signed is the tail at that moment.
    return this.#tx.run(async (_tx, start) => {
      const note = this.#tx.sign(signer, start);
      return {
        result: note,
        after: start,
        rows: [],
        subtrees: [],
        note: { note, createdAt: this.#now().toISOString() },
      };
    });
  }

  writeHealth(): WriteHealth {
    return this.#tx.health;
  }

  /** How often this instance's writes waited for another instance's write lock (null: the driver does not count them). */
  lockWaits(): LockWaits | null {
    return this.#backend.lockWaits();
  }

  /** Commits the writes still waiting for their group, then closes the store. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#groups.flush();
    await this.#tx.settled();
    await this.#backend.close();
  }

  // ---- verification ----

  verify(): Promise<LedgerVerifyReport> {
    return verifyLedger(this.#backend, this.origin, this.#verifiers, TX_PAGE);
  }
}
