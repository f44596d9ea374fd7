/**
 * The signed messages of a consensus session — pinned forms, each the RFC 8785 JCS of exactly the
 * members named, so any signer in any language produces the same bytes (vectors in the tests):
 *
 * - a vote: JCS({participant, session_id, vote});
 * - a participating model's signature of the proof: JCS of the proof's seven inputs
 *   {delib_id, question, context, rounds, consensus, gi_score, constitutional_check};
 * - the validator's signature: JCS of those inputs plus `model_signatures`, the four
 *   {participant, public_key, signature} in the session's participant order.
 */
import { canonicalBytes } from "../canonical.ts";
import type { ModelSignature, ProofInputs } from "../schemas/consensus.ts";

export function voteMessage(v: { participant: string; session_id: string; vote: string }): Uint8Array {
  return canonicalBytes({ participant: v.participant, session_id: v.session_id, vote: v.vote });
}

/** Exactly the seven inputs, whatever else the object carries. */
export function proofInputsOf(p: ProofInputs): ProofInputs {
  return {
    delib_id: p.delib_id,
    question: p.question,
    context: p.context,
    rounds: p.rounds,
    consensus: p.consensus,
    gi_score: p.gi_score,
    constitutional_check: p.constitutional_check,
  };
}

export function modelMessage(inputs: ProofInputs): Uint8Array {
  return canonicalBytes(proofInputsOf(inputs));
}

export function validatorMessage(inputs: ProofInputs, modelSignatures: readonly ModelSignature[]): Uint8Array {
  return canonicalBytes({
    ...proofInputsOf(inputs),
    model_signatures: modelSignatures.map((m) => ({
      participant: m.participant,
      public_key: m.public_key,
      signature: m.signature,
    })),
  });
}
