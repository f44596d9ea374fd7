/**
 * The bulk path's sealing (Ledger.appendBulk): this thread canonicalizes, the seal worker
 * (store/ledger/bulk-seal.ts) validates, hashes and extends the tree, and sealed rows go to the
 * store a page at a time while the worker seals ahead — inserted at once by a driver that writes
 * when called (SQLite), overlapping the worker's hashing; held for the transaction's statement by
 * one that buffers (PostgreSQL). The transaction keeps all-or-nothing.
 */
import { canonicalize } from "../../core/canonical.ts";
import { CompactRange } from "../../core/compact-range.ts";
import type { LedgerEntry } from "../../core/ledger/entry.ts";
import { validateEvent } from "../../core/events/registry.ts";
import { LedgerAppendError, type NewEvent } from "../../core/ledger/store.ts";
import { rootHash } from "../../core/merkle.ts";
import { subtreeKey, type EntryRow, type SubtreeRow, type WriteTransaction } from "./backend.ts";
import type { BulkSealer } from "./bulk-seal.ts";
import { STORED_LEVEL } from "./merkle-reads.ts";
import { payloadTooLarge, type Sealer, type Tail, type TransactionWrite } from "./seal.ts";

/** `appendBulk` hands batches of at least this many events to the seal worker. */
export const BULK_MIN = 256;

/** A bulk row's leaf until the seal worker reports it. */
const NO_LEAF = new Uint8Array(0);

/**
 * The bulk path's rows, sealed after `start` in transaction `tx`. A page handed over (`page` rows)
 * is not kept here (a large batch would otherwise hold every row until its commit); the leaves of
 * the last rows are, for the new right edge.
 */
export async function sealBulk(
  sealing: Sealer,
  events: readonly NewEvent[],
  sealer: BulkSealer,
  tx: WriteTransaction,
  start: Tail,
  clock: () => string,
  page: number,
): Promise<TransactionWrite<LedgerEntry[]>> {
  const first = start.range.size;
  const written: LedgerEntry[] = [];
  let rows: EntryRow[] = [];
  const subtrees: SubtreeRow[] = [];
  const inserts: Promise<void>[] = [];
  let inserted = 0;
  const width = 2 ** STORED_LEVEL;
  const lastLeaves: Uint8Array[] = new Array(width);
  await tx.bulkLoad();
  try {
    sealBulkRun(sealing, events, sealer, start, clock, {
      row: (row, entry) => {
        rows.push(row);
        written.push(entry);
        lastLeaves[(row.seq - first) & (width - 1)] = row.leaf;
        if (rows.length === page) {
          inserts.push(tx.insertRows(rows));
          inserted += rows.length;
          rows = [];
        }
      },
      subtree: (s) => subtrees.push(s),
    });
  } catch (error) {
    await Promise.allSettled(inserts); // no insert left unobserved; the refusal is the answer
    throw error;
  }
  await Promise.all(inserts);
  // The new right edge: its stored-level nodes from the old edge or what the worker reported, the
  // ones below from the batch's last leaves (a batch has at least BULK_MIN >= 2^STORED_LEVEL rows).
  const size = first + events.length;
  const nodes = new Map<string, Uint8Array>(subtrees.map((s) => [subtreeKey(s.level, s.idx), s.hash]));
  CompactRange.edgeNodes(first).forEach((n, i) => nodes.set(subtreeKey(n.level, n.index), start.range.edge[i]!));
  const range = CompactRange.fromPerfect(size, (level, idx) => {
    const hash = nodes.get(subtreeKey(level, idx));
    if (hash) return hash;
    const from = idx * 2 ** level;
    if (level >= STORED_LEVEL || from < Math.max(first, size - width))
      throw new Error(`the bulk append cannot rebuild subtree (${level}, ${idx})`);
    return rootHash(Array.from({ length: 2 ** level }, (_, j) => lastLeaves[(from + j - first) & (width - 1)]!));
  });
  const last = written.at(-1)!; // appendBulk takes this path for BULK_MIN events or more, never none
  return { result: written, after: { range, lastHash: last.hash, lastTs: last.ts }, rows, subtrees, inserted };
}

/** Runs the seal worker over `events`, reporting each sealed row and each stored subtree. */
function sealBulkRun(
  sealing: Sealer,
  events: readonly NewEvent[],
  sealer: BulkSealer,
  start: Tail,
  clock: () => string,
  sink: { row(row: EntryRow, entry: LedgerEntry): void; subtree(s: SubtreeRow): void },
): void {
  const first = start.range.size;
  let lastTs = start.lastTs;
  let prev = start.lastHash;
  sealer.run<EntryRow>({ size: first, prev, edge: start.range.edge, minLevel: STORED_LEVEL }, events.length, {
    // The row is made here and completed when sealed: one object per event on the hot path.
    prepare: (i, validate) => {
      const event = events[i]!;
      const ts = sealing.timestampOf(event, i, lastTs, clock);
      lastTs = ts;
      let payload: string;
      try {
        payload = canonicalize(event.payload);
      } catch (error) {
        throw new LedgerAppendError(i, `invalid ${event.type} payload: ${(error as Error).message}`);
      }
      // The helper's check of the payload, on this side for the chunks it leaves to this thread.
      const invalid = validate ? validateEvent(event.type, event.payload) : null;
      if (invalid) throw new LedgerAppendError(i, invalid);
      const tooLarge = payloadTooLarge(payload);
      if (tooLarge) throw new LedgerAppendError(i, tooLarge, "payload-too-large");
      return { seq: first + i, type: event.type, payload, ts, prev: null, hash: "", leaf: NO_LEAF };
    },
    store: (i, row, hash, leaf) => {
      row.prev = prev;
      row.hash = hash;
      row.leaf = leaf;
      sink.row(row, { seq: row.seq, type: row.type, payload: events[i]!.payload, ts: row.ts, prev, hash });
      prev = hash;
    },
    storeSubtree: (level, idx, hash) => sink.subtree({ level, idx, hash }),
  });
}
