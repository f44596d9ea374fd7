import { describe, expect, it } from "vitest";
import { formCouncil } from "./council.ts";
import { documents } from "../../test/support/core/philosophy/helpers.ts";
import { relevance, topicTokens } from "./topics.ts";

describe("topics", () => {
  it("keeps content words, lower case, without plural s or function words", () => {
    expect([...topicTokens("Weigh transparency against privacy in the audit export")]).toEqual([
      "weigh",
      "transparency",
      "privacy",
      "audit",
      "export",
    ]);
    expect([...topicTokens("Rotate the government API keys; policies, PROCESS!")]).toEqual([
      "rotate",
      "government",
      "api",
      "key",
      "policy",
      "process",
    ]);
    expect([...topicTokens("Ética y transparência 2026")]).toEqual(["ética", "transparência", "2026"]);
    expect(topicTokens("a an of to").size).toBe(0);
  });

  it("scores Jaccard similarity", () => {
    const a = topicTokens("audit export privacy");
    expect(relevance(a, topicTokens("Weigh transparency against privacy in the audit export"))).toBe(3 / 5);
    expect(relevance(a, a)).toBe(1);
    expect(relevance(a, topicTokens("Burn the surplus"))).toBe(0);
    expect(relevance(a, new Set())).toBe(0);
  });
});

describe("formCouncil", () => {
  const docs = documents(
    [
      { id: "B" },
      { id: "A", gi: 0.95, cathedral: "DIPLOMACY" },
      { id: "LOW", gi: 0.9499 },
      { id: "NONE", gi: null },
      { id: "NEW" },
    ],
    [
      {
        topic: "Burn the surplus",
        positions: { A: "support", B: "oppose", LOW: "support" },
        tags: { A: ["courage", "courage"], B: ["justice"] },
      },
      { topic: "Rotate the keys", positions: { A: "conditional", B: "abstain" }, tags: { A: ["prudence"] } },
      { topic: "Burn the surplus", positions: { A: "oppose" } },
    ],
    { justice: 0.5 },
  );
  const council = formCouncil(docs);

  it("seats sentinels with GI >= 0.95, sorted by id, and lists the others as excluded", () => {
    expect(council.members.map((m) => m.id)).toEqual(["A", "B", "NEW"]);
    expect(council.excluded).toEqual(["LOW", "NONE"]);
    expect(council.members[0]!.cathedral).toBe("DIPLOMACY");
  });

  it("records every statement as a stance on a topic, and the mean as the baseline", () => {
    const [a, b, fresh] = council.members;
    expect(a!.statements).toEqual([
      { topic: 0, stance: 1 },
      { topic: 1, stance: 0.5 },
      { topic: 0, stance: -1 },
    ]);
    expect(a!.byTopic).toEqual([
      { topic: 0, count: 2, sum: 0 },
      { topic: 1, count: 1, sum: 0.5 },
    ]);
    expect(a!.baseline).toBeCloseTo(0.5 / 3, 15);
    expect(b!.baseline).toBe(-0.5);
    expect(fresh!.statements).toEqual([]);
    expect(fresh!.baseline).toBe(0);
  });

  it("gives each member a Laplace-smoothed virtue profile (a repeated tag counts once)", () => {
    const [a, , fresh] = council.members;
    expect(a!.virtueProfile).toEqual({
      integrity: 1 / 5,
      temperance: 1 / 5,
      justice: 1 / 5,
      prudence: 2 / 5,
      courage: 2 / 5,
    });
    expect(fresh!.virtueProfile).toEqual({
      integrity: 0.5,
      temperance: 0.5,
      justice: 0.5,
      prudence: 0.5,
      courage: 0.5,
    });
  });

  it("keeps each distinct topic once with the share of its statements tagged per virtue", () => {
    expect(council.topics.map((t) => t.text)).toEqual(["Burn the surplus", "Rotate the keys"]);
    // Topic 0 has four statements (A, B, LOW, A): courage once, justice once.
    expect(council.topics[0]!.virtueShare).toEqual({
      integrity: 0,
      temperance: 0,
      justice: 0.25,
      prudence: 0,
      courage: 0.25,
    });
    expect(council.virtueScores.justice).toBe(0.5);
    expect(council.inputs).toEqual(docs.inputs);
  });

  it("seats a repeated sentinel once", () => {
    const twice = formCouncil(documents([{ id: "A" }, { id: "A" }], []));
    expect(twice.members.map((m) => m.id)).toEqual(["A"]);
  });
});
