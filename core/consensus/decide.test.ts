import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { sign } from "../signature.ts";
import {
  decideCloseSession,
  decideCycleUpdate,
  decideGenerateProof,
  decideModelSignature,
  decideOpenSession,
  decideRegisterOffice,
  decideValidatorSignature,
  decideVote,
  type Decision,
} from "./decide.ts";
import { modelMessage, validatorMessage } from "./messages.ts";
import { REFUSAL_CODES, type RefusalCode } from "./refusal.ts";
import { proofModelSignatures } from "./model.ts";
import {
  completeSession,
  heartbeat,
  MemoryLedger,
  PARTICIPANTS,
  proofRequest,
  signedVote,
  standardOffices,
  testOffice,
  type TestOffice,
} from "../../test/support/core/consensus/helpers.ts";

const seen = new Set<RefusalCode>();

/** Expects a refusal with `code`, and that nothing was appended. */
function refused<R>(ledger: MemoryLedger, d: (s: MemoryLedger["state"]) => Decision<R>, code: RefusalCode) {
  const before = ledger.entries.length;
  const result = ledger.run(d);
  expect(result.ok, JSON.stringify(result)).toBe(false);
  if (result.ok) throw new Error("accepted");
  expect(result.refusal.code).toBe(code);
  expect(ledger.entries.length).toBe(before);
  seen.add(code);
  return result.refusal;
}

function accepted<R>(ledger: MemoryLedger, d: (s: MemoryLedger["state"]) => Decision<R>): R {
  const result = ledger.run(d);
  if (!result.ok) throw new Error(`${result.refusal.code}: ${result.refusal.message}`);
  return result.result;
}

const OPEN = { cycle: "C-151", room: "ethics", gi_baseline: 0.97, participants: PARTICIPANTS };

let ledger: MemoryLedger;
let offices: Record<string, TestOffice>;
beforeEach(() => {
  ledger = new MemoryLedger();
  offices = standardOffices(ledger);
});

afterAll(() => {
  // Every refusal code of the union is exercised by a test below.
  expect([...seen].sort()).toEqual(REFUSAL_CODES);
});

describe("offices", () => {
  it("registers an office as one sentinel.registered carrying its priority", () => {
    const o = testOffice("IRIS", "critical", "DIPLOMACY");
    const d = decideRegisterOffice(ledger.state, {
      id: o.id,
      priority: "critical",
      cathedral: "DIPLOMACY",
      public_key: o.public_key,
    });
    expect(d).toEqual({
      ok: true,
      events: [
        {
          type: "sentinel.registered",
          payload: {
            sentinel: "IRIS",
            cathedral: "DIPLOMACY",
            algorithm: "ed25519",
            public_key: o.public_key,
            priority: "critical",
          },
        },
      ],
      result: { office: "IRIS" },
    });
    ledger.append(d.ok ? d.events : []);
    expect(ledger.state.offices.get("IRIS")).toMatchObject({ priority: "critical", public_key: o.public_key });
  });

  it("refuses an id already registered, a key another office holds, and a key that is no Ed25519 point", () => {
    const o = testOffice("IRIS", "high");
    refused(
      ledger,
      (s) =>
        decideRegisterOffice(s, { id: "ATLAS", priority: "high", cathedral: "DIPLOMACY", public_key: o.public_key }),
      "office-exists",
    );
    const r = refused(
      ledger,
      (s) =>
        decideRegisterOffice(s, {
          id: "IRIS",
          priority: "high",
          cathedral: "DIPLOMACY",
          public_key: offices.EVE!.public_key,
        }),
      "key-in-use",
    );
    expect(r.details).toMatchObject({ held_by: "EVE" });
    refused(
      ledger,
      (s) =>
        decideRegisterOffice(s, {
          id: "IRIS",
          priority: "high",
          cathedral: "DIPLOMACY",
          public_key: "02".padEnd(64, "0"),
        }),
      "invalid-key",
    );
    refused(
      ledger,
      (s) =>
        decideRegisterOffice(s, {
          id: "IRIS",
          priority: "high",
          cathedral: "DIPLOMACY",
          public_key: "01".padEnd(64, "0"),
        }),
      "invalid-key",
    ); // small order
  });

  it("a key registered twice behind the decisions' back makes no second office", () => {
    ledger.append([
      {
        type: "sentinel.registered",
        payload: {
          sentinel: "IRIS",
          cathedral: "DIPLOMACY",
          algorithm: "ed25519",
          public_key: offices.EVE!.public_key,
          priority: "critical",
        },
      },
    ]);
    expect(ledger.state.offices.has("IRIS")).toBe(false);
    expect(ledger.state.ignored.at(-1)).toMatchObject({ type: "sentinel.registered", reason: "key-in-use" });
  });
});

describe("the cycle", () => {
  it("records cycle and GI, and refuses to go back", () => {
    accepted(ledger, (s) => decideCycleUpdate(s, { cycle: "C-152", gi: 0.981 }));
    expect(ledger.state.cycle).toMatchObject({ cycle: "C-152", gi: 0.981 });
    accepted(ledger, (s) => decideCycleUpdate(s, { cycle: "C-152", gi: 0.983 }));
    const r = refused(ledger, (s) => decideCycleUpdate(s, { cycle: "C-151", gi: 0.99 }), "cycle-regressed");
    expect(r.details).toEqual({ current: "C-152", requested: "C-151" });
  });
});

describe("opening a session", () => {
  it("opens with a generated id and answers null — appending nothing — while one is active for the same cycle and room", () => {
    expect(accepted(ledger, (s) => decideOpenSession(s, OPEN))).toEqual({ sessionId: "CS-151-1" });
    const again = ledger.run((s) => decideOpenSession(s, OPEN));
    expect(again).toEqual({ ok: true, events: [], result: null });
    expect(accepted(ledger, (s) => decideOpenSession(s, { ...OPEN, room: "policy" }))).toEqual({
      sessionId: "CS-151-2",
    });
    expect(accepted(ledger, (s) => decideOpenSession(s, { ...OPEN, cycle: "C-152" }))).toEqual({
      sessionId: "CS-152-1",
    });
  });

  it("opens again for the same cycle and room once the session closed", () => {
    completeSession(ledger, offices);
    expect(accepted(ledger, (s) => decideOpenSession(s, OPEN))).toEqual({ sessionId: "CS-151-2" });
  });

  it("rejects a participant below GI 0.95, naming it and its GI (rule 5)", () => {
    heartbeat(ledger, "EVE", 0.9412);
    heartbeat(ledger, "SOPHIA", 0.93);
    const r = refused(ledger, (s) => decideOpenSession(s, OPEN), "gi-below-minimum");
    expect(r.message).toBe(
      "rejected: EVE (office integrity 0.9412), SOPHIA (office integrity 0.93) are below the minimum office integrity 0.95",
    );
    expect(r.details).toMatchObject({
      office: "EVE",
      gi: 0.9412,
      below: [
        { office: "EVE", gi: 0.9412 },
        { office: "SOPHIA", gi: 0.93 },
      ],
    });
    heartbeat(ledger, "EVE", 0.95);
    heartbeat(ledger, "SOPHIA", 0.951);
    accepted(ledger, (s) => decideOpenSession(s, OPEN)); // exactly 0.95 is enough
  });

  it("refuses an unknown office, an office without a measured GI, and the wrong priority mix", () => {
    refused(
      ledger,
      (s) => decideOpenSession(s, { ...OPEN, participants: ["ATLAS", "EVE", "HERMES", "NOBODY"] }),
      "unknown-office",
    );
    const o = testOffice("IRIS", "high");
    accepted(ledger, (s) =>
      decideRegisterOffice(s, { id: o.id, priority: "high", cathedral: "DIPLOMACY", public_key: o.public_key }),
    );
    refused(
      ledger,
      (s) => decideOpenSession(s, { ...OPEN, participants: ["ATLAS", "EVE", "HERMES", "IRIS"] }),
      "gi-unmeasured",
    );
    const r = refused(
      ledger,
      (s) => decideOpenSession(s, { ...OPEN, participants: ["ATLAS", "HERMES", "SOPHIA", "JANUS"] }),
      "priority-mix",
    );
    expect(r.details).toEqual({ critical: ["ATLAS"], high: ["HERMES", "SOPHIA", "JANUS"] });
  });
});

describe("votes", () => {
  let id: string;
  beforeEach(() => {
    id = accepted(ledger, (s) => decideOpenSession(s, OPEN))!.sessionId;
  });

  it("records a participant's signed vote once", () => {
    const r = accepted(ledger, (s) => decideVote(s, id, signedVote(offices.ATLAS!, id, "APPROVE")));
    expect(r.tally).toMatchObject({ approve: 1, voted: 1, outcome: "NO_QUORUM" });
    expect(ledger.entries.at(-1)!.type).toBe("consensus.vote");
    refused(ledger, (s) => decideVote(s, id, signedVote(offices.ATLAS!, id, "REJECT")), "already-voted");
  });

  it("refuses a non-participant, a signature by another key or over another session, and an unknown session", () => {
    refused(ledger, (s) => decideVote(s, id, signedVote(offices.JANUS!, id, "APPROVE")), "not-a-participant");
    refused(
      ledger,
      (s) => decideVote(s, id, { ...signedVote(offices.EVE!, id, "APPROVE"), participant: "ATLAS" }),
      "bad-signature",
    );
    refused(ledger, (s) => decideVote(s, id, signedVote(offices.ATLAS!, "CS-151-9", "APPROVE")), "bad-signature");
    refused(
      ledger,
      (s) => decideVote(s, id, { ...signedVote(offices.ATLAS!, id, "APPROVE"), vote: "REJECT" }),
      "bad-signature",
    );
    refused(
      ledger,
      (s) => decideVote(s, "CS-151-9", signedVote(offices.ATLAS!, "CS-151-9", "APPROVE")),
      "unknown-session",
    );
  });

  it("closes the ballot when the proof is generated, and refuses votes on a closed session", () => {
    accepted(ledger, (s) => decideGenerateProof(s, id, proofRequest()));
    refused(ledger, (s) => decideVote(s, id, signedVote(offices.ATLAS!, id, "APPROVE")), "voting-closed");
    const other = completeSession(ledger, offices, undefined, "policy");
    refused(
      ledger,
      (s) => decideVote(s, other.sessionId, signedVote(offices.ATLAS!, other.sessionId, "APPROVE")),
      "session-closed",
    );
  });
});

describe("the deliberation proof", () => {
  let id: string;
  beforeEach(() => {
    id = accepted(ledger, (s) => decideOpenSession(s, OPEN))!.sessionId;
    for (const [p, v] of [
      ["ATLAS", "APPROVE"],
      ["EVE", "APPROVE"],
      ["HERMES", "REJECT"],
    ] as const) {
      accepted(ledger, (s) => decideVote(s, id, signedVote(offices[p]!, id, v)));
    }
    heartbeat(ledger, "ATLAS", 0.99);
  });

  const sig = (o: TestOffice, msg: Uint8Array) => sign("ed25519", o.secret, msg);

  it("is generated with delib_id, consensus and gi_score computed from the ledger", () => {
    const { inputs } = accepted(ledger, (s) => decideGenerateProof(s, id, proofRequest()));
    // 2 approvals of 4; GI (0.99 + 0.97 + 0.97 + 0.97) / 4.
    expect(inputs).toMatchObject({ delib_id: "DP-151-1", consensus: 0.5, gi_score: 0.975 });
    expect(ledger.entries.at(-1)!.payload).toMatchObject({
      session_id: id,
      delib_id: "DP-151-1",
      consensus: 0.5,
      gi_score: 0.975,
    });
    refused(ledger, (s) => decideGenerateProof(s, id, proofRequest()), "proof-exists");
    refused(ledger, (s) => decideGenerateProof(s, "CS-1-1", proofRequest()), "unknown-session");
  });

  it("refuses rounds with a statement by a non-participant", () => {
    const req = proofRequest();
    req.rounds[0]!.statements[0]!.participant = "JANUS";
    const r = refused(ledger, (s) => decideGenerateProof(s, id, req), "round-participant");
    expect(r.details).toMatchObject({ participant: "JANUS" });
  });

  it("goes generated → model-signed → validator-signed → sealed, refusing each step out of order", () => {
    const { inputs } = accepted(ledger, (s) => decideGenerateProof(s, id, proofRequest()));
    const d = inputs.delib_id;
    const close = { sessionId: id, outcome: "NO_QUORUM" as const, delibproof_id: d, gi_delta: -0.001 };
    refused(
      ledger,
      (s) =>
        decideValidatorSignature(s, d, { validator: "JANUS", signature: sig(offices.JANUS!, modelMessage(inputs)) }),
      "proof-state",
    );
    refused(ledger, (s) => decideCloseSession(s, close), "proof-state");
    refused(
      ledger,
      (s) =>
        decideModelSignature(s, "DP-9-9", {
          participant: "ATLAS",
          signature: sig(offices.ATLAS!, modelMessage(inputs)),
        }),
      "unknown-proof",
    );
    refused(
      ledger,
      (s) => decideModelSignature(s, d, { participant: "JANUS", signature: sig(offices.JANUS!, modelMessage(inputs)) }),
      "not-a-participant",
    );
    refused(
      ledger,
      (s) => decideModelSignature(s, d, { participant: "ATLAS", signature: sig(offices.EVE!, modelMessage(inputs)) }),
      "bad-signature",
    );
    for (const [i, p] of PARTICIPANTS.entries()) {
      const r = accepted(ledger, (s) =>
        decideModelSignature(s, d, { participant: p, signature: sig(offices[p]!, modelMessage(inputs)) }),
      );
      expect(r).toEqual({ state: i === 3 ? "model-signed" : "generated", signed: i + 1 });
    }
    refused(
      ledger,
      (s) => decideModelSignature(s, d, { participant: "EVE", signature: sig(offices.EVE!, modelMessage(inputs)) }),
      "already-signed",
    );

    const proof = ledger.state.proofs.get(d)!;
    const vmsg = validatorMessage(inputs, proofModelSignatures(proof, ledger.state.sessions.get(id)!));
    refused(
      ledger,
      (s) => decideValidatorSignature(s, d, { validator: "ATLAS", signature: sig(offices.ATLAS!, vmsg) }),
      "validator-is-participant",
    );
    refused(
      ledger,
      (s) => decideValidatorSignature(s, d, { validator: "ZEUS", signature: sig(offices.JANUS!, vmsg) }),
      "unknown-office",
    );
    refused(
      ledger,
      (s) =>
        decideValidatorSignature(s, d, { validator: "JANUS", signature: sig(offices.JANUS!, modelMessage(inputs)) }),
      "bad-signature",
    );
    heartbeat(ledger, "JANUS", 0.949);
    const low = refused(
      ledger,
      (s) => decideValidatorSignature(s, d, { validator: "JANUS", signature: sig(offices.JANUS!, vmsg) }),
      "gi-below-minimum",
    );
    expect(low.details).toMatchObject({ office: "JANUS", gi: 0.949 });
    heartbeat(ledger, "JANUS", 0.962);
    expect(
      accepted(ledger, (s) =>
        decideValidatorSignature(s, d, { validator: "JANUS", signature: sig(offices.JANUS!, vmsg) }),
      ),
    ).toEqual({
      state: "validator-signed",
      gi: 0.962,
    });
    expect(ledger.entries.at(-1)!.payload).toMatchObject({ validator: "JANUS", gi: 0.962 });

    // The close must agree with the signed votes: 2 APPROVE, 1 REJECT, one missing → NO_QUORUM.
    const r = refused(ledger, (s) => decideCloseSession(s, { ...close, outcome: "APPROVED" }), "outcome-disagrees");
    expect(r.message).toBe(
      "the signed votes say NO_QUORUM (2 APPROVE, 1 REJECT, 0 ABSTAIN; 3 of 4 voted), not APPROVED",
    );
    expect(r.details).toMatchObject({
      requested: "APPROVED",
      tally: { approve: 2, reject: 1, abstain: 0, voted: 3, participants: 4, outcome: "NO_QUORUM" },
    });
    refused(ledger, (s) => decideCloseSession(s, { ...close, delibproof_id: "DP-9-9" }), "unknown-proof");
    const before = ledger.entries.length;
    const closed = accepted(ledger, (s) => decideCloseSession(s, close));
    // One transaction: the evaluation and the seal.
    expect(ledger.entries.slice(before).map((e) => e.type)).toEqual(["consensus.evaluated", "delibproof.sealed"]);
    expect(ledger.entries.at(-1)!.payload).toEqual({
      delibproof_id: d,
      proof_digest: closed.proof_digest,
      merkle_root: closed.merkle_root,
    });
    expect(ledger.state.proofs.get(d)!.seal).toMatchObject({
      ledger_seq: ledger.entries.length - 1,
      merkle_root: closed.merkle_root,
    });
    expect(ledger.state.active.size).toBe(0);
    refused(ledger, (s) => decideCloseSession(s, close), "session-closed");
    refused(
      ledger,
      (s) => decideModelSignature(s, d, { participant: "EVE", signature: sig(offices.EVE!, modelMessage(inputs)) }),
      "proof-state",
    );
  });

  it("refuses to close a session with another session's proof", () => {
    const other = accepted(ledger, (s) => decideOpenSession(s, { ...OPEN, room: "policy" }))!.sessionId;
    const { inputs } = accepted(ledger, (s) => decideGenerateProof(s, other, proofRequest()));
    refused(
      ledger,
      (s) =>
        decideCloseSession(s, { sessionId: id, outcome: "NO_QUORUM", delibproof_id: inputs.delib_id, gi_delta: 0 }),
      "proof-mismatch",
    );
  });
});
