/**
 * The consensus registry's model: offices, their measured GI, sessions and their votes, deliberation
 * proofs and the cycle, with what is derived from one record alone (a proof's state, its signatures
 * in participant order). The fold that builds it from the ledger is state.ts; the checks that read it
 * are checks.ts — both import this, neither imports the other's caller.
 */
import type { Cathedral } from "../schemas/common.ts";
import type {
  ConsensusOutcome,
  ModelSignature,
  OfficePriority,
  ProofInputs,
  ProofState,
  VoteValue,
} from "../schemas/consensus.ts";
import type { RefusalCode } from "./refusal.ts";
import { SESSION_PARTICIPANTS } from "./rules.ts";

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
