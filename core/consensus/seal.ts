/**
 * Sealing a deliberation proof: an RFC 9162 Merkle root over the proof's parts, committed in the
 * `delibproof.sealed` entry. The leaves, in this order, are the JCS bytes of:
 *
 *   {"part":"session","value":{session_id, cycle, room, gi_baseline, participants}}
 *   {"part":"inputs","value":<the seven proof inputs>}
 *   {"part":"vote","value":{participant, vote, signature}}              one per vote cast, participant order
 *   {"part":"model_signature","value":{participant, public_key, signature}}   four, participant order
 *   {"part":"validator_signature","value":{validator, gi, public_key, signature}}
 *   {"part":"outcome","value":{outcome, gi_delta}}
 *
 * so the root commits to the session, the question and its answer, every signed vote and signature,
 * and the result; the `part` tag keeps one kind of leaf from passing for another. `proof_digest` is
 * `sha256:` of the JCS of the proof itself (inputs + model_signatures + validator_signature).
 */
import { canonicalize } from "../canonical.ts";
import { digestOf, formatDigest } from "../digest.ts";
import { leafHashOfText, rootHash } from "../merkle.ts";
import type {
  ConsensusOutcome,
  ModelSignature,
  ProofInputs,
  ValidatorSignature,
  VoteValue,
} from "../schemas/consensus.ts";
import { proofInputsOf } from "./messages.ts";

export interface SealParts {
  session: { session_id: string; cycle: string; room: string; gi_baseline: number; participants: readonly string[] };
  inputs: ProofInputs;
  votes: readonly { participant: string; vote: VoteValue; signature: string }[];
  model_signatures: readonly ModelSignature[];
  validator_signature: ValidatorSignature;
  outcome: { outcome: ConsensusOutcome; gi_delta: number };
}

/** The leaf data (JCS text) of each part, in tree order. */
export function sealLeaves(p: SealParts): string[] {
  const s = p.session;
  const v = p.validator_signature;
  return [
    canonicalize({
      part: "session",
      value: {
        session_id: s.session_id,
        cycle: s.cycle,
        room: s.room,
        gi_baseline: s.gi_baseline,
        participants: [...s.participants],
      },
    }),
    canonicalize({ part: "inputs", value: proofInputsOf(p.inputs) }),
    ...p.votes.map((x) =>
      canonicalize({ part: "vote", value: { participant: x.participant, vote: x.vote, signature: x.signature } }),
    ),
    ...p.model_signatures.map((m) =>
      canonicalize({
        part: "model_signature",
        value: { participant: m.participant, public_key: m.public_key, signature: m.signature },
      }),
    ),
    canonicalize({
      part: "validator_signature",
      value: { validator: v.validator, gi: v.gi, public_key: v.public_key, signature: v.signature },
    }),
    canonicalize({ part: "outcome", value: { outcome: p.outcome.outcome, gi_delta: p.outcome.gi_delta } }),
  ];
}

/** `sha256:` RFC 9162 root over the parts' leaves. */
export function sealRoot(p: SealParts): string {
  return formatDigest(rootHash(sealLeaves(p).map(leafHashOfText)));
}

/** `sha256:` of the JCS of the proof: inputs, model_signatures, validator_signature (no seal). */
export function proofDigest(p: Pick<SealParts, "inputs" | "model_signatures" | "validator_signature">): string {
  return digestOf({
    ...proofInputsOf(p.inputs),
    model_signatures: p.model_signatures.map((m) => ({
      participant: m.participant,
      public_key: m.public_key,
      signature: m.signature,
    })),
    validator_signature: {
      validator: p.validator_signature.validator,
      gi: p.validator_signature.gi,
      public_key: p.validator_signature.public_key,
      signature: p.validator_signature.signature,
    },
  });
}
