/**
 * What the sample ledger signs and seals, as functions, so that the simulator and anyone checking
 * its output (tests, a consensus page) compute the same bytes.
 *
 * - An `attestation` is signed over JCS({agent, subject, attestation_hash}): the three fields that
 *   say who vouches for which content. `algorithm`, `public_key` and `signature` travel beside them.
 * - A `consensus.vote` is signed over JCS({session_id, participant, vote}): a vote cannot be moved to
 *   another session, another participant or another choice without breaking its signature.
 * - A deliberation proof (spec "Deliberation proof": generated → model-signed → validator-signed →
 *   sealed) is built only from what the ledger records about the session — the `consensus.opened`,
 *   the session's `deliberation.recorded`, its signed votes and the `consensus.evaluated` outcome — so
 *   a downloader can rebuild it and check `proof_digest` = digestOf(proof). The participating
 *   models' signatures are their signed votes; the `merkle_root` of `delibproof.sealed` is the RFC
 *   9162 root over those signatures (leaf data = the 64 raw signature bytes, in ledger order), so
 *   the seal commits to exactly which signed votes were counted. The validator (a non-participating
 *   sentinel with GI >= 0.95) signs by recording an `attestation` whose subject is
 *   `delibproof:<id>` and whose attestation_hash is the proof digest.
 */
import { canonicalBytes } from "../../core/canonical.ts";
import { digestOf, formatDigest, fromHex } from "../../core/digest.ts";
import { leafHash, rootHash } from "../../core/merkle.ts";

export function attestationMessage(fields: { agent: string; subject: string; attestation_hash: string }): Uint8Array {
  return canonicalBytes({ agent: fields.agent, subject: fields.subject, attestation_hash: fields.attestation_hash });
}

export function voteMessage(fields: { session_id: string; participant: string; vote: string }): Uint8Array {
  return canonicalBytes({ session_id: fields.session_id, participant: fields.participant, vote: fields.vote });
}

/** `sha256:` RFC 9162 root over the signatures (hex) as leaves, in the order given. */
export function signatureRoot(signaturesHex: readonly string[]): string {
  return formatDigest(rootHash(signaturesHex.map((s) => leafHash(fromHex(s)))));
}

export interface ProofInputs {
  delibproofId: string;
  sessionId: string;
  cycle: string;
  room: string;
  giBaseline: number;
  participants: readonly string[];
  /** The session's deliberation.recorded: its topic and each participant's statement. */
  topic: string;
  statements: readonly { id: string; position: string; reasoning: string }[];
  votes: readonly { participant: string; vote: string; signature: string }[];
  outcome: string;
}

/** Spec: agreement score = approving votes / participants. */
export function agreementScore(approvals: number, participants: number): number {
  return participants === 0 ? 0 : approvals / participants;
}

/** The deliberation proof object of a session (what `proof_digest` hashes). */
export function deliberationProof(p: ProofInputs) {
  const approvals = p.votes.filter((v) => v.vote === "APPROVE").length;
  return {
    delib_id: p.delibproofId,
    question: p.topic,
    context: { session_id: p.sessionId, cycle: p.cycle, room: p.room, participants: [...p.participants] },
    rounds: [
      {
        round: 1,
        statements: p.statements.map((s) => ({ participant: s.id, position: s.position, summary: s.reasoning })),
      },
    ],
    consensus: agreementScore(approvals, p.participants.length),
    gi_score: p.giBaseline,
    constitutional_check: {
      participants_gi_at_least_0_95: true,
      votes_signed_by_participants: true,
      quorum_rule_applied: true,
      dissent_recorded: true,
    },
    outcome: p.outcome,
    model_signatures: p.votes.map((v) => ({ participant: v.participant, vote: v.vote, signature: v.signature })),
  };
}

export function proofDigest(p: ProofInputs): string {
  return digestOf(deliberationProof(p));
}

/** Spec quorum: APPROVED with at least 3 approvals; NO_QUORUM when fewer than 3 votes were cast. */
export function evaluateVotes(votes: readonly { vote: string }[]): "APPROVED" | "REJECTED" | "NO_QUORUM" {
  if (votes.length < 3) return "NO_QUORUM";
  return votes.filter((v) => v.vote === "APPROVE").length >= 3 ? "APPROVED" : "REJECTED";
}
