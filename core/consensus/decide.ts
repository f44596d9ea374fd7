/**
 * The consensus decisions: each takes the registry state (state.ts, caught up to the ledger's tail)
 * and a parsed request, and returns either the events to append — in one transaction — or a typed
 * refusal. Pure: no I/O, no clock (the store stamps the entries), no randomness (ids are derived from
 * the state). An API route parses, runs one of these inside a store transaction, appends, answers;
 * the sample simulator calls the same functions.
 */
import type { JsonObject } from "../ledger/entry.ts";
import type { ConsensusEventPayload as EventPayload, ConsensusEventType as EventType } from "./events.ts";
import type { NewEvent } from "../ledger/store.ts";
import type {
  CloseSessionInput,
  CycleUpdateRequest,
  ModelSignatureRequest,
  OfficeRegistration,
  OpenSessionInput,
  OpenSessionResult,
  ProofInputs,
  ProofRequest,
  ProofState,
  ValidatorSignatureRequest,
  VoteRequest,
} from "../schemas/consensus.ts";
import {
  checkClose,
  checkCycleUpdate,
  checkGenerate,
  checkModelSignature,
  checkOpen,
  checkRegisterOffice,
  checkValidator,
  checkVote,
  sealParts,
  sessionTally,
} from "./checks.ts";
import type { Decision as DomainDecision } from "../ledger/decision.ts";
import type { ConsensusRefusal } from "./refusal.ts";
import { sessionIdFor, SESSION_PARTICIPANTS, type Tally } from "./rules.ts";
import { proofDigest, sealRoot } from "./seal.ts";
import type { ConsensusState } from "./model.ts";

/** A consensus decision: the one decision shape (core/ledger/decision.ts), refusing with a ConsensusRefusal. */
export type Decision<R> = DomainDecision<R, { refusal: ConsensusRefusal }>;

function event<T extends EventType>(type: T, payload: EventPayload<T>): NewEvent {
  return { type, payload: payload as unknown as JsonObject };
}

const refused = (r: ConsensusRefusal): { ok: false; refusal: ConsensusRefusal } => ({ ok: false, refusal: r });

/** Registers a sentinel as an office: one `sentinel.registered` carrying its priority. */
export function decideRegisterOffice(state: ConsensusState, reg: OfficeRegistration): Decision<{ office: string }> {
  const r = checkRegisterOffice(state, reg);
  if (r) return refused(r);
  return {
    ok: true,
    events: [
      event("sentinel.registered", {
        sentinel: reg.id,
        cathedral: reg.cathedral,
        algorithm: "ed25519",
        public_key: reg.public_key,
        priority: reg.priority,
      }),
    ],
    result: { office: reg.id },
  };
}

/** POST /api/cycle/current: records the cycle and its GI; the cycle never goes back. */
export function decideCycleUpdate(state: ConsensusState, update: CycleUpdateRequest): Decision<CycleUpdateRequest> {
  const r = checkCycleUpdate(state, update);
  if (r) return refused(r);
  return {
    ok: true,
    events: [event("cycle.updated", { cycle: update.cycle, gi: update.gi })],
    result: { cycle: update.cycle, gi: update.gi },
  };
}

/**
 * Opens a session, or — when one is already active for the same cycle and room — appends nothing
 * and answers null (rule 4: no result, not a fault). The id is the next `CS-<n>-<k>` of the cycle.
 */
export function decideOpenSession(state: ConsensusState, input: OpenSessionInput): Decision<OpenSessionResult> {
  const checked = checkOpen(state, input);
  if (checked.kind === "duplicate") return { ok: true, events: [], result: null };
  if (checked.kind === "refused") return refused(checked.refusal);
  let k = (state.openedPerCycle.get(input.cycle) ?? 0) + 1;
  while (state.sessions.has(sessionIdFor(input.cycle, k))) k += 1;
  const session_id = sessionIdFor(input.cycle, k);
  return {
    ok: true,
    events: [
      event("consensus.opened", {
        session_id,
        cycle: input.cycle,
        room: input.room,
        gi_baseline: input.gi_baseline,
        participants: [...input.participants],
      }),
    ],
    result: { sessionId: session_id },
  };
}

/** A participant's signed vote, recorded as `consensus.vote`; answers the tally with it counted. */
export function decideVote(state: ConsensusState, sessionId: string, v: VoteRequest): Decision<{ tally: Tally }> {
  const checked = checkVote(state, sessionId, v);
  if ("code" in checked) return refused(checked);
  const t = sessionTally({
    ...checked.session,
    votes: [...checked.session.votes, { ...v, public_key: checked.public_key, at: "", seq: -1 }],
  });
  return {
    ok: true,
    events: [
      event("consensus.vote", {
        session_id: sessionId,
        participant: v.participant,
        vote: v.vote,
        signature: v.signature,
      }),
    ],
    result: { tally: t },
  };
}

/**
 * Step 1 — generated: the proof's inputs from the caller's question, context, rounds and
 * constitutional check, with `delib_id`, `consensus` and `gi_score` computed here from the ledger.
 * Generating the proof closes the session's ballot.
 */
export function decideGenerateProof(
  state: ConsensusState,
  sessionId: string,
  req: ProofRequest,
): Decision<{ inputs: ProofInputs }> {
  const checked = checkGenerate(state, sessionId, req);
  if ("code" in checked) return refused(checked);
  return {
    ok: true,
    events: [event("delibproof.generated", { ...checked.inputs, session_id: sessionId })],
    result: { inputs: checked.inputs },
  };
}

/** Step 2 — a participating model's signature over the JCS of the inputs; model-signed at four. */
export function decideModelSignature(
  state: ConsensusState,
  delibId: string,
  s: ModelSignatureRequest,
): Decision<{ state: ProofState; signed: number }> {
  const checked = checkModelSignature(state, delibId, s);
  if ("code" in checked) return refused(checked);
  const signed = checked.proof.signatures.length + 1;
  return {
    ok: true,
    events: [event("delibproof.signed", { delib_id: delibId, participant: s.participant, signature: s.signature })],
    result: { state: signed >= SESSION_PARTICIPANTS ? "model-signed" : "generated", signed },
  };
}

/** Step 3 — the validator (an office, not a participant, GI ≥ 0.95 now) signs; its GI is recorded. */
export function decideValidatorSignature(
  state: ConsensusState,
  delibId: string,
  s: ValidatorSignatureRequest,
): Decision<{ state: ProofState; gi: number }> {
  const checked = checkValidator(state, delibId, s);
  if ("code" in checked) return refused(checked);
  return {
    ok: true,
    events: [
      event("delibproof.validated", {
        delib_id: delibId,
        validator: s.validator,
        gi: checked.gi,
        signature: s.signature,
      }),
    ],
    result: { state: "validator-signed", gi: checked.gi },
  };
}

/**
 * Closes the session: the outcome must be the signed votes' tally and the proof validator-signed.
 * Step 4 — sealed — happens in the same transaction: `consensus.evaluated`, then
 * `delibproof.sealed` with the Merkle root over the proof's parts (seal.ts).
 */
export function decideCloseSession(
  state: ConsensusState,
  input: CloseSessionInput,
): Decision<{ tally: Tally; merkle_root: string; proof_digest: string }> {
  const checked = checkClose(state, input);
  if ("code" in checked) return refused(checked);
  const parts = sealParts(checked.session, checked.proof, { outcome: input.outcome, gi_delta: input.gi_delta });
  const merkle_root = sealRoot(parts);
  const proof_digest = proofDigest(parts);
  return {
    ok: true,
    events: [
      event("consensus.evaluated", {
        session_id: input.sessionId,
        delibproof_id: input.delibproof_id,
        outcome: input.outcome,
        gi_delta: input.gi_delta,
      }),
      event("delibproof.sealed", { delibproof_id: input.delibproof_id, proof_digest, merkle_root }),
    ],
    result: { tally: checked.tally, merkle_root, proof_digest },
  };
}
