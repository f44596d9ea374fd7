/**
 * Test support for the consensus rules: an in-memory ledger that seals entries exactly as the store
 * does (core/ledger/entry.ts) and keeps the projection caught up, offices with deterministic keys,
 * and one complete session run through the decisions and the session steps (core/consensus/steps.ts,
 * the driver the sample simulator uses too).
 */
import { hash } from "node:crypto";
import { sealEntry, type LedgerEntry } from "../../../../core/ledger/entry.ts";
import type { NewEvent } from "../../../../core/ledger/store.ts";
import { validateEvent } from "../../../../core/events/registry.ts";
import type { Cathedral } from "../../../../core/schemas/common.ts";
import type { OfficePriority, ProofRequest, VoteValue } from "../../../../core/schemas/consensus.ts";
import { publicKeyFromSecret, sign } from "../../../../core/signature.ts";
import {
  decideCloseSession,
  decideGenerateProof,
  decideOpenSession,
  decideRegisterOffice,
  type Decision,
} from "../../../../core/consensus/decide.ts";
import {
  modelSignatureStep,
  signedVote as stepVote,
  validatorStep,
  voteStep,
  type OfficeSign,
} from "../../../../core/consensus/steps.ts";
import { consensusProjection } from "../../../../core/consensus/state.ts";
import type { ConsensusState } from "../../../../core/consensus/model.ts";

export class MemoryLedger {
  readonly entries: LedgerEntry[] = [];
  readonly state: ConsensusState = consensusProjection.initial();
  #ms = Date.parse("2025-12-01T08:00:00.000Z");

  /** Appends the events as one batch (each a minute later than the last); returns the entries. */
  append(events: readonly NewEvent[]): LedgerEntry[] {
    const out: LedgerEntry[] = [];
    for (const e of events) {
      const problem = validateEvent(e.type, e.payload);
      if (problem) throw new Error(problem);
    }
    this.#ms += 60_000;
    for (const e of events) {
      const prev = this.entries.at(-1)?.hash ?? null;
      const { entry } = sealEntry({
        seq: this.entries.length,
        type: e.type,
        payload: e.payload,
        ts: e.ts ?? new Date(this.#ms).toISOString(),
        prev,
      });
      this.entries.push(entry);
      consensusProjection.apply(this.state, entry);
      out.push(entry);
    }
    return out;
  }

  /** Runs a decision against the current state and appends its events when it accepts. */
  run<R>(decide: (state: ConsensusState) => Decision<R>): Decision<R> {
    const d = decide(this.state);
    if (d.ok && d.events.length > 0) this.append(d.events);
    return d;
  }
}

export interface TestOffice {
  id: string;
  priority: OfficePriority;
  cathedral: Cathedral;
  secret: string;
  public_key: string;
}

export function testOffice(
  id: string,
  priority: OfficePriority,
  cathedral: Cathedral = "FOR-PHILOSOPHERS",
): TestOffice {
  const secret = hash("sha256", `test-office:${id}`, "hex");
  return { id, priority, cathedral, secret, public_key: publicKeyFromSecret("ed25519", secret) };
}

/** Two critical, three high offices (the fifth validates), registered, each with a heartbeat GI. */
export function standardOffices(ledger: MemoryLedger, gi: Record<string, number> = {}): Record<string, TestOffice> {
  const offices = [
    testOffice("ATLAS", "critical", "FOR-GOVERNMENTS"),
    testOffice("EVE", "critical", "FOR-PHILOSOPHERS"),
    testOffice("HERMES", "high", "FOR-GOVERNMENTS"),
    testOffice("SOPHIA", "high", "FOR-PHILOSOPHERS"),
    testOffice("JANUS", "high", "DIPLOMACY"),
  ];
  for (const o of offices) {
    const d = ledger.run((s) =>
      decideRegisterOffice(s, { id: o.id, priority: o.priority, cathedral: o.cathedral, public_key: o.public_key }),
    );
    if (!d.ok) throw new Error(d.refusal.message);
    heartbeat(ledger, o.id, gi[o.id] ?? 0.97);
  }
  return Object.fromEntries(offices.map((o) => [o.id, o]));
}

export function heartbeat(ledger: MemoryLedger, sentinel: string, gi: number): void {
  ledger.append([
    {
      type: "sentinel.heartbeat",
      payload: { sentinel, status: "operational", gi_score: gi, apps: 3, packages: 4, workflows: 2, drift: 0.5 },
    },
  ]);
}

export const PARTICIPANTS = ["ATLAS", "EVE", "HERMES", "SOPHIA"];

/** Signs with the office's key, as the session steps (core/consensus/steps.ts) take it. */
export function officeSign(office: Pick<TestOffice, "secret">): OfficeSign {
  return (message) => sign("ed25519", office.secret, message);
}

export function signedVote(office: TestOffice, sessionId: string, vote: VoteValue) {
  return stepVote(sessionId, office.id, vote, officeSign(office));
}

export function proofRequest(): ProofRequest {
  return {
    question: "Publish the drift analysis weekly?",
    context: { source: "test", urgency: 2 },
    rounds: [
      {
        round: 1,
        statements: PARTICIPANTS.map((p) => ({
          participant: p,
          position: "APPROVE" as const,
          summary: `${p} agrees.`,
        })),
      },
    ],
    constitutional_check: { transparency: true, bounded_authority: true },
  };
}

function must<R>(d: Decision<R>): R {
  if (!d.ok) throw new Error(`${d.refusal.code}: ${d.refusal.message}`);
  return d.result;
}

/** One complete session through every decision: open, votes, proof generated, signed, validated, closed. */
export function completeSession(
  ledger: MemoryLedger,
  offices: Record<string, TestOffice>,
  votes: Partial<Record<string, VoteValue>> = { ATLAS: "APPROVE", EVE: "APPROVE", HERMES: "APPROVE", SOPHIA: "REJECT" },
  room = "ethics",
): { sessionId: string; delibId: string } {
  const opened = must(
    ledger.run((s) => decideOpenSession(s, { cycle: "C-151", room, gi_baseline: 0.97, participants: PARTICIPANTS })),
  );
  const sessionId = opened!.sessionId;
  for (const [id, vote] of Object.entries(votes))
    must(ledger.run((s) => voteStep(s, sessionId, id, vote!, officeSign(offices[id]!))));
  const { inputs } = must(ledger.run((s) => decideGenerateProof(s, sessionId, proofRequest())));
  for (const id of PARTICIPANTS)
    must(ledger.run((s) => modelSignatureStep(s, inputs.delib_id, id, officeSign(offices[id]!))));
  must(ledger.run((s) => validatorStep(s, inputs.delib_id, "JANUS", officeSign(offices.JANUS!))));
  const outcome =
    ledger.state.sessions.get(sessionId)!.votes.filter((v) => v.vote === "APPROVE").length >= 3
      ? "APPROVED"
      : Object.keys(votes).length === 4
        ? "REJECTED"
        : "NO_QUORUM";
  must(
    ledger.run((s) => decideCloseSession(s, { sessionId, outcome, delibproof_id: inputs.delib_id, gi_delta: 0.002 })),
  );
  return { sessionId, delibId: inputs.delib_id };
}
