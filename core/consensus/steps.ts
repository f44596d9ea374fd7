/**
 * The signed steps of a session, as a participant or validator takes them: each signs the message
 * its rule checks (messages.ts) against the registry as it stands and returns the decision
 * (decide.ts). The one session driver: the sample simulator (pipeline/seed/consensus.ts) and the
 * tests' sessions (test/support/core/consensus/sessions.ts) take every signed step through it, so a
 * change to what is signed is made once.
 */
import type { VoteValue } from "../schemas/consensus.ts";
import { decideModelSignature, decideValidatorSignature, decideVote } from "./decide.ts";
import { modelMessage, validatorMessage, voteMessage } from "./messages.ts";
import { proofModelSignatures, type ConsensusState } from "./model.ts";

/** Signs a message with one office's key (hex signature). */
export type OfficeSign = (message: Uint8Array) => string;

/** A participant's signed vote in an open session. */
export function signedVote(sessionId: string, participant: string, vote: VoteValue, sign: OfficeSign) {
  return { participant, vote, signature: sign(voteMessage({ participant, session_id: sessionId, vote })) };
}

export function voteStep(
  state: ConsensusState,
  sessionId: string,
  participant: string,
  vote: VoteValue,
  sign: OfficeSign,
): ReturnType<typeof decideVote> {
  return decideVote(state, sessionId, signedVote(sessionId, participant, vote, sign));
}

/** A participant's signature over the generated proof's inputs. */
export function signedModelSignature(state: ConsensusState, delibId: string, participant: string, sign: OfficeSign) {
  const proof = state.proofs.get(delibId);
  if (!proof) throw new Error(`no proof ${delibId} to sign`);
  return { participant, signature: sign(modelMessage(proof.inputs)) };
}

export function modelSignatureStep(
  state: ConsensusState,
  delibId: string,
  participant: string,
  sign: OfficeSign,
): ReturnType<typeof decideModelSignature> {
  return decideModelSignature(state, delibId, signedModelSignature(state, delibId, participant, sign));
}

/** The validator's signature over the inputs and the model signatures in participant order. */
export function signedValidation(state: ConsensusState, delibId: string, validator: string, sign: OfficeSign) {
  const proof = state.proofs.get(delibId);
  const session = proof && state.sessions.get(proof.session_id);
  if (!proof || !session) throw new Error(`no proof ${delibId} to validate`);
  return { validator, signature: sign(validatorMessage(proof.inputs, proofModelSignatures(proof, session))) };
}

export function validatorStep(
  state: ConsensusState,
  delibId: string,
  validator: string,
  sign: OfficeSign,
): ReturnType<typeof decideValidatorSignature> {
  return decideValidatorSignature(state, delibId, signedValidation(state, delibId, validator, sign));
}
