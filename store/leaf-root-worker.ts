/**
 * The helper thread of store/leaf-root-helper.ts: the RFC 9162 root of leaf inputs (0x00 ‖ leaf,
 * back to back) that another thread wrote to shared memory, streamed as core/merkle-stream.ts does
 * it. The root goes back through shared memory, the end of the job through `ctrl` (Atomics).
 */
import { parentPort, workerData } from "node:worker_threads";
import { StreamingRoot } from "../core/merkle-stream.ts";

export interface LeafRootSetup {
  /** Int32 cells DONE and FAILED (the id of the last job finished or refused), then 32 bytes of root. */
  ctrl: SharedArrayBuffer;
}

export interface LeafRootJob {
  job: number;
  memory: SharedArrayBuffer;
  /** The leaf inputs are bytes [from, to) of `memory`. */
  from: number;
  to: number;
}

export const DONE = 0;
export const FAILED = 1;
export const ROOT_AT = 8;
export const CTRL_BYTES = ROOT_AT + 32;

const port = parentPort;
if (port) {
  const { ctrl: ctrlBuffer } = workerData as LeafRootSetup;
  const ctrl = new Int32Array(ctrlBuffer);
  const root = new Uint8Array(ctrlBuffer, ROOT_AT, 32);
  port.on("message", (job: LeafRootJob) => {
    try {
      const stream = new StreamingRoot();
      stream.appendLeafInputs(Buffer.from(job.memory, job.from, job.to - job.from));
      root.set(stream.root());
      Atomics.store(ctrl, DONE, job.job);
    } catch {
      Atomics.store(ctrl, FAILED, job.job);
    }
    // The waiter sleeps on DONE; a refusal wakes it too.
    Atomics.notify(ctrl, DONE);
  });
}
