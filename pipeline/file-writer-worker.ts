/**
 * The helper thread of pipeline/file-writer.ts: writes the files another thread hands it (in batches), in order.
 * Progress goes back through `ctrl` (Atomics): READY is set once the thread runs, WRITTEN counts the
 * files handled, FAILED is set once a write fails (the error on `errors`) or the writer aborts, and
 * every later file is skipped.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { parentPort, workerData, type MessagePort } from "node:worker_threads";

export interface FileWriterSetup {
  /** Int32 cells WRITTEN, FAILED and READY. */
  ctrl: SharedArrayBuffer;
  /** Where the first failure is posted, as `{ code, message }`. */
  errors: MessagePort;
}

export interface FileWriteJob {
  path: string;
  bytes: Uint8Array;
}

export const WRITTEN = 0;
export const FAILED = 1;
export const READY = 2;
export const CTRL_BYTES = 12;

const port = parentPort;
if (port) {
  const { ctrl: ctrlBuffer, errors } = workerData as FileWriterSetup;
  const ctrl = new Int32Array(ctrlBuffer);
  const made = new Set<string>();
  const writeOne = (job: FileWriteJob): void => {
    if (Atomics.load(ctrl, FAILED) === 0) {
      try {
        const folder = dirname(job.path);
        if (!made.has(folder)) {
          mkdirSync(folder, { recursive: true });
          made.add(folder);
        }
        writeFileSync(job.path, job.bytes);
      } catch (error) {
        const e = error as NodeJS.ErrnoException;
        errors.postMessage({ code: e.code ?? "write-failed", message: e.message });
        Atomics.store(ctrl, FAILED, 1);
      }
    }
    Atomics.add(ctrl, WRITTEN, 1);
    // The writer sleeps on WRITTEN when it is far ahead or finishing.
    Atomics.notify(ctrl, WRITTEN);
  };
  port.on("message", (jobs: FileWriteJob[]) => {
    for (const job of jobs) writeOne(job);
  });
  Atomics.store(ctrl, READY, 1);
  port.postMessage("ready");
}
