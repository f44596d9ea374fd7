/**
 * The opt-in bulk append path (Ledger.appendBulk, store/ledger/ledger.ts): a large batch sealed on two threads. This
 * thread canonicalizes and inserts; the seal worker (bulk-seal-worker.ts) hashes, chains and
 * extends the tree, chunk by chunk through shared memory; the two split the payloads' validation
 * (VALIDATED_HERE_EVERY). Waits are Atomics.wait with a
 * deadline, so a worker that stops answering fails the append instead of hanging it.
 */
import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from "node:worker_threads";
import { LedgerAppendError } from "../../core/ledger/store.ts";
import {
  DONE,
  ENDED,
  HASH_TEXT_BYTES,
  RESULT_BYTES,
  STATE,
  SUBTREE_BYTES,
  TS_MARK,
  slotOffsets,
  typeCode,
  type SealFailure,
  type SealLayout,
  type SealRequest,
  type SealSetup,
} from "./bulk-seal-worker.ts";

/**
 * Five slots (about 21 MB of shared memory, taken on the first bulk append): the helper seals up to
 * four chunks ahead while this thread stores the fifth. Both threads are busy for most of a batch,
 * and a queue of two chunks left this thread waiting whenever the helper paused (a collection).
 */
const LAYOUT: SealLayout = { slots: 5, inputBytes: 4 << 20, chunk: 1024 };
/**
 * Every second chunk's payloads are validated on this thread, the others' on the helper. With all
 * of it on the helper, the helper was the slower of the two (this thread waited ~100 ms of a
 * 100,000-event batch's ~570); validating an object here costs less than parsing its text and
 * validating it there, and halves evened the threads (bench/README.md, core).
 */
const VALIDATED_HERE_EVERY = 2;
/** The longest the helper may go without progress before the append gives up on it. */
const DEADLINE_MS = 60_000;

/** One event as this thread hands it over: its payload already canonical (the sink may hand in a richer record). */
export interface PreparedEvent {
  type: string;
  ts: string;
  /** The payload's JCS text. */
  payload: string;
}

export interface BatchStart {
  /** Entries already in the log, the last one's hash, and the right edge of its tree. */
  size: number;
  prev: string | null;
  edge: readonly Uint8Array[];
  /** Subtrees of at least this height are reported to `storeSubtree`. */
  minLevel: number;
}

export interface BatchSink<E extends PreparedEvent> {
  /**
   * Prepares event i (its payload canonical); throws a LedgerAppendError to refuse it. With
   * `validate`, also checks its payload against its type's schema (the helper skips that chunk's).
   */
  prepare(i: number, validate: boolean): E;
  /** Stores event i, sealed: its hash (`sha256:<hex>`) and its 32-byte leaf (the sink may keep it). */
  store(i: number, event: E, hash: string, leaf: Uint8Array): void;
  /** A completed subtree of at least `minLevel`: its hash (a copy the sink may keep). */
  storeSubtree(level: number, index: number, hash: Uint8Array): void;
}

let shared: BulkSealer | null | undefined;

export class BulkSealer {
  readonly #worker: Worker;
  readonly #memory: Buffer;
  readonly #view: DataView;
  readonly #ctrl: Int32Array;
  readonly #replies: MessagePort;
  #batch = 0;
  #broken: string | null = null;

  /** The thread's helper, started on first use; null when it cannot run (appends stay on one thread). */
  static shared(): BulkSealer | null {
    if (shared === undefined) {
      try {
        shared = new BulkSealer();
      } catch {
        shared = null;
      }
    }
    if (shared && shared.#broken) shared = null;
    return shared;
  }

  private constructor() {
    const memory = new SharedArrayBuffer(slotOffsets(LAYOUT, LAYOUT.slots - 1).end);
    const ctrl = new SharedArrayBuffer(16);
    const channel = new MessageChannel();
    const setup: SealSetup = { memory, ctrl, replies: channel.port2, layout: LAYOUT };
    this.#worker = new Worker(new URL("./bulk-seal-worker.ts", import.meta.url), {
      workerData: setup,
      transferList: [channel.port2],
    });
    this.#worker.unref();
    this.#worker.on("error", (error) => (this.#broken = error.message));
    this.#worker.on("exit", () => (this.#broken ??= "exited"));
    this.#memory = Buffer.from(memory);
    this.#view = new DataView(memory);
    this.#ctrl = new Int32Array(ctrl);
    this.#replies = channel.port1;
    this.#replies.unref();
  }

  /** Runs one batch of `count` events through the helper. Throws what `sink` or the helper refuses. */
  run<E extends PreparedEvent>(start: BatchStart, count: number, sink: BatchSink<E>): void {
    const batch = ++this.#batch;
    Atomics.store(this.#ctrl, DONE, 0);
    Atomics.store(this.#ctrl, STATE, 0);
    while (receiveMessageOnPort(this.#replies)); // nothing stale from an earlier batch
    this.#post({
      op: "begin",
      batch,
      size: start.size,
      prev: start.prev,
      edge: [...start.edge],
      minLevel: start.minLevel,
    });
    const chunks: { first: number; prepared: E[] }[] = [];
    let next = 0;
    const memory = this.#memory;
    const fill = (k: number) => {
      const slot = k % LAYOUT.slots;
      const { input } = slotOffsets(LAYOUT, slot);
      const prepared: E[] = [];
      const first = next;
      const validated = k % VALIDATED_HERE_EVERY === 1;
      let used = 0;
      let chunkTs = "";
      while (next < count && prepared.length < LAYOUT.chunk) {
        const event = sink.prepare(next, validated);
        // A UTF-16 unit takes at most 3 UTF-8 bytes; an empty slot always fits one event (the
        // ledger's payload limit is well below a slot).
        const most = (event.type.length + event.ts.length + event.payload.length) * 3 + 3;
        if (prepared.length > 0 && used + most > LAYOUT.inputBytes) break;
        // A record (bulk-seal-worker.ts): the type's code, the ts when it differs from the previous
        // record's (0x01 then 24 ASCII characters), the payload text, 0x00.
        let at = input + used;
        memory[at++] = typeCode(event.type);
        if (event.ts !== chunkTs) {
          memory[at++] = TS_MARK;
          at += memory.write(event.ts, at, "latin1");
          chunkTs = event.ts;
        }
        at += memory.write(event.payload, at);
        memory[at++] = 0x00;
        used = at - input;
        prepared.push(event);
        next += 1;
      }
      chunks[k] = { first, prepared };
      this.#post({ op: "chunk", batch, chunk: k, slot, first, count: prepared.length, bytes: used, validated });
    };
    try {
      for (let k = 0; k < LAYOUT.slots - 1 && next < count; k++) fill(k);
      for (let k = 0; chunks[k]; k++) {
        if (next < count) fill(k + LAYOUT.slots - 1);
        this.#wait(DONE, (done) => done > k, batch);
        const { first, prepared } = chunks[k]!;
        const { results, subtrees } = slotOffsets(LAYOUT, k % LAYOUT.slots);
        // The chunk's results copied out of the shared slot in one go; each leaf is a view of the copy.
        const block = new Uint8Array(prepared.length * RESULT_BYTES);
        block.set(memory.subarray(results, results + block.length));
        for (let i = 0; i < prepared.length; i++) {
          const at = i * RESULT_BYTES;
          sink.store(
            first + i,
            prepared[i]!,
            memory.toString("latin1", results + at, results + at + HASH_TEXT_BYTES),
            block.subarray(at + HASH_TEXT_BYTES, at + RESULT_BYTES),
          );
        }
        const completed = this.#view.getUint32(subtrees);
        for (let j = 0; j < completed; j++) {
          const at = subtrees + 8 + j * SUBTREE_BYTES;
          sink.storeSubtree(
            this.#view.getUint32(at),
            this.#view.getFloat64(at + 8),
            new Uint8Array(this.#memory.subarray(at + 16, at + 48)),
          );
        }
        chunks[k] = undefined!;
      }
    } finally {
      // Wait until the helper has handled everything of this batch: the slots are ours again.
      if (!this.#broken) {
        this.#post({ op: "end", batch });
        this.#wait(ENDED, (ended) => ended === batch, null);
      }
    }
  }

  #post(request: SealRequest): void {
    if (this.#broken) throw new Error(`the append helper thread is gone (${this.#broken})`);
    this.#worker.postMessage(request);
  }

  /** Blocks until `ready(ctrl[cell])`; throws the helper's refusal (for `batch`) or fault. */
  #wait(cell: number, ready: (value: number) => boolean, batch: number | null): void {
    let last = Atomics.load(this.#ctrl, cell);
    let since = performance.now();
    while (!ready(last)) {
      if (batch !== null && Atomics.load(this.#ctrl, STATE) !== 0) throw this.#failure(batch);
      if (Atomics.wait(this.#ctrl, cell, last, 1000) === "timed-out") {
        if (this.#broken) throw new Error(`the append helper thread is gone (${this.#broken})`);
        if (performance.now() - since > DEADLINE_MS) {
          this.#broken = "stopped answering";
          throw new Error(`the append helper thread made no progress for ${DEADLINE_MS / 1000} s`);
        }
      }
      const now = Atomics.load(this.#ctrl, cell);
      if (now !== last) since = performance.now();
      last = now;
    }
  }

  #failure(batch: number): Error {
    for (let message = receiveMessageOnPort(this.#replies); message; message = receiveMessageOnPort(this.#replies)) {
      const failure = message.message as SealFailure;
      if (failure.batch !== batch) continue;
      if (failure.index >= 0) return new LedgerAppendError(failure.index, failure.message);
      this.#broken = failure.message;
      return new Error(failure.message);
    }
    return new Error("the append helper refused the batch without saying why");
  }
}
