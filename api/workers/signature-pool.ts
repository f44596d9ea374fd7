/**
 * Signature verification on worker threads, so the event loop serves requests while signatures are
 * checked: one worker per core but the event loop's (at least one). A call goes to the worker with
 * the fewest questions waiting; each worker answers its inbox back to back with core/signature.ts
 * `verify`, so every answer is the one `verify` gives. A worker that cannot start, fails or exits
 * hands its questions — and every later one — to this thread: slower, never a different answer.
 *
 * Why not libuv's pool (node:crypto's callback form): it has 4 threads whatever the machine, set
 * only by an environment variable read before the program's first line; on 2 cores, 4 verifying
 * threads took the event loop's core and verify throughput fell (measured: 1.3k against 1.7k
 * requests/s with the pool cut to one thread).
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { SignatureQuestion } from "../../core/signature-verdicts.ts";
import { verify } from "../../core/signature.ts";
import type { PoolReply, PoolRequest } from "./signature-pool-worker.ts";

interface Pending {
  questions: readonly SignatureQuestion[];
  resolve: (answers: boolean[]) => void;
}

class PoolWorker {
  readonly worker: Worker;
  readonly pending = new Map<number, Pending>();
  waiting = 0;
  dead = false;

  constructor(onDeath: (w: PoolWorker) => void) {
    this.worker = new Worker(new URL("./signature-pool-worker.ts", import.meta.url));
    this.worker.on("message", ({ id, answers }: PoolReply) => {
      const job = this.pending.get(id);
      if (!job) return;
      this.pending.delete(id);
      this.waiting -= job.questions.length;
      if (this.pending.size === 0) this.worker.unref();
      job.resolve(answers);
    });
    this.worker.on("error", () => onDeath(this));
    this.worker.on("exit", () => onDeath(this));
    // After the listeners: adding a "message" listener refs the worker again. An idle pool must
    // not keep a process alive (`npm run openapi` builds the app and exits).
    this.worker.unref();
  }

  post(id: number, job: Pending): void {
    if (this.pending.size === 0) this.worker.ref(); // a pending answer keeps the process alive
    this.pending.set(id, job);
    this.waiting += job.questions.length;
    this.worker.postMessage({ id, questions: [...job.questions] } satisfies PoolRequest);
  }
}

let shared: SignaturePool | undefined;

export class SignaturePool {
  readonly #workers: PoolWorker[] = [];
  #next = 0;

  /** The process's pool, started on first use. */
  static shared(): SignaturePool {
    shared ??= new SignaturePool(Math.max(1, availableParallelism() - 1));
    return shared;
  }

  constructor(threads: number) {
    for (let i = 0; i < threads; i++) {
      try {
        this.#workers.push(new PoolWorker((w) => this.#bury(w)));
      } catch {
        break; // no worker threads here: this thread verifies
      }
    }
  }

  /** Workers running (0: this thread verifies). */
  get threads(): number {
    return this.#workers.length;
  }

  /** `verify`'s answer to each question, in order. Never rejects. */
  verify(questions: readonly SignatureQuestion[]): Promise<boolean[]> {
    if (questions.length === 0) return Promise.resolve([]);
    const worker = this.#leastBusy();
    if (!worker) return Promise.resolve(verifyHere(questions));
    return new Promise((resolve) => worker.post(this.#next++, { questions, resolve }));
  }

  /** Stops the workers; later calls verify on this thread. */
  async close(): Promise<void> {
    const workers = this.#workers.splice(0);
    await Promise.all(workers.map((w) => w.worker.terminate()));
    for (const w of workers) this.#bury(w);
  }

  #leastBusy(): PoolWorker | undefined {
    let best: PoolWorker | undefined;
    for (const w of this.#workers) if (!best || w.waiting < best.waiting) best = w;
    return best;
  }

  #bury(w: PoolWorker): void {
    if (w.dead) return;
    w.dead = true;
    const i = this.#workers.indexOf(w);
    if (i >= 0) this.#workers.splice(i, 1);
    for (const job of w.pending.values()) job.resolve(verifyHere(job.questions));
    w.pending.clear();
  }
}

function verifyHere(questions: readonly SignatureQuestion[]): boolean[] {
  return questions.map((q) => verify(q.algorithm, q.publicKeyHex, q.message, q.signatureHex));
}
