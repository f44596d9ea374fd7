/**
 * The consensus registry as a projection of the ledger (core/ledger/projection.ts): offices, their
 * measured GI, sessions and their votes, deliberation proofs through their lifecycle, and the
 * current cycle. A restart, or a second instance on the same store, folds the same entries and so
 * decides the same.
 *
 * `apply` accepts a consensus entry only when the rule it records holds at that point of the log —
 * the same checks (checks.ts) the decisions run before appending, signatures included. A sound
 * ledger has nothing to refuse; an entry that breaks a rule (written behind the decisions' back)
 * changes nothing and is listed in `ignored`, so it can never count toward a quorum.
 *
 * Offices: the first `sentinel.registered` of an id that carries a `priority`, for an Ed25519 key no
 * sentinel registered before it holds. Later registrations of the same id change no office (office
 * keys do not rotate in this version). An office's GI is the `gi_score` of its latest
 * `sentinel.heartbeat`.
 */
import type { LedgerEntry } from "../ledger/entry.ts";
import type { EventPayload } from "../ledger/events.ts";
import type { Projection } from "../ledger/projection.ts";
import type { Cathedral } from "../schemas/common.ts";
import type {
  ConsensusOutcome,
  ModelSignature,
  OfficePriority,
  ProofInputs,
  ProofState,
  VoteValue,
} from "../schemas/consensus.ts";
import {
  checkClose,
  checkCycleUpdate,
  checkGenerate,
  checkModelSignature,
  checkOpen,
  checkRegisterOffice,
  checkSeal,
  checkValidator,
  checkVote,
} from "./checks.ts";
import type { RefusalCode } from "./refusal.ts";
import { guardKey, SESSION_PARTICIPANTS } from "./rules.ts";

export interface Office {
  id: string;
  priority: OfficePriority;
  cathedral: Cathedral;
  public_key: string;
  registered_at: string;
  registered_seq: number;
}

export interface GiReading {
  gi: number;
  at: string;
  seq: number;
}

export interface SessionVote {
  participant: string;
  vote: VoteValue;
  signature: string;
  /** The registered key it verified with. */
  public_key: string;
  at: string;
  seq: number;
}

export interface Session {
  session_id: string;
  cycle: string;
  room: string;
  gi_baseline: number;
  participants: string[];
  /** Each participant's measured GI when the session opened (participant order). */
  gi_at_opening: number[];
  opened_at: string;
  opened_seq: number;
  /** In ledger order. */
  votes: SessionVote[];
  /** The session's proof, once generated (generating it closes the ballot). */
  delib_id: string | null;
  closed: { outcome: ConsensusOutcome; gi_delta: number; delibproof_id: string; at: string; seq: number } | null;
}

export interface ProofRecord {
  session_id: string;
  inputs: ProofInputs;
  generated_at: string;
  generated_seq: number;
  /** In ledger order; `proofModelSignatures` gives them in participant order. */
  signatures: (ModelSignature & { seq: number })[];
  validator: { validator: string; gi: number; public_key: string; signature: string; at: string; seq: number } | null;
  seal: { ledger_seq: number; merkle_root: string; proof_digest: string; at: string } | null;
}

export type IgnoreReason = RefusalCode | "duplicate" | "not-as-computed";

export interface ConsensusState {
  /** Entries applied: the next seq this state expects. */
  size: number;
  /** Every registered sentinel id, from its first registration. */
  sentinels: Map<string, { public_key: string; cathedral: Cathedral }>;
  /** Public key → the sentinel that registered it first. */
  keyHolders: Map<string, string>;
  offices: Map<string, Office>;
  /** Latest heartbeat GI by sentinel id. */
  gi: Map<string, GiReading>;
  sessions: Map<string, Session>;
  /** Duplicate-guard key (cycle + room) → the active session's id. */
  active: Map<string, string>;
  /** `consensus.opened` entries seen per cycle label (session ids count from it). */
  openedPerCycle: Map<string, number>;
  proofs: Map<string, ProofRecord>;
  cycle: { cycle: string; gi: number; at: string; seq: number } | null;
  /** Consensus entries that broke a rule and changed nothing (the first 100), and how many. */
  ignored: { seq: number; type: string; reason: IgnoreReason }[];
  ignoredCount: number;
}

export function initialConsensusState(): ConsensusState {
  return {
    size: 0,
    sentinels: new Map(),
    keyHolders: new Map(),
    offices: new Map(),
    gi: new Map(),
    sessions: new Map(),
    active: new Map(),
    openedPerCycle: new Map(),
    proofs: new Map(),
    cycle: null,
    ignored: [],
    ignoredCount: 0,
  };
}

/** The proof's lifecycle state, derived from what the ledger recorded. */
export function proofState(p: ProofRecord): ProofState {
  if (p.seal) return "sealed";
  if (p.validator) return "validator-signed";
  return p.signatures.length >= SESSION_PARTICIPANTS ? "model-signed" : "generated";
}

/** The model signatures in the session's participant order (the order the validator signs). */
export function proofModelSignatures(p: ProofRecord, session: Session): ModelSignature[] {
  const rank = new Map(session.participants.map((id, i) => [id, i]));
  return [...p.signatures]
    .sort((a, b) => rank.get(a.participant)! - rank.get(b.participant)!)
    .map((m) => ({ participant: m.participant, public_key: m.public_key, signature: m.signature }));
}

function ignore(state: ConsensusState, entry: LedgerEntry, reason: IgnoreReason): void {
  state.ignoredCount += 1;
  if (state.ignored.length < 100) state.ignored.push({ seq: entry.seq, type: entry.type, reason });
}

function apply(state: ConsensusState, entry: LedgerEntry): ConsensusState {
  state.size = entry.seq + 1;
  const { seq, ts } = entry;
  switch (entry.type) {
    case "sentinel.registered": {
      const p = entry.payload as unknown as EventPayload<"sentinel.registered">;
      if (p.priority !== undefined) {
        const refused = checkRegisterOffice(state, { id: p.sentinel, priority: p.priority, cathedral: p.cathedral, public_key: p.public_key }, p.algorithm);
        if (refused) ignore(state, entry, refused.code);
        else {
          state.offices.set(p.sentinel, {
            id: p.sentinel,
            priority: p.priority,
            cathedral: p.cathedral,
            public_key: p.public_key,
            registered_at: ts,
            registered_seq: seq,
          });
        }
      }
      if (!state.sentinels.has(p.sentinel)) state.sentinels.set(p.sentinel, { public_key: p.public_key, cathedral: p.cathedral });
      if (!state.keyHolders.has(p.public_key)) state.keyHolders.set(p.public_key, p.sentinel);
      break;
    }
    case "sentinel.heartbeat": {
      const p = entry.payload as unknown as EventPayload<"sentinel.heartbeat">;
      state.gi.set(p.sentinel, { gi: p.gi_score, at: ts, seq });
      break;
    }
    case "cycle.updated": {
      const p = entry.payload as unknown as EventPayload<"cycle.updated">;
      const refused = checkCycleUpdate(state, p);
      if (refused) ignore(state, entry, refused.code);
      else state.cycle = { cycle: p.cycle, gi: p.gi, at: ts, seq };
      break;
    }
    case "consensus.opened": {
      const p = entry.payload as unknown as EventPayload<"consensus.opened">;
      state.openedPerCycle.set(p.cycle, (state.openedPerCycle.get(p.cycle) ?? 0) + 1);
      if (state.sessions.has(p.session_id)) {
        ignore(state, entry, "duplicate");
        break;
      }
      const checked = checkOpen(state, p);
      if (checked.kind === "duplicate") ignore(state, entry, "duplicate");
      else if (checked.kind === "refused") ignore(state, entry, checked.refusal.code);
      else {
        state.sessions.set(p.session_id, {
          session_id: p.session_id,
          cycle: p.cycle,
          room: p.room,
          gi_baseline: p.gi_baseline,
          participants: [...p.participants],
          gi_at_opening: checked.gi,
          opened_at: ts,
          opened_seq: seq,
          votes: [],
          delib_id: null,
          closed: null,
        });
        state.active.set(guardKey(p.cycle, p.room), p.session_id);
      }
      break;
    }
    case "consensus.vote": {
      const p = entry.payload as unknown as EventPayload<"consensus.vote">;
      const checked = checkVote(state, p.session_id, p);
      if ("code" in checked) ignore(state, entry, checked.code);
      else checked.session.votes.push({ participant: p.participant, vote: p.vote, signature: p.signature, public_key: checked.public_key, at: ts, seq });
      break;
    }
    case "delibproof.generated": {
      const { session_id, ...inputs } = entry.payload as unknown as EventPayload<"delibproof.generated">;
      const checked = checkGenerate(state, session_id, inputs);
      if ("code" in checked) ignore(state, entry, checked.code);
      else if (
        checked.inputs.delib_id !== inputs.delib_id ||
        checked.inputs.consensus !== inputs.consensus ||
        checked.inputs.gi_score !== inputs.gi_score
      ) {
        ignore(state, entry, "not-as-computed");
      } else {
        checked.session.delib_id = inputs.delib_id;
        state.proofs.set(inputs.delib_id, { session_id, inputs, generated_at: ts, generated_seq: seq, signatures: [], validator: null, seal: null });
      }
      break;
    }
    case "delibproof.signed": {
      const p = entry.payload as unknown as EventPayload<"delibproof.signed">;
      const checked = checkModelSignature(state, p.delib_id, p);
      if ("code" in checked) ignore(state, entry, checked.code);
      else checked.proof.signatures.push({ participant: p.participant, public_key: checked.public_key, signature: p.signature, seq });
      break;
    }
    case "delibproof.validated": {
      const p = entry.payload as unknown as EventPayload<"delibproof.validated">;
      const checked = checkValidator(state, p.delib_id, p);
      if ("code" in checked) ignore(state, entry, checked.code);
      else if (checked.gi !== p.gi) ignore(state, entry, "not-as-computed");
      else checked.proof.validator = { validator: p.validator, gi: p.gi, public_key: checked.public_key, signature: p.signature, at: ts, seq };
      break;
    }
    case "consensus.evaluated": {
      const p = entry.payload as unknown as EventPayload<"consensus.evaluated">;
      const checked = checkClose(state, { sessionId: p.session_id, outcome: p.outcome, delibproof_id: p.delibproof_id, gi_delta: p.gi_delta });
      if ("code" in checked) ignore(state, entry, checked.code);
      else {
        const s = checked.session;
        s.closed = { outcome: p.outcome, gi_delta: p.gi_delta, delibproof_id: p.delibproof_id, at: ts, seq };
        const key = guardKey(s.cycle, s.room);
        if (state.active.get(key) === s.session_id) state.active.delete(key);
      }
      break;
    }
    case "delibproof.sealed": {
      const p = entry.payload as unknown as EventPayload<"delibproof.sealed">;
      const checked = checkSeal(state, p.delibproof_id);
      if ("code" in checked) ignore(state, entry, checked.code);
      else if (checked.merkle_root !== p.merkle_root || checked.proof_digest !== p.proof_digest) ignore(state, entry, "not-as-computed");
      else checked.proof.seal = { ledger_seq: seq, merkle_root: p.merkle_root, proof_digest: p.proof_digest, at: ts };
      break;
    }
    default:
      break;
  }
  return state;
}

export const consensusProjection: Projection<ConsensusState> = { initial: initialConsensusState, apply };
