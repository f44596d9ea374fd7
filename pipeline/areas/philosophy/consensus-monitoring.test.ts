import { describe, expect, it } from "vitest";
import { completeSession, MemoryLedger, standardOffices } from "../../../test/support/core/consensus/helpers.ts";
import { ConsensusMonitoring } from "../../../core/schemas/consensus.ts";
import { factsOf } from "../../facts/accumulate.ts";
import { makeFacts, makeInputs, publishedSchemaErrors } from "../../../test/support/pipeline/areas/helpers.ts";
import { consensusMonitoringStep } from "./consensus-monitoring.ts";
import { steps } from "./index.ts";

const generate = (facts: ReturnType<typeof makeFacts>) =>
  JSON.parse(consensusMonitoringStep.generate(makeInputs(facts), new Map()) as string) as ConsensusMonitoring;

describe("philosophy/consensus-monitoring.json", () => {
  it("is a step of the philosophy area", () => {
    expect(steps).toContain(consensusMonitoringStep);
  });

  it("measures the sessions the ledger holds, per week, target beside value", () => {
    // Three sessions through the real decisions, a minute per ledger batch (MemoryLedger).
    const ledger = new MemoryLedger();
    const offices = standardOffices(ledger);
    completeSession(ledger, offices); // APPROVED, 3 of 4 approve
    completeSession(ledger, offices, { ATLAS: "APPROVE" }, "policy"); // NO_QUORUM
    completeSession(
      ledger,
      offices,
      { ATLAS: "APPROVE", EVE: "APPROVE", HERMES: "APPROVE", SOPHIA: "APPROVE" },
      "treaties",
    );
    const facts = factsOf(ledger.entries);
    expect(facts.consensusSessions.map((s) => s.outcome)).toEqual(["APPROVED", "NO_QUORUM", "APPROVED"]);
    const doc = generate(facts);
    expect(publishedSchemaErrors("philosophy/consensus-monitoring", doc)).toEqual([]);
    expect(doc.weeks).toHaveLength(1);
    const [week] = doc.weeks;
    expect(week).toMatchObject({
      week: "2025-W49",
      complete: false,
      sessions_closed: 3,
      sessions_open: 0,
      sessions: { measured: 3, target_min: 3, target_max: 5, met: null },
      agreement_rate: { measured: 0.6667, target_min: 0.85, met: false }, // (0.75 + 0.25 + 1) / 3
      gi_drift_per_session: { measured: 0.002, target_max: 0.01, met: true },
      quorum_failure_rate: { measured: 0.3333, target_below: 0.05, met: false },
    });
    // Each session's entries are a minute apart: opened … closed.
    expect(week!.average_duration_minutes.measured).toBeGreaterThan(5);
    expect(week!.average_duration_minutes.met).toBe(true);
  });

  it("has no weeks before the first session", () => {
    const doc = generate(makeFacts({ asOf: "2025-12-05T18:00:00.000Z" }));
    expect(doc.weeks).toEqual([]);
  });
});
