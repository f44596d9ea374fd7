/**
 * A signature pool worker (started by signature-pool.ts): answers each batch of questions with
 * core/signature.ts `verify`, in order, back to back.
 */
import { parentPort } from "node:worker_threads";
import type { SignatureQuestion } from "../../core/signature-verdicts.ts";
import { verify } from "../../core/signature.ts";

export interface PoolRequest {
  id: number;
  questions: SignatureQuestion[];
}

export interface PoolReply {
  id: number;
  answers: boolean[];
}

parentPort?.on("message", ({ id, questions }: PoolRequest) => {
  const answers = questions.map((q) => verify(q.algorithm, q.publicKeyHex, q.message, q.signatureHex));
  parentPort!.postMessage({ id, answers } satisfies PoolReply);
});
