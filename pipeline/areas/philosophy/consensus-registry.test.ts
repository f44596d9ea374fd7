import { describe, expect, it } from "vitest";
import { decideCycleUpdate, decideOpenSession } from "../../../core/consensus/decide.ts";
import {
  completeSession,
  heartbeat,
  MemoryLedger,
  PARTICIPANTS,
  standardOffices,
} from "../../../test/support/core/consensus/helpers.ts";
import type { ConsensusRegistry } from "../../../core/schemas/consensus.ts";
import { factsOf } from "../../facts/accumulate.ts";
import { makeInputs, publishedSchemaErrors } from "../../../test/support/pipeline/areas/helpers.ts";
import { consensusRegistryStep } from "./consensus-registry.ts";
import { steps } from "./index.ts";

describe("philosophy/consensus-registry.json", () => {
  it("is a step of the philosophy area", () => {
    expect(steps).toContain(consensusRegistryStep);
  });

  it("publishes the cycle, the roster with measured GI, the active sessions and the newest sealed proofs", () => {
    const ledger = new MemoryLedger();
    const offices = standardOffices(ledger, { SOPHIA: 0.94 });
    heartbeat(ledger, "SOPHIA", 0.96);
    ledger.run((s) => decideCycleUpdate(s, { cycle: "C-151", gi: 0.97 }));
    const first = completeSession(ledger, offices);
    const second = completeSession(ledger, offices, { ATLAS: "APPROVE" }, "policy");
    ledger.run((s) =>
      decideOpenSession(s, { cycle: "C-151", room: "treaties", gi_baseline: 0.97, participants: PARTICIPANTS }),
    );
    const doc = JSON.parse(
      consensusRegistryStep.generate(makeInputs(factsOf(ledger.entries)), new Map()) as string,
    ) as ConsensusRegistry;
    expect(publishedSchemaErrors("philosophy/consensus-registry", doc)).toEqual([]);
    expect(doc.current).toEqual({ cycle: "C-151", gi: 0.97, room: "treaties" });
    expect(doc.offices.map((o) => [o.office, o.priority, o.gi, o.eligible])).toEqual([
      ["ATLAS", "critical", 0.97, true],
      ["EVE", "critical", 0.97, true],
      ["HERMES", "high", 0.97, true],
      ["JANUS", "high", 0.97, true],
      ["SOPHIA", "high", 0.96, true], // the latest heartbeat's GI
    ]);
    expect(doc.active_sessions.map((s) => [s.room, s.votes.length, s.proof])).toEqual([["treaties", 0, null]]);
    expect(doc.recent_proofs.map((p) => [p.delib_id, p.outcome, p.validator])).toEqual([
      [second.delibId, "NO_QUORUM", "JANUS"],
      [first.delibId, "APPROVED", "JANUS"],
    ]);
    expect(doc.recent_proofs[1]).toMatchObject({ session_id: first.sessionId, consensus: 0.75, room: "ethics" });
    expect([doc.sessions, doc.sealed_proofs]).toEqual([3, 2]);
  });
});
