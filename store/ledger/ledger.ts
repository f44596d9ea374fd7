/**
 * The ledger over any backend (store/ledger-backend.ts): everything but storage lives here, once —
 * event checks, timestamps and the time rule, sealing, the payload limit, the in-memory tail (the
 * tree's right edge, last hash and time), group commit, projections, a signed checkpoint per
 * appending transaction, proofs and verify(). docs/ledger-store.md explains the design.
 *
 * Every write is one transaction under the backend's write lock that first brings the in-memory
 * tail up to what any writer committed — reading exactly the rows appended since, after the lock —
 * then seals its events in memory and inserts them in one batch: `append` (one call), `appendBulk`
 * (a large batch, sealed on a worker thread), and the group-commit path `appendAsync` /
 * `write(decide)`, where the writes of one event-loop turn share a transaction and every decide runs
 * synchronously, in order, against the tail in memory. This instance runs one transaction at a time.
 *
 * Over 500 lines on purpose: one class owns the in-memory tail and the rows held for projections,
 * and every write path, read and verify() shares them and the tail's invariants. What stands alone
 * lives beside it (group-commit.ts, bulk-seal.ts, projection-follower.ts, merkle-reads.ts).
 */
import {
  parseCheckpoint,
  signCheckpoint,
  verifyCheckpoint,
  type NoteSigner,
  type NoteVerifier,
} from "../../core/checkpoint.ts";
import { CompactRange } from "../../core/compact-range.ts";
import { canonicalize } from "../../core/canonical.ts";
import { formatDigest } from "../../core/digest.ts";
import { isLedgerTimestamp, sealEntry, type LedgerEntry } from "../../core/ledger/entry.ts";
import { isEventType, validateEvent } from "../../core/ledger/events.ts";
import { storedRowProblem } from "../../core/ledger/row-check.ts";
import type { Projection } from "../../core/ledger/projection.ts";
import {
  LedgerAppendError,
  type Decide,
  type EventTimeRule,
  type LedgerIntegrity,
  type LedgerStore,
  type LedgerVerifyReport,
  type NewEvent,
  type StoredEntry,
  type StoreIdentity,
  type WriteHealth,
  type WriteTail,
  type Written,
} from "../../core/ledger/store.ts";
import { ChainVerifier } from "../../core/ledger/verify.ts";
import { consistencyProofWith, composeRange, equalBytes, inclusionProofWith, rootHash } from "../../core/merkle.ts";
import { freezeRefusal } from "../../core/migration/phases.ts";
import { publicKeyFromSecret } from "../../core/signature.ts";
import { BulkSealer } from "./bulk-seal.ts";
import { GroupCommit, type WriteOutcome } from "./group-commit.ts";
import {
  LedgerIntegrityError,
  subtreeKey,
  type BackendReads,
  type BackendWrites,
  type EntryRow,
  type LedgerBackend,
  type LockWaits,
  type StoredCheckpoint,
  type StoredRow,
  type SubtreeRow,
} from "./backend.ts";
import { pagedRows } from "./paged-reads.ts";
import { STORED_LEVEL, withStoredNodes } from "./merkle-reads.ts";
import { CatchUpNeeded, ProjectionFollower, type EntrySource } from "./projection-follower.ts";

export { STORED_LEVEL } from "./merkle-reads.ts";
/** `appendBulk` hands batches of at least this many events to the seal worker. */
export const BULK_MIN = 256;
/** The largest payload an entry may hold, as UTF-8 bytes of its JCS text. */
export const MAX_PAYLOAD_BYTES = 1 << 20;
/** Rows per read of `entries()` and its kin: each page is one finished statement. */
const READ_PAGE = 128;
/** Rows per read when a writer folds other writers' rows, and per `insertRows` call. */
const TX_PAGE = 4096;
/** Past this many rows appended by others, the tail is rebuilt from stored subtrees instead of read row by row. */
const FOLLOW_MAX = 4096;
/** A decide asking for more projections than this, each needing a catch-up, is refused. */
const MAX_CATCH_UPS = 64;
/** Stored checkpoints refused in a row before latestCheckpoint answers none (each refusal is one more read). */
const MAX_REFUSED_CHECKPOINTS = 8;

/** A bulk row's leaf until the seal worker reports it. */
const NO_LEAF = new Uint8Array(0);

function payloadTooLarge(payloadText: string): string | null {
  if (payloadText.length <= MAX_PAYLOAD_BYTES / 3) return null;
  const bytes = Buffer.byteLength(payloadText);
  return bytes > MAX_PAYLOAD_BYTES ? `payload is ${bytes} bytes of JCS text; the limit is ${MAX_PAYLOAD_BYTES}` : null;
}

/** The end of the log as a writer needs it: the tree's right edge, the last hash and timestamp. */
interface Tail {
  range: CompactRange;
  lastHash: string | null;
  lastTs: string;
}

const EMPTY_TAIL: Tail = { range: CompactRange.empty(), lastHash: null, lastTs: "" };

/** Checks what can be checked of each event before a transaction; `payloads: false` leaves them to the bulk path (store/bulk-seal.ts). */
function checkEvents(events: readonly NewEvent[], payloads: boolean): void {
  events.forEach((event, i) => {
    if (event === null || typeof event !== "object")
      throw new LedgerAppendError(i, "not an event object", "not-an-event");
    const invalid = payloads
      ? validateEvent(event.type, event.payload)
      : isEventType(event.type)
        ? null
        : `unknown event type ${JSON.stringify(event.type)}`;
    if (invalid) throw new LedgerAppendError(i, invalid);
    if (event.ts !== undefined && !isLedgerTimestamp(event.ts)) {
      throw new LedgerAppendError(
        i,
        `ts "${String(event.ts)}" is not an ISO 8601 UTC timestamp with milliseconds`,
        "invalid-ts",
      );
    }
  });
}

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

/** A group's leading fixed writes sealed against `start` before the transaction read the tail (Ledger.#sealAhead). */
interface SealedAhead {
  start: Tail;
  tail: Tail;
  rows: EntryRow[];
  subtrees: SubtreeRow[];
  outcomes: WriteOutcome[];
}

/** What one transaction wrote: the rows and subtrees to insert, the tail after them, the caller's answer. */
interface TransactionWrite<T> {
  result: T;
  after: Tail;
  rows: readonly EntryRow[];
  subtrees: readonly SubtreeRow[];
  /** The checkpoint to record with the rows (else one is signed when rows were written and a key is set). */
  note?: { note: string; createdAt: string };
  /**
   * How many rows `write` inserted itself before `rows` (the bulk path, while sealing). They are
   * no longer in memory, so the transaction's rows are not held for projections.
   */
  inserted?: number;
}

type Tx = BackendReads & BackendWrites;

function rowToEntry(row: StoredRow): LedgerEntry {
  let payload;
  try {
    payload = JSON.parse(row.payload);
  } catch {
    // A row no sealed entry has (written around the ledger): the store is not usable, not a bug here.
    throw new LedgerIntegrityError(
      row.seq,
      `entry ${row.seq} in the store is not a sealed entry: its payload is not JSON`,
    );
  }
  return { seq: row.seq, type: row.type, payload, ts: row.ts, prev: row.prev, hash: row.hash };
}

export class Ledger implements LedgerStore {
  readonly origin: string;
  readonly store: StoreIdentity;
  readonly #backend: LedgerBackend;
  readonly #signer: NoteSigner | undefined;
  readonly #verifiers: NoteVerifier[];
  readonly #now: () => Date;
  readonly #timeRule: EventTimeRule;
  /** The committed tail as this instance last saw it (null: not read yet). */
  #tail: Tail | null = null;
  /**
   * Committed rows held for projections, by seq: those of the last transaction (this instance's
   * and the ones it read from other writers), so a projection folds them without reading back.
   */
  #held = new Map<number, EntryRow>();
  /** The transaction in progress on this instance (one at a time), settled when it ends. */
  #writing: Promise<unknown> = Promise.resolve();
  #inTransaction = false;
  /** Set when state() hands out a state, until the next macrotask (#readersDone). */
  #handedOut = false;
  #closed = false;
  readonly #group: GroupCommit;
  /** Whether the last transaction found the tail moved by another writer (then nothing is sealed ahead). */
  #othersWrote = false;
  /**
   * The tail a one-statement group sealed and not yet settled leaves if it commits (#appendIfUnmoved):
   * the next group seals after it while it is on its way.
   */
  #sealedAfter: Tail | null = null;
  /** The events of appendAsync's writes, known before the tail: a group seals them ahead (#sealAhead). */
  readonly #fixed = new WeakMap<Decide<unknown>, readonly NewEvent[]>();
  #writeHealth: WriteHealth = { ok: true };
  /** The first row of another writer that did not verify: from then on nothing is written, folded past it or signed. */
  #refusedRow: LedgerIntegrity["refusedRow"] = null;
  /** The last stored checkpoint refused (forged, foreign, beyond the tree), for /health. */
  #refusedCheckpoint: LedgerIntegrity["refusedCheckpoint"] = null;
  /** The stored checkpoint last verified and served: served again without verifying while it is the newest. */
  #servedCheckpoint: { size: number; note: string } | null = null;
  /** Rows 0 … n-1 of the store have been checked (core/ledger/row-check.ts): not checked again. */
  #checkedBelow = 0;
  readonly #log: (line: string) => void;
  readonly #source: EntrySource = { entries: (start, end) => this.#committedEntries(this.#backend, start, end) };
  readonly #projections = new ProjectionFollower(this.#source);

  /** Opens the backend (creating its tables, checking its origin) and the ledger over it. */
  static async open(backend: LedgerBackend, options: LedgerOptions): Promise<Ledger> {
    await backend.open(options.origin);
    return new Ledger(backend, options);
  }

  private constructor(backend: LedgerBackend, options: LedgerOptions) {
    this.#backend = backend;
    // Pipelined where groups of appendAsync's writes go in one statement each (#appendIfUnmoved) —
    // while they do: not while other writers' entries or a failure send groups through transactions.
    this.#group = new GroupCommit((decides, handOff) => this.#commitGroup(decides, handOff), {
      pipelines: (decide) =>
        this.#backend.appendIfTail !== undefined && this.#appendsAhead() && this.#fixed.has(decide),
    });
    this.origin = options.origin;
    this.store = { kind: backend.kind, location: backend.location };
    this.#signer = options.signer;
    this.#now = options.now ?? (() => new Date());
    this.#timeRule = options.timeRule ?? freezeRefusal;
    this.#log = options.log ?? ((line) => console.error(line));
    this.#verifiers = [...(options.verifiers ?? [])];
    if (this.#signer && !this.#verifiers.some((v) => v.name === this.#signer!.name)) {
      this.#verifiers.push({
        name: this.#signer.name,
        publicKeyHex: publicKeyFromSecret("ed25519", this.#signer.secretKeyHex),
      });
    }
    // The tail is read on first use, not here: a damaged store still opens, so that verify() can say what is wrong.
  }

  // ---- reads ----

  async size(): Promise<number> {
    const last = await this.#backend.last();
    const size = last ? last.seq + 1 : 0;
    const known = this.#tail;
    // The log only grows: a tail behind the one this instance knows, or beside it, is a store that
    // went back (a restore, a failover). What was folded from the entries it knew is forgotten, and
    // the next write rebuilds its tail from the store.
    if (
      known &&
      !this.#inTransaction &&
      (size < known.range.size || (size === known.range.size && (last?.hash ?? null) !== known.lastHash))
    ) {
      this.#forgetHistory();
      this.#tail = null;
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

  /** The rows start <= seq < end, a page (one finished read) at a time: nothing stays open between pages. */
  async *#pages(reads: BackendReads, start: number, end: number, page: number): AsyncIterableIterator<EntryRow> {
    let seq = start;
    while (seq < end) {
      const rows = await reads.rows(seq, end, page);
      yield* rows;
      if (rows.length < page) return;
      seq = rows[rows.length - 1]!.seq + 1;
    }
  }

  /** Committed entries for a projection: the rows held in memory (payload parsed afresh: no object is shared), the rest read. */
  async *#committedEntries(reads: BackendReads, start: number, end: number): AsyncIterableIterator<LedgerEntry> {
    let seq = start;
    for (let row = this.#held.get(seq); seq < end && row; row = this.#held.get(++seq)) yield rowToEntry(row);
    if (seq >= end) return;
    // Chained within the read (the held rows may be of a store that went back: the follower tells that).
    let prev: string | null | undefined = seq === 0 ? null : undefined;
    // Rows read from the store are checked (once: rows below #checkedBelow were) before anything folds them.
    if (this.#refusedRow !== null && this.#refusedRow.seq < end) throw this.#integrityError();
    for await (const row of this.#pages(reads, seq, end, TX_PAGE)) {
      if (row.seq >= this.#checkedBelow) {
        this.#checkRow(row, row.seq === 0 ? null : prev);
        if (row.seq === this.#checkedBelow) this.#checkedBelow++;
      }
      prev = row.hash;
      yield rowToEntry(row);
    }
  }

  async rootHash(treeSize?: number): Promise<Uint8Array> {
    const size = await this.#sizeAsked(treeSize);
    if (size === 0) return rootHash([]);
    if (this.#tail && size === this.#tail.range.size) return this.#tail.range.root();
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
   * The newest stored checkpoint that verifies — signed for this origin by a key of the ledger's
   * (when it has one), at a size the verified tree has, with that tree's root — or null. A stored
   * checkpoint that does not is refused: never served or used, reported once in the log and on
   * /health (`integrity()`), and the next older one is tried. The one served last is served again
   * without verifying while it stays the newest: one read per call.
   *
   * The size and the checkpoint are two reads: another writer may commit entries and their
   * checkpoint between them. A checkpoint is committed with its entries, so a stored one past the
   * size read before it is judged against the size read again, after it: only a checkpoint beyond
   * what the store holds then is refused, never an honest one that came in between.
   */
  async latestCheckpoint(): Promise<string | null> {
    let size = await this.size();
    const verifiedOf = (n: number) => (this.#refusedRow === null ? n : Math.min(n, this.#refusedRow.seq));
    let verified = verifiedOf(size);
    let below = Number.MAX_SAFE_INTEGER;
    for (let tries = 0; tries < MAX_REFUSED_CHECKPOINTS; tries++) {
      const stored = await this.#backend.checkpointAtMost(below);
      if (stored === null) return null;
      if (stored.size > size) {
        // Read again at most once: every later checkpoint asked for is at most the verified size.
        size = await this.size();
        verified = verifiedOf(size);
      }
      const served = this.#servedCheckpoint;
      if (served !== null && served.size === stored.size && served.note === stored.note && stored.size <= verified)
        return stored.note;
      const problem = await this.#checkpointProblem(this.#backend, stored, verified);
      if (problem === null) {
        this.#servedCheckpoint = { size: stored.size, note: stored.note };
        return stored.note;
      }
      this.#refuseCheckpoint(stored.size, problem);
      if (stored.size === 0) return null;
      below = Math.min(stored.size - 1, verified);
    }
    return null;
  }

  /** What the ledger refused to trust in its store: the first foreign row that did not verify, the last checkpoint refused. */
  integrity(): LedgerIntegrity {
    return { refusedRow: this.#refusedRow, refusedCheckpoint: this.#refusedCheckpoint };
  }

  /** Why a stored checkpoint may not be served or used, or null: its signature, origin, size and root against the tree of `verified` entries. */
  async #checkpointProblem(reads: BackendReads, stored: StoredCheckpoint, verified: number): Promise<string | null> {
    if (stored.size > verified)
      return `its size ${stored.size} is beyond the ${verified} entries of the verified ledger`;
    let signed;
    try {
      signed =
        this.#verifiers.length > 0
          ? verifyCheckpoint(stored.note, this.#verifiers)
          : parseCheckpoint(stored.note.slice(0, stored.note.indexOf("\n\n") + 1));
    } catch (error) {
      return `its note does not verify with the ledger's key: ${(error as Error).message}`;
    }
    if (signed.origin !== this.origin) return `its origin is "${signed.origin}", not "${this.origin}"`;
    if (signed.size !== stored.size) return `it signs size ${signed.size} in the row of size ${stored.size}`;
    const tail = this.#tail;
    const root =
      tail !== null && tail.range.size === stored.size
        ? tail.range.root()
        : stored.size === 0
          ? rootHash([])
          : (await withStoredNodes(reads, (perfect) => CompactRange.fromPerfect(stored.size, perfect))).root();
    if (!equalBytes(root, signed.rootHash))
      return `its root ${formatDigest(signed.rootHash)} is not the ledger's ${formatDigest(root)} at size ${stored.size}`;
    return null;
  }

  /** Reports a refused stored checkpoint (once per size and reason: the log line and /health). */
  #refuseCheckpoint(size: number, problem: string): void {
    const last = this.#refusedCheckpoint;
    if (last !== null && last.size === size && last.problem === problem) return;
    this.#refusedCheckpoint = { size, problem, since: this.#now().toISOString() };
    this.#log(`ledger ${this.origin}: stored checkpoint of size ${size} refused, not served or used: ${problem}`);
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
    if (this.#refusedRow === null || row.seq < this.#refusedRow.seq) {
      this.#refusedRow = { seq: row.seq, problem, since: this.#now().toISOString() };
      this.#log(
        `ledger ${this.origin}: entry ${row.seq}, written to the store by another writer, does not verify: ${problem}. ` +
          "This instance refuses every write, and folds and signs nothing past it (503 ledger-unavailable), until the row is dealt with and it is restarted.",
      );
    }
    throw this.#integrityError();
  }

  /**
   * After this instance committed rows `from` … `to` - 1 (and signed `note`): its own rows need no
   * check, and its own note is served without verifying — while it is the stored one (a note another
   * writer stored first at that size is not, and is verified).
   */
  #wrote(from: number, to: number, note: { size: number; note: string } | null): void {
    if (this.#checkedBelow >= from) this.#checkedBelow = Math.max(this.#checkedBelow, to);
    if (note !== null) this.#servedCheckpoint = { size: note.size, note: note.note };
  }

  #integrityError(): LedgerIntegrityError {
    const refused = this.#refusedRow!;
    return new LedgerIntegrityError(
      refused.seq,
      `entry ${refused.seq} in the store does not verify (${refused.problem}): the ledger refuses to write or sign past it`,
    );
  }

  /** The projection caught up to the tail, or to `size` when the caller read the tail itself (a TailReads of its turn, store/tail-reads.ts). */
  async state<S>(projection: Projection<S>, size?: number): Promise<S> {
    size ??= await this.size();
    for (;;) {
      // A state that folded the rows of a transaction not yet committed waits for its end (commit or rollback).
      while (this.#foldedAhead(projection)) await this.#writing.catch(() => undefined);
      const state = await this.#projections.at(projection, size);
      // `at` may have waited for a catch-up the write started, and the write may then have folded
      // its rows before this continued: ask again. Otherwise the state is the caller's for its
      // continuation, which the write lets run before it folds rows of its own (#readersDone).
      if (this.#foldedAhead(projection)) continue;
      if (!this.#handedOut) {
        this.#handedOut = true;
        setImmediate(() => (this.#handedOut = false));
      }
      return state;
    }
  }

  /** Whether the projection folded rows of the transaction in progress, past the committed tail. */
  #foldedAhead(projection: Projection<unknown>): boolean {
    return this.#inTransaction && this.#projections.watermark(projection) > (this.#tail?.range.size ?? 0);
  }

  /**
   * Before a write folds rows it has not committed into a projection's state, which projections may
   * update in place: a state `state()` has just handed out is still being read by its caller, in a
   * continuation (a microtask). Waiting for the next macrotask lets every such continuation run.
   */
  async #readersDone(): Promise<void> {
    if (this.#handedOut) await new Promise<void>((resolve) => setImmediate(resolve));
  }

  stateSeen<S>(projection: Projection<S>): S {
    const seen = this.#tail?.range.size ?? 0;
    try {
      return this.#projections.inMemory(projection, seen, (seq) => {
        const row = this.#held.get(seq);
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
    const clock = this.#batchClock();
    return this.#transaction(async (_tx, start) => {
      const rows: EntryRow[] = [];
      const subtrees: SubtreeRow[] = [];
      const after = this.#seal(events, start, clock, rows, subtrees);
      return { result: after.written, after: after.tail, rows, subtrees };
    });
  }

  /**
   * The opt-in bulk path for large batches (the seeder, the benchmark): the same rows, errors and
   * all-or-nothing transaction as `append`, with validation and hashing on the seal worker thread
   * (store/bulk-seal.ts). Batches under BULK_MIN, or without a worker, take the default path.
   */
  async appendBulk(events: readonly NewEvent[]): Promise<LedgerEntry[]> {
    const sealer = events.length >= BULK_MIN ? BulkSealer.shared() : null;
    if (!sealer) return this.append(events);
    checkEvents(events, false); // the bulk path validates payloads, chunk by chunk
    const clock = this.#batchClock();
    return this.#transaction((tx, start) => this.#sealBulk(events, sealer, tx, start, clock));
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

  async checkpoint(): Promise<string> {
    const signer = this.#signer;
    if (!signer) throw new Error("no checkpoint signing key configured for this ledger");
    // One transaction: the tree signed is the tail at that moment.
    return this.#transaction(async (_tx, start) => {
      const note = this.#sign(signer, start);
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
    return this.#writeHealth;
  }

  /** How often this instance's writes waited for another instance's write lock (null: the backend does not count them). */
  lockWaits(): LockWaits | null {
    return this.#backend.lockWaits?.() ?? null;
  }

  /** Commits the writes still waiting for their group, then closes the store. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#group.flush();
    await this.#writing.catch(() => undefined);
    await this.#backend.close();
  }

  /**
   * One group of writes (store/group-commit.ts) in one transaction: every known projection caught
   * up to the tail, then each decide in order against the tail in memory — a decide that throws or
   * returns an invalid event drops its own rows only — then one insert for all.
   */
  #commitGroup(decides: readonly Decide<unknown>[], handOff: () => void): Promise<WriteOutcome[]> {
    const appending = this.#appendIfUnmoved(decides, handOff);
    if (appending) return appending;
    const { write, meanwhile } = this.#groupTransaction(decides);
    return this.#transaction(write, meanwhile);
  }

  /**
   * The group's transaction: `write` for #transact, and `meanwhile`, which seals the group's leading
   * appendAsync writes while the lock's round trip travels (#sealAhead).
   */
  #groupTransaction(decides: readonly Decide<unknown>[]): {
    write: (tx: Tx, start: Tail) => Promise<TransactionWrite<WriteOutcome[]>>;
    meanwhile: () => void;
  } {
    // The group's one clock reading: the guess's, taken when the lock was asked for, when the guess
    // is kept; otherwise one taken now, after the lock, as for any group.
    const aheadClock = this.#batchClock();
    let ahead: SealedAhead | null = null;
    const write = async (tx: Tx, start: Tail): Promise<TransactionWrite<WriteOutcome[]>> => {
      const source: EntrySource = { entries: (from, to) => this.#committedEntries(tx, from, to) };
      const size = start.range.size;
      for (const projection of this.#projections.known()) await this.#projections.at(projection, size, source);
      // Sealed ahead against the tail this transaction starts from, the lock having come at once:
      // kept. Otherwise (a writer elsewhere appended, the tail was rebuilt, or the lock was waited
      // for, which makes the guess's time stale): dropped, and those writes are sealed below.
      const kept = ahead !== null && ahead.start === start && tx.lockWaited !== true ? ahead : null;
      const clock = kept ? aheadClock : this.#batchClock();
      const rows: EntryRow[] = kept ? kept.rows : [];
      const subtrees: SubtreeRow[] = kept ? kept.subtrees : [];
      let tail = kept ? kept.tail : start;
      const entryAt = (seq: number): LedgerEntry | undefined => {
        const row = seq >= size ? rows[seq - size] : this.#held.get(seq);
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
            const after = this.#sealWrite(decision.events, tail, clock, rows, subtrees);
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
    return { write, meanwhile: () => (ahead = this.#sealAhead(decides, aheadClock, this.#tail)) };
  }

  /**
   * A group of appendAsync's writes only, on a backend that appends conditionally in one round trip
   * (store/ledger-backend.ts `appendIfTail`: PostgreSQL): sealed and signed at once — after the
   * tail the group before it leaves if that one is still on its way, else after the committed tail
   * — then, in its turn among this instance's writes, inserted only if the write lock is free and
   * the store's tail is the one sealed after: the conditional write, checked inside the write, in
   * one statement instead of a transaction of three round trips. Once sealed it hands off
   * (store/group-commit.ts), so the next group seals while this one is on its way. Tried while this
   * instance's writes succeed and find no other writer's entries, as a lone instance's do; null when
   * not tried. When the statement is not sent (the group before did not leave that tail) or not
   * taken (another writer appended or holds the lock), the group's transaction runs in the same
   * turn, sealed anew — so groups commit in the order they were submitted — and nothing is sealed
   * ahead until a transaction finds the tail unmoved again.
   */
  #appendIfUnmoved(decides: readonly Decide<unknown>[], handOff: () => void): Promise<WriteOutcome[]> | null {
    const backend = this.#backend;
    if (!backend.appendIfTail || !this.#appendsAhead() || !decides.every((decide) => this.#fixed.has(decide)))
      return null;
    const ahead = this.#sealAhead(decides, this.#batchClock(), this.#sealedAfter ?? this.#tail);
    if (ahead === null || ahead.rows.length === 0) return null;
    const after = ahead.tail;
    const checkpoint = this.#signer
      ? { size: after.range.size, note: this.#sign(this.#signer, after), createdAt: after.lastTs }
      : null;
    const named =
      ahead.start.lastHash === null ? null : { seq: ahead.start.range.size - 1, hash: ahead.start.lastHash };
    const forget = () => {
      if (this.#sealedAfter === after) this.#sealedAfter = null;
    };
    this.#sealedAfter = after;
    const turn = this.#serially(async () => {
      if (this.#tail === ahead.start && this.#writeHealth.ok) {
        this.#inTransaction = true;
        try {
          const outcome = await backend.appendIfTail!(named, {
            rows: ahead.rows,
            subtrees: ahead.subtrees,
            checkpoint,
          });
          if (outcome === "appended") {
            this.#tail = after;
            this.#wrote(ahead.start.range.size, after.range.size, checkpoint);
            // Held on top of the rows held before: no projection was caught up here, so they may
            // still be needed (up to FOLLOW_MAX rows in all; past it a projection reads the store).
            if (this.#held.size + ahead.rows.length > FOLLOW_MAX) this.#held = new Map();
            if (ahead.rows.length <= FOLLOW_MAX) for (const row of ahead.rows) this.#held.set(row.seq, row);
            this.#writeHealth = { ok: true };
            return ahead.outcomes;
          }
          this.#othersWrote = true;
        } catch (error) {
          this.#noteFailure(error);
          throw error;
        } finally {
          this.#inTransaction = false;
        }
      }
      forget();
      return this.#transact(this.#groupTransaction(decides).write);
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
    return this.#tail !== null && !this.#othersWrote && this.#writeHealth.ok;
  }

  /**
   * The leading writes of a group whose events are known before the tail (appendAsync's), checked
   * and sealed against `start` — the tail as this instance last saw it, or the one a group still on
   * its way leaves — before the transaction reads the tail: while the backend takes the write lock
   * (store/ledger-backend.ts `withWriteLock`'s `meanwhile`), or while the group before it commits
   * (#appendIfUnmoved), so that work overlaps PostgreSQL's instead of following it. Pure: nothing of the instance changes, so a guess that
   * misses (another writer appended) costs only the work — and none is made while the last
   * transaction found another writer's entries, as every one does when N instances take turns.
   * Stops at the first write that decides.
   */
  #sealAhead(decides: readonly Decide<unknown>[], clock: () => string, start: Tail | null): SealedAhead | null {
    // While other writers keep appending between this instance's transactions, a guess would miss.
    if (start === null || this.#othersWrote) return null;
    const ahead: SealedAhead = { start, tail: start, rows: [], subtrees: [], outcomes: [] };
    for (const decide of decides) {
      const events = this.#fixed.get(decide);
      if (events === undefined) break;
      try {
        const after = this.#sealWrite(events, ahead.tail, clock, ahead.rows, ahead.subtrees);
        ahead.tail = after.tail;
        ahead.outcomes.push({ ok: true, written: { entries: after.written, result: undefined } });
      } catch (error) {
        ahead.outcomes.push({ ok: false, error });
      }
    }
    return ahead;
  }

  /**
   * One write of a group: its events checked and sealed after `tail` into the group's `rows` and
   * `subtrees`. A refused write leaves nothing of its own there (the group's other writes stay) and
   * throws.
   */
  #sealWrite(
    events: readonly NewEvent[],
    tail: Tail,
    clock: () => string,
    rows: EntryRow[],
    subtrees: SubtreeRow[],
  ): { written: LedgerEntry[]; tail: Tail } {
    const marks = [rows.length, subtrees.length] as const;
    try {
      if (events.length > 0) checkEvents(events, true);
      return this.#seal(events, tail, clock, rows, subtrees);
    } catch (error) {
      rows.length = marks[0];
      subtrees.length = marks[1];
      throw error;
    }
  }

  /**
   * One write transaction on this instance (one at a time): the backend's write lock, the tail
   * brought up to date, `write`, one insert of its rows and subtrees, the signed checkpoint, commit.
   * On any failure nothing of it is kept: the tail stays the committed one, and every projection
   * that folded rows of it forgets them.
   */
  #transaction<T>(write: (tx: Tx, start: Tail) => Promise<TransactionWrite<T>>, meanwhile?: () => void): Promise<T> {
    return this.#serially(() => this.#transact(write, meanwhile));
  }

  /** Runs `write` after every write this instance started before it: one at a time. */
  #serially<T>(write: () => Promise<T>): Promise<T> {
    const run = this.#writing.catch(() => undefined).then(write);
    this.#writing = run;
    return run;
  }

  async #transact<T>(write: (tx: Tx, start: Tail) => Promise<TransactionWrite<T>>, meanwhile?: () => void): Promise<T> {
    // A row of another writer did not verify: nothing is written after it, no checkpoint signed over it.
    if (this.#refusedRow !== null) {
      const refused = this.#integrityError();
      this.#noteFailure(refused);
      throw refused;
    }
    this.#inTransaction = true;
    let foreign: EntryRow[] = [];
    let startSize = 0;
    let signed: { size: number; note: string } | null = null;
    try {
      const done = await this.#backend.withWriteLock(async (tx) => {
        const known = this.#tail;
        foreign = await this.#follow(tx);
        const start = this.#tail!;
        startSize = start.range.size;
        this.#othersWrote = known !== null && start !== known;
        const out = await write(tx, start);
        for (let i = 0; i < out.rows.length; i += TX_PAGE)
          await tx.insertRows(out.rows.length <= TX_PAGE ? out.rows : out.rows.slice(i, i + TX_PAGE));
        if (out.subtrees.length > 0) await tx.insertSubtrees(out.subtrees);
        let note = out.note;
        if (!note && this.#signer && out.after.range.size > start.range.size) {
          // Signed while the inserts travel (where the backend holds them back); awaited before the
          // checkpoint, and caught at once so a throwing signer does not leave its failure unhandled.
          const sending = tx.sendBuffered?.();
          sending?.catch(() => undefined);
          // Stamped with the last entry's time: the transaction's one clock reading (or the entries' own).
          note = { note: this.#sign(this.#signer, out.after), createdAt: out.after.lastTs };
          await sending;
        }
        if (note) {
          await tx.insertCheckpointIfAbsent(out.after.range.size, note.note, note.createdAt);
          signed = { size: out.after.range.size, note: note.note };
        }
        return out;
      }, meanwhile);
      this.#tail = done.after;
      this.#wrote(startSize, done.after.range.size, signed);
      this.#held = new Map();
      if (!done.inserted && foreign.length + done.rows.length <= FOLLOW_MAX)
        for (const row of [...foreign, ...done.rows]) this.#held.set(row.seq, row);
      this.#writeHealth = { ok: true };
      return done.result;
    } catch (error) {
      this.#projections.forgetPast(this.#tail?.range.size ?? 0);
      this.#noteFailure(error);
      throw error;
    } finally {
      this.#inTransaction = false;
    }
  }

  /**
   * Brings the in-memory tail up to the committed tail, inside the write lock: the rows other
   * writers appended since are read and folded into the range (each checked to chain on), and held
   * for the projections; a tail unknown, far behind or not chaining on is rebuilt from stored nodes.
   * Returns the rows read.
   */
  async #follow(tx: Tx): Promise<EntryRow[]> {
    const last = await tx.last();
    const size = last ? last.seq + 1 : 0;
    const known = this.#tail;
    if (known && size === known.range.size && (last?.hash ?? null) === known.lastHash) return [];
    if (known && size > known.range.size && size - known.range.size <= FOLLOW_MAX) {
      const range = known.range.clone();
      let prev = known.lastHash;
      let lastTs = known.lastTs;
      const read: EntryRow[] = [];
      for await (const row of this.#pages(tx, known.range.size, size, TX_PAGE)) {
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
        this.#tail = { range, lastHash: prev, lastTs };
        for (const row of read) this.#held.set(row.seq, row);
        return read;
      }
    }
    const range =
      size === 0
        ? CompactRange.empty()
        : await withStoredNodes(tx, (perfect) => CompactRange.fromPerfect(size, perfect));
    if (known && !(await this.#extends(tx, known, size))) this.#forgetHistory();
    await this.#checkUnchecked(tx, size);
    this.#tail = last ? { range, lastHash: last.hash, lastTs: last.ts } : EMPTY_TAIL;
    this.#held = new Map();
    return [];
  }

  /**
   * Before a tail rebuilt from stored nodes is written after or signed: the rows not checked yet,
   * from the newest stored checkpoint that verifies (what a writer with the ledger's key signed was
   * checked by it) or from the last row checked, to `size`, each checked and chained.
   */
  async #checkUnchecked(tx: Tx, size: number): Promise<void> {
    if (this.#refusedRow !== null) throw this.#integrityError();
    let from = this.#checkedBelow;
    if (from < size && this.#verifiers.length > 0) {
      const anchor = await tx.checkpointAtMost(size);
      if (anchor !== null && anchor.size > from && (await this.#checkpointProblem(tx, anchor, size)) === null)
        from = anchor.size;
    }
    if (from >= size) return;
    let prev: string | null | undefined = from === 0 ? null : undefined;
    for await (const row of this.#pages(tx, from, size, TX_PAGE)) {
      this.#checkRow(row, prev);
      prev = row.hash;
    }
    this.#checkedBelow = size;
  }

  /** Whether the store's tail at `size` extends `known`: its first entries are the ones `known` was built from (the same root). */
  async #extends(tx: Tx, known: Tail, size: number): Promise<boolean> {
    if (size <= known.range.size) return false; // the same size with the same last hash was handled before
    const before =
      known.range.size === 0
        ? CompactRange.empty()
        : await withStoredNodes(tx, (perfect) => CompactRange.fromPerfect(known.range.size, perfect));
    return Buffer.from(before.root()).equals(Buffer.from(known.range.root()));
  }

  /** The store went back or rewrote what this instance read: every projection is folded again from the store. */
  #forgetHistory(): void {
    this.#projections.forgetPast(0);
    this.#held = new Map();
    this.#checkedBelow = 0;
    this.#servedCheckpoint = null;
  }

  /** Signs the tail as a checkpoint note (deterministic: two instances sign the same note). */
  #sign(signer: NoteSigner, tail: Tail): string {
    return signCheckpoint({ origin: this.origin, size: tail.range.size, rootHash: tail.range.root() }, signer);
  }

  /** Remembers a write the store could not make (not one refused for its events): /health reports it. */
  #noteFailure(error: unknown): void {
    if (error instanceof LedgerAppendError) return;
    if (this.#writeHealth.ok)
      this.#writeHealth = { ok: false, since: this.#now().toISOString(), reason: failureReason(error) };
  }

  /**
   * The timestamp of the next entry: its own, checked to be in order, or else the instant of the
   * append — the clock is read once per transaction, so its entries share it — held at the last
   * entry's when the clock has stepped back.
   */
  #timestampOf(event: NewEvent, i: number, lastTs: string, clock: () => string): string {
    let ts = event.ts;
    if (ts === undefined) {
      const now = clock();
      ts = now < lastTs ? lastTs : now;
    } else if (ts < lastTs)
      throw new LedgerAppendError(i, `ts ${ts} is earlier than the last entry's ${lastTs}`, "ts-before-tail");
    const refused = this.#timeRule(event.type, ts);
    if (refused) throw new LedgerAppendError(i, refused.message, refused.code);
    return ts;
  }

  /** Reads the injected clock on first use only. */
  #batchClock(): () => string {
    let now: string | null = null;
    return () => (now ??= this.#now().toISOString());
  }

  /**
   * Seals `events` after `tail` into `rows` (and completed stored subtrees into `subtrees`); returns
   * the entries and the tail after them (`tail` itself is not changed). Throws a LedgerAppendError
   * naming the event; the caller drops what this pushed.
   */
  #seal(
    events: readonly NewEvent[],
    tail: Tail,
    clock: () => string,
    rows: EntryRow[],
    subtrees: SubtreeRow[],
  ): { written: LedgerEntry[]; tail: Tail } {
    if (events.length === 0) return { written: [], tail };
    const range = tail.range.clone();
    const onComplete = (level: number, idx: number, hash: Uint8Array) => {
      if (level >= STORED_LEVEL) subtrees.push({ level, idx, hash });
    };
    const written: LedgerEntry[] = [];
    let prev = tail.lastHash;
    let lastTs = tail.lastTs;
    for (let i = 0; i < events.length; i++) {
      const event = events[i]!;
      const ts = this.#timestampOf(event, i, lastTs, clock);
      let sealed;
      try {
        sealed = sealEntry({ seq: range.size, type: event.type, payload: event.payload, ts, prev });
      } catch (error) {
        throw new LedgerAppendError(i, `invalid ${event.type} payload: ${(error as Error).message}`);
      }
      const tooLarge = payloadTooLarge(sealed.payloadText);
      if (tooLarge) throw new LedgerAppendError(i, tooLarge, "payload-too-large");
      const e = sealed.entry;
      rows.push({
        seq: e.seq,
        type: e.type,
        payload: sealed.payloadText,
        ts: e.ts,
        prev: e.prev,
        hash: e.hash,
        leaf: sealed.leafHash,
      });
      range.append(sealed.leafHash, onComplete);
      written.push(e);
      prev = e.hash;
      lastTs = ts;
    }
    return { written, tail: { range, lastHash: prev, lastTs } };
  }

  /**
   * The bulk path's rows: this thread canonicalizes, the seal worker validates, hashes and extends
   * the tree. Sealed rows go to the store a page at a time while the worker seals ahead: a
   * synchronous store (SQLite) inserts them then, overlapping the worker's hashing; PostgreSQL
   * buffers them for the transaction's statement. The transaction keeps all-or-nothing. A page
   * handed over is not kept here (a large batch would otherwise hold every row until its commit);
   * the leaves of the last rows are, for the new right edge.
   */
  async #sealBulk(
    events: readonly NewEvent[],
    sealer: BulkSealer,
    tx: Tx,
    start: Tail,
    clock: () => string,
  ): Promise<TransactionWrite<LedgerEntry[]>> {
    const first = start.range.size;
    const written: LedgerEntry[] = [];
    let rows: EntryRow[] = [];
    const subtrees: SubtreeRow[] = [];
    const inserts: Promise<void>[] = [];
    let inserted = 0;
    const width = 2 ** STORED_LEVEL;
    const lastLeaves: Uint8Array[] = new Array(width);
    await tx.bulkLoad?.();
    try {
      this.#sealBulkRun(events, sealer, start, clock, {
        row: (row, entry) => {
          rows.push(row);
          written.push(entry);
          lastLeaves[(row.seq - first) & (width - 1)] = row.leaf;
          if (rows.length === TX_PAGE) {
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
  #sealBulkRun(
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
        const ts = this.#timestampOf(event, i, lastTs, clock);
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

  // ---- verification ----

  async verify(): Promise<LedgerVerifyReport> {
    const verifier = new ChainVerifier(validateEvent);
    // Every stored subtree must equal the one recomputed from the entries' content (compared after the scan, in batches).
    const expected: SubtreeRow[] = [];
    verifier.onSubtree = (level, idx, hash) => {
      if (level >= STORED_LEVEL) expected.push({ level, idx, hash });
    };

    const checkpoints = (await this.#backend.checkpoints()).map((c) => ({ ...c, root: null as Uint8Array | null }));
    let next = 0;
    const captureRoots = () => {
      while (next < checkpoints.length && checkpoints[next]!.size === verifier.size && verifier.brokenAt === null) {
        checkpoints[next]!.root = verifier.report().rootHash;
        next += 1;
      }
    };
    captureRoots();
    for await (const r of this.#pages(this.#backend, 0, Number.MAX_SAFE_INTEGER, TX_PAGE)) {
      let entry: LedgerEntry;
      try {
        entry = rowToEntry(r);
      } catch {
        verifier.addUnreadable("stored payload is not valid JSON", { seq: r.seq, hash: r.hash, leafHash: r.leaf });
        continue;
      }
      verifier.add(entry, { payloadText: r.payload, leafHash: r.leaf });
      captureRoots();
    }
    for (let i = 0; i < expected.length; i += TX_PAGE) {
      const batch = expected.slice(i, i + TX_PAGE);
      const stored = await this.#backend.subtrees(batch);
      for (const { level, idx, hash } of batch) {
        const found = stored.get(subtreeKey(level, idx));
        const last = (idx + 1) * 2 ** level - 1;
        if (!found) verifier.flag(last, `stored subtree (${level}, ${idx}) is missing`);
        else if (!equalBytes(found, hash))
          verifier.flag(last, `stored subtree (${level}, ${idx}) does not match entries ${idx * 2 ** level}..${last}`);
      }
    }
    const report = verifier.report();
    const problems = report.problems;
    // Past a gap nothing that needs the tree is checked: the problem at the gap says so, once.
    const whole = (size: number) => report.brokenAt === undefined || size <= report.brokenAt;

    const storedSubtrees = await this.#backend.subtreeCount(STORED_LEVEL);
    if (whole(Infinity) && storedSubtrees !== expected.length) {
      problems.push({ seq: report.size, problem: `${storedSubtrees} stored subtrees, expected ${expected.length}` });
    }
    const checked = checkpoints.filter((c) => whole(c.size));
    for (const c of checked) {
      const problem = checkpointProblem(c.note, c.size, c.root, this.origin, this.#verifiers);
      if (problem) problems.push({ seq: Math.max(c.size - 1, 0), problem: `checkpoint at size ${c.size}: ${problem}` });
    }
    problems.sort((a, b) => a.seq - b.seq);
    return { ...report, ok: problems.length === 0, problems, checkpointsChecked: checked.length };
  }
}

function checkpointProblem(
  note: string,
  size: number,
  root: Uint8Array | null,
  origin: string,
  verifiers: NoteVerifier[],
): string | null {
  if (!root) return "the ledger is shorter than this checkpoint";
  if (verifiers.length === 0) return "no key to verify it with";
  try {
    const cp = verifyCheckpoint(note, verifiers);
    if (cp.origin !== origin) return `origin is "${cp.origin}", expected "${origin}"`;
    if (cp.size !== size) return `signed size ${cp.size} differs from its row`;
    if (!equalBytes(cp.rootHash, root))
      return `signed root ${formatDigest(cp.rootHash)} differs from the recomputed ${formatDigest(root)}`;
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** What a store error says, with SQLite's extended code when there is one (517: the snapshot is stale). */
export function failureReason(error: unknown): string {
  const e = error as { message?: unknown; errcode?: unknown } | null;
  const message = typeof e?.message === "string" ? e.message : String(error);
  return typeof e?.errcode === "number" ? `${message} (SQLite code ${e.errcode})` : message;
}
