/**
 * This instance's write transactions, one at a time: the driver's write lock, the tail brought up
 * to what any writer committed (store/ledger/tail.ts), the caller's `write` sealing against it, one
 * insert of its rows and subtrees, the signed checkpoint, commit. On any failure nothing of it is
 * kept: the tail stays the committed one, and every projection that folded rows of it forgets them.
 * Also what /health reports of the writes: whether the last one failed in the store.
 */
import type { NoteSigner } from "../../core/checkpoint.ts";
import { LedgerAppendError, type WriteHealth } from "../../core/ledger/store.ts";
import type { EntryRow, LedgerBackend, WriteTransaction } from "./backend.ts";
import type { ProjectionFollower } from "./projection-follower.ts";
import { signTail, type Tail, type TransactionWrite } from "./seal.ts";
import { FOLLOW_MAX, TX_PAGE, type CommittedTail } from "./tail.ts";

/** What a transaction's `write` does with the transaction and the tail it starts from. */
export type TransactionBody<T> = (tx: WriteTransaction, start: Tail) => Promise<TransactionWrite<T>>;

export interface TransactionsOptions {
  backend: LedgerBackend;
  committed: CommittedTail;
  projections: ProjectionFollower;
  origin: string;
  signer: NoteSigner | undefined;
  now: () => Date;
}

export class Transactions {
  readonly #backend: LedgerBackend;
  readonly #committed: CommittedTail;
  readonly #projections: ProjectionFollower;
  readonly #origin: string;
  readonly signer: NoteSigner | undefined;
  readonly #now: () => Date;
  /** The transaction in progress on this instance (one at a time), settled when it ends. */
  #writing: Promise<unknown> = Promise.resolve();
  /** Whether a transaction (or a one-statement append) is in progress. */
  inTransaction = false;
  /** Whether the last transaction found the tail moved by another writer (then nothing is sealed ahead). */
  othersWrote = false;
  health: WriteHealth = { ok: true };

  constructor(options: TransactionsOptions) {
    this.#backend = options.backend;
    this.#committed = options.committed;
    this.#projections = options.projections;
    this.#origin = options.origin;
    this.signer = options.signer;
    this.#now = options.now;
  }

  /** Settles when the transaction in progress ends (commit or rollback), never rejecting. */
  settled(): Promise<unknown> {
    return this.#writing.catch(() => undefined);
  }

  /** One write transaction on this instance, after every one it started before. */
  run<T>(write: TransactionBody<T>, meanwhile?: () => void): Promise<T> {
    return this.serially(() => this.transact(write, meanwhile));
  }

  /** Runs `write` after every write this instance started before it: one at a time. */
  serially<T>(write: () => Promise<T>): Promise<T> {
    const run = this.#writing.catch(() => undefined).then(write);
    this.#writing = run;
    return run;
  }

  /** Signs the tail as a checkpoint note with the ledger's key. */
  sign(signer: NoteSigner, tail: Tail): string {
    return signTail(this.#origin, signer, tail);
  }

  /** The transaction itself, in its turn (run() or serially()). */
  async transact<T>(write: TransactionBody<T>, meanwhile?: () => void): Promise<T> {
    const committed = this.#committed;
    // A row of another writer did not verify: nothing is written after it, no checkpoint signed over it.
    if (committed.refusedRow !== null) {
      const refused = committed.integrityError();
      this.noteFailure(refused);
      throw refused;
    }
    this.inTransaction = true;
    let foreign: EntryRow[] = [];
    let startSize = 0;
    let signed: { size: number; note: string } | null = null;
    try {
      const done = await this.#backend.withWriteLock(async (tx) => {
        const known = committed.tail;
        foreign = await committed.follow(tx);
        const start = committed.tail!;
        startSize = start.range.size;
        this.othersWrote = known !== null && start !== known;
        const out = await write(tx, start);
        for (let i = 0; i < out.rows.length; i += TX_PAGE)
          await tx.insertRows(out.rows.length <= TX_PAGE ? out.rows : out.rows.slice(i, i + TX_PAGE));
        if (out.subtrees.length > 0) await tx.insertSubtrees(out.subtrees);
        let note = out.note;
        if (!note && this.signer && out.after.range.size > start.range.size) {
          // Signed while the inserts travel (where the driver holds them back); awaited before the
          // checkpoint, and caught at once so a throwing signer does not leave its failure unhandled.
          const sending = tx.sendBuffered();
          sending.catch(() => undefined);
          // Stamped with the last entry's time: the transaction's one clock reading (or the entries' own).
          note = { note: this.sign(this.signer, out.after), createdAt: out.after.lastTs };
          await sending;
        }
        if (note) {
          await tx.insertCheckpointIfAbsent(out.after.range.size, note.note, note.createdAt);
          signed = { size: out.after.range.size, note: note.note };
        }
        return out;
      }, meanwhile);
      committed.tail = done.after;
      committed.wrote(startSize, done.after.range.size, signed);
      committed.held = new Map();
      if (!done.inserted && foreign.length + done.rows.length <= FOLLOW_MAX)
        for (const row of [...foreign, ...done.rows]) committed.held.set(row.seq, row);
      this.health = { ok: true };
      return done.result;
    } catch (error) {
      this.#projections.forgetPast(committed.tail?.range.size ?? 0);
      this.noteFailure(error);
      throw error;
    } finally {
      this.inTransaction = false;
    }
  }

  /** Remembers a write the store could not make (not one refused for its events): /health reports it. */
  noteFailure(error: unknown): void {
    if (error instanceof LedgerAppendError) return;
    if (this.health.ok) this.health = { ok: false, since: this.#now().toISOString(), reason: failureReason(error) };
  }
}

/** What a store error says, with SQLite's extended code when there is one (517: the snapshot is stale). */
export function failureReason(error: unknown): string {
  const e = error as { message?: unknown; errcode?: unknown } | null;
  const message = typeof e?.message === "string" ? e.message : String(error);
  return typeof e?.errcode === "number" ? `${message} (SQLite code ${e.errcode})` : message;
}
