/**
 * The sample ledger's consensus activity (SAMPLE DATA), produced through exactly the decisions an
 * API route calls (core/consensus/decide.ts): offices are registered with `decideRegisterOffice`,
 * and each session runs open → signed votes → proof generated → four model signatures → validator
 * → close + seal, each step decided against the registry as it stands at that instant of the
 * simulation. Every event the simulator yields passes through `observe`, so the registry here is
 * the fold of the ledger written so far — the state a server would hold.
 *
 * A step the rules refuse is a bug in the simulator, and throws. The one regular "no" is the
 * duplicate guard: a session whose room is still busy in the same cycle does not happen.
 */
import { sessionTally } from "../../core/consensus/checks.ts";
import {
  decideCloseSession,
  decideCycleUpdate,
  decideGenerateProof,
  decideOpenSession,
  decideRegisterOffice,
  type Decision,
} from "../../core/consensus/decide.ts";
import { delibIdFor, roundGi } from "../../core/consensus/rules.ts";
import { consensusProjection } from "../../core/consensus/state.ts";
import type { ConsensusState } from "../../core/consensus/model.ts";
import { modelSignatureStep, validatorStep, voteStep } from "../../core/consensus/steps.ts";
import { officeRoster } from "../../core/consensus/views.ts";
import type { LedgerEntry } from "../../core/ledger/entry.ts";
import type { NewEvent } from "../../core/ledger/store.ts";
import type { Cathedral } from "../../core/schemas/common.ts";
import type { ProofRequest, VoteValue } from "../../core/schemas/consensus.ts";
import type { Prng } from "./prng.ts";
import type { SampleSigner } from "./sample-keys.ts";
import { ROOMS, TOPICS, type SentinelSpec } from "./tables.ts";

const MINUTE = 60_000;
/** Now and then two participants do not vote in time: fewer than 3 votes, no quorum. */
const NO_QUORUM_CHANCE = 0.04;

export type Position = "support" | "oppose" | "abstain";
export type Statement = { id: string; position: Position; reasoning: string; virtue_tags: string[] };
export type ActionResult = NewEvent | readonly NewEvent[] | null;

/** What the simulator lends the consensus activity. */
export interface SessionContext {
  rng: Prng;
  /** Schedules `run` at the instant `ms` of the current cycle. */
  at(ms: number, run: () => ActionResult): void;
  /** A participant's statement with the given position (the simulator's phrase tables). */
  statement(id: string, position: Position): Statement;
  signer(id: string): SampleSigner;
  /** Whether an office is up at the moment (the living sample's silent sentinels take no part). */
  available(id: string): boolean;
}

function must<R>(what: string, d: Decision<R>): { events: NewEvent[]; result: R } {
  if (!d.ok) throw new Error(`sample consensus: ${what} refused: ${d.refusal.code}: ${d.refusal.message}`);
  return d;
}

const POSITION: Record<VoteValue, Position> = { APPROVE: "support", REJECT: "oppose", ABSTAIN: "abstain" };

export class SampleConsensus {
  readonly state: ConsensusState = consensusProjection.initial();
  #seq = 0;

  /** Folds one yielded event (with its `ts`) into the registry; its seq is its place in the sample. */
  observe(event: NewEvent): void {
    const entry: LedgerEntry = {
      seq: this.#seq++,
      type: event.type,
      payload: event.payload,
      ts: event.ts!,
      prev: null,
      hash: "",
    };
    consensusProjection.apply(this.state, entry);
  }

  registerOffice(spec: SentinelSpec, signer: SampleSigner): NewEvent {
    const d = must(
      `registering ${spec.id}`,
      decideRegisterOffice(this.state, {
        id: spec.id,
        priority: spec.priority,
        cathedral: spec.cathedral,
        public_key: signer.publicKey,
      }),
    );
    return d.events[0]!;
  }

  /** The cycle keeper's post at the start of a cycle: the offices' mean measured GI (none yet: nothing). */
  updateCycle(cycle: string): NewEvent | null {
    const measured = officeRoster(this.state).filter((r) => r.gi !== null);
    if (measured.length === 0) return null;
    const gi = roundGi(measured.reduce((sum, r) => sum + r.gi!, 0) / measured.length);
    return must(`cycle ${cycle}`, decideCycleUpdate(this.state, { cycle, gi })).events[0]!;
  }

  /**
   * A session opened at `t` of cycle `n`, and its later steps scheduled: a deliberation 20–35
   * minutes in, the votes from about half an hour, then the proof through its four signatures and
   * the validator, and the close that seals it — about 35 to 50 minutes in all.
   */
  openSession(ctx: SessionContext, n: number, t: number): ActionResult {
    const { rng } = ctx;
    const eligible = officeRoster(this.state).filter((r) => r.eligible && ctx.available(r.office));
    const critical = eligible.filter((r) => r.priority === "critical");
    const high = eligible.filter((r) => r.priority === "high");
    // Four offices (two critical-, two high-priority) and a fifth to validate, all GI >= 0.95.
    if (critical.length < 2 || high.length < 2 || eligible.length < 5) return null;
    const chosen = [...rng.sample(critical, 2), ...rng.sample(high, 2)];
    const participants = chosen.map((r) => r.office);
    const topicCathedral: Cathedral = rng.pick(chosen).cathedral;
    const topic = rng.pick(TOPICS[topicCathedral]);
    const room = ROOMS[topicCathedral];
    const cycle = `C-${n}`;
    const gi_baseline = roundGi(chosen.reduce((sum, r) => sum + r.gi!, 0) / chosen.length);
    const opened = must(
      `opening a session in ${cycle}/${room}`,
      decideOpenSession(this.state, { cycle, room, gi_baseline, participants }),
    );
    if (opened.result === null) return null; // the room is busy: the guard holds this one back
    const sessionId = opened.result.sessionId;
    const delibId = delibIdFor(sessionId);

    const absent = rng.chance(NO_QUORUM_CHANCE) ? rng.sample(participants, 2) : [];
    const votes = participants
      .filter((id) => !absent.includes(id))
      .map((id) => {
        const r = rng.next();
        return { participant: id, vote: (r < 0.85 ? "APPROVE" : r < 0.95 ? "REJECT" : "ABSTAIN") as VoteValue };
      });
    const voteOf = (id: string): VoteValue => votes.find((v) => v.participant === id)?.vote ?? "ABSTAIN";
    const statements = participants.map((id) => ctx.statement(id, POSITION[voteOf(id)]));
    const t0 = votes.filter((v) => v.vote === "APPROVE").length;
    const outcomeNow = t0 >= 3 ? "approved" : votes.length === participants.length ? "rejected" : "deferred";

    ctx.at(t + rng.between(20 * MINUTE, 35 * MINUTE), () => ({
      type: "deliberation.recorded",
      payload: { id: delibId, topic, sentinels: statements, consensus: t0 / participants.length, outcome: outcomeNow },
    }));
    let ms = t + rng.between(30 * MINUTE, 38 * MINUTE);
    for (const v of votes) {
      ms += rng.between(5_000, 60_000);
      ctx.at(ms, () => {
        const sign = (m: Uint8Array) => ctx.signer(v.participant).sign(m);
        return must(`the vote of ${v.participant}`, voteStep(this.state, sessionId, v.participant, v.vote, sign))
          .events;
      });
    }
    const request: ProofRequest = {
      question: topic,
      context: { cycle, room, cathedral: topicCathedral },
      rounds: [
        {
          round: 1,
          statements: statements.map((s) => ({ participant: s.id, position: voteOf(s.id), summary: s.reasoning })),
        },
      ],
      constitutional_check: { bounded_authority: true, dissent_recorded: true, transparency: true },
    };
    ms += rng.between(MINUTE, 3 * MINUTE);
    ctx.at(ms, () => {
      const generated = must(`generating ${delibId}`, decideGenerateProof(this.state, sessionId, request));
      this.#scheduleSignatures(ctx, ms, sessionId, delibId);
      return generated.events;
    });
    return opened.events;
  }

  /** Four model signatures, then the validator, then the close — each decided when it happens. */
  #scheduleSignatures(ctx: SessionContext, start: number, sessionId: string, delibId: string): void {
    const { rng } = ctx;
    const session = this.state.sessions.get(sessionId)!;
    let ms = start;
    for (const id of rng.sample(session.participants, session.participants.length)) {
      ms += rng.between(10_000, 90_000);
      ctx.at(ms, () => {
        const sign = (m: Uint8Array) => ctx.signer(id).sign(m);
        return must(`${id} signing ${delibId}`, modelSignatureStep(this.state, delibId, id, sign)).events;
      });
    }
    ms += rng.between(20_000, 60_000);
    const validateAt = ms;
    ctx.at(validateAt, () => {
      // The validator is chosen when it signs: an office, not a participant, with GI >= 0.95 now.
      const pool = officeRoster(this.state).filter(
        (r) => r.eligible && ctx.available(r.office) && !session.participants.includes(r.office),
      );
      if (pool.length === 0) return null; // nobody may validate: the session stays open
      const validator = rng.pick(pool).office;
      const sign = (m: Uint8Array) => ctx.signer(validator).sign(m);
      const validated = must(`${validator} validating ${delibId}`, validatorStep(this.state, delibId, validator, sign));
      ctx.at(validateAt + rng.between(5_000, 30_000), () => {
        const outcome = sessionTally(session).outcome;
        const gi_delta = roundGi(outcome === "APPROVED" ? rng.uniform(0, 0.008) : rng.uniform(-0.008, 0.002));
        return must(
          `closing ${sessionId}`,
          decideCloseSession(this.state, { sessionId, outcome, delibproof_id: delibId, gi_delta }),
        ).events;
      });
      return validated.events;
    });
  }
}
