/**
 * The consensus rules that are plain functions of their arguments: the spec's thresholds, the
 * duplicate-guard key, generated identifiers and the tally. Everything that needs the ledger's
 * state is in decide.ts; what is signed is in messages.ts.
 */
import { parseCycle } from "../cycle.ts";
import type { ConsensusOutcome, OfficePriority, VoteValue } from "../schemas/consensus.ts";
import { MIN_PARTICIPANT_GI, SESSION_PARTICIPANTS } from "../schemas/consensus.ts";

export { MIN_PARTICIPANT_GI, SESSION_PARTICIPANTS };

/** Spec: two critical-priority and two high-priority offices in every session. */
export const PRIORITY_MIX: Readonly<Record<OfficePriority, number>> = { critical: 2, high: 2 };

/** Spec quorum: at least 3 approving votes among the 4 participants. */
export const QUORUM_APPROVALS = 3;

/** The room `GET /api/cycle/current` names when no session is active. */
export const DEFAULT_ROOM = "main";

/** GI values the server computes (means) are rounded to this many decimals, like heartbeat GI. */
export const GI_DECIMALS = 4;

export function roundGi(x: number): number {
  const f = 10 ** GI_DECIMALS;
  return Math.round(x * f) / f + 0; // + 0 turns -0 into 0
}

/**
 * The duplicate guard: at most one active session per cycle and room. Another room in the same
 * cycle, or the same room once its session closed, may open a session.
 */
export function guardKey(cycle: string, room: string): string {
  return `${cycle}\u0000${room}`;
}

/** Session ids: `CS-<cycle number>-<k>`, the k-th session opened for that cycle. */
export function sessionIdFor(cycle: string, k: number): string {
  return `CS-${parseCycle(cycle)}-${k}`;
}

/** The proof of session `CS-<n>-<k>` is `DP-<n>-<k>` (one proof per session); other ids get `DP-<id>`. */
export function delibIdFor(sessionId: string): string {
  return sessionId.startsWith("CS-") ? `DP-${sessionId.slice(3)}` : `DP-${sessionId}`;
}

export interface CountedVote {
  vote: VoteValue;
  /** The registered key the vote was verified with: votes count by key, never by name. */
  public_key: string;
}

export interface Tally {
  participants: number;
  voted: number;
  approve: number;
  reject: number;
  abstain: number;
  outcome: ConsensusOutcome;
}

/**
 * The outcome the signed votes support: ≥ 3 APPROVE of 4 → APPROVED; all 4 voted and fewer
 * approve → REJECTED; otherwise (too few votes yet) NO_QUORUM. A key counts once, whatever name
 * it arrives under.
 */
export function tally(votes: readonly CountedVote[], participants = SESSION_PARTICIPANTS): Tally {
  const byKey = new Map<string, VoteValue>();
  for (const v of votes) if (!byKey.has(v.public_key)) byKey.set(v.public_key, v.vote);
  let approve = 0;
  let reject = 0;
  let abstain = 0;
  for (const vote of byKey.values()) {
    if (vote === "APPROVE") approve += 1;
    else if (vote === "REJECT") reject += 1;
    else abstain += 1;
  }
  const voted = byKey.size;
  const outcome: ConsensusOutcome =
    approve >= QUORUM_APPROVALS ? "APPROVED" : voted >= participants ? "REJECTED" : "NO_QUORUM";
  return { participants, voted, approve, reject, abstain, outcome };
}

/** Spec: agreement score = approving votes / participants. */
export function agreementScore(t: Pick<Tally, "approve" | "participants">): number {
  return t.participants === 0 ? 0 : t.approve / t.participants;
}
