/**
 * Writes many new files, on this thread or on a helper thread (./file-writer-worker.ts). Creating a
 * file costs the kernel far more than writing its bytes, and a full tile build creates thousands:
 * on the helper thread that cost runs on another core while this thread reads and hashes entries.
 *
 * Files are handed over in batches, their buffers transferred, not copied. Until the helper runs
 * (its start takes a while, longer on a busy machine) they are kept; should MAX_AHEAD pile up
 * first, or the build end, this thread writes them itself, so a helper slow to start costs little. At most MAX_AHEAD files are queued: the writer
 * waits (Atomics.wait) when it is that far ahead, and `finish` waits for every file. A helper that
 * stops answering fails the build (`writer-stalled`) rather than hanging it; `abort` stops it and
 * waits until it has let go of every queued file, so the caller can remove what was written
 * without a write landing afterwards.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from "node:worker_threads";
import { CodedError } from "../core/errors.ts";
import { CTRL_BYTES, FAILED, READY, WRITTEN, type FileWriteJob, type FileWriterSetup } from "./file-writer-worker.ts";

/** The file system's code (ENOSPC, EACCES, …) of a failed write, or `writer-stalled`. */
export class FileWriteError extends CodedError<string> {}

export interface FileWriter {
  /** Writes `bytes` as the new file `path`, creating its folders. `bytes` may be handed to the helper thread (detached): do not use it afterwards. */
  write(path: string, bytes: Uint8Array): void;
  /** Returns once every file is written; throws the first failure. */
  finish(): void;
  /** Stops: returns once no file will be written any more (those already written stay). */
  abort(): void;
  /** Resolves once files are handed to the helper thread (at once without one). */
  whenReady(): Promise<void>;
  /** Files the helper thread wrote (or skipped after a failure). */
  readonly handedOver: number;
}

/** Files queued ahead of the helper at most (some 20 MB of tiles and bundles): room to even out a helper slowed for a while. */
const MAX_AHEAD = 1024;
/** Files are handed over in batches (each message wakes the helper: a system call or two). */
const BATCH_FILES = 32;
const BATCH_BYTES = 1 << 20;
/** The longest the helper may go without finishing a file. */
const STALL_MS = 60_000;
/** FAILED cell: 1 a write failed, 2 the writer aborted. */
const ABORTED = 2;

/** A writer on a helper thread when `background` (and a thread can start), else on this one. */
export function openFileWriter(background: boolean): FileWriter {
  if (!background) return new DirectFileWriter();
  try {
    return new ThreadFileWriter();
  } catch {
    return new DirectFileWriter();
  }
}

class DirectFileWriter implements FileWriter {
  readonly #made = new Set<string>();

  write(path: string, bytes: Uint8Array): void {
    try {
      const folder = dirname(path);
      if (!this.#made.has(folder)) {
        mkdirSync(folder, { recursive: true });
        this.#made.add(folder);
      }
      writeFileSync(path, bytes);
    } catch (error) {
      const e = error as NodeJS.ErrnoException;
      throw new FileWriteError(e.code ?? "write-failed", e.message);
    }
  }

  finish(): void {}

  abort(): void {}

  whenReady(): Promise<void> {
    return Promise.resolve();
  }

  get handedOver(): number {
    return 0;
  }
}

class ThreadFileWriter implements FileWriter {
  readonly #worker: Worker;
  readonly #ctrl: Int32Array;
  readonly #errors: MessagePort;
  /** Files handed over to the helper. */
  #posted = 0;
  /** Files to hand over next (all of them until the helper runs). */
  #batch: FileWriteJob[] = [];
  #batchBytes = 0;
  #transfer: ArrayBuffer[] = [];
  #closed = false;
  /** Writes the batch when the helper has not started by the time it is full or the build ends. */
  readonly #direct = new DirectFileWriter();
  #ready = false;

  constructor() {
    const ctrl = new SharedArrayBuffer(CTRL_BYTES);
    const { port1, port2 } = new MessageChannel();
    this.#worker = new Worker(new URL("./file-writer-worker.ts", import.meta.url), {
      workerData: { ctrl, errors: port2 } satisfies FileWriterSetup,
      transferList: [port2],
    });
    this.#worker.unref();
    this.#ctrl = new Int32Array(ctrl);
    this.#errors = port1;
  }

  whenReady(): Promise<void> {
    return new Promise((resolve) => this.#worker.once("message", () => resolve()));
  }

  get handedOver(): number {
    return Atomics.load(this.#ctrl, WRITTEN);
  }

  write(path: string, bytes: Uint8Array): void {
    if (Atomics.load(this.#ctrl, FAILED) !== 0) this.#throwFailure();
    // Hand the bytes over when they own their whole buffer; a view into a larger one is copied first
    // (posting the view would copy the whole buffer under it).
    const own =
      bytes.buffer instanceof ArrayBuffer &&
      bytes.byteOffset === 0 &&
      bytes.byteLength === bytes.buffer.byteLength &&
      !this.#transfer.includes(bytes.buffer);
    const handed = own ? bytes : new Uint8Array(bytes);
    this.#transfer.push(handed.buffer as ArrayBuffer);
    this.#batch.push({ path, bytes: handed });
    this.#batchBytes += bytes.byteLength;
    if (!this.#isReady()) {
      // Kept until the helper runs; a helper that takes too long to start costs this thread the writes.
      if (this.#batch.length >= MAX_AHEAD) this.#writeBatchHere();
      return;
    }
    if (this.#batch.length >= BATCH_FILES || this.#batchBytes >= BATCH_BYTES) this.#flush();
    while (this.#posted - Atomics.load(this.#ctrl, WRITTEN) > MAX_AHEAD) this.#waitForProgress();
  }

  #isReady(): boolean {
    if (!this.#ready) this.#ready = Atomics.load(this.#ctrl, READY) === 1;
    return this.#ready;
  }

  #flush(): void {
    if (this.#batch.length === 0) return;
    this.#worker.postMessage(this.#batch, this.#transfer);
    this.#posted += this.#batch.length;
    this.#clearBatch();
  }

  #writeBatchHere(): void {
    for (const job of this.#batch) this.#direct.write(job.path, job.bytes);
    this.#clearBatch();
  }

  #clearBatch(): void {
    this.#batch = [];
    this.#batchBytes = 0;
    this.#transfer = [];
  }

  finish(): void {
    try {
      if (this.#isReady()) this.#flush();
      else this.#writeBatchHere();
      while (Atomics.load(this.#ctrl, WRITTEN) < this.#posted) this.#waitForProgress();
      if (Atomics.load(this.#ctrl, FAILED) !== 0) this.#throwFailure();
    } finally {
      this.#close();
    }
  }

  abort(): void {
    if (this.#closed) return;
    Atomics.compareExchange(this.#ctrl, FAILED, 0, ABORTED);
    // Only what was handed over is waited for; the batch not yet sent is dropped.
    this.#clearBatch();
    try {
      // The helper skips every file still queued; once it has counted them all, none can land later.
      while (Atomics.load(this.#ctrl, WRITTEN) < this.#posted) this.#waitForProgress();
    } catch {
      // Stalled: terminating is all that is left.
    } finally {
      this.#close();
    }
  }

  #waitForProgress(): void {
    const written = Atomics.load(this.#ctrl, WRITTEN);
    if (Atomics.wait(this.#ctrl, WRITTEN, written, STALL_MS) === "timed-out") {
      throw new FileWriteError(
        "writer-stalled",
        `the file writer thread wrote nothing for ${STALL_MS / 1000} s (${written} of ${this.#posted} files written)`,
      );
    }
  }

  #throwFailure(): never {
    const failure = receiveMessageOnPort(this.#errors)?.message as { code: string; message: string } | undefined;
    throw new FileWriteError(failure?.code ?? "write-failed", failure?.message ?? "the file writer thread failed");
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#errors.close();
    void this.#worker.terminate();
  }
}
