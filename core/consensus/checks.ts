/**
 * Every consensus rule that needs the ledger's state, as a check: a refusal, or what the rule
 * computed (the key a signature verified with, the measured GI, the proof's inputs…). The decisions
 * (decide.ts) run them before they append; the projection (state.ts) runs the same checks when it
 * folds an entry, so a ledger can only ever say what the decisions allow.
 *
 * Order of the checks, where several could fail: what is named must exist, then its state, then
 * who is asking, then the values, and the signature last.
 */
import { parseCycle } from "../cycle.ts";
import type {
  ConsensusOutcome,
  OfficeRegistration,
  ProofInputs,
  ProofRequest,
  VoteValue,
} from "../schemas/consensus.ts";
import type { SignatureAlgorithm } from "../signature.ts";
import { isValidPublicKey, verify } from "../signature.ts";
import { modelMessage, validatorMessage, voteMessage } from "./messages.ts";
import { refusal, type ConsensusRefusal } from "./refusal.ts";
import {
  agreementScore,
  delibIdFor,
  guardKey,
  MIN_PARTICIPANT_GI,
  PRIORITY_MIX,
  roundGi,
  SESSION_PARTICIPANTS,
  tally,
  type Tally,
} from "./rules.ts";
import { proofDigest, sealRoot, type SealParts } from "./seal.ts";
import { proofModelSignatures, proofState, type ConsensusState, type ProofRecord, type Session } from "./model.ts";

// ---------------------------------------------------------------------------------------------
// Offices and their GI

export function checkRegisterOffice(
  state: ConsensusState,
  reg: OfficeRegistration,
  algorithm: SignatureAlgorithm = "ed25519",
): ConsensusRefusal | null {
  if (algorithm !== "ed25519" || !isValidPublicKey("ed25519", reg.public_key)) {
    return refusal("invalid-key", `the public key of ${reg.id} is not a valid Ed25519 public key`, { office: reg.id });
  }
  if (state.sentinels.has(reg.id)) {
    return refusal("office-exists", `${reg.id} is already registered; an office is registered once`, {
      office: reg.id,
    });
  }
  const holder = state.keyHolders.get(reg.public_key);
  if (holder !== undefined) {
    return refusal(
      "key-in-use",
      `the public key is already registered to ${holder}: one key can count only once toward a quorum`,
      {
        office: reg.id,
        held_by: holder,
      },
    );
  }
  return null;
}

/** The office's measured GI, or a refusal naming it when it has none or it is below the minimum. */
export function checkOfficeGi(
  state: ConsensusState,
  id: string,
  role: "participant" | "validator",
): ConsensusRefusal | number {
  const reading = state.gi.get(id);
  if (!reading)
    return refusal("gi-unmeasured", `${role} ${id} has no heartbeat on the ledger, so no measured office integrity`, {
      office: id,
    });
  if (reading.gi < MIN_PARTICIPANT_GI) {
    return refusal(
      "gi-below-minimum",
      `${role} ${id} has office integrity ${reading.gi}, below the minimum ${MIN_PARTICIPANT_GI}`,
      {
        office: id,
        gi: reading.gi,
        minimum: MIN_PARTICIPANT_GI,
      },
    );
  }
  return reading.gi;
}

export function checkCycleUpdate(state: ConsensusState, update: { cycle: string }): ConsensusRefusal | null {
  const current = state.cycle;
  if (current && parseCycle(update.cycle) < parseCycle(current.cycle)) {
    return refusal("cycle-regressed", `the cycle is ${current.cycle}; it cannot go back to ${update.cycle}`, {
      current: current.cycle,
      requested: update.cycle,
    });
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Sessions and votes

export type OpenCheck =
  | { kind: "duplicate"; session_id: string }
  | { kind: "refused"; refusal: ConsensusRefusal }
  | { kind: "open"; gi: number[] };

export function checkOpen(
  state: ConsensusState,
  input: { cycle: string; room: string; participants: readonly string[] },
): OpenCheck {
  const active = state.active.get(guardKey(input.cycle, input.room));
  if (active !== undefined) return { kind: "duplicate", session_id: active };
  const refused = (r: ConsensusRefusal): OpenCheck => ({ kind: "refused", refusal: r });
  if (input.participants.length !== SESSION_PARTICIPANTS || new Set(input.participants).size !== SESSION_PARTICIPANTS) {
    return refused(
      refusal("priority-mix", `a session has exactly ${SESSION_PARTICIPANTS} distinct participants`, {
        participants: [...input.participants],
      }),
    );
  }
  const offices = [];
  for (const id of input.participants) {
    const office = state.offices.get(id);
    if (!office)
      return refused(refusal("unknown-office", `participant ${id} is not a registered office`, { office: id }));
    offices.push(office);
  }
  // Rule 5: every participant below the minimum is named with its GI.
  const gi: number[] = [];
  const below: { office: string; gi: number }[] = [];
  for (const o of offices) {
    const g = checkOfficeGi(state, o.id, "participant");
    if (typeof g === "number") gi.push(g);
    else if (g.code === "gi-below-minimum") below.push({ office: o.id, gi: g.details.gi as number });
    else return refused(g);
  }
  if (below.length > 0) {
    const names = below.map((b) => `${b.office} (office integrity ${b.gi})`).join(", ");
    return refused(
      refusal(
        "gi-below-minimum",
        `rejected: ${names} ${below.length === 1 ? "is" : "are"} below the minimum office integrity ${MIN_PARTICIPANT_GI}`,
        {
          office: below[0]!.office,
          gi: below[0]!.gi,
          minimum: MIN_PARTICIPANT_GI,
          below,
        },
      ),
    );
  }
  const critical = offices.filter((o) => o.priority === "critical").map((o) => o.id);
  const high = offices.filter((o) => o.priority === "high").map((o) => o.id);
  if (critical.length !== PRIORITY_MIX.critical || high.length !== PRIORITY_MIX.high) {
    return refused(
      refusal(
        "priority-mix",
        `a session needs ${PRIORITY_MIX.critical} critical-priority and ${PRIORITY_MIX.high} high-priority offices; got ${critical.length} and ${high.length}`,
        {
          critical,
          high,
        },
      ),
    );
  }
  return { kind: "open", gi };
}

function openSession(state: ConsensusState, sessionId: string): ConsensusRefusal | Session {
  const session = state.sessions.get(sessionId);
  if (!session) return refusal("unknown-session", `no session ${sessionId}`, { session_id: sessionId });
  if (session.closed)
    return refusal("session-closed", `session ${sessionId} is closed (${session.closed.outcome})`, {
      session_id: sessionId,
    });
  return session;
}

function participantKey(state: ConsensusState, session: Session, id: string): ConsensusRefusal | string {
  if (!session.participants.includes(id)) {
    return refusal("not-a-participant", `${id} is not a participant of session ${session.session_id}`, {
      session_id: session.session_id,
      participant: id,
    });
  }
  return state.offices.get(id)!.public_key;
}

export function checkVote(
  state: ConsensusState,
  sessionId: string,
  v: { participant: string; vote: VoteValue; signature: string },
): ConsensusRefusal | { session: Session; public_key: string } {
  const session = openSession(state, sessionId);
  if ("code" in session) return session;
  if (session.delib_id !== null) {
    return refusal(
      "voting-closed",
      `the ballot of session ${sessionId} closed when its proof ${session.delib_id} was generated`,
      { session_id: sessionId },
    );
  }
  const key = participantKey(state, session, v.participant);
  if (typeof key !== "string") return key;
  if (session.votes.some((x) => x.participant === v.participant || x.public_key === key)) {
    return refusal("already-voted", `${v.participant} has already voted in session ${sessionId}`, {
      session_id: sessionId,
      participant: v.participant,
    });
  }
  if (
    !verify(
      "ed25519",
      key,
      voteMessage({ participant: v.participant, session_id: sessionId, vote: v.vote }),
      v.signature,
    )
  ) {
    return refusal(
      "bad-signature",
      `the vote is not signed by ${v.participant}'s registered key over JCS {participant, session_id, vote}`,
      {
        session_id: sessionId,
        participant: v.participant,
      },
    );
  }
  return { session, public_key: key };
}

export function sessionTally(session: Session): Tally {
  return tally(session.votes, session.participants.length);
}

// ---------------------------------------------------------------------------------------------
// The deliberation proof

export function checkGenerate(
  state: ConsensusState,
  sessionId: string,
  req: Pick<ProofRequest, "question" | "context" | "rounds" | "constitutional_check">,
): ConsensusRefusal | { session: Session; inputs: ProofInputs } {
  const session = openSession(state, sessionId);
  if ("code" in session) return session;
  const delib_id = delibIdFor(sessionId);
  if (session.delib_id !== null || state.proofs.has(delib_id)) {
    return refusal("proof-exists", `session ${sessionId} already has its proof ${session.delib_id ?? delib_id}`, {
      session_id: sessionId,
      delib_id: session.delib_id ?? delib_id,
    });
  }
  for (const round of req.rounds) {
    for (const s of round.statements) {
      if (!session.participants.includes(s.participant)) {
        return refusal(
          "round-participant",
          `round ${round.round} has a statement by ${s.participant}, who is not a participant of session ${sessionId}`,
          {
            session_id: sessionId,
            participant: s.participant,
          },
        );
      }
    }
  }
  // Computed by the server from the ledger: the agreement score of the signed votes, and the
  // participants' mean measured GI now.
  let giSum = 0;
  for (const id of session.participants) {
    const reading = state.gi.get(id);
    if (!reading) return refusal("gi-unmeasured", `participant ${id} has no measured office integrity`, { office: id });
    giSum += reading.gi;
  }
  const inputs: ProofInputs = {
    delib_id,
    question: req.question,
    context: req.context,
    rounds: req.rounds,
    consensus: agreementScore(sessionTally(session)),
    gi_score: roundGi(giSum / session.participants.length),
    constitutional_check: req.constitutional_check,
  };
  return { session, inputs };
}

function proofOf(state: ConsensusState, delibId: string): ConsensusRefusal | { proof: ProofRecord; session: Session } {
  const proof = state.proofs.get(delibId);
  if (!proof) return refusal("unknown-proof", `no deliberation proof ${delibId}`, { delib_id: delibId });
  return { proof, session: state.sessions.get(proof.session_id)! };
}

function wrongState(proof: ProofRecord, wanted: string): ConsensusRefusal {
  const now = proofState(proof);
  return refusal("proof-state", `proof ${proof.inputs.delib_id} is ${now}; this step needs it ${wanted}`, {
    delib_id: proof.inputs.delib_id,
    state: now,
  });
}

export function checkModelSignature(
  state: ConsensusState,
  delibId: string,
  s: { participant: string; signature: string },
): ConsensusRefusal | { proof: ProofRecord; session: Session; public_key: string } {
  const found = proofOf(state, delibId);
  if ("code" in found) return found;
  const { proof, session } = found;
  const now = proofState(proof);
  if (now === "validator-signed" || now === "sealed") return wrongState(proof, "generated");
  const key = participantKey(state, session, s.participant);
  if (typeof key !== "string") return key;
  if (proof.signatures.some((x) => x.participant === s.participant || x.public_key === key)) {
    return refusal("already-signed", `${s.participant} has already signed proof ${delibId}`, {
      delib_id: delibId,
      participant: s.participant,
    });
  }
  if (!verify("ed25519", key, modelMessage(proof.inputs), s.signature)) {
    return refusal(
      "bad-signature",
      `the signature is not ${s.participant}'s registered key over the JCS of the proof's inputs`,
      {
        delib_id: delibId,
        participant: s.participant,
      },
    );
  }
  return { proof, session, public_key: key };
}

export function checkValidator(
  state: ConsensusState,
  delibId: string,
  s: { validator: string; signature: string },
): ConsensusRefusal | { proof: ProofRecord; session: Session; public_key: string; gi: number } {
  const found = proofOf(state, delibId);
  if ("code" in found) return found;
  const { proof, session } = found;
  if (proofState(proof) !== "model-signed") return wrongState(proof, "model-signed");
  const office = state.offices.get(s.validator);
  if (!office)
    return refusal("unknown-office", `validator ${s.validator} is not a registered office`, { office: s.validator });
  if (session.participants.includes(s.validator)) {
    return refusal(
      "validator-is-participant",
      `validator ${s.validator} is a participant of session ${session.session_id}; the validator must be independent`,
      {
        office: s.validator,
        session_id: session.session_id,
      },
    );
  }
  const gi = checkOfficeGi(state, s.validator, "validator");
  if (typeof gi !== "number") return gi;
  if (
    !verify(
      "ed25519",
      office.public_key,
      validatorMessage(proof.inputs, proofModelSignatures(proof, session)),
      s.signature,
    )
  ) {
    return refusal(
      "bad-signature",
      `the signature is not ${s.validator}'s registered key over the JCS of the proof's inputs and model_signatures`,
      {
        delib_id: delibId,
        validator: s.validator,
      },
    );
  }
  return { proof, session, public_key: office.public_key, gi };
}

export function checkClose(
  state: ConsensusState,
  input: { sessionId: string; outcome: ConsensusOutcome; delibproof_id: string; gi_delta: number },
): ConsensusRefusal | { session: Session; proof: ProofRecord; tally: Tally } {
  const session = openSession(state, input.sessionId);
  if ("code" in session) return session;
  const found = proofOf(state, input.delibproof_id);
  if ("code" in found) return found;
  const { proof } = found;
  if (proof.session_id !== input.sessionId) {
    return refusal(
      "proof-mismatch",
      `proof ${input.delibproof_id} belongs to session ${proof.session_id}, not ${input.sessionId}`,
      {
        session_id: input.sessionId,
        delib_id: input.delibproof_id,
      },
    );
  }
  if (proofState(proof) !== "validator-signed") return wrongState(proof, "validator-signed");
  const t = sessionTally(session);
  if (t.outcome !== input.outcome) {
    return refusal(
      "outcome-disagrees",
      `the signed votes say ${t.outcome} (${t.approve} APPROVE, ${t.reject} REJECT, ${t.abstain} ABSTAIN; ${t.voted} of ${t.participants} voted), not ${input.outcome}`,
      { session_id: input.sessionId, requested: input.outcome, tally: { ...t } },
    );
  }
  return { session, proof, tally: t };
}

/** The parts a validator-signed proof is sealed over, with the session's result. */
export function sealParts(
  session: Session,
  proof: ProofRecord,
  outcome: { outcome: ConsensusOutcome; gi_delta: number },
): SealParts {
  const rank = new Map(session.participants.map((id, i) => [id, i]));
  const v = proof.validator!;
  return {
    session: {
      session_id: session.session_id,
      cycle: session.cycle,
      room: session.room,
      gi_baseline: session.gi_baseline,
      participants: session.participants,
    },
    inputs: proof.inputs,
    votes: [...session.votes]
      .sort((a, b) => rank.get(a.participant)! - rank.get(b.participant)!)
      .map((x) => ({ participant: x.participant, vote: x.vote, signature: x.signature })),
    model_signatures: proofModelSignatures(proof, session),
    validator_signature: { validator: v.validator, gi: v.gi, public_key: v.public_key, signature: v.signature },
    outcome,
  };
}

/** Sealing follows the close in the same transaction: the session is closed with this proof. */
export function checkSeal(
  state: ConsensusState,
  delibId: string,
): ConsensusRefusal | { proof: ProofRecord; merkle_root: string; proof_digest: string } {
  const found = proofOf(state, delibId);
  if ("code" in found) return found;
  const { proof, session } = found;
  if (proofState(proof) !== "validator-signed") return wrongState(proof, "validator-signed");
  if (!session.closed || session.closed.delibproof_id !== delibId) {
    return refusal("proof-state", `proof ${delibId} is sealed only when its session closes with it`, {
      delib_id: delibId,
      state: proofState(proof),
    });
  }
  const parts = sealParts(session, proof, { outcome: session.closed.outcome, gi_delta: session.closed.gi_delta });
  return { proof, merkle_root: sealRoot(parts), proof_digest: proofDigest(parts) };
}
