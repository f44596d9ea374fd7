/**
 * The committed tail as this instance knows it, and following other writers: inside the write
 * lock the rows other writers appended since are read, each checked (core/ledger/row-check.ts) and
 * chained, and folded into the tree's right edge; a tail unknown, far behind or not chaining on is
 * rebuilt from stored nodes. The rows of the last transaction are held for the projections, so a
 * projection folds them without reading them back. A row of another writer that does not verify
 * is refused: from then on nothing is written after it, folded past it or signed over it.
 */
import type { NoteVerifier } from "../../core/checkpoint.ts";
import { CompactRange } from "../../core/compact-range.ts";
import type { LedgerEntry } from "../../core/ledger/entry.ts";
import { validateEvent } from "../../core/events/registry.ts";
import { storedRowProblem } from "../../core/ledger/row-check.ts";
import type { LedgerIntegrity } from "../../core/ledger/store.ts";
import { LedgerIntegrityError, type BackendReads, type EntryRow } from "./backend.ts";
import { StoredCheckpoints } from "./checkpoints.ts";
import { withStoredNodes } from "./merkle-reads.ts";
import { rowPages } from "./paged-reads.ts";
import type { ProjectionFollower } from "./projection-follower.ts";
import { EMPTY_TAIL, rowToEntry, type Tail } from "./seal.ts";

/** Rows per read when a writer folds other writers' rows, and per `insertRows` call. */
export const TX_PAGE = 4096;
/** Past this many rows appended by others, the tail is rebuilt from stored subtrees instead of read row by row. */
export const FOLLOW_MAX = 4096;

export interface TailOptions {
  origin: string;
  verifiers: NoteVerifier[];
  now: () => Date;
  log: (line: string) => void;
  projections: ProjectionFollower;
}

export class CommittedTail {
  readonly #origin: string;
  readonly #verifiers: NoteVerifier[];
  readonly #now: () => Date;
  readonly #log: (line: string) => void;
  readonly #projections: ProjectionFollower;
  /** The stored checkpoints served and refused. */
  readonly checkpoints: StoredCheckpoints;
  /** The committed tail as this instance last saw it (null: not read yet). */
  tail: Tail | null = null;
  /**
   * Committed rows held for projections, by seq: those of the last transaction (this instance's
   * and the ones it read from other writers), so a projection folds them without reading back.
   */
  held = new Map<number, EntryRow>();
  /** The first row of another writer that did not verify: from then on nothing is written, folded past it or signed. */
  refusedRow: LedgerIntegrity["refusedRow"] = null;
  /** Rows 0 … n-1 of the store have been checked (core/ledger/row-check.ts): not checked again. */
  #checkedBelow = 0;

  constructor(options: TailOptions) {
    this.#origin = options.origin;
    this.#verifiers = options.verifiers;
    this.#now = options.now;
    this.#log = options.log;
    this.#projections = options.projections;
    this.checkpoints = new StoredCheckpoints(options.origin, options.verifiers, options.now, options.log);
  }

  /** What the ledger refused to trust in its store: the first foreign row that did not verify, the last checkpoint refused. */
  integrity(): LedgerIntegrity {
    return { refusedRow: this.refusedRow, refusedCheckpoint: this.checkpoints.refused };
  }

  /** How much of a store of `size` entries is verified: all of it, unless a row was refused. */
  verifiedOf(size: number): number {
    return this.refusedRow === null ? size : Math.min(size, this.refusedRow.seq);
  }

  /** Committed entries for a projection: the rows held in memory (payload parsed afresh: no object is shared), the rest read. */
  async *committedEntries(reads: BackendReads, start: number, end: number): AsyncIterableIterator<LedgerEntry> {
    let seq = start;
    for (let row = this.held.get(seq); seq < end && row; row = this.held.get(++seq)) yield rowToEntry(row);
    if (seq >= end) return;
    // Chained within the read (the held rows may be of a store that went back: the follower tells that).
    let prev: string | null | undefined = seq === 0 ? null : undefined;
    // Rows read from the store are checked (once: rows below #checkedBelow were) before anything folds them.
    if (this.refusedRow !== null && this.refusedRow.seq < end) throw this.integrityError();
    for await (const row of rowPages(reads, seq, end, TX_PAGE)) {
      if (row.seq >= this.#checkedBelow) {
        this.#checkRow(row, row.seq === 0 ? null : prev);
        if (row.seq === this.#checkedBelow) this.#checkedBelow++;
      }
      prev = row.hash;
      yield rowToEntry(row);
    }
  }

  /**
   * Checks a row read from the store (core/ledger/row-check.ts), and that it chains on `prev` when
   * the row before it is known: a row that does not verify is refused — reported once (the log,
   * /health) — and from then on this instance writes nothing, and folds and signs nothing past it.
   */
  #checkRow(row: EntryRow, prev: string | null | undefined): void {
    const problem =
      prev !== undefined && row.prev !== prev
        ? `its prev ${String(row.prev)} is not the hash of entry ${row.seq - 1} (${String(prev)})`
        : storedRowProblem(row, validateEvent);
    if (problem === null) return;
    if (this.refusedRow === null || row.seq < this.refusedRow.seq) {
      this.refusedRow = { seq: row.seq, problem, since: this.#now().toISOString() };
      this.#log(
        `ledger ${this.#origin}: entry ${row.seq}, written to the store by another writer, does not verify: ${problem}. ` +
          "This instance refuses every write, and folds and signs nothing past it (503 ledger-unavailable), until the row is dealt with and it is restarted.",
      );
    }
    throw this.integrityError();
  }

  /**
   * After this instance committed rows `from` … `to` - 1 (and signed `note`): its own rows need no
   * check, and its own note is served without verifying — while it is the stored one (a note another
   * writer stored first at that size is not, and is verified).
   */
  wrote(from: number, to: number, note: { size: number; note: string } | null): void {
    if (this.#checkedBelow >= from) this.#checkedBelow = Math.max(this.#checkedBelow, to);
    if (note !== null) this.checkpoints.served = { size: note.size, note: note.note };
  }

  integrityError(): LedgerIntegrityError {
    const refused = this.refusedRow!;
    return new LedgerIntegrityError(
      refused.seq,
      `entry ${refused.seq} in the store does not verify (${refused.problem}): the ledger refuses to write or sign past it`,
    );
  }

  /**
   * Brings the in-memory tail up to the committed tail, inside the write lock: the rows other
   * writers appended since are read and folded into the range (each checked to chain on), and held
   * for the projections; a tail unknown, far behind or not chaining on is rebuilt from stored nodes.
   * Returns the rows read.
   */
  async follow(tx: BackendReads): Promise<EntryRow[]> {
    const last = await tx.last();
    const size = last ? last.seq + 1 : 0;
    const known = this.tail;
    if (known && size === known.range.size && (last?.hash ?? null) === known.lastHash) return [];
    if (known && size > known.range.size && size - known.range.size <= FOLLOW_MAX) {
      const range = known.range.clone();
      let prev = known.lastHash;
      let lastTs = known.lastTs;
      const read: EntryRow[] = [];
      for await (const row of rowPages(tx, known.range.size, size, TX_PAGE)) {
        if (row.seq !== range.size || row.prev !== prev) break;
        // Another writer's row: verified before it is folded into the tree this instance signs.
        this.#checkRow(row, prev);
        if (row.seq === this.#checkedBelow) this.#checkedBelow++;
        range.append(row.leaf);
        read.push(row);
        prev = row.hash;
        lastTs = row.ts;
      }
      if (range.size === size && prev === last!.hash) {
        this.tail = { range, lastHash: prev, lastTs };
        for (const row of read) this.held.set(row.seq, row);
        return read;
      }
    }
    const range =
      size === 0
        ? CompactRange.empty()
        : await withStoredNodes(tx, (perfect) => CompactRange.fromPerfect(size, perfect));
    if (known && !(await this.#extends(tx, known, size))) this.forgetHistory();
    await this.#checkUnchecked(tx, size);
    this.tail = last ? { range, lastHash: last.hash, lastTs: last.ts } : EMPTY_TAIL;
    this.held = new Map();
    return [];
  }

  /**
   * Before a tail rebuilt from stored nodes is written after or signed: the rows not checked yet,
   * from the newest stored checkpoint that verifies (what a writer with the ledger's key signed was
   * checked by it) or from the last row checked, to `size`, each checked and chained.
   */
  async #checkUnchecked(tx: BackendReads, size: number): Promise<void> {
    if (this.refusedRow !== null) throw this.integrityError();
    let from = this.#checkedBelow;
    if (from < size && this.#verifiers.length > 0) {
      const anchor = await tx.checkpointAtMost(size);
      if (
        anchor !== null &&
        anchor.size > from &&
        (await this.checkpoints.problem(tx, anchor, size, this.tail)) === null
      )
        from = anchor.size;
    }
    if (from >= size) return;
    let prev: string | null | undefined = from === 0 ? null : undefined;
    for await (const row of rowPages(tx, from, size, TX_PAGE)) {
      this.#checkRow(row, prev);
      prev = row.hash;
    }
    this.#checkedBelow = size;
  }

  /** Whether the store's tail at `size` extends `known`: its first entries are the ones `known` was built from (the same root). */
  async #extends(tx: BackendReads, known: Tail, size: number): Promise<boolean> {
    if (size <= known.range.size) return false; // the same size with the same last hash was handled before
    const before =
      known.range.size === 0
        ? CompactRange.empty()
        : await withStoredNodes(tx, (perfect) => CompactRange.fromPerfect(known.range.size, perfect));
    return Buffer.from(before.root()).equals(Buffer.from(known.range.root()));
  }

  /** The store went back or rewrote what this instance read: every projection is folded again from the store. */
  forgetHistory(): void {
    this.#projections.forgetPast(0);
    this.held = new Map();
    this.#checkedBelow = 0;
    this.checkpoints.served = null;
  }
}
