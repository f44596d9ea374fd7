/**
 * Stage the streamed outputs on a second core: the main thread's handle on the pass helper thread
 * (./output-stager-worker.ts), which folds the ledger's tree from the leaf hashes it is sent and
 * validates, hashes and writes the streamed outputs while the main thread reads the ledger, hashes
 * each entry into its leaf and gives the rows.
 *
 * Text travels through shared memory cut into slots: each output fills a slot and posts only its number and length, which costs a quarter of posting strings. A slot is the
 * worker's until the message is acknowledged; `full` says fewer free slots remain than one per
 * stream, and `room()` resolves once enough are back, which bounds what is in flight. A worker that
 * dies fails every pending and later call: the pass fails, it never hangs.
 */
import { Worker, type WorkerOptions } from "node:worker_threads";
import type { FileDigest } from "../../store/digest-cache.ts";
import { DataError } from "../validate/data-error.ts";
import { frameRecord } from "./record-frames.ts";
import { LEAF_HASH_TAG, type TreeEnd, type TreeStart } from "./leaf-tree.ts";
import type {
  OutputCheck,
  OutputResume,
  TableOfItems,
  WorkerAnswer,
  WorkerError,
  WorkerRequest,
  WorkerSetup,
} from "./output-stager-worker.ts";

/**
 * A quarter of a MB: a slot is posted once full, so a smaller slot is only more (cheap) messages,
 * while every slot is resident memory for the whole pass: with 1 MB slots and the regeneration's
 * streamed outputs, the slots alone were over 30 MB of its peak.
 */
const SLOT_BYTES = 1 << 18;
/** The helper's old generation when the parent names no heap limit (see the constructor). */
const HELPER_OLD_GENERATION_MB = 160;
/** Slots beyond one per stream: how far the reader may run ahead of the helper. */
const SPARE_SLOTS = 16;

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** The slot a stream is filling, and how many bytes of it are used. */
interface Stream {
  slot: number | null;
  used: number;
}

/** The byte that opens a leaf given by its hash in the tree's stream (./leaf-tree.ts). */
const LEAF_HASH_MARK = String.fromCharCode(LEAF_HASH_TAG);

const HEAP_LIMIT = /^--max[-_]old[-_]space[-_]size=(\d+)$/;

/**
 * How the helper is started from the parent's flags. A parent started through tsx (`--import tsx`)
 * gives the helper its flags without that loader (`execArgv`): the helper's modules need no more
 * than Node's own type stripping, and start in two thirds of the time without it. A worker refuses
 * V8's flags among its own, so a heap limit is left out and becomes `maxOldGenerationSizeMb` (from
 * the flags or NODE_OPTIONS, either spelling); a worker that still refuses what is left is started
 * with the parent's flags as they are (OutputStager). Any other parent is inherited as it is.
 */
export function helperStart(
  execArgv: readonly string[],
  nodeOptions = "",
): { execArgv?: string[]; maxOldGenerationSizeMb?: number } {
  let maxOld: number | undefined;
  for (const flag of [...nodeOptions.split(/\s+/), ...execArgv]) {
    const heap = HEAP_LIMIT.exec(flag);
    if (heap) maxOld = Number(heap[1]);
  }
  const limit = maxOld !== undefined ? { maxOldGenerationSizeMb: maxOld } : {};
  const loader = (flag: string, next?: string) =>
    (/^--(import|require|loader)$/.test(flag) && /\btsx\b/.test(next ?? "")) ||
    /^--(import|require|loader)=.*\btsx\b/.test(flag);
  if (!execArgv.some((flag, i) => loader(flag, execArgv[i + 1]))) return limit;
  const flags: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const flag = execArgv[i]!;
    if (loader(flag, execArgv[i + 1])) i += flag.includes("=") ? 0 : 1;
    else if (!HEAP_LIMIT.test(flag)) flags.push(flag);
  }
  return { execArgv: flags, ...limit };
}

/** A worker with `execArgv`, or, when it refuses one of them, with its parent's flags as they are. */
function startWorker(thread: URL, options: WorkerOptions, execArgv?: string[]): Worker {
  if (execArgv) {
    try {
      return new Worker(thread, { ...options, execArgv });
    } catch (error) {
      if ((error as { code?: string }).code !== "ERR_WORKER_INVALID_EXEC_ARGV") throw error;
    }
  }
  return new Worker(thread, options);
}

function errorOf(e: WorkerError): Error {
  return e.data ? new DataError(e.data.code, e.data.file, e.data.problem) : new Error(e.message);
}

export class OutputStager {
  readonly #worker: Worker;
  readonly #outputs: number;
  readonly #memory: Buffer;
  /** How many messages the helper has handled, counted by the helper as it goes (its acks wait for this thread's event loop). */
  readonly #handled: Int32Array;
  #posted = 0;
  readonly #free: number[];
  /** The slot (or null) of each message not yet acknowledged, in posting order. */
  readonly #inFlight: (number | null)[] = [];
  readonly #streams = new Map<number, Stream>();
  #failure: Error | null = null;
  #closing = false;
  #waiting: Pending | null = null;
  readonly #replies = new Map<number, Pending>();
  #nextReply = 1;
  #nextOutput = 1;

  /**
   * `outputs`: how many outputs will be opened (each stream gets two slots, plus SPARE_SLOTS).
   * `thread` is the helper's script (tests start others to see a dying helper handled).
   */
  constructor(outputs: number, thread: URL = new URL("./output-stager-worker.ts", import.meta.url)) {
    this.#outputs = outputs;
    const slots = 2 * (outputs + 1) + SPARE_SLOTS;
    this.#memory = Buffer.from(new SharedArrayBuffer(slots * SLOT_BYTES));
    this.#free = Array.from({ length: slots }, (_, i) => i);
    this.#handled = new Int32Array(new SharedArrayBuffer(4));
    const setup: WorkerSetup = {
      memory: this.#memory.buffer as SharedArrayBuffer,
      slotBytes: SLOT_BYTES,
      handled: this.#handled.buffer as SharedArrayBuffer,
    };
    // A small young generation keeps the helper's heap (and the process's peak memory) low; the
    // helper's garbage is short-lived text that a scavenge of this size handles well. Its old
    // generation is bounded too (or to the parent's limit, if lower): it keeps about 20 MB alive, but
    // a heap without a limit was left to grow to 130-145 MB before V8 collected it, which put the
    // 1M-event regeneration's peak over 512 MB in one run of three (bench/perf-notes.md).
    const { execArgv, maxOldGenerationSizeMb } = helperStart(process.execArgv, process.env.NODE_OPTIONS);
    const options = {
      workerData: setup,
      resourceLimits: {
        maxYoungGenerationSizeMb: 32,
        maxOldGenerationSizeMb: Math.min(maxOldGenerationSizeMb ?? Infinity, HELPER_OLD_GENERATION_MB),
      },
    };
    this.#worker = startWorker(thread, options, execArgv);
    this.#worker.on("message", (message: WorkerAnswer) => {
      if (message.op === "ack") return this.#acknowledged();
      const pending = this.#replies.get(message.reply);
      this.#replies.delete(message.reply);
      if ("error" in message) pending?.reject(errorOf(message.error));
      else pending?.resolve(message.value);
    });
    this.#worker.on("error", (error) => this.#fail(new Error(`the pass helper thread failed: ${error.message}`)));
    this.#worker.on("exit", (code) => {
      if (!this.#closing) this.#fail(new Error(`the pass helper thread stopped (exit code ${code})`));
    });
  }

  /** Why the helper failed (it died or could not start), or null. */
  get failure(): Error | null {
    return this.#failure;
  }

  /** Too few free slots for one more piece per stream: await `room()` before writing more. */
  get full(): boolean {
    return this.#free.length <= this.#streams.size;
  }

  room(): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (!this.full) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve: () => resolve(), reject };
    });
  }

  /**
   * Starts a streamed output written to `tmp`, validated by `check`, continuing the prefix `resume`
   * names when given; returns its handle. With `madeOf` (`rowsOf`: the handle of a JSON array output
   * opened before), the output is a CSV table opening with `head` whose records the helper writes
   * from that output's items: nothing is written to it but an empty closing text. Finish it after
   * that output. With `records` (its columns), the output is a JSON array the helper writes from the
   * records given to `writeRecord`, its opening and closing text included.
   */
  open(
    tmp: string,
    check: OutputCheck | null,
    resume?: OutputResume,
    madeOf?: TableOfItems,
    records?: readonly string[],
  ): number {
    return this.#openStream((id) => ({
      op: "open",
      id,
      tmp,
      check,
      ...(resume ? { resume } : {}),
      ...(madeOf ? { madeOf } : {}),
      ...(records ? { records } : {}),
    }));
  }

  write(id: number, text: string): void {
    if (text !== "") this.#append(id, text);
  }

  /** One record of an output opened with `records`: its cells in column order. */
  writeRecord(id: number, cells: readonly string[]): void {
    this.#append(id, frameRecord(cells));
  }

  /**
   * Starts the ledger's tree on the helper (./leaf-tree.ts), from `start` when given; returns its
   * handle. It counts as one of the outputs the stager was started for.
   */
  openTree(start?: TreeStart): number {
    return this.#openStream((id) => ({ op: "tree", id, ...(start ? { start } : {}) }));
  }

  /** Appends a leaf to the tree by its hash, a 32-character latin1 string (./leaf-tree.ts). */
  writeLeaf(id: number, leafHash: string): void {
    this.#append(id, `${LEAF_HASH_MARK}${leafHash}`, "latin1");
  }

  /** Appends a leaf to the tree by its input, 0x00 ‖ the entry's JCS text, for the helper to hash. */
  writeLeafInput(id: number, leafInput: string): void {
    this.#append(id, leafInput);
  }

  /**
   * The helper has caught up: no more than one piece per stream is waiting for it. The pass then
   * gives it work the main thread would do (a leaf to hash), which keeps both cores busy.
   */
  get spare(): boolean {
    return this.#posted - Atomics.load(this.#handled, 0) <= this.#streams.size;
  }

  /** The tree's size, root and edge once every leaf written before is folded. */
  async finishTree(id: number): Promise<TreeEnd> {
    return (await this.#finishStream(id)) as TreeEnd;
  }

  /**
   * Closes the output: its size and sha256, or its first validation or write problem. `end`, for an
   * output opened with `records`: the sink's closing text, which must be the one the helper wrote.
   */
  async finish(id: number, end?: string): Promise<FileDigest> {
    return (await this.#finishStream(id, end)) as FileDigest;
  }

  #openStream(request: (id: number) => WorkerRequest): number {
    if (this.#nextOutput > this.#outputs) throw new Error(`the pass helper was started for ${this.#outputs} output(s)`);
    const id = this.#nextOutput++;
    this.#post(request(id));
    this.#streams.set(id, { slot: null, used: 0 });
    return id;
  }

  #finishStream(id: number, end?: string): Promise<unknown> {
    this.#flush(id);
    this.#streams.delete(id);
    return this.#call((reply) => ({ op: "finish", id, reply, ...(end !== undefined ? { end } : {}) }));
  }

  /** Drops the output and removes its temporary file. */
  abort(id: number): void {
    const stream = this.#streams.get(id);
    this.#streams.delete(id);
    if (stream?.slot != null) this.#free.push(stream.slot);
    if (!this.#failure) this.#post({ op: "abort", id });
  }

  async close(): Promise<void> {
    this.#closing = true;
    await this.#worker.terminate();
  }

  #append(id: number, text: string, encoding: "utf8" | "latin1" = "utf8"): void {
    const stream = this.#streams.get(id);
    if (!stream) throw new Error(`output ${id} is not open`);
    // A UTF-16 unit takes at most 3 UTF-8 bytes.
    const most = text.length * 3;
    if (stream.slot !== null && most > SLOT_BYTES - stream.used) this.#flush(id);
    if (most > SLOT_BYTES) {
      // The helper reads a piece this large as UTF-8: only text travels this way, never leaf hashes.
      if (encoding !== "utf8") throw new Error(`a ${encoding} piece larger than a slot`);
      this.#post({ op: "text", id, text });
      return;
    }
    if (stream.slot === null) {
      const slot = this.#free.pop();
      if (slot === undefined) throw new Error("the pass helper has no free slot: the caller did not await room()");
      stream.slot = slot;
      stream.used = 0;
    }
    const at = stream.slot * SLOT_BYTES + stream.used;
    stream.used = at + this.#memory.write(text, at, encoding) - stream.slot * SLOT_BYTES;
  }

  /** Posts the stream's slot, if it holds anything. */
  #flush(id: number): void {
    const stream = this.#streams.get(id);
    if (!stream || stream.slot === null) return;
    const { slot, used } = stream;
    stream.slot = null;
    stream.used = 0;
    if (used === 0) this.#free.push(slot);
    else this.#post({ op: "bytes", id, slot, length: used }, slot);
  }

  #post(request: WorkerRequest, slot: number | null = null): void {
    if (this.#failure) throw this.#failure;
    this.#inFlight.push(slot);
    this.#posted += 1;
    this.#worker.postMessage(request);
  }

  /** The helper handled the oldest message: its slot is free again. */
  #acknowledged(): void {
    const slot = this.#inFlight.shift();
    if (slot != null) this.#free.push(slot);
    if (this.#waiting && !this.full) {
      const waiting = this.#waiting;
      this.#waiting = null;
      waiting.resolve(undefined);
    }
  }

  #call(request: (reply: number) => WorkerRequest): Promise<unknown> {
    const reply = this.#nextReply++;
    return new Promise((resolve, reject) => {
      this.#replies.set(reply, { resolve, reject });
      try {
        this.#post(request(reply));
      } catch (error) {
        this.#replies.delete(reply);
        reject(error as Error);
      }
    });
  }

  #fail(error: Error): void {
    if (this.#failure) return;
    this.#failure = error;
    this.#waiting?.reject(error);
    this.#waiting = null;
    for (const pending of this.#replies.values()) pending.reject(error);
    this.#replies.clear();
  }
}
