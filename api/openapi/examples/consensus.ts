/**
 * The API reference's examples of the consensus writes: one session from opening to seal, each
 * request what its step really needs and each response what the server answers on the sample
 * ledger, run in this order by test/portal-docs-examples.test.ts. The offices are the sample
 * ledger's (`npm run seed -- --sample`), and every signature is a real Ed25519 signature by the
 * office's sample key (core/sample-key.ts, seed SAMPLE_SEED) over the documented bytes.
 *
 * The session is opened for a cycle far past the sample's, so that its id (`CS-1000-1`) does not
 * depend on how many sessions the sample holds. What depends on the sample's data is the offices'
 * measured GI (their newest heartbeats): the proof's `gi_score`, which the model signatures sign,
 * and the validator's recorded `gi`. `consensusWriteExamples(gi)` builds the whole story from those
 * readings; the reference shows it for DOCUMENTED_GI, and the test builds it again with the readings
 * the server holds, so a regenerated sample changes the values compared, never the story.
 */
import { modelMessage, validatorMessage, voteMessage } from "../../../core/consensus/messages.ts";
import type { ProofRequest } from "../../../core/schemas/consensus.ts";
import { proofDigest, sealRoot } from "../../../core/consensus/seal.ts";
import { roundGi } from "../../../core/consensus/rules.ts";
import { SAMPLE_SEED, sampleSecretKey } from "../../../core/sample-key.ts";
import { publicKeyFromSecret, sign } from "../../../core/signature.ts";

/** The participants (two critical-, two high-priority offices), in the session's order, and the validator. */
export const PARTICIPANTS = ["ATLAS", "IRIS", "HERMES", "PLUTUS"] as const;
export const VALIDATOR = "SOLON";
type Office = (typeof PARTICIPANTS)[number] | typeof VALIDATOR;

/** The offices' measured GI on the sample ledger when these examples were written (its newest heartbeats). */
export const DOCUMENTED_GI: Record<Office, number> = {
  ATLAS: 0.978,
  IRIS: 0.985,
  HERMES: 0.9891,
  PLUTUS: 0.9813,
  SOLON: 0.9813,
};

const CYCLE = "C-1000";
const ROOM = "api-reference";
/** The session the story opens and the id of its proof: the path parameters of its steps. */
export const SESSION = "CS-1000-1";
export const DELIB = "DP-1000-1";
const VOTES = { ATLAS: "APPROVE", IRIS: "APPROVE", HERMES: "APPROVE", PLUTUS: "REJECT" } as const;

const secret = (office: Office) => sampleSecretKey(SAMPLE_SEED, office);
const publicKey = (office: Office) => publicKeyFromSecret("ed25519", secret(office));
const signBy = (office: Office, message: Uint8Array) => sign("ed25519", secret(office), message);

export type Json = Record<string, unknown>;
export interface WriteExample {
  request: Json;
  response: Json;
}

/** The consensus story for the offices' GI `gi`: the examples by operation id, and the steps between them no example shows. */
export function consensusWriteExamples(gi: Record<Office, number> = DOCUMENTED_GI) {
  const votes = PARTICIPANTS.map((participant) => ({
    participant,
    vote: VOTES[participant],
    signature: signBy(participant, voteMessage({ participant, session_id: SESSION, vote: VOTES[participant] })),
  }));
  const proofRequest: ProofRequest = {
    question: "Adopt the 30-day attestation expiry for api.write grants?",
    context: { proposal: "PR-42", affected: ["avm"], urgency: 2, notes: null },
    rounds: [
      {
        round: 1,
        statements: [
          {
            participant: "ATLAS",
            position: "APPROVE",
            summary: "Shorter expiry bounds what a leaked attestation can do.",
          },
          {
            participant: "PLUTUS",
            position: "REJECT",
            summary: "Renewals every 30 days cost holders more than the risk saved.",
          },
        ],
      },
    ],
    constitutional_check: { bounded_authority: true, transparency: true },
  };
  const inputs = {
    delib_id: DELIB,
    ...proofRequest,
    consensus: 0.75,
    gi_score: roundGi(PARTICIPANTS.reduce((sum, p) => sum + gi[p], 0) / PARTICIPANTS.length),
  };
  const modelSignatures = PARTICIPANTS.map((participant) => ({
    participant,
    public_key: publicKey(participant),
    signature: signBy(participant, modelMessage(inputs)),
  }));
  const validatorSignature = {
    validator: VALIDATOR,
    gi: gi[VALIDATOR],
    public_key: publicKey(VALIDATOR),
    signature: signBy(VALIDATOR, validatorMessage(inputs, modelSignatures)),
  };
  const session = {
    session_id: SESSION,
    cycle: CYCLE,
    room: ROOM,
    gi_baseline: 0.98,
    participants: [...PARTICIPANTS],
    votes,
  };
  const document = (state: string, signed: number, validated: boolean) => ({
    format: "integrity-platform/delibproof/v1",
    state,
    proof: {
      ...inputs,
      model_signatures: modelSignatures.slice(0, signed),
      ...(validated ? { validator_signature: validatorSignature } : {}),
    },
    session,
  });
  const close = { outcome: "APPROVED" as const, gi_delta: 0.002 };
  const sealed = {
    session: { session_id: SESSION, cycle: CYCLE, room: ROOM, gi_baseline: 0.98, participants: [...PARTICIPANTS] },
    inputs,
    votes,
    model_signatures: modelSignatures,
    validator_signature: validatorSignature,
    outcome: close,
  };
  const examples = {
    postV1ConsensusSessions: {
      request: { cycle: CYCLE, room: ROOM, gi_baseline: 0.98, participants: [...PARTICIPANTS] },
      response: { sessionId: SESSION },
    },
    postApiCycleCurrent: { request: { cycle: CYCLE, gi: 0.98 }, response: { cycle: CYCLE, gi: 0.98, room: ROOM } },
    postV1ConsensusSessionsByIdVotes: {
      request: votes[0]!,
      response: {
        session_id: SESSION,
        participant: "ATLAS",
        vote: "APPROVE",
        ledger_seq: 12003,
        tally: { participants: 4, voted: 1, approve: 1, reject: 0, abstain: 0, outcome: "NO_QUORUM" },
      },
    },
    postV1ConsensusSessionsByIdProof: { request: proofRequest, response: document("generated", 0, false) },
    postV1ConsensusProofsByDelibIdSignatures: {
      request: { participant: "ATLAS", signature: modelSignatures[0]!.signature },
      response: document("generated", 1, false),
    },
    postV1ConsensusProofsByDelibIdValidator: {
      request: { validator: VALIDATOR, signature: validatorSignature.signature },
      response: document("validator-signed", 4, true),
    },
    postV1ConsensusSessionsByIdClose: {
      request: { outcome: close.outcome, delibproof_id: DELIB, gi_delta: close.gi_delta },
      response: {
        session_id: SESSION,
        outcome: "APPROVED",
        gi_delta: 0.002,
        tally: { participants: 4, voted: 4, approve: 3, reject: 1, abstain: 0, outcome: "APPROVED" },
        delib_id: DELIB,
        proof_digest: proofDigest(sealed),
        evaluated_seq: 12012,
        seal: { ledger_seq: 12013, merkle_root: sealRoot(sealed) },
      },
    },
  } satisfies Record<string, WriteExample>;
  /** What no example shows and the next step needs: after the vote, the other three votes; after the first model signature, the other three. */
  const between = {
    postV1ConsensusSessionsByIdVotes: { path: `/v1/consensus/sessions/${SESSION}/votes`, bodies: votes.slice(1) },
    postV1ConsensusProofsByDelibIdSignatures: {
      path: `/v1/consensus/proofs/${DELIB}/signatures`,
      bodies: modelSignatures.slice(1).map(({ participant, signature }) => ({ participant, signature })),
    },
  };
  return { examples, between };
}

export const CONSENSUS_WRITE_EXAMPLES = consensusWriteExamples().examples;
