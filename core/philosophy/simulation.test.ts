import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { sha256, sha256Hex } from "../digest.ts";
import { Deliberations, SentinelStatus, SimulationUpdate, Virtues } from "../schemas/index.ts";
import { formCouncil } from "./council.ts";
import { PACE, positionOf, prepare, SETTLED, simulate, SPREAD } from "./simulation.ts";
import { documents, TEST_INPUTS } from "../../test/support/core/philosophy/helpers.ts";

const streamText = (messages: Iterable<unknown>) => [...messages].map((m) => JSON.stringify(m)).join("\n");

/** Six members with mixed records on two topics. */
function mixedCouncil() {
  const ids = ["ATLAS", "EVE", "IRIS", "JANUS", "SOLON", "SOPHIA"];
  const statements = [];
  for (let i = 0; i < 6; i++) {
    statements.push({
      topic: "Burn the surplus of the fee pool",
      positions: {
        ATLAS: "oppose",
        EVE: "support",
        IRIS: i % 2 ? "oppose" : "abstain",
        JANUS: "conditional",
        SOLON: "oppose",
        SOPHIA: "support",
      } as const,
      tags: {
        ATLAS: ["courage" as const],
        EVE: ["temperance" as const, "justice" as const],
        SOPHIA: ["prudence" as const],
      },
    });
    statements.push({
      topic: "Release the coordination dataset under an open licence",
      positions: {
        ATLAS: "support",
        EVE: "support",
        IRIS: "support",
        JANUS: i % 3 ? "support" : "oppose",
        SOLON: "conditional",
        SOPHIA: "abstain",
      } as const,
      tags: { IRIS: ["integrity" as const], JANUS: ["courage" as const] },
    });
  }
  return formCouncil(
    documents(
      ids.map((id) => ({ id })),
      statements,
      { courage: 0.45, justice: 0.8 },
    ),
  );
}

describe("simulate", () => {
  const council = mixedCouncil();

  it("is deterministic: the same scenario and data give the same stream, byte for byte", () => {
    const a = streamText(simulate(council, "Burn the surplus of the fee pool"));
    const b = streamText(simulate(mixedCouncil(), "Burn the surplus of the fee pool"));
    expect(a).toBe(b);
    // Pinned: a change to the model or its constants changes this digest (update it on purpose).
    expect(sha256Hex(a)).toBe("93e5c5d91eaf1908016d984363ff87d7809f0d8e2e78626f90fc3ad698e29047");
  });

  it("depends on the scenario text", () => {
    expect(streamText(simulate(council, "Burn the surplus of the fee pool"))).not.toBe(
      streamText(simulate(council, "Burn the surplus of the fee pool!")),
    );
  });

  it("sends valid messages: an opening, rounds in order, one final message with an outcome", () => {
    const messages = [...simulate(council, "Release the dataset")];
    expect(messages.length).toBeGreaterThan(2);
    messages.forEach((m, i) => {
      expect(SimulationUpdate.parse(m)).toEqual(m);
      expect(m.current_state.round).toBe(i);
      expect(m.current_state.phase).toBe(i === 0 ? "opening" : i === messages.length - 1 ? "final" : "deliberating");
      expect(m.current_state.outcome === null).toBe(i < messages.length - 1);
      expect(m.current_state.end_reason === null).toBe(i < messages.length - 1);
      expect(m.current_state.inputs).toEqual(TEST_INPUTS);
      expect(m.sentinels.map((s) => s.id)).toEqual(["ATLAS", "EVE", "IRIS", "JANUS", "SOLON", "SOPHIA"]);
      const influence = m.sentinels.reduce((sum, s) => sum + s.influence, 0);
      expect(influence).toBeCloseTo(1, 3);
    });
  });

  it("announces in each round's next_actions exactly what the next round shows", () => {
    const messages = [...simulate(council, "Burn the surplus of the fee pool")];
    for (let i = 0; i + 1 < messages.length; i++) {
      const now = messages[i]!;
      const next = messages[i + 1]!;
      now.next_actions.forEach((a, k) => {
        expect(a.sentinel).toBe(now.sentinels[k]!.id);
        expect(a.position).toBe(next.sentinels[k]!.position);
        const delta = next.sentinels[k]!.stance - now.sentinels[k]!.stance;
        if (a.action === "lean_support") expect(delta).toBeGreaterThanOrEqual(0);
        if (a.action === "lean_oppose") expect(delta).toBeLessThanOrEqual(0);
        if (a.action === "hold") expect(Math.abs(delta)).toBeLessThanOrEqual(0.0006);
      });
    }
  });

  it("reads positions from the rounded stance", () => {
    expect([1, 0.5, 0.49995, 0.4999, 0.2, 0.19994, 0, -0.1999, -0.2, -1].map(positionOf)).toEqual([
      "support",
      "support",
      "support",
      "conditional",
      "conditional",
      "abstain",
      "abstain",
      "abstain",
      "oppose",
      "oppose",
    ]);
  });

  it("starts each member from its relevance-weighted record, shifted by the seeded first impression", () => {
    // Two members; B alone supported topic X and opposed topic Y, 4 times each.
    const statements = [];
    for (let i = 0; i < 4; i++) {
      statements.push({ topic: "alpha beta gamma", positions: { A: "abstain", B: "support" } as const });
      statements.push({ topic: "delta epsilon zeta", positions: { A: "abstain", B: "oppose" } as const });
    }
    const c = formCouncil(documents([{ id: "A" }, { id: "B" }], statements));
    const u = (scenario: string, id: string) => {
      const h = sha256(`philosophy-simulation\n${scenario}\n${id}`);
      return (h[0]! * 2 ** 24 + h[1]! * 2 ** 16 + h[2]! * 2 ** 8 + h[3]!) / 2 ** 32;
    };
    // Scenario "alpha beta": relevance 2/3 to topic X, 0 to Y. B: prior = (4·(2/3)·1 + 2·0) / (4·(2/3) + 2).
    const scenario = "alpha beta";
    const weight = (4 * 2) / 3;
    const expected = (weight + 2 * 0) / (weight + 2) + (2 * u(scenario, "B") - 1) * SPREAD * (2 / (weight + 2));
    const prepared = prepare(c, scenario);
    expect(prepared.x0[1]).toBeCloseTo(expected, 12);
    expect(prepared.x0[0]).toBeCloseTo((2 * u(scenario, "A") - 1) * SPREAD * (2 / (weight + 2)), 12);
    // The opposed topic pulls B's first reading below zero (the shift is at most ±0.17 here).
    expect(prepare(c, "delta epsilon").x0[1]).toBeLessThan(-0.3);
    // No relevant topic: the overall mean (0) plus a shift of at most ±SPREAD.
    expect(Math.abs(prepare(c, "omega").x0[1]!)).toBeLessThanOrEqual(SPREAD);
  });

  it("moves each stance by the Friedkin–Johnsen step toward its anchor and the others' weighted mean", () => {
    const messages = [...simulate(council, "Burn the surplus of the fee pool")];
    const p = prepare(council, "Burn the surplus of the fee pool");
    const x1 = p.x0.map((x, i) => {
      let sum = 0;
      let w = 0;
      p.x0.forEach((xj, j) => {
        if (j === i) return;
        sum += p.influence[j]! * xj;
        w += p.influence[j]!;
      });
      const lambda = p.stubbornness[i]!;
      return (1 - PACE) * x + PACE * (lambda * x + (1 - lambda) * (sum / w));
    });
    messages[1]!.sentinels.forEach((s, i) => expect(s.stance).toBeCloseTo(x1[i]!, 4));
  });

  it("gives more influence to members whose record shows the virtues the council scores well", () => {
    const statements = [
      {
        topic: "anything",
        positions: { BRAVE: "support", JUST: "support" } as const,
        tags: { BRAVE: ["courage" as const], JUST: ["justice" as const] },
      },
    ];
    const c = formCouncil(documents([{ id: "BRAVE" }, { id: "JUST" }], statements, { courage: 0.2, justice: 1 }));
    const [brave, just] = prepare(c, "anything").influence;
    expect(just!).toBeGreaterThan(brave!);
    const lowGi = formCouncil(
      documents(
        [
          { id: "BRAVE", gi: 0.95 },
          { id: "JUST", gi: 1 },
        ],
        [],
        {},
      ),
    );
    const [b, j] = prepare(lowGi, "x").influence;
    expect(j! / b!).toBeCloseTo(1 / 0.95, 12);
  });

  it("ends unanimous when every member supports", () => {
    const statements = Array.from({ length: 5 }, () => ({
      topic: "open data",
      positions: { A: "support", B: "support", C: "support" } as const,
    }));
    const c = formCouncil(documents([{ id: "A" }, { id: "B" }, { id: "C" }], statements));
    const last = [...simulate(c, "open data")].at(-1)!;
    expect(last.current_state).toMatchObject({
      phase: "final",
      outcome: "approved",
      end_reason: "unanimous",
      agreement: 1,
    });
    expect(last.next_actions).toEqual([]);
  });

  it("rejects when at least half oppose, and the others record dissent", () => {
    const statements = Array.from({ length: 8 }, () => ({
      topic: "burn the pool",
      positions: { A: "oppose", B: "oppose", C: "support", D: "oppose" } as const,
      tags: { A: ["courage" as const], B: ["courage" as const], C: ["courage" as const], D: ["courage" as const] },
    }));
    const c = formCouncil(
      documents(
        ["A", "B", "C", "D"].map((id) => ({ id })),
        statements,
      ),
    );
    const last = [...simulate(c, "burn the pool")].at(-1)!;
    expect(last.next_actions.length).toBeGreaterThan(0);
    expect(last.current_state.outcome).toBe("rejected");
    expect(last.current_state.opposition).toBeGreaterThanOrEqual(0.5);
    const dissenters = last.sentinels.filter((s) => s.position !== "oppose").map((s) => s.id);
    expect(last.next_actions).toEqual(
      dissenters.map((id) => ({
        sentinel: id,
        action: "record_dissent",
        position: last.sentinels.find((s) => s.id === id)!.position,
      })),
    );
  });

  it("ends settled once no stance moves by SETTLED, and defers without a quorum", () => {
    const messages = [
      ...simulate(council, "Release the coordination dataset under an open licence and burn the surplus"),
    ];
    const last = messages.at(-1)!;
    if (last.current_state.end_reason === "settled") expect(last.current_state.movement).toBeLessThan(SETTLED + 0.0001);
    for (const m of messages.slice(1, -1)) expect(m.current_state.movement).toBeGreaterThanOrEqual(SETTLED - 0.0001);
    const { agreement, opposition, outcome } = last.current_state;
    expect(outcome).toBe(agreement >= 0.75 ? "approved" : opposition >= 0.5 ? "rejected" : "deferred");
  });

  it("stops at the round limit", () => {
    for (const maxRounds of [1, 2, 3]) {
      const messages = [...simulate(council, "Burn the surplus of the fee pool", { maxRounds })];
      expect(messages).toHaveLength(maxRounds + 1);
      expect(messages.at(-1)!.current_state).toMatchObject({
        round: maxRounds,
        max_rounds: maxRounds,
        phase: "final",
        end_reason: "round_limit",
      });
    }
    expect(() => simulate(council, "x", { maxRounds: 0 }).next()).toThrow(RangeError);
    expect(() => simulate(council, "x", { maxRounds: 1.5 }).next()).toThrow(RangeError);
    expect(() => simulate(council, "x", { maxRounds: 1001 }).next()).toThrow(RangeError);
  });

  it("with nobody seated sends one final message", () => {
    const empty = formCouncil(documents([{ id: "LOW", gi: 0.5 }], []));
    const messages = [...simulate(empty, "anything")];
    expect(messages).toHaveLength(1);
    expect(messages[0]!.current_state).toMatchObject({
      round: 0,
      phase: "final",
      outcome: "deferred",
      end_reason: "settled",
      excluded: ["LOW"],
    });
    expect(messages[0]!.sentinels).toEqual([]);
  });

  it("runs on the published philosophy files and ends within the limit", () => {
    const read = (path: string) =>
      JSON.parse(readFileSync(new URL(`../../data/areas/${path}`, import.meta.url), "utf8")) as unknown;
    const real = formCouncil({
      deliberations: Deliberations.parse(read("philosophy/deliberations.json")),
      virtues: Virtues.parse(read("philosophy/virtues.json")),
      sentinelStatus: SentinelStatus.parse(read("government/sentinel-status.json")),
      inputs: TEST_INPUTS,
    });
    expect(real.members.length).toBeGreaterThan(0);
    const messages = [...simulate(real, "Weigh transparency against privacy in the audit export")];
    expect(messages.length).toBeLessThanOrEqual(51);
    for (const m of messages) SimulationUpdate.parse(m);
  });
});
