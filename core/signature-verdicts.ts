/**
 * Signatures verified ahead, answered later synchronously.
 *
 * Why: a decision taken under the ledger's write lock (POST /avm/verify) must read its registry at
 * the tail, but a signature's verdict does not depend on the ledger — only the question of which
 * key to ask about does. So a request's signatures can be verified before the write, on other
 * threads, and the decision asks `verify` with the key it reads at the tail: a verdict for exactly
 * that algorithm, key, message and signature is reused; any other question (a key that changed in
 * between, a signature nobody foresaw) is verified there and then. Every answer is the one
 * core/signature.ts `verify` gives.
 */
import { verify, type SignatureAlgorithm } from "./signature.ts";

/** One signature to check: `signatureHex` by `publicKeyHex` over `message`. */
export interface SignatureQuestion {
  algorithm: SignatureAlgorithm;
  publicKeyHex: string;
  message: Uint8Array;
  signatureHex: string;
}

export class SignatureVerdicts {
  readonly #questions: readonly SignatureQuestion[];
  readonly #answers: readonly boolean[];

  /** `answers[i]` is `verify`'s answer to `questions[i]`, computed elsewhere. */
  constructor(questions: readonly SignatureQuestion[], answers: readonly boolean[]) {
    if (questions.length !== answers.length)
      throw new Error(`${questions.length} signature questions, ${answers.length} answers`);
    this.#questions = questions;
    this.#answers = answers;
  }

  /** No verdicts: every question is verified when asked. */
  static none(): SignatureVerdicts {
    return new SignatureVerdicts([], []);
  }

  /** core/signature.ts `verify`, answered from the verdict on exactly these four values when there is one. */
  verify(algorithm: SignatureAlgorithm, publicKeyHex: string, message: Uint8Array, signatureHex: string): boolean {
    for (let i = 0; i < this.#questions.length; i++) {
      const q = this.#questions[i]!;
      if (
        q.algorithm === algorithm &&
        q.publicKeyHex === publicKeyHex &&
        q.signatureHex === signatureHex &&
        sameBytes(q.message, message)
      )
        return this.#answers[i]!;
    }
    return verify(algorithm, publicKeyHex, message, signatureHex);
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a === b) return true;
  if (!(b instanceof Uint8Array) || a.byteLength !== b.byteLength) return false;
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}
