/**
 * The access ledger's file (store/access-ledger.ts): a ledger of its own in one SQLite file, with
 * the same format, append-only triggers, sealing and checkpoints as the platform ledger, kept
 * synchronous because the API key store (api/api-keys.ts) reads and appends to it synchronously.
 * The platform ledger is the asynchronous store/ledger.ts; moving the key store onto it (and onto
 * shared state for several instances) is the follow-up of issue 23, part 3.
 */import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { signCheckpoint, verifyCheckpoint, type NoteSigner, type NoteVerifier } from "../core/checkpoint.ts";
import { CompactRange } from "../core/compact-range.ts";
import { formatDigest } from "../core/digest.ts";
import { isLedgerTimestamp, sealEntry, type LedgerEntry } from "../core/ledger/entry.ts";
import { isEventType, validateEvent } from "../core/ledger/events.ts";
import { freezeRefusal } from "../core/migration/phases.ts";
import {
  LedgerAppendError,
  type EventTimeRule,
  type LedgerVerifyReport,
  type NewEvent,
  type StoredEntry,
  type WriteHealth,
} from "../core/ledger/store.ts";
import { ChainVerifier } from "../core/ledger/verify.ts";
import { failureReason, MAX_PAYLOAD_BYTES } from "./ledger.ts";
import { STORED_LEVEL } from "./merkle-reads.ts";
import { SCHEMA, triggers } from "./sqlite-backend.ts";
import { publicKeyFromSecret } from "../core/signature.ts";
import { composeRange, consistencyProofWith, equalBytes, inclusionProofWith, rootHash, type RangeHasher } from "../core/merkle.ts";

/** Rows per read of `entries()` and its kin: each page is one finished statement (see #pages). */
const READ_PAGE = 128;

function payloadTooLarge(payloadText: string): string | null {
  if (payloadText.length <= MAX_PAYLOAD_BYTES / 3) return null;
  const bytes = Buffer.byteLength(payloadText);
  return bytes > MAX_PAYLOAD_BYTES ? `payload is ${bytes} bytes of JCS text; the limit is ${MAX_PAYLOAD_BYTES}` : null;
}
const FORMAT_VERSION = "1";

/** The end of the log as a writer needs it: the tree's right edge, the last hash and timestamp. */
interface Tail {
  range: CompactRange;
  lastHash: string | null;
  lastTs: string;
}

/** Checks what can be checked of each event before a transaction; `payloads: false` leaves them to the seal worker. */
function checkEvents(events: readonly NewEvent[], payloads: boolean): void {
  events.forEach((event, i) => {
    if (event === null || typeof event !== "object") throw new LedgerAppendError(i, "not an event object", "not-an-event");
    const invalid = payloads ? validateEvent(event.type, event.payload) : isEventType(event.type) ? null : `unknown event type ${JSON.stringify(event.type)}`;
    if (invalid) throw new LedgerAppendError(i, invalid);
    if (event.ts !== undefined && !isLedgerTimestamp(event.ts)) {
      throw new LedgerAppendError(i, `ts "${String(event.ts)}" is not an ISO 8601 UTC timestamp with milliseconds`, "invalid-ts");
    }
  });
}

export interface AccessLedgerFileOptions {
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
  /** "full" fsyncs every commit (survives power loss); "normal" survives process crashes only. */
  durability?: "full" | "normal";
  /** How long a write waits for another connection's write lock before it fails (default 10 s). */
  busyTimeoutMs?: number;
}


interface EntryRow {
  seq: number;
  type: string;
  payload: string;
  ts: string;
  prev: string | null;
  hash: string;
  leaf: Uint8Array;
}

function rowToEntry(row: EntryRow): LedgerEntry {
  return { seq: row.seq, type: row.type, payload: JSON.parse(row.payload), ts: row.ts, prev: row.prev, hash: row.hash };
}

export class AccessLedgerFile {
  readonly path: string;
  readonly origin: string;
  readonly #db: DatabaseSync;
  readonly #signer: NoteSigner | undefined;
  readonly #verifiers: NoteVerifier[];
  readonly #now: () => Date;
  readonly #timeRule: EventTimeRule;
  readonly #stmt: Record<
    "last" | "insertEntry" | "insertSubtree" | "subtree" | "leaves" | "page" | "insertCheckpoint" | "checkpointAt" | "checkpoints" | "latestCheckpoint" | "subtreeCount",
    StatementSync
  >;
  #range = CompactRange.empty();
  #lastHash: string | null = null;
  #lastTs = "";
  #writeHealth: WriteHealth = { ok: true };

  constructor(path: string, options: AccessLedgerFileOptions) {
    this.path = path;
    this.origin = options.origin;
    this.#signer = options.signer;
    this.#now = options.now ?? (() => new Date());
    this.#timeRule = options.timeRule ?? freezeRefusal;
    this.#verifiers = [...(options.verifiers ?? [])];
    if (this.#signer && !this.#verifiers.some((v) => v.name === this.#signer!.name)) {
      this.#verifiers.push({ name: this.#signer.name, publicKeyHex: publicKeyOf(this.#signer) });
    }

    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    this.#db = new DatabaseSync(path);
    // The busy timeout first: switching a new file to WAL takes a lock another process may hold.
    this.#db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 10_000))}; PRAGMA journal_mode = WAL;
                   PRAGMA synchronous = ${options.durability === "normal" ? "NORMAL" : "FULL"};`);
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      this.#db.exec(SCHEMA + triggers);
      this.#initMeta();
      this.#db.exec("COMMIT");
    } catch (error) {
      this.#db.exec("ROLLBACK");
      this.#db.close();
      throw error;
    }

    const p = (sql: string) => this.#db.prepare(sql);
    this.#stmt = {
      last: p("SELECT seq, hash, ts FROM entries ORDER BY seq DESC LIMIT 1"),
      insertEntry: p("INSERT INTO entries (seq, type, payload, ts, prev, hash, leaf) VALUES (?, ?, ?, ?, ?, ?, ?)"),
      insertSubtree: p("INSERT INTO subtrees (level, idx, hash) VALUES (?, ?, ?)"),
      subtree: p("SELECT hash FROM subtrees WHERE level = ? AND idx = ?"),
      leaves: p("SELECT leaf FROM entries WHERE seq >= ? AND seq < ? ORDER BY seq"),
      page: p("SELECT seq, type, payload, ts, prev, hash, leaf FROM entries WHERE seq >= ? AND seq < ? ORDER BY seq LIMIT ?"),
      insertCheckpoint: p("INSERT INTO checkpoints (size, note, created_at) VALUES (?, ?, ?)"),
      checkpointAt: p("SELECT 1 FROM checkpoints WHERE size = ?"),
      checkpoints: p("SELECT size, note FROM checkpoints ORDER BY size"),
      latestCheckpoint: p("SELECT note FROM checkpoints ORDER BY size DESC LIMIT 1"),
      subtreeCount: p("SELECT count(*) AS n FROM subtrees"),
    };
    // The tail is read on first use, not here: a damaged file still opens, so that verify() can say what is wrong.
  }

  #initMeta(): void {
    const get = this.#db.prepare("SELECT value FROM meta WHERE key = ?");
    const put = this.#db.prepare("INSERT INTO meta (key, value) VALUES (?, ?)");
    const version = get.get("format_version") as { value: string } | undefined;
    if (!version) {
      put.run("format_version", FORMAT_VERSION);
      put.run("origin", this.origin);
      return;
    }
    if (version.value !== FORMAT_VERSION) throw new Error(`${this.path}: ledger format ${version.value}, this code reads ${FORMAT_VERSION}`);
    const origin = (get.get("origin") as { value: string }).value;
    if (origin !== this.origin) throw new Error(`${this.path}: ledger origin is "${origin}", opened as "${this.origin}"`);
  }

  /** Re-reads the tail when another writer has appended since we last looked. */
  #sync(): void {
    const last = this.#stmt.last.get() as { seq: number; hash: string; ts: string } | undefined;
    const size = last ? last.seq + 1 : 0;
    if (size === this.#range.size && (last?.hash ?? null) === this.#lastHash) return;
    this.#range = CompactRange.fromPerfect(size, (level, index) => this.#perfect(level, index));
    this.#lastHash = last?.hash ?? null;
    this.#lastTs = last?.ts ?? "";
  }

  /** Hash of the perfect subtree of 2^level leaves at index; throws when it is not complete. */
  #perfect(level: number, index: number): Uint8Array {
    if (level >= STORED_LEVEL) {
      const row = this.#stmt.subtree.get(level, index) as { hash: Uint8Array } | undefined;
      if (!row) throw new Error(`ledger is missing the stored subtree (${level}, ${index})`);
      return row.hash;
    }
    const width = 2 ** level;
    const rows = this.#stmt.leaves.all(index * width, (index + 1) * width) as { leaf: Uint8Array }[];
    if (rows.length !== width) throw new Error(`ledger is missing leaves of subtree (${level}, ${index})`);
    return rootHash(rows.map((r) => r.leaf));
  }

  #rangeHasher(): RangeHasher {
    return composeRange((level, index) => this.#perfect(level, index));
  }

  size(): number {
    this.#sync();
    return this.#range.size;
  }

  /** The default append: this thread, one transaction, durable when it returns. */
  append(events: readonly NewEvent[]): LedgerEntry[] {
    if (events.length === 0) return [];
    checkEvents(events, true);
    const clock = this.#batchClock();
    return this.#transaction(() => {
      const after = this.#appendRows(events, this.#tail(), clock);
      this.#adopt(after.tail);
      return after.written;
    });
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
    } else if (ts < lastTs) throw new LedgerAppendError(i, `ts ${ts} is earlier than the last entry's ${lastTs}`, "ts-before-tail");
    const refused = this.#timeRule(event.type, ts);
    if (refused) throw new LedgerAppendError(i, refused.message, refused.code);
    return ts;
  }

  /** Reads the injected clock on first use only. */
  #batchClock(): () => string {
    let now: string | null = null;
    return () => (now ??= this.#now().toISOString());
  }

  #tail(): Tail {
    return { range: this.#range, lastHash: this.#lastHash, lastTs: this.#lastTs };
  }

  #adopt(tail: Tail): void {
    this.#range = tail.range;
    this.#lastHash = tail.lastHash;
    this.#lastTs = tail.lastTs;
  }

  /**
   * One write transaction: BEGIN IMMEDIATE, the tail brought up to date, `write` (which adopts the
   * tail it wrote), COMMIT. On any failure everything is rolled back, the tail and every projection
   * that folded rolled-back entries included.
   */
  #transaction<T>(write: () => T): T {
    try {
      this.#db.exec("BEGIN IMMEDIATE");
    } catch (error) {
      this.#noteFailure(error); // locked past the busy timeout, or a snapshot that cannot move
      throw error;
    }
    const before = this.#tail();
    try {
      this.#sync();
      const committed = this.#range.size;
      try {
        const result = write();
        // Stamped with the last entry's time: the transaction's one clock reading (or the entries' own).
        if (this.#range.size > committed) this.#signTail(this.#signer, this.#lastTs);
        this.#db.exec("COMMIT");
        this.#writeHealth = { ok: true };
        return result;
      } catch (error) {
        throw error;
      }
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec("ROLLBACK");
      this.#adopt(before);
      this.#noteFailure(error);
      throw error;
    }
  }

  writeHealth(): WriteHealth {
    return this.#writeHealth;
  }

  /** Remembers a write the store could not make (not one refused for its events): /health reports it. */
  #noteFailure(error: unknown): void {
    if (error instanceof LedgerAppendError) return;
    if (this.#writeHealth.ok) this.#writeHealth = { ok: false, since: this.#now().toISOString(), reason: failureReason(error) };
  }

  /**
   * Seals and inserts `events` after `tail` in the open transaction; returns the entries and the
   * tail after them (`tail` itself is not changed). Throws a LedgerAppendError naming the event.
   */
  #appendRows(events: readonly NewEvent[], tail: Tail, clock: () => string): { written: LedgerEntry[]; tail: Tail } {
    if (events.length === 0) return { written: [], tail };
    const range = tail.range.clone();
    const insertSubtree = this.#stmt.insertSubtree;
    const onComplete = (level: number, index: number, hash: Uint8Array) => {
      if (level >= STORED_LEVEL) insertSubtree.run(level, index, hash);
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
      this.#stmt.insertEntry.run(e.seq, e.type, sealed.payloadText, e.ts, e.prev, e.hash, sealed.leafHash);
      range.append(sealed.leafHash, onComplete);
      written.push(e);
      prev = e.hash;
      lastTs = ts;
    }
    return { written, tail: { range, lastHash: prev, lastTs } };
  }

  *entries(start = 0, end?: number): IterableIterator<LedgerEntry> {
    for (const row of this.#pages(start, end ?? Number.MAX_SAFE_INTEGER)) yield rowToEntry(row);
  }

  *storedEntries(start = 0, end?: number): IterableIterator<StoredEntry> {
    for (const row of this.#pages(start, end ?? Number.MAX_SAFE_INTEGER)) yield { entry: rowToEntry(row), payloadText: row.payload };
  }

  /**
   * The rows start <= seq < end, read a page at a time, each page a complete statement: no read
   * stays open between two rows handed out. An open statement holds the connection's read snapshot
   * (WAL), so an iterator left unfinished — a caller that takes one entry — would pin this
   * connection to the ledger as it was: every later read misses other writers' appends and every
   * write fails (SQLITE_BUSY_SNAPSHOT), until the iterator is collected.
   */
  *#pages(start: number, end: number): IterableIterator<EntryRow> {
    let seq = start;
    while (seq < end) {
      const rows = this.#stmt.page.all(seq, end, READ_PAGE) as unknown as EntryRow[];
      yield* rows;
      if (rows.length < READ_PAGE) return;
      seq = rows[rows.length - 1]!.seq + 1;
    }
  }

  rootHash(treeSize?: number): Uint8Array {
    this.#sync();
    const size = treeSize ?? this.#range.size;
    checkSize(size, this.#range.size);
    if (size === this.#range.size) return this.#range.root();
    return size === 0 ? rootHash([]) : this.#rangeHasher()(0, size);
  }

  inclusionProof(seq: number, treeSize?: number): Uint8Array[] {
    this.#sync();
    const size = treeSize ?? this.#range.size;
    checkSize(size, this.#range.size);
    return inclusionProofWith(this.#rangeHasher(), seq, size);
  }

  consistencyProof(oldSize: number, newSize?: number): Uint8Array[] {
    this.#sync();
    const size = newSize ?? this.#range.size;
    checkSize(size, this.#range.size);
    return consistencyProofWith(this.#rangeHasher(), oldSize, size);
  }

  checkpoint(): string {
    const signer = this.#signer;
    if (!signer) throw new Error("no checkpoint signing key configured for this ledger");
    // One transaction: the tree signed is the tail at that moment.
    return this.#transaction(() => this.#signTail(signer, this.#now().toISOString())!);
  }

  /**
   * Signs the tail in the open write transaction and records the note unless a checkpoint of that
   * size exists (the first one recorded stays; rows are never replaced). The write path calls it
   * for every transaction that appended, when a key is configured, so that each entry is covered
   * by a signed checkpoint from its commit on and a proof read never has to sign (docs/ledger-reads.md).
   */
  #signTail(signer: NoteSigner | undefined, createdAt: string): string | null {
    if (!signer) return null;
    const size = this.#range.size;
    const note = signCheckpoint({ origin: this.origin, size, rootHash: this.#range.root() }, signer);
    if (!this.#stmt.checkpointAt.get(size)) this.#stmt.insertCheckpoint.run(size, note, createdAt);
    return note;
  }

  latestCheckpoint(): string | null {
    const row = this.#stmt.latestCheckpoint.get() as { note: string } | undefined;
    return row?.note ?? null;
  }

  verify(): LedgerVerifyReport {
    const verifier = new ChainVerifier(validateEvent);
    // Every stored subtree must equal the one recomputed from the entries' content.
    let expectedSubtrees = 0;
    verifier.onSubtree = (level, index, hash) => {
      if (level < STORED_LEVEL) return;
      expectedSubtrees += 1;
      const stored = this.#stmt.subtree.get(level, index) as { hash: Uint8Array } | undefined;
      const last = (index + 1) * 2 ** level - 1;
      if (!stored) verifier.flag(last, `stored subtree (${level}, ${index}) is missing`);
      else if (!equalBytes(stored.hash, hash)) verifier.flag(last, `stored subtree (${level}, ${index}) does not match entries ${index * 2 ** level}..${last}`);
    };

    const checkpoints = (this.#stmt.checkpoints.all() as { size: number; note: string }[]).map((c) => ({ ...c, root: null as Uint8Array | null }));
    let next = 0;
    const captureRoots = () => {
      while (next < checkpoints.length && checkpoints[next]!.size === verifier.size && verifier.brokenAt === null) {
        checkpoints[next]!.root = verifier.report().rootHash;
        next += 1;
      }
    };
    captureRoots();
    for (const r of this.#pages(0, Number.MAX_SAFE_INTEGER)) {
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
    const report = verifier.report();
    const problems = report.problems;
    // Past a gap nothing that needs the tree is checked: the problem at the gap says so, once.
    const whole = (size: number) => report.brokenAt === undefined || size <= report.brokenAt;

    const storedSubtrees = (this.#stmt.subtreeCount.get() as { n: number }).n;
    if (whole(Infinity) && storedSubtrees !== expectedSubtrees) {
      problems.push({ seq: report.size, problem: `${storedSubtrees} stored subtrees, expected ${expectedSubtrees}` });
    }
    const checked = checkpoints.filter((c) => whole(c.size));
    for (const c of checked) {
      const problem = checkpointProblem(c.note, c.size, c.root, this.origin, this.#verifiers);
      if (problem) problems.push({ seq: Math.max(c.size - 1, 0), problem: `checkpoint at size ${c.size}: ${problem}` });
    }
    problems.sort((a, b) => a.seq - b.seq);
    return { ...report, ok: problems.length === 0, problems, checkpointsChecked: checked.length };
  }

  /** Commits the writes still waiting for their group, then closes the file. */
  close(): void {
    if (!this.#db.isOpen) return;
    this.#db.close();
  }
}

function checkpointProblem(note: string, size: number, root: Uint8Array | null, origin: string, verifiers: NoteVerifier[]): string | null {
  if (!root) return "the ledger is shorter than this checkpoint";
  if (verifiers.length === 0) return "no key to verify it with";
  try {
    const cp = verifyCheckpoint(note, verifiers);
    if (cp.origin !== origin) return `origin is "${cp.origin}", expected "${origin}"`;
    if (cp.size !== size) return `signed size ${cp.size} differs from its row`;
    if (!equalBytes(cp.rootHash, root)) return `signed root ${formatDigest(cp.rootHash)} differs from the recomputed ${formatDigest(root)}`;
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}


function checkSize(size: number, current: number): void {
  if (!Number.isSafeInteger(size) || size < 0 || size > current) throw new RangeError(`tree size ${size} is out of range [0, ${current}]`);
}

function publicKeyOf(signer: NoteSigner): string {
  return publicKeyFromSecret("ed25519", signer.secretKeyHex);
}
