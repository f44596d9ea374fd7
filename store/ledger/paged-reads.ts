/**
 * A ledger read streamed a page at a time (each page one finished statement: no read snapshot
 * stays open between two pages), handed out one entry at a time by a plain async iterator rather
 * than an async generator. An async generator pays, per entry, its request queue and an await for
 * every `yield` (and one more for each element of a `yield*`); this iterator returns the next entry
 * of the page in hand at once, so a page costs one read and an entry one settled promise. That is
 * the difference between the store's read and a raw `node:sqlite` iteration (bench/pipeline.ts
 * prints both), and the short-lived objects it no longer makes are what the main thread's heap grew
 * by during a long pass (docs/ledger-reads.md).
 */
import type { BackendReads, EntryRow, StoredRow } from "./backend.ts";

/** Reads rows start <= seq < end, at most `limit`, in order. */
export type PageRead = (start: number, end: number, limit: number) => Promise<StoredRow[]>;

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

class PagedReader<T> implements AsyncIterableIterator<T> {
  readonly #read: PageRead;
  readonly #end: number;
  readonly #page: number;
  readonly #map: (row: StoredRow) => T;
  #rows: StoredRow[] = [];
  #at = 0;
  /** The seq the next page starts at; null once the last page has been read. */
  #next: number | null;

  constructor(read: PageRead, start: number, end: number, page: number, map: (row: StoredRow) => T) {
    this.#read = read;
    this.#end = end;
    this.#page = page;
    this.#map = map;
    this.#next = start < end ? start : null;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }

  async next(): Promise<IteratorResult<T, undefined>> {
    if (this.#at === this.#rows.length) {
      if (this.#next === null) return DONE;
      const rows = await this.#read(this.#next, this.#end, this.#page);
      this.#rows = rows;
      this.#at = 0;
      this.#next = rows.length < this.#page ? null : rows[rows.length - 1]!.seq + 1;
      if (rows.length === 0) return DONE;
    }
    return { done: false, value: this.#map(this.#rows[this.#at++]!) };
  }

  /** A loop left early: nothing more is read. */
  async return(): Promise<IteratorResult<T, undefined>> {
    this.#next = null;
    this.#rows = [];
    this.#at = 0;
    return DONE;
  }
}

/** The entries start <= seq < end, `page` rows per read, each row mapped by `map`. */
export function pagedRows<T>(
  read: PageRead,
  start: number,
  end: number,
  page: number,
  map: (row: StoredRow) => T,
): AsyncIterableIterator<T> {
  return new PagedReader(read, start, end, page, map);
}

/**
 * The full rows (leaf hashes included) start <= seq < end, a page (one finished read) at a time:
 * nothing stays open between pages. What a writer folds and verify() checks.
 */
export async function* rowPages(
  reads: BackendReads,
  start: number,
  end: number,
  page: number,
): AsyncIterableIterator<EntryRow> {
  let seq = start;
  while (seq < end) {
    const rows = await reads.rows(seq, end, page);
    yield* rows;
    if (rows.length < page) return;
    seq = rows[rows.length - 1]!.seq + 1;
  }
}
