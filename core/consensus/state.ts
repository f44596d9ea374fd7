/**
 * The consensus registry as a projection of the ledger (core/ledger/projection.ts): the fold of
 * consensus entries into the model (model.ts) — offices, their measured GI, sessions and their
 * votes, deliberation proofs through their lifecycle, and the current cycle. A restart, or a second instance on the same store, folds the same entries and so
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
import type { ConsensusEventPayload as EventPayload } from "./events.ts";
import type { Projection } from "../ledger/projection.ts";
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
import { guardKey } from "./rules.ts";
import { initialConsensusState, type ConsensusState, type IgnoreReason } from "./model.ts";

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
        const refused = checkRegisterOffice(
          state,
          { id: p.sentinel, priority: p.priority, cathedral: p.cathedral, public_key: p.public_key },
          p.algorithm,
        );
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
      if (!state.sentinels.has(p.sentinel))
        state.sentinels.set(p.sentinel, { public_key: p.public_key, cathedral: p.cathedral });
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
      else
        checked.session.votes.push({
          participant: p.participant,
          vote: p.vote,
          signature: p.signature,
          public_key: checked.public_key,
          at: ts,
          seq,
        });
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
        state.proofs.set(inputs.delib_id, {
          session_id,
          inputs,
          generated_at: ts,
          generated_seq: seq,
          signatures: [],
          validator: null,
          seal: null,
        });
      }
      break;
    }
    case "delibproof.signed": {
      const p = entry.payload as unknown as EventPayload<"delibproof.signed">;
      const checked = checkModelSignature(state, p.delib_id, p);
      if ("code" in checked) ignore(state, entry, checked.code);
      else
        checked.proof.signatures.push({
          participant: p.participant,
          public_key: checked.public_key,
          signature: p.signature,
          seq,
        });
      break;
    }
    case "delibproof.validated": {
      const p = entry.payload as unknown as EventPayload<"delibproof.validated">;
      const checked = checkValidator(state, p.delib_id, p);
      if ("code" in checked) ignore(state, entry, checked.code);
      else if (checked.gi !== p.gi) ignore(state, entry, "not-as-computed");
      else
        checked.proof.validator = {
          validator: p.validator,
          gi: p.gi,
          public_key: checked.public_key,
          signature: p.signature,
          at: ts,
          seq,
        };
      break;
    }
    case "consensus.evaluated": {
      const p = entry.payload as unknown as EventPayload<"consensus.evaluated">;
      const checked = checkClose(state, {
        sessionId: p.session_id,
        outcome: p.outcome,
        delibproof_id: p.delibproof_id,
        gi_delta: p.gi_delta,
      });
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
      else if (checked.merkle_root !== p.merkle_root || checked.proof_digest !== p.proof_digest)
        ignore(state, entry, "not-as-computed");
      else checked.proof.seal = { ledger_seq: seq, merkle_root: p.merkle_root, proof_digest: p.proof_digest, at: ts };
      break;
    }
    default:
      break;
  }
  return state;
}

export const consensusProjection: Projection<ConsensusState> = { initial: initialConsensusState, apply };
