/**
 * The seal worker of the bulk append path (started by bulk-seal.ts): per record of a shared input
 * slot it validates the payload, seals the entry and extends the tree; hashes, leaves and completed
 * subtrees go back through shared result slots, progress and failure through `ctrl` (Atomics).
 */
import { parentPort, workerData, type MessagePort } from "node:worker_threads";
import { sealPayloadText } from "../../core/ledger/entry.ts";
import { EVENT_TYPES, validateEvent } from "../../core/events/registry.ts";
import { StreamingRoot } from "../../core/merkle-stream.ts";

export interface SealSetup {
  memory: SharedArrayBuffer;
  /** Int32 cells: DONE (chunks finished in the batch), STATE (0 ok, 1 event refused, 2 helper fault), ENDED (last batch ended). */
  ctrl: SharedArrayBuffer;
  replies: MessagePort;
  layout: SealLayout;
}

/** Where slot `s`'s input, results and subtree records lie in `memory`. */
export interface SealLayout {
  slots: number;
  inputBytes: number;
  /** Most events in a chunk. */
  chunk: number;
}

export const DONE = 0;
export const STATE = 1;
export const ENDED = 2;
/** A result: the entry's hash as stored (`sha256:` and 64 hex digits, latin1), then its 32-byte leaf. */
export const HASH_TEXT_BYTES = 71;
export const RESULT_BYTES = HASH_TEXT_BYTES + 32;
export const SUBTREE_BYTES = 48;

export function slotOffsets(
  layout: SealLayout,
  slot: number,
): { input: number; results: number; subtrees: number; end: number } {
  const size = layout.inputBytes + layout.chunk * RESULT_BYTES + 8 + layout.chunk * SUBTREE_BYTES;
  const input = slot * size;
  const results = input + layout.inputBytes;
  const subtrees = results + layout.chunk * RESULT_BYTES;
  return { input, results, subtrees, end: input + size };
}

/**
 * An event's record in a slot: its type's code (TYPE_BASE + its index in the registry, one byte),
 * then TS_MARK and its 24-character timestamp unless it equals the previous record's in the chunk,
 * then its payload's JCS text, then 0x00. The codes and the mark are control characters, which JCS
 * text never holds raw.
 */
export const TS_MARK = 0x01;
const TYPE_BASE = 0x02;
const TS_LENGTH = 24;
const TYPE_CODES = new Map(EVENT_TYPES.map((type, i) => [type as string, TYPE_BASE + i]));

export function typeCode(type: string): number {
  const code = TYPE_CODES.get(type);
  if (code === undefined) throw new Error(`unknown event type ${JSON.stringify(type)}`);
  return code;
}

export type SealRequest =
  | { op: "begin"; batch: number; size: number; prev: string | null; edge: Uint8Array[]; minLevel: number }
  | {
      op: "chunk";
      batch: number;
      chunk: number;
      slot: number;
      first: number;
      count: number;
      bytes: number;
      validated: boolean;
    }
  | { op: "end"; batch: number };

/** Why a batch was refused: `index` is the event's position in the batch (-1: a fault of the helper). */
export interface SealFailure {
  batch: number;
  index: number;
  message: string;
}

const port = parentPort;
if (port) {
  const { memory, ctrl: ctrlBuffer, replies, layout } = workerData as SealSetup;
  const bytes = Buffer.from(memory);
  const view = new DataView(memory);
  const ctrl = new Int32Array(ctrlBuffer);
  let batch: { id: number; tree: StreamingRoot; prev: string | null; minLevel: number; failed: boolean } | null = null;

  const signal = (cell: number, value: number) => {
    Atomics.store(ctrl, cell, value);
    Atomics.notify(ctrl, cell);
  };
  const refuse = (id: number, index: number, message: string, state: 1 | 2) => {
    replies.postMessage({ batch: id, index, message } satisfies SealFailure);
    Atomics.store(ctrl, STATE, state);
    Atomics.notify(ctrl, DONE);
  };

  const chunk = (request: Extract<SealRequest, { op: "chunk" }>): void => {
    if (!batch || batch.id !== request.batch || batch.failed) return;
    const current = batch;
    const { input, results, subtrees } = slotOffsets(layout, request.slot);
    const records = bytes.toString("utf8", input, input + request.bytes).split("\u0000");
    let completed = 0;
    const onComplete = (level: number, index: number, hash: string) => {
      if (level < current.minLevel) return;
      const at = subtrees + 8 + completed * SUBTREE_BYTES;
      view.setUint32(at, level);
      view.setFloat64(at + 8, index);
      bytes.write(hash, at + 16, 32, "latin1");
      completed += 1;
    };
    let ts = "";
    for (let i = 0; i < request.count; i++) {
      const record = records[i]!;
      const type = EVENT_TYPES[record.charCodeAt(0) - TYPE_BASE]!;
      let from = 1;
      if (record.charCodeAt(1) === TS_MARK) {
        ts = record.slice(2, 2 + TS_LENGTH);
        from = 2 + TS_LENGTH;
      }
      const payloadText = record.slice(from);
      // A chunk the other thread validated (store/ledger/bulk-seal.ts VALIDATED_HERE_EVERY) is not parsed again.
      const problem = request.validated ? null : validateEvent(type, JSON.parse(payloadText));
      if (problem) {
        current.failed = true;
        refuse(current.id, request.first + i, problem, 1);
        return;
      }
      const seq = current.tree.size;
      const sealed = sealPayloadText({ seq, type, ts, prev: current.prev }, payloadText);
      const at = results + i * RESULT_BYTES;
      bytes.write(sealed.hash, at, HASH_TEXT_BYTES, "latin1");
      bytes.write(sealed.leaf, at + HASH_TEXT_BYTES, 32, "latin1");
      current.tree.appendLeafHash(sealed.leaf, onComplete);
      current.prev = sealed.hash;
    }
    view.setUint32(subtrees, completed);
    signal(DONE, request.chunk + 1);
  };

  port.on("message", (request: SealRequest) => {
    try {
      if (request.op === "begin") {
        batch = {
          id: request.batch,
          tree: StreamingRoot.resume(request.size, request.edge),
          prev: request.prev,
          minLevel: request.minLevel,
          failed: false,
        };
      } else if (request.op === "chunk") chunk(request);
      else signal(ENDED, request.batch);
    } catch (error) {
      if (batch) batch.failed = true;
      refuse(request.batch, -1, `append helper fault: ${(error as Error).message}`, 2);
      if (request.op === "end") signal(ENDED, request.batch);
    }
  });
}
