import { describe, expect, it } from "vitest";
import { fold } from "../ledger/projection.ts";
import { sign } from "../signature.ts";
import {
  decideCloseSession,
  decideCycleUpdate,
  decideGenerateProof,
  decideModelSignature,
  decideOpenSession,
  decideValidatorSignature,
  decideVote,
} from "./decide.ts";
import { modelMessage, validatorMessage } from "./messages.ts";
import { consensusProjection } from "./state.ts";
import { proofModelSignatures, proofState } from "./model.ts";
import { activeSessions, consensusHealth, cycleInfo, officeRoster, proofDocument, sessionSummaries } from "./views.ts";
import {
  completeSession,
  heartbeat,
  MemoryLedger,
  PARTICIPANTS,
  proofRequest,
  signedVote,
  standardOffices,
} from "../../test/support/core/consensus/helpers.ts";

const OPEN = { cycle: "C-151", room: "ethics", gi_baseline: 0.97, participants: PARTICIPANTS };

function must<R>(d: { ok: true; result: R } | { ok: false; refusal: { message: string } }): R {
  if (!d.ok) throw new Error(d.refusal.message);
  return d.result;
}

describe("the consensus projection", () => {
  it("rebuilt from the ledger's entries equals the live state, at every point", () => {
    const ledger = new MemoryLedger();
    const offices = standardOffices(ledger);
    ledger.run((s) => decideCycleUpdate(s, { cycle: "C-151", gi: 0.97 }));
    completeSession(ledger, offices); // APPROVED
    completeSession(ledger, offices, { ATLAS: "REJECT", EVE: "APPROVE", HERMES: "ABSTAIN", SOPHIA: "REJECT" }); // REJECTED
    completeSession(ledger, offices, { ATLAS: "APPROVE" }, "policy"); // NO_QUORUM
    const open = must(ledger.run((s) => decideOpenSession(s, OPEN)))!.sessionId;
    ledger.run((s) => decideVote(s, open, signedVote(offices.EVE!, open, "APPROVE")));
    expect(ledger.state.ignoredCount).toBe(0);
    for (const n of [0, 7, 20, ledger.entries.length]) {
      const live = new MemoryLedger();
      live.append(ledger.entries.slice(0, n).map((e) => ({ type: e.type, payload: e.payload, ts: e.ts })));
      expect(fold(consensusProjection, ledger.entries.slice(0, n))).toEqual(live.state);
    }
    expect(fold(consensusProjection, ledger.entries)).toEqual(ledger.state);
    expect(sessionSummaries(ledger.state).map((s) => s.outcome)).toEqual(["APPROVED", "REJECTED", "NO_QUORUM", null]);
  });

  it("answers the views: active sessions with GI and votes, the cycle with the active room, the roster", () => {
    const ledger = new MemoryLedger();
    const offices = standardOffices(ledger, { SOPHIA: 0.96 });
    expect(cycleInfo(ledger.state)).toBeNull();
    ledger.run((s) => decideCycleUpdate(s, { cycle: "C-151", gi: 0.975 }));
    expect(cycleInfo(ledger.state)).toEqual({ cycle: "C-151", gi: 0.975, room: "main" });
    const id = must(ledger.run((s) => decideOpenSession(s, OPEN)))!.sessionId;
    ledger.run((s) => decideVote(s, id, signedVote(offices.EVE!, id, "REJECT")));
    heartbeat(ledger, "SOPHIA", 0.951);
    expect(cycleInfo(ledger.state)).toEqual({ cycle: "C-151", gi: 0.975, room: "ethics" });
    const { sessions } = activeSessions(ledger.state);
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({
      session_id: id,
      room: "ethics",
      votes: [{ participant: "EVE", vote: "REJECT" }],
      proof: null,
    });
    expect(sessions[0]!.participants.find((p) => p.office === "SOPHIA")).toEqual({
      office: "SOPHIA",
      priority: "high",
      cathedral: "FOR-PHILOSOPHERS",
      gi_at_opening: 0.96,
      gi: 0.951,
    });
    expect(officeRoster(ledger.state).map((r) => `${r.priority}:${r.office}`)).toEqual([
      "critical:ATLAS",
      "critical:EVE",
      "high:HERMES",
      "high:JANUS",
      "high:SOPHIA",
    ]);
    expect(consensusHealth(ledger.state)).toEqual({
      status: "ok",
      ledger_size: ledger.entries.length,
      offices: 5,
      eligible_offices: 5,
      active_sessions: 1,
      sessions: 1,
      sealed_proofs: 0,
      ignored_entries: 0,
    });
  });

  it("ignores consensus entries written behind the decisions' back: they never count", () => {
    const ledger = new MemoryLedger();
    const offices = standardOffices(ledger);
    const id = must(ledger.run((s) => decideOpenSession(s, OPEN)))!.sessionId;
    const forged = { ...signedVote(offices.EVE!, id, "APPROVE"), participant: "ATLAS" };
    ledger.append([{ type: "consensus.vote", payload: { session_id: id, ...forged } }]);
    ledger.append([
      { type: "consensus.vote", payload: { session_id: id, ...signedVote(offices.JANUS!, id, "APPROVE") } },
    ]);
    ledger.append([
      {
        type: "consensus.vote",
        payload: { session_id: "S-1", participant: "office-aurea", vote: "APPROVE", signature: "ab".repeat(64) },
      },
    ]);
    expect(ledger.state.sessions.get(id)!.votes).toEqual([]);
    // A typed-in consensus, a validator GI that was not measured, a wrong seal.
    for (const [p, v] of [
      ["ATLAS", "APPROVE"],
      ["EVE", "APPROVE"],
      ["HERMES", "APPROVE"],
      ["SOPHIA", "APPROVE"],
    ] as const) {
      must(ledger.run((s) => decideVote(s, id, signedVote(offices[p]!, id, v))));
    }
    const gen = decideGenerateProof(ledger.state, id, proofRequest());
    if (!gen.ok) throw new Error();
    ledger.append([{ ...gen.events[0]!, payload: { ...gen.events[0]!.payload, consensus: 0.5 } }]);
    expect(ledger.state.proofs.size).toBe(0);
    ledger.append(gen.events);
    const { inputs } = gen.result;
    for (const p of PARTICIPANTS)
      must(
        ledger.run((s) =>
          decideModelSignature(s, inputs.delib_id, {
            participant: p,
            signature: sign("ed25519", offices[p]!.secret, modelMessage(inputs)),
          }),
        ),
      );
    const proof = ledger.state.proofs.get(inputs.delib_id)!;
    const signature = sign(
      "ed25519",
      offices.JANUS!.secret,
      validatorMessage(inputs, proofModelSignatures(proof, ledger.state.sessions.get(id)!)),
    );
    ledger.append([
      { type: "delibproof.validated", payload: { delib_id: inputs.delib_id, validator: "JANUS", gi: 0.99, signature } },
    ]);
    expect(proofState(proof)).toBe("model-signed");
    must(ledger.run((s) => decideValidatorSignature(s, inputs.delib_id, { validator: "JANUS", signature })));
    const close = decideCloseSession(ledger.state, {
      sessionId: id,
      outcome: "APPROVED",
      delibproof_id: inputs.delib_id,
      gi_delta: 0.001,
    });
    if (!close.ok) throw new Error();
    ledger.append([
      {
        type: "consensus.evaluated",
        payload: { session_id: id, delibproof_id: inputs.delib_id, outcome: "REJECTED", gi_delta: 0.001 },
      },
    ]);
    expect(ledger.state.sessions.get(id)!.closed).toBeNull();
    ledger.append([
      close.events[0]!,
      { ...close.events[1]!, payload: { ...close.events[1]!.payload, merkle_root: `sha256:${"0".repeat(64)}` } },
    ]);
    expect(proof.seal).toBeNull();
    expect(ledger.state.ignored.map((x) => x.reason)).toEqual([
      "bad-signature",
      "not-a-participant",
      "unknown-session",
      "not-as-computed",
      "not-as-computed",
      "outcome-disagrees",
      "not-as-computed",
    ]);
    expect(ledger.state.ignoredCount).toBe(7);
    expect(consensusHealth(ledger.state)).toMatchObject({ status: "degraded", ignored_entries: 7 });
    expect(proofDocument(ledger.state, inputs.delib_id)!.state).toBe("validator-signed");
  });
});
