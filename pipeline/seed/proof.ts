/**
 * What the sample ledger signs outside consensus, as a function, so that the simulator and anyone
 * checking its output compute the same bytes: an `attestation` is signed over
 * JCS({agent, subject, attestation_hash}) — the three fields that say who vouches for which
 * content; `algorithm`, `public_key` and `signature` travel beside them.
 *
 * Consensus votes, proof signatures and seals are core/consensus's (messages.ts, seal.ts): the
 * simulator produces them through the same decisions an API route calls (consensus.ts).
 */
import { canonicalBytes } from "../../core/canonical.ts";

export function attestationMessage(fields: { agent: string; subject: string; attestation_hash: string }): Uint8Array {
  return canonicalBytes({ agent: fields.agent, subject: fields.subject, attestation_hash: fields.attestation_hash });
}
