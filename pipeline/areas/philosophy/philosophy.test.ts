import { describe, expect, it } from "vitest";
import type { z } from "zod";
import type { PulseRecord } from "../../../core/pulse/history.ts";
import { Decisions, Deliberations, DriftAnalysis, Virtues } from "../../../core/schemas/philosophy.ts";
import { publishedSchemas } from "../../../core/schemas/index.ts";
import type { DeliberationFacts, LedgerFacts } from "../../facts/types.ts";
import { SourceError } from "../../source-reader.ts";
import type { DocumentStep, GeneratorInputs, Step } from "../../step.ts";
import {
  makeFacts,
  makeInputs,
  makePulseHistory,
  makeSentinel,
  patchedSources,
  publishedSchemaErrors,
  repoSources,
} from "../../../test/support/pipeline/areas/helpers.ts";
import { gini, issuancePerMintingCycle, twiceMedian } from "./virtues.ts";
import { steps } from "./index.ts";

// ---------------------------------------------------------------------------------------------
// Hand-built facts. Expected figures are worked out beside each test.

const AS_OF = "2025-12-05T18:00:00.000Z";

function deliberation(
  id: string,
  positions: DeliberationFacts["sentinels"][number]["position"][],
  tags: string[] = ["integrity"],
): DeliberationFacts {
  return {
    ts: AS_OF,
    id,
    topic: `Topic ${id}`,
    sentinels: positions.map((position, i) => ({
      id: `s-${i}`,
      position,
      reasoning: `Reason ${i}`,
      virtue_tags: tags,
    })),
    consensus: positions.filter((p) => p === "support").length / positions.length,
    outcome: "approved",
  };
}

function facts(overrides: Partial<LedgerFacts> = {}): LedgerFacts {
  return makeFacts({
    size: 100,
    firstTs: "2025-12-01T00:00:00.000Z",
    asOf: AS_OF,
    // Rewards 0, 100, 300, 600 shards: Gini = (2·(1·0 + 2·100 + 3·300 + 4·600) − 5·1000) / (4·1000) = 0.5.
    sentinels: [
      makeSentinel({ id: "s-a", cathedral: "FOR-PHILOSOPHERS", rewardsShards: 0n }),
      makeSentinel({ id: "s-b", cathedral: "FOR-PHILOSOPHERS", rewardsShards: 300n }),
      makeSentinel({ id: "s-c", cathedral: "FOR-ACADEMICS", rewardsShards: 600n }),
      makeSentinel({ id: "s-d", cathedral: "DIPLOMACY", rewardsShards: 100n }),
    ],
    // Cumulative minted 100, 200, 200, 500, 620: issuance per minting cycle 100, 100, 300, 120
    // (C-153 minted nothing); median (100 + 120) / 2 = 110; 300 > 2 × 110 is the one spike.
    supplyByCycle: [
      { cycle: "C-151", ts: "2025-12-01T12:00:00.000Z", mintedShards: 100n, burnedShards: 0n, lockedShards: 0n },
      { cycle: "C-152", ts: "2025-12-02T12:00:00.000Z", mintedShards: 200n, burnedShards: 0n, lockedShards: 0n },
      { cycle: "C-153", ts: "2025-12-03T12:00:00.000Z", mintedShards: 200n, burnedShards: 50n, lockedShards: 0n },
      { cycle: "C-154", ts: "2025-12-04T12:00:00.000Z", mintedShards: 500n, burnedShards: 50n, lockedShards: 0n },
      { cycle: "C-155", ts: "2025-12-05T12:00:00.000Z", mintedShards: 620n, burnedShards: 50n, lockedShards: 0n },
    ],
    // 8 evaluated, 1 without quorum: prudence 7/8.
    consensus: { opened: 9, evaluated: 8, approved: 6, rejected: 1, noQuorum: 1, open: 1, sealedProofs: 8 },
    // 4 deliberations, one with an opposing position: courage 1/4.
    deliberations: [
      deliberation(
        "delib-1",
        ["support", "support", "support", "support"],
        ["integrity", "candour", "justice", "integrity"],
      ),
      deliberation("delib-2", ["support", "oppose", "support", "support"], ["courage"]),
      deliberation("delib-3", ["support", "abstain", "support", "support"], []),
      deliberation("delib-4", ["support", "support", "support", "support"]),
    ],
    ...overrides,
  });
}

// Ten daily pulses; GI ≥ 0.95 in 8 of them (0.94 and 0.93 miss): integrity 0.8.
const GI10 = [0.96, 0.97, 0.94, 0.98, 0.99, 0.95, 0.93, 0.97, 0.96, 0.98];
const PULSE = makePulseHistory(GI10.map((gi) => [gi, 0.97] as const));
const NEWEST = "2025-12-10T06:00:00.000Z"; // 2025-12-01T06:00Z + 9 days, later than the ledger: C-160

const VIRTUES_TEST_CONFIG = {
  version: "test",
  description: "test bands",
  virtues: {
    integrity: { weight: 2, compliant_at: 0.9, at_risk_at: 0.75, window_pulses: 30, gi_min: 0.95 },
    temperance: { weight: 1, compliant_at: 0.7, at_risk_at: 0.5, spike_factor: 2 },
    justice: { weight: 1, compliant_at: 0.7, at_risk_at: 0.5 },
    prudence: { weight: 1, compliant_at: 0.95, at_risk_at: 0.85 },
    courage: { weight: 1, target_share: 1, compliant_at: 0.3, at_risk_at: 0.2 },
  },
};
const DRIFT_TEST_CONFIG = {
  version: "test",
  description: "test drift",
  window_days: 30,
  baseline_pulses: 7,
  current_pulses: 7,
  direction_epsilon: 0.001,
  drifting_at: 0.01,
  critical_at: 0.05,
  charter_floor: { gi: 0.95, mii: 0.95 },
};
function testSources(virtues: unknown = VIRTUES_TEST_CONFIG, drift: unknown = DRIFT_TEST_CONFIG) {
  return patchedSources(
    { "philosophy/virtues.json": JSON.stringify(virtues), "philosophy/drift.json": JSON.stringify(drift) },
    ["philosophy/decisions.json"],
  );
}

const byId = new Map<string, Step>(steps.map((s) => [s.id, s]));
function documentStep(id: string): DocumentStep {
  const step = byId.get(id);
  if (!step || step.kind !== "document") throw new Error(`no document step ${id}`);
  return step;
}
function generate(id: string, inputs: GeneratorInputs): string {
  const out = documentStep(id).generate(inputs, new Map());
  if (typeof out !== "string") throw new Error("expected text");
  return out;
}
function doc<T>(id: string, inputs: GeneratorInputs, schema: z.ZodType<T>): T {
  const text = generate(id, inputs);
  expect(text).toBe(JSON.stringify(JSON.parse(text), null, 2) + "\n");
  const parsed: unknown = JSON.parse(text);
  const name = documentStep(id).schema as keyof typeof publishedSchemas;
  expect(publishedSchemaErrors(name, parsed), `${id} against data/schemas/${name}`).toEqual([]);
  return schema.parse(parsed);
}

// ---------------------------------------------------------------------------------------------

describe("philosophy steps", () => {
  it("are the four public JSON documents, the consensus monitoring and the consensus registry, with registry schemas", () => {
    expect(steps.map((s) => s.path)).toEqual([
      "deliberations.json",
      "virtues.json",
      "decisions.json",
      "drift-analysis.json",
      "consensus-monitoring.json",
      "consensus-registry.json",
    ]);
    for (const s of steps) {
      expect(s.kind).toBe("document");
      expect(s.area).toBe("philosophy");
      expect(s.id).toBe(`philosophy/${s.path}`);
      expect([s.access, s.version, s.mediatype]).toEqual(["public", 1, "application/json"]);
      expect(s.name).toMatch(/^[a-z0-9._-]+$/);
      expect(s.schema).toBe(`philosophy/${s.path.replace(/\.json$/, "")}`);
      expect(s.inputs.slice(0, 2)).toEqual(["ledger", "pulse"]);
    }
  });

  it("read exactly the sources they declare", () => {
    for (const s of steps) {
      if (s.kind !== "document") continue;
      const declared = s.inputs.filter((i) => i.startsWith("sources/")).map((i) => i.slice("sources/".length));
      const read = new Set<string>();
      const real = repoSources();
      const sources = {
        json: <T>(path: string, schema: z.ZodType<T>) => (read.add(path), real.json(path, schema)),
        text: (path: string) => (read.add(path), real.text(path)),
      };
      s.generate({ facts: facts(), pulse: PULSE, sources }, new Map());
      expect([...read].sort(), s.id).toEqual([...declared].sort());
    }
  });

  it("validate and are byte-identical run after run with the repository's sources", () => {
    for (const s of steps) {
      const inputs = makeInputs(facts(), PULSE);
      const text = generate(s.id, inputs);
      expect(generate(s.id, makeInputs(facts(), PULSE))).toBe(text);
      const name = s.schema as keyof typeof publishedSchemas;
      const parsed: unknown = JSON.parse(text);
      expect(publishedSchemas[name].safeParse(parsed).success, s.id).toBe(true);
      expect(publishedSchemaErrors(name, parsed), s.id).toEqual([]);
      expect((parsed as { timestamp: string }).timestamp).toBe(NEWEST);
      expect((parsed as { cycle: string }).cycle).toBe("C-160");
    }
  });
});

describe("deliberations.json", () => {
  it("lists every recorded deliberation oldest first, keeping only virtue names as tags", () => {
    const d = doc("philosophy/deliberations.json", makeInputs(facts(), PULSE), Deliberations);
    expect(d.deliberations.map((x) => x.id)).toEqual(["delib-1", "delib-2", "delib-3", "delib-4"]);
    expect(d.deliberations[0]?.sentinels[0]).toEqual({
      id: "s-0",
      position: "support",
      reasoning: "Reason 0",
      virtue_tags: ["integrity", "justice"],
    });
    expect(d.deliberations[1]?.sentinels[1]?.position).toBe("oppose");
    expect(d.deliberations[1]?.consensus).toBe(0.75);
    expect(Object.keys(d.deliberations[0] ?? {})).toEqual(["id", "topic", "sentinels", "consensus", "outcome"]);
  });

  it("is an empty list for a ledger without deliberations", () => {
    expect(
      doc("philosophy/deliberations.json", makeInputs(facts({ deliberations: [] }), PULSE), Deliberations)
        .deliberations,
    ).toEqual([]);
  });
});

describe("virtues.json", () => {
  it("computes each virtue from the facts and the pulse", () => {
    const v = doc("philosophy/virtues.json", makeInputs(facts(), PULSE, testSources()), Virtues);
    expect(v.virtues.integrity.score).toBe(0.8);
    expect(v.virtues.temperance.score).toBe(0.75);
    expect(v.virtues.justice.score).toBe(0.5);
    expect(v.virtues.prudence.score).toBe(0.875);
    expect(v.virtues.courage.score).toBe(0.25);
    // Weighted mean, integrity weighted 2: (2·0.8 + 0.75 + 0.5 + 0.875 + 0.25) / 6.
    expect(v.overall_compliance).toBeCloseTo((1.6 + 0.75 + 0.5 + 0.875 + 0.25) / 6, 15);
    expect(v.virtues.integrity.measure).toContain("8 of 10");
    expect(v.virtues.temperance.measure).toContain("(0.00 MIC): 1 of 4 exceeded it");
    expect(v.virtues.justice.measure).toContain("Gini 0.5000");
    expect(v.virtues.prudence.measure).toContain("7 of 8");
    expect(v.virtues.courage.measure).toContain("1 of the 4 recorded deliberations (25.0%)");
  });

  it("scores courage against its target share, at most 1", () => {
    const config = structuredClone(VIRTUES_TEST_CONFIG);
    config.virtues.courage.target_share = 0.2; // 1 of 4 = 25 % dissent ≥ 20 %: fully kept
    const v = doc("philosophy/virtues.json", makeInputs(facts(), PULSE, testSources(config)), Virtues);
    expect([v.virtues.courage.score, v.virtues.courage.status]).toEqual([1, "compliant"]);
    config.virtues.courage.target_share = 0.5; // 25 % of a 50 % target
    expect(
      doc("philosophy/virtues.json", makeInputs(facts(), PULSE, testSources(config)), Virtues).virtues.courage.score,
    ).toBe(0.5);
  });

  it("sets each status by the bands of the source", () => {
    const v = doc("philosophy/virtues.json", makeInputs(facts(), PULSE, testSources()), Virtues);
    expect(Object.fromEntries(Object.entries(v.virtues).map(([k, a]) => [k, a.status]))).toEqual({
      integrity: "at_risk", // 0.8: below 0.9, at least 0.75
      temperance: "compliant", // 0.75 ≥ 0.7
      justice: "at_risk", // 0.5: exactly at_risk_at
      prudence: "at_risk", // 0.875
      courage: "at_risk", // 0.25: below 0.3, at least 0.2
    });
    const strict = structuredClone(VIRTUES_TEST_CONFIG);
    strict.virtues.courage.at_risk_at = 0.26;
    const w = doc("philosophy/virtues.json", makeInputs(facts(), PULSE, testSources(strict)), Virtues);
    expect(w.virtues.courage.status).toBe("non_compliant");
  });

  it("uses only the latest window_pulses pulses for integrity", () => {
    const config = structuredClone(VIRTUES_TEST_CONFIG);
    config.virtues.integrity.window_pulses = 4; // 0.97, 0.96, 0.98 and 0.93: 3 of 4
    const v = doc("philosophy/virtues.json", makeInputs(facts(), PULSE, testSources(config)), Virtues);
    expect(v.virtues.integrity.score).toBe(0.75);
    expect(v.virtues.integrity.measure).toContain("3 of 4");
  });

  it("does not claim a virtue it cannot observe: score 0, non_compliant", () => {
    const empty = makeFacts({ asOf: AS_OF });
    const v = doc("philosophy/virtues.json", makeInputs(empty, [], testSources()), Virtues);
    for (const a of Object.values(v.virtues)) {
      expect([a.score, a.status]).toEqual([0, "non_compliant"]);
      expect(a.measure).toMatch(/not demonstrated/);
    }
    expect(v.overall_compliance).toBe(0);
    expect(v.timestamp).toBe(AS_OF);
  });

  it("names the file and the field of a bad virtues source", () => {
    const config = structuredClone(VIRTUES_TEST_CONFIG) as unknown as { virtues: { justice: Record<string, unknown> } };
    config.virtues.justice["compliant_at"] = "high";
    expect(() => generate("philosophy/virtues.json", makeInputs(facts(), PULSE, testSources(config)))).toThrow(
      /data\/sources\/philosophy\/virtues\.json: virtues\.justice\.compliant_at/,
    );
    const swapped = structuredClone(VIRTUES_TEST_CONFIG);
    swapped.virtues.prudence.at_risk_at = 0.99;
    expect(() => generate("philosophy/virtues.json", makeInputs(facts(), PULSE, testSources(swapped)))).toThrow(
      /virtues\.prudence\.at_risk_at: at_risk_at must not exceed compliant_at/,
    );
  });
});

describe("virtue arithmetic", () => {
  it("Gini of hand-computed distributions", () => {
    expect(gini([0n, 100n, 300n, 600n])).toBe(0.5);
    expect(gini([5n, 5n, 5n])).toBe(0);
    expect(gini([0n, 0n, 0n, 12n])).toBe(0.75); // (n − 1) / n when one holds everything
    expect(gini([0n, 0n])).toBeNull();
    expect(gini([])).toBeNull();
  });

  it("issuance per minting cycle and the exact median", () => {
    expect(issuancePerMintingCycle(facts())).toEqual([100n, 100n, 300n, 120n]);
    expect(twiceMedian([100n, 100n, 300n, 120n])).toBe(220n);
    expect(twiceMedian([7n, 1n, 3n])).toBe(6n);
    expect(twiceMedian([1n, 2n])).toBe(3n); // a median of 1.5 shards, kept exact
  });
});

describe("decisions.json", () => {
  it("publishes the curated decisions oldest first", () => {
    const d = doc("philosophy/decisions.json", makeInputs(facts(), PULSE), Decisions);
    expect(d.decisions.length).toBeGreaterThan(0);
    const order = d.decisions.map((x) => `${x.date} ${x.id}`);
    expect(order).toEqual([...order].sort());
  });

  it("names the file and the field of a bad decision", () => {
    const source = JSON.parse(repoSources().text("philosophy/decisions.json")) as {
      decisions: Record<string, unknown>[];
    };
    const bad = structuredClone(source);
    (bad.decisions[1] as Record<string, unknown>)["date"] = "2025-13-01";
    const sources = patchedSources({ "philosophy/decisions.json": JSON.stringify(bad) });
    expect(() => generate("philosophy/decisions.json", makeInputs(facts(), PULSE, sources))).toThrow(SourceError);
    expect(() => generate("philosophy/decisions.json", makeInputs(facts(), PULSE, sources))).toThrow(
      /data\/sources\/philosophy\/decisions\.json: decisions\[1\]\.date/,
    );
    const extra = structuredClone(source);
    (extra.decisions[0] as Record<string, unknown>)["score"] = 1;
    expect(() =>
      generate(
        "philosophy/decisions.json",
        makeInputs(facts(), PULSE, patchedSources({ "philosophy/decisions.json": JSON.stringify(extra) })),
      ),
    ).toThrow(/decisions\[0\]: Unrecognized key/);
    const dup = structuredClone(source);
    dup.decisions.push(structuredClone(dup.decisions[0] as Record<string, unknown>));
    expect(() =>
      generate(
        "philosophy/decisions.json",
        makeInputs(facts(), PULSE, patchedSources({ "philosophy/decisions.json": JSON.stringify(dup) })),
      ),
    ).toThrow(/decisions\[\d+\]\.id: duplicate id/);
  });
});

// ---------------------------------------------------------------------------------------------

function history(scores: readonly (readonly [number, number])[], start?: string): PulseRecord[] {
  return makePulseHistory(scores, start);
}

describe("drift-analysis.json", () => {
  const drift = (pulse: PulseRecord[], f: LedgerFacts = facts(), drift: unknown = DRIFT_TEST_CONFIG) =>
    doc("philosophy/drift-analysis.json", makeInputs(f, pulse, testSources(VIRTUES_TEST_CONFIG, drift)), DriftAnalysis);

  // 20 daily pulses: the first 7 at GI 0.98, the last 7 at GI 0.95; MII steady at 0.97.
  const twenty = history([
    ...Array(7).fill([0.98, 0.97]),
    ...Array(6).fill([0.9, 0.97]),
    ...Array(7).fill([0.95, 0.97]),
  ]);

  it("compares the first and last 7 pulses of the window", () => {
    const d = drift(twenty);
    expect(d.trends.map((t) => [t.metric, t.direction])).toEqual([
      ["gi", "decreasing"],
      ["mii", "stable"],
    ]);
    // Rounded to 6 decimals: exact figures, no floating-point noise.
    expect(d.trends).toEqual([
      { metric: "gi", baseline: 0.98, current: 0.95, drift: -0.03, direction: "decreasing" },
      { metric: "mii", baseline: 0.97, current: 0.97, drift: 0, direction: "stable" },
    ]);
    expect(d.drift_score).toBe(0.015); // mean of |−0.03| and |0|
    expect(d.status).toBe("drifting");
    expect(d.alerts).toHaveLength(1);
    expect(d.alerts[0]).toMatchObject({
      id: "drift-gi",
      severity: "medium",
      source: "gi",
      raised_at: twenty[19]?.generatedAt,
    });
    expect(d.alerts[0]?.message).toContain("-0.0300");
    expect(d.analysis.principle_adherence).toBe(0.97);
    expect(d.analysis.charter_compliance).toBe(1); // GI 0.95 and MII 0.97 reach the 0.95 floor
  });

  it("takes virtue_alignment from the virtues' overall compliance", () => {
    const v = doc("philosophy/virtues.json", makeInputs(facts(), twenty, testSources()), Virtues);
    expect(drift(twenty).analysis.virtue_alignment).toBe(v.overall_compliance);
  });

  it("ignores pulses older than window_days before the newest", () => {
    // One pulse at GI 0.2, 40 days before the others: outside the 30-day window.
    const old = makePulseHistory([[0.2, 0.2], ...Array(41).fill([0.97, 0.97])], "2025-10-20T06:00:00.000Z");
    const kept = old.filter((_, i) => i === 0 || i > 11); // drop days 1..11: the rest span 30 days
    const d = drift(kept);
    expect(d.trends.map((t) => [t.baseline, t.current])).toEqual([
      [0.97, 0.97],
      [0.97, 0.97],
    ]);
    expect([d.drift_score, d.status, d.alerts]).toEqual([0, "stable", []]);
    // With the old pulse inside a longer window, the baseline drops.
    const wide = drift(kept, facts(), { ...DRIFT_TEST_CONFIG, window_days: 60 });
    expect(wide.trends[0]?.baseline).toBe(0.86); // (0.2 + 6 × 0.97) / 7
  });

  it("raises high-severity alerts and a critical status past critical_at", () => {
    const d = drift(
      history([
        [0.99, 0.99],
        [0.99, 0.99],
        [0.9, 0.9],
        [0.9, 0.9],
      ]),
    );
    // Four pulses: baseline and current are 2 each. Both metrics drift by −0.09.
    expect(d.drift_score).toBe(0.09);
    expect(d.status).toBe("critical");
    expect(d.alerts.map((a) => [a.id, a.severity])).toEqual([
      ["drift-gi", "high"],
      ["drift-mii", "high"],
    ]);
    expect(d.analysis.charter_compliance).toBe(0);
  });

  it("with one pulse compares it with itself: drift 0, stable", () => {
    const d = drift(history([[0.96, 0.94]]));
    expect(d.trends).toEqual([
      { metric: "gi", baseline: 0.96, current: 0.96, drift: 0, direction: "stable" },
      { metric: "mii", baseline: 0.94, current: 0.94, drift: 0, direction: "stable" },
    ]);
    expect([d.drift_score, d.status, d.alerts]).toEqual([0, "stable", []]);
    expect(d.analysis.charter_compliance).toBe(0); // MII 0.94 is under the floor
  });

  it("with two or three pulses uses one record on each side", () => {
    const d = drift(
      history([
        [0.9, 0.9],
        [0.5, 0.5],
        [0.95, 0.9],
      ]),
    );
    expect(d.trends[0]).toEqual({ metric: "gi", baseline: 0.9, current: 0.95, drift: 0.05, direction: "increasing" });
  });

  it("decides thresholds on the rounded figures: a drift of exactly drifting_at is drifting", () => {
    // Baseline GI 0.97 (three records: a float mean of 0.9699999999999999), current 0.95.
    // drift −0.02 exactly; drift_score (0.02 + 0) / 2 = 0.01 = drifting_at.
    const d = drift(
      history([
        [0.97, 0.96],
        [0.97, 0.96],
        [0.97, 0.96],
        [0.95, 0.96],
        [0.95, 0.96],
        [0.95, 0.96],
      ]),
    );
    expect(d.trends[0]).toEqual({ metric: "gi", baseline: 0.97, current: 0.95, drift: -0.02, direction: "decreasing" });
    expect([d.drift_score, d.status]).toEqual([0.01, "drifting"]);
  });

  it("fails without pulse history", () => {
    expect(() => generate("philosophy/drift-analysis.json", makeInputs(facts(), [], testSources()))).toThrow(
      /no pulse history/,
    );
  });

  it("names the file and the field of a bad drift source", () => {
    const bad = { ...DRIFT_TEST_CONFIG, drifting_at: 0.1, critical_at: 0.05 };
    expect(() =>
      generate("philosophy/drift-analysis.json", makeInputs(facts(), twenty, testSources(VIRTUES_TEST_CONFIG, bad))),
    ).toThrow(/data\/sources\/philosophy\/drift\.json: drifting_at/);
    const missing: Record<string, unknown> = { ...DRIFT_TEST_CONFIG };
    delete missing["window_days"];
    expect(() =>
      generate(
        "philosophy/drift-analysis.json",
        makeInputs(facts(), twenty, testSources(VIRTUES_TEST_CONFIG, missing)),
      ),
    ).toThrow(/drift\.json: window_days/);
  });
});
