/**
 * The migration snapshot's root on two threads (a LeafRooter for core/migration/export-bytes.ts):
 * the leaf inputs are written to shared memory, a helper thread (leaf-root-worker.ts) streams the
 * root of the tree's right subtree — leaves [k, n), k the largest power of two below n — while this
 * thread streams the left one, and the root is the node hash of the two. That is RFC 9162's own
 * split of a tree, so the root is the one-thread root; each leaf is still hashed once.
 *
 * Small trees stay on this thread. A helper that cannot start, refuses a job or stops answering
 * (Atomics.wait with a deadline) is given up, and this thread hashes the right subtree itself.
 */
import { Worker } from "node:worker_threads";
import { StreamingRoot } from "../core/merkle-stream.ts";
import { nodeHash } from "../core/merkle.ts";
import { STREAMING_ROOTER, type LeafRooter } from "../core/migration/export-bytes.ts";
import { CTRL_BYTES, DONE, FAILED, ROOT_AT, type LeafRootJob, type LeafRootSetup } from "./leaf-root-worker.ts";

/** Below this many leaves the tree is hashed on this thread (a job's hand-over is not worth it). */
export const TWO_THREAD_MIN_LEAVES = 1 << 14;
/** The longest the helper may take over one job before this thread hashes the right subtree itself. */
const DEADLINE_MS = 60_000;

let shared: LeafRootHelper | null | undefined;
/** Right subtrees the helper thread has hashed (for tests: the two-thread path did run). */
let helperRoots = 0;
export function leafRootHelperRoots(): number {
  return helperRoots;
}

class LeafRootHelper {
  readonly #worker: Worker;
  readonly #ctrl: Int32Array;
  readonly #root: Uint8Array;
  #job = 0;
  #broken = false;

  /** The thread's helper, started on first use; null when it cannot run. */
  static shared(): LeafRootHelper | null {
    if (shared === undefined) {
      try {
        shared = new LeafRootHelper();
      } catch {
        shared = null;
      }
    }
    if (shared && shared.#broken) shared = null;
    return shared;
  }

  private constructor() {
    const ctrl = new SharedArrayBuffer(CTRL_BYTES);
    this.#worker = new Worker(new URL("./leaf-root-worker.ts", import.meta.url), {
      workerData: { ctrl } satisfies LeafRootSetup,
    });
    this.#worker.unref();
    this.#worker.on("error", () => (this.#broken = true));
    this.#worker.on("exit", () => (this.#broken = true));
    this.#ctrl = new Int32Array(ctrl);
    this.#root = new Uint8Array(ctrl, ROOT_AT, 32);
  }

  /** Starts streaming the root of bytes [from, to) of `memory`; `result()` waits for it (null: do it yourself). */
  start(memory: SharedArrayBuffer, from: number, to: number): { result: () => Uint8Array | null } {
    const job = ++this.#job;
    this.#worker.postMessage({ job, memory, from, to } satisfies LeafRootJob);
    return { result: () => this.#wait(job) };
  }

  #wait(job: number): Uint8Array | null {
    const since = performance.now();
    for (;;) {
      const done = Atomics.load(this.#ctrl, DONE);
      if (done === job) {
        helperRoots += 1;
        return this.#root.slice();
      }
      if (Atomics.load(this.#ctrl, FAILED) === job || this.#broken || performance.now() - since > DEADLINE_MS) {
        this.#broken = true;
        return null;
      }
      Atomics.wait(this.#ctrl, DONE, done, 1000);
    }
  }
}

/** Leaf inputs in shared memory, the right subtree hashed on the helper thread (when there is one). */
export const TWO_THREAD_ROOTER: LeafRooter = {
  allocate: (length) => Buffer.from(new SharedArrayBuffer(length)),
  root(leafInputs, offsets, count) {
    const memory = leafInputs.buffer;
    const helper = count >= TWO_THREAD_MIN_LEAVES ? LeafRootHelper.shared() : null;
    if (!helper || !(memory instanceof SharedArrayBuffer)) return STREAMING_ROOTER.root(leafInputs, offsets, count);
    let k = 1;
    while (k * 2 < count) k *= 2;
    const split = offsets[k]!;
    const right = helper.start(memory, leafInputs.byteOffset + split, leafInputs.byteOffset + leafInputs.length);
    const leftStream = new StreamingRoot();
    leftStream.appendLeafInputs(leafInputs.subarray(0, split));
    const left = leftStream.root();
    let rightRoot = right.result();
    if (!rightRoot) {
      const rightStream = new StreamingRoot();
      rightStream.appendLeafInputs(leafInputs.subarray(split));
      rightRoot = rightStream.root();
    }
    return nodeHash(left, rightRoot);
  },
};

/** Starts the helper now (it loads while the export is scanned) when the tree will be large enough to use it. */
export function leafRooterFor(exportBytes: number): LeafRooter {
  // A converted line takes at least some 30 bytes of the export.
  if (exportBytes / 30 < TWO_THREAD_MIN_LEAVES) return STREAMING_ROOTER;
  LeafRootHelper.shared();
  return TWO_THREAD_ROOTER;
}
