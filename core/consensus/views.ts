/**
 * Read views of the consensus registry: what GET routes, the portal and the exported proof file
 * show. Pure functions of the state (state.ts); nothing here decides.
 */
import type { LedgerEntry } from "../ledger/entry.ts";
import {
  PROOF_DOCUMENT_FORMAT,
  RECENT_SEALED_PROOFS,
  type ActiveSessions,
  type ConsensusRegistry,
  type CycleInfo,
  type DeliberationProof,
  type ProofAnchor,
  type ProofDocument,
  type ProofSession,
  type SealedProofSummary,
} from "../schemas/consensus.ts";
import { sessionTally } from "./checks.ts";
import { agreementScore, DEFAULT_ROOM, MIN_PARTICIPANT_GI } from "./rules.ts";
import { proofModelSignatures, proofState, type ConsensusState, type Office, type Session } from "./model.ts";

/** Sessions opened and not closed, oldest first. */
export function activeSessions(state: ConsensusState): ActiveSessions {
  const sessions = [...state.active.values()]
    .map((id) => state.sessions.get(id)!)
    .sort((a, b) => a.opened_seq - b.opened_seq)
    .map((s) => {
      const proof = s.delib_id ? state.proofs.get(s.delib_id)! : null;
      return {
        session_id: s.session_id,
        cycle: s.cycle,
        room: s.room,
        gi_baseline: s.gi_baseline,
        opened_at: s.opened_at,
        participants: s.participants.map((id, i) => {
          const o = state.offices.get(id)!;
          return {
            office: id,
            priority: o.priority,
            cathedral: o.cathedral,
            gi_at_opening: s.gi_at_opening[i]!,
            gi: state.gi.get(id)!.gi,
          };
        }),
        votes: s.votes.map((v) => ({ participant: v.participant, vote: v.vote })),
        proof: proof ? { delib_id: proof.inputs.delib_id, state: proofState(proof) } : null,
      };
    });
  return { sessions };
}

/**
 * GET /api/cycle/current: the last recorded cycle and GI, and the room of the newest active session
 * (the default room when none is active). Null before any `cycle.updated`.
 */
export function cycleInfo(state: ConsensusState): CycleInfo | null {
  if (!state.cycle) return null;
  return { cycle: state.cycle.cycle, gi: state.cycle.gi, room: currentRoom(state) };
}

/** The room of the newest active session, or the default room when none is active. */
export function currentRoom(state: ConsensusState): string {
  let room = DEFAULT_ROOM;
  let newest = -1;
  for (const id of state.active.values()) {
    const s = state.sessions.get(id)!;
    if (s.opened_seq > newest) {
      newest = s.opened_seq;
      room = s.room;
    }
  }
  return room;
}

export interface RosterEntry {
  office: string;
  priority: Office["priority"];
  cathedral: Office["cathedral"];
  public_key: string;
  /** Latest measured GI and when, or null before the first heartbeat. */
  gi: number | null;
  gi_at: string | null;
  /** GI ≥ 0.95: may take part in a session or validate a proof now. */
  eligible: boolean;
}

/** The offices, by priority (critical first) then id. */
export function officeRoster(state: ConsensusState): RosterEntry[] {
  return [...state.offices.values()]
    .sort((a, b) =>
      a.priority === b.priority ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.priority === "critical" ? -1 : 1,
    )
    .map((o) => {
      const r = state.gi.get(o.id);
      return {
        office: o.id,
        priority: o.priority,
        cathedral: o.cathedral,
        public_key: o.public_key,
        gi: r ? r.gi : null,
        gi_at: r ? r.at : null,
        eligible: r !== undefined && r.gi >= MIN_PARTICIPANT_GI,
      };
    });
}

function proofSession(session: Session): ProofSession {
  const rank = new Map(session.participants.map((id, i) => [id, i]));
  return {
    session_id: session.session_id,
    cycle: session.cycle,
    room: session.room,
    gi_baseline: session.gi_baseline,
    participants: [...session.participants],
    votes: [...session.votes]
      .sort((a, b) => rank.get(a.participant)! - rank.get(b.participant)!)
      .map((v) => ({ participant: v.participant, vote: v.vote, signature: v.signature })),
    ...(session.closed ? { outcome: session.closed.outcome, gi_delta: session.closed.gi_delta } : {}),
  };
}

/**
 * The proof document of `delibId` in its current state (GET /v1/consensus/proofs/{delib_id}, and the
 * file `verify-proof` checks). A sealed proof needs its anchor — the sealing entry, its inclusion
 * proof and a signed checkpoint — which only the store can give; without it the document has none.
 */
export function proofDocument(state: ConsensusState, delibId: string, anchor?: ProofAnchor): ProofDocument | null {
  const p = state.proofs.get(delibId);
  if (!p) return null;
  const session = state.sessions.get(p.session_id)!;
  const proof: DeliberationProof = {
    ...p.inputs,
    model_signatures: proofModelSignatures(p, session),
    ...(p.validator
      ? {
          validator_signature: {
            validator: p.validator.validator,
            gi: p.validator.gi,
            public_key: p.validator.public_key,
            signature: p.validator.signature,
          },
        }
      : {}),
    ...(p.seal ? { seal: { ledger_seq: p.seal.ledger_seq, merkle_root: p.seal.merkle_root } } : {}),
  };
  return {
    format: PROOF_DOCUMENT_FORMAT,
    state: proofState(p),
    proof,
    session: proofSession(session),
    ...(p.seal && anchor ? { anchor } : {}),
  };
}

/** The anchor of a sealed proof from the store's answers (inclusion hashes as raw bytes). */
export function proofAnchor(
  entry: LedgerEntry,
  treeSize: number,
  inclusion: readonly Uint8Array[],
  checkpoint: string,
): ProofAnchor {
  return {
    entry: {
      seq: entry.seq,
      type: entry.type,
      payload: entry.payload,
      ts: entry.ts,
      prev: entry.prev,
      hash: entry.hash,
    },
    tree_size: treeSize,
    inclusion_proof: inclusion.map((h) => Buffer.from(h).toString("base64")),
    checkpoint,
  };
}

/** What the monitoring computation needs of each session (monitoring.ts). */
export interface SessionSummary {
  session_id: string;
  opened_at: string;
  closed_at: string | null;
  outcome: "APPROVED" | "REJECTED" | "NO_QUORUM" | null;
  /** Approving votes / participants, once closed. */
  agreement: number | null;
  gi_delta: number | null;
}

export function sessionSummaries(state: ConsensusState): SessionSummary[] {
  return [...state.sessions.values()]
    .sort((a, b) => a.opened_seq - b.opened_seq)
    .map((s) => ({
      session_id: s.session_id,
      opened_at: s.opened_at,
      closed_at: s.closed ? s.closed.at : null,
      outcome: s.closed ? s.closed.outcome : null,
      agreement: s.closed ? agreementScore(sessionTally(s)) : null,
      gi_delta: s.closed ? s.closed.gi_delta : null,
    }));
}

/**
 * The consensus registry's health, for `GET /health`: how much it holds, and whether every
 * consensus entry of the ledger followed the rules (`degraded` names how many did not).
 */
export function consensusHealth(state: ConsensusState): {
  status: "ok" | "degraded";
  ledger_size: number;
  offices: number;
  eligible_offices: number;
  active_sessions: number;
  sessions: number;
  sealed_proofs: number;
  ignored_entries: number;
} {
  let sealed = 0;
  for (const p of state.proofs.values()) if (p.seal) sealed += 1;
  return {
    status: state.ignoredCount === 0 ? "ok" : "degraded",
    ledger_size: state.size,
    offices: state.offices.size,
    eligible_offices: officeRoster(state).filter((r) => r.eligible).length,
    active_sessions: state.active.size,
    sessions: state.sessions.size,
    sealed_proofs: sealed,
    ignored_entries: state.ignoredCount,
  };
}

/** The newest `limit` sealed proofs, newest first. */
export function recentSealedProofs(state: ConsensusState, limit = RECENT_SEALED_PROOFS): SealedProofSummary[] {
  const sealed = [...state.proofs.values()]
    .filter((p) => p.seal !== null)
    .sort((a, b) => b.seal!.ledger_seq - a.seal!.ledger_seq);
  return sealed.slice(0, limit).map((p) => {
    const s = state.sessions.get(p.session_id)!;
    return {
      delib_id: p.inputs.delib_id,
      session_id: s.session_id,
      cycle: s.cycle,
      room: s.room,
      outcome: s.closed!.outcome,
      consensus: p.inputs.consensus,
      gi_score: p.inputs.gi_score,
      validator: p.validator!.validator,
      sealed_at: p.seal!.at,
      ledger_seq: p.seal!.ledger_seq,
      merkle_root: p.seal!.merkle_root,
    };
  });
}

/** The registry as the philosophy area publishes it (consensus-registry.json), without its dating. */
export function registrySnapshot(state: ConsensusState): Omit<ConsensusRegistry, "cycle" | "timestamp"> {
  let sealed = 0;
  for (const p of state.proofs.values()) if (p.seal) sealed += 1;
  return {
    current: cycleInfo(state),
    offices: officeRoster(state),
    active_sessions: activeSessions(state).sessions,
    recent_proofs: recentSealedProofs(state),
    sessions: state.sessions.size,
    sealed_proofs: sealed,
  };
}
