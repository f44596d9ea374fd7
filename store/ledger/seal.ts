/**
 * Sealing: new events checked, timestamped under the time rule and sealed after the tail in memory
 * — the tree's right edge, the last hash and time — into the rows and stored subtrees one insert
 * writes. Pure: nothing here reads or writes the store; the tail given is never changed, a new one
 * is returned. The bulk path seals on a worker thread instead (store/ledger/bulk-append.ts).
 */
import { signCheckpoint, type NoteSigner } from "../../core/checkpoint.ts";
import { CompactRange } from "../../core/compact-range.ts";
import { isLedgerTimestamp, sealEntry, type LedgerEntry } from "../../core/ledger/entry.ts";
import { isEventType, validateEvent } from "../../core/events/registry.ts";
import { LedgerAppendError, type EventTimeRule, type NewEvent } from "../../core/ledger/store.ts";
import { LedgerIntegrityError, type EntryRow, type StoredRow, type SubtreeRow } from "./backend.ts";
import { STORED_LEVEL } from "./merkle-reads.ts";

/** The largest payload an entry may hold, as UTF-8 bytes of its JCS text. */
export const MAX_PAYLOAD_BYTES = 1 << 20;

/** Why a payload's JCS text is too large, or null. */
export function payloadTooLarge(payloadText: string): string | null {
  if (payloadText.length <= MAX_PAYLOAD_BYTES / 3) return null;
  const bytes = Buffer.byteLength(payloadText);
  return bytes > MAX_PAYLOAD_BYTES ? `payload is ${bytes} bytes of JCS text; the limit is ${MAX_PAYLOAD_BYTES}` : null;
}

/** The end of the log as a writer needs it: the tree's right edge, the last hash and timestamp. */
export interface Tail {
  range: CompactRange;
  lastHash: string | null;
  lastTs: string;
}

export const EMPTY_TAIL: Tail = { range: CompactRange.empty(), lastHash: null, lastTs: "" };

/** Checks what can be checked of each event before a transaction; `payloads: false` leaves them to the bulk path (store/ledger/bulk-seal.ts). */
export function checkEvents(events: readonly NewEvent[], payloads: boolean): void {
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

/** A stored row as an entry (its payload parsed afresh: no object is shared). */
export function rowToEntry(row: StoredRow): LedgerEntry {
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

/** A clock read on first use only: the entries of one transaction share its reading. */
export function batchClock(now: () => Date): () => string {
  let at: string | null = null;
  return () => (at ??= now().toISOString());
}

/** Signs the tail as a checkpoint note (deterministic: two instances sign the same note). */
export function signTail(origin: string, signer: NoteSigner, tail: Tail): string {
  return signCheckpoint({ origin, size: tail.range.size, rootHash: tail.range.root() }, signer);
}

/** What a write sealed: its entries and the tail after them. */
export interface Sealed {
  written: LedgerEntry[];
  tail: Tail;
}

/** Seals events under one time rule. */
export class Sealer {
  readonly #timeRule: EventTimeRule;

  constructor(timeRule: EventTimeRule) {
    this.#timeRule = timeRule;
  }

  /**
   * The timestamp of the next entry: its own, checked to be in order, or else the instant of the
   * append — the clock is read once per transaction, so its entries share it — held at the last
   * entry's when the clock has stepped back.
   */
  timestampOf(event: NewEvent, i: number, lastTs: string, clock: () => string): string {
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

  /**
   * Seals `events` after `tail` into `rows` (and completed stored subtrees into `subtrees`); returns
   * the entries and the tail after them (`tail` itself is not changed). Throws a LedgerAppendError
   * naming the event; the caller drops what this pushed.
   */
  seal(events: readonly NewEvent[], tail: Tail, clock: () => string, rows: EntryRow[], subtrees: SubtreeRow[]): Sealed {
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
      const ts = this.timestampOf(event, i, lastTs, clock);
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
   * One write of a group: its events checked and sealed after `tail` into the group's `rows` and
   * `subtrees`. A refused write leaves nothing of its own there (the group's other writes stay) and
   * throws.
   */
  sealWrite(
    events: readonly NewEvent[],
    tail: Tail,
    clock: () => string,
    rows: EntryRow[],
    subtrees: SubtreeRow[],
  ): Sealed {
    const marks = [rows.length, subtrees.length] as const;
    try {
      if (events.length > 0) checkEvents(events, true);
      return this.seal(events, tail, clock, rows, subtrees);
    } catch (error) {
      rows.length = marks[0];
      subtrees.length = marks[1];
      throw error;
    }
  }
}

/** What one transaction wrote: the rows and subtrees to insert, the tail after them, the caller's answer. */
export interface TransactionWrite<T> {
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
