import { readFileSync } from "node:fs";
import { join } from "node:path";
import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import { coordinationScore } from "../../../core/economy/formulas.ts";
import {
  AcademicsDataset,
  MiiTimelineRow,
  PapersIndex,
  SentinelCoordination,
  publishedSchemas,
} from "../../../core/schemas/index.ts";
import type { HeartbeatFacts, LedgerFacts } from "../../facts/types.ts";
import { checkBibtex } from "../../lib/bibtex.ts";
import { createSourceReader } from "../../source-reader.ts";
import type { DocumentStep, GeneratorInputs } from "../../step.ts";
import {
  REPO_ROOT,
  makeFacts,
  makeInputs,
  makePulse,
  makePulseHistory,
  makeSentinel,
  patchedSources,
  publishedSchemaErrors,
} from "../../../test/support/pipeline/areas/helpers.ts";
import { SoftwareSource, datasetStep, miiBaseline } from "./dataset.ts";
import { steps } from "./index.ts";
import { MII_TIMELINE_COLUMNS, miiTimelineStep } from "./mii-timeline.ts";
import { PapersSource, citationsStep, paperEntry, papersStep } from "./papers.ts";
import { consensusRate, sentinelCoordinationStep } from "./sentinel-coordination.ts";

// ------------------------------------------------------------------------------------------------
// Scenario: three sentinels registered on different days, 40 pulses every 12 hours.

const AS_OF = "2025-12-20T12:00:00.000Z";

const hb = (over: Partial<HeartbeatFacts>): HeartbeatFacts => ({
  ts: "2025-12-20T11:00:00.000Z",
  status: "operational",
  gi_score: 0.97,
  apps: 3,
  packages: 2,
  workflows: 4,
  drift: 1.5,
  ...over,
});

function scenarioFacts(overrides: Partial<LedgerFacts> = {}): LedgerFacts {
  return makeFacts({
    size: 500,
    firstTs: "2025-11-01T00:00:00.000Z",
    asOf: AS_OF,
    sentinels: [
      makeSentinel({
        id: "atlas",
        cathedral: "FOR-ACADEMICS",
        registeredAt: "2025-11-01T00:00:00.000Z",
        lastHeartbeat: hb({}),
        uptimeDays: 49.5,
        votes: 6,
        votesWithOutcome: 5,
      }),
      makeSentinel({
        id: "borealis",
        cathedral: "FOR-ECONOMISTS",
        registeredAt: "2025-12-05T00:00:00.000Z",
        lastHeartbeat: hb({ apps: 1, packages: 0, workflows: 2, drift: 4 }),
        uptimeDays: 15.5,
        votes: 4,
        votesWithOutcome: 2,
      }),
      makeSentinel({
        id: "cygnus",
        cathedral: "DIPLOMACY",
        registeredAt: "2025-12-15T06:00:00.000Z",
        uptimeDays: 5.25,
      }),
    ],
    consensus: { opened: 4, evaluated: 4, approved: 2, rejected: 1, noQuorum: 1, open: 0, sealedProofs: 4 },
    ...overrides,
  });
}

/** 40 pulses every 12 hours from 2025-11-01T00:00Z to 2025-11-20T12:00Z, then 10 more to 2025-12-20. */
const PULSE = (() => {
  const early = makePulseHistory(
    Array.from({ length: 40 }, (_, i) => [0.96, 0.9 + i * 0.001] as const),
    "2025-11-01T00:00:00.000Z",
    12 * 3_600_000,
  );
  const out = [...early];
  for (let i = 0; i < 10; i++) {
    const at = new Date(Date.parse("2025-11-21T12:00:00.000Z") + i * 3 * 86_400_000).toISOString();
    out.push(makePulse(100 + i, 0.97, 0.95 + i * 0.004, at, out[out.length - 1] ?? null));
  }
  return out;
})();

function inputs(facts = scenarioFacts(), pulse = PULSE): GeneratorInputs {
  return makeInputs(facts, pulse);
}

const text = (out: string | Uint8Array) => (typeof out === "string" ? out : new TextDecoder().decode(out));

function json<T>(step: DocumentStep, input = inputs()): T {
  const out = text(step.generate(input, new Map()));
  const doc = JSON.parse(out) as T;
  expect(out).toBe(`${JSON.stringify(doc, null, 2)}\n`);
  const name = step.schema as keyof typeof publishedSchemas;
  expect(publishedSchemas[name].safeParse(doc).success).toBe(true);
  expect(publishedSchemaErrors(name, doc)).toEqual([]);
  return doc;
}

function parseCsv(out: string): Record<string, string>[] {
  expect(out.endsWith("\r\n")).toBe(true);
  const parsed = Papa.parse<Record<string, string>>(out.slice(0, -2), { header: true, newline: "\r\n" });
  expect(parsed.errors).toEqual([]);
  return parsed.data;
}

const atlasScore = (0.4 * 3 + 0.3 * 2 + 0.2 * 4 + 0.1 * (10 - 1.5)) * (1 + Math.log(49.5));
const borealisScore = (0.4 * 1 + 0.3 * 0 + 0.2 * 2 + 0.1 * (10 - 4)) * (1 + Math.log(15.5));

// ------------------------------------------------------------------------------------------------

describe("academics steps", () => {
  it("are public, with unique ids and exact inputs", () => {
    expect(steps.map((s) => s.path)).toEqual([
      "dataset.json",
      "mii-timeline.csv",
      "sentinel-coordination.json",
      "papers.json",
      "citations.bib",
    ]);
    for (const step of steps) {
      expect(step.id).toBe(`academics/${step.path}`);
      expect([step.area, step.access, step.version]).toEqual(["academics", "public", 1]);
      if (step.schema) expect(Object.keys(publishedSchemas)).toContain(step.schema);
      // Each step reads exactly the sources it declares.
      if (step.kind !== "document") continue;
      const declared = step.inputs.filter((i) => i.startsWith("sources/")).map((i) => i.slice("sources/".length));
      const scoped = createSourceReader(join(REPO_ROOT, "data", "sources"), {
        allowed: new Set(declared),
        reader: step.id,
      });
      expect(() => step.generate(makeInputs(scenarioFacts(), PULSE, scoped), new Map())).not.toThrow();
    }
    expect(citationsStep.inputs).toEqual(["sources/academics/papers.json"]);
    expect(citationsStep.mediatype).toBe("application/x-bibtex");
  });

  it("give byte-identical output for the same inputs", () => {
    for (const step of steps) {
      if (step.kind !== "document") continue;
      expect(text(step.generate(inputs(), new Map()))).toBe(text(step.generate(inputs(), new Map())));
    }
  });
});

describe("dataset.json", () => {
  it("holds the cycle, the MII baseline, the sentinels' scores and the curated software", () => {
    const doc = json<AcademicsDataset>(datasetStep);
    expect(doc.cycle).toBe("C-170");
    // Window 2025-11-20T12:00Z .. AS_OF: the oldest pulse in it is the 40th (2025-11-20T12:00Z, MII 0.939).
    expect(doc.mii_baseline).toBe(0.9 + 39 * 0.001);
    expect(doc.sentinels).toEqual([
      { id: "atlas", score: atlasScore, cathedral: "FOR-ACADEMICS" },
      { id: "borealis", score: borealisScore, cathedral: "FOR-ECONOMISTS" },
      { id: "cygnus", score: null, cathedral: "DIPLOMACY" },
    ]);
    const software = SoftwareSource.parse(
      JSON.parse(readFileSync(join(REPO_ROOT, "data/sources/academics/software.json"), "utf8")),
    );
    expect(doc.apps).toEqual(software.apps);
    expect(doc.apps.map((a) => a.name)).toEqual(["api", "pipeline", "site"]);
    expect(doc.packages).toEqual(software.packages);
  });

  it("describes the npm package at its declared version", () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { name: string; version: string };
    const doc = json<AcademicsDataset>(datasetStep);
    expect(doc.packages.find((p) => p.path === ".")).toMatchObject({ name: pkg.name, version: pkg.version });
  });

  it("takes the baseline from before the window when the window is empty, null without pulses", () => {
    const early = PULSE.slice(0, 40);
    expect(miiBaseline(early, Date.parse("2026-02-01T00:00:00.000Z"))).toBe(0.9 + 39 * 0.001);
    expect(miiBaseline([], Date.parse(AS_OF))).toBeNull();
    const doc = json<AcademicsDataset>(datasetStep, inputs(scenarioFacts(), []));
    expect(doc.mii_baseline).toBeNull();
  });

  it("rejects a bad software source naming the file and the field", () => {
    const source = JSON.parse(readFileSync(join(REPO_ROOT, "data/sources/academics/software.json"), "utf8"));
    source.apps[1].files = 12;
    const sources = patchedSources({ "academics/software.json": JSON.stringify(source) });
    expect(() => datasetStep.generate(makeInputs(scenarioFacts(), PULSE, sources), new Map())).toThrow(
      /data\/sources\/academics\/software\.json: apps\[1\]: Unrecognized key: "files"/,
    );
    delete source.apps[1].files;
    source.apps[2].name = "api";
    const dup = patchedSources({ "academics/software.json": JSON.stringify(source) });
    expect(() => datasetStep.generate(makeInputs(scenarioFacts(), PULSE, dup), new Map())).toThrow(
      /apps\[2\]\.name: duplicate name api/,
    );
  });
});

describe("mii-timeline.csv", () => {
  it("lists the pulses of the 30 days to the document time with the sentinel count", () => {
    const out = text(miiTimelineStep.generate(inputs(), new Map()));
    expect(out.startsWith(`${MII_TIMELINE_COLUMNS.join(",")}\r\n`)).toBe(true);
    const rows = parseCsv(out);
    // The 40th early pulse (2025-11-20T12:00Z, exactly 30 days before AS_OF) and the 10 later ones.
    expect(rows.length).toBe(11);
    expect(rows[0]).toEqual({
      timestamp: "2025-11-20T12:00:00.000Z",
      mii_score: String(0.9 + 39 * 0.001),
      cycle: "C-151",
      sentinel_count: "1",
    });
    const counts = rows.map((r) => [r.timestamp, r.sentinel_count]);
    // atlas from 11-01, borealis from 12-05T00:00, cygnus from 12-15T06:00.
    expect(counts).toEqual([
      ["2025-11-20T12:00:00.000Z", "1"],
      ["2025-11-21T12:00:00.000Z", "1"],
      ["2025-11-24T12:00:00.000Z", "1"],
      ["2025-11-27T12:00:00.000Z", "1"],
      ["2025-11-30T12:00:00.000Z", "1"],
      ["2025-12-03T12:00:00.000Z", "1"],
      ["2025-12-06T12:00:00.000Z", "2"],
      ["2025-12-09T12:00:00.000Z", "2"],
      ["2025-12-12T12:00:00.000Z", "2"],
      ["2025-12-15T12:00:00.000Z", "3"],
      ["2025-12-18T12:00:00.000Z", "3"],
    ]);
    for (const row of rows) {
      const typed = { ...row, mii_score: Number(row.mii_score), sentinel_count: Number(row.sentinel_count) };
      expect(MiiTimelineRow.safeParse(typed).success).toBe(true);
      expect(publishedSchemaErrors("academics/mii-timeline-row", typed)).toEqual([]);
    }
    expect(rows.map((r) => Number(r.mii_score))).toEqual([
      0.9 + 39 * 0.001,
      ...Array.from({ length: 10 }, (_, i) => 0.95 + i * 0.004),
    ]);
  });

  it("is the header alone without pulses in the window", () => {
    expect(text(miiTimelineStep.generate(inputs(scenarioFacts(), PULSE.slice(0, 39)), new Map()))).toBe(
      "timestamp,mii_score,cycle,sentinel_count\r\n",
    );
  });
});

describe("sentinel-coordination.json", () => {
  it("lists scores and uptimes, their average and the vote-weighted consensus rate", () => {
    const doc = json<SentinelCoordination>(sentinelCoordinationStep);
    expect([doc.timestamp, doc.cycle]).toEqual([AS_OF, "C-170"]);
    expect(doc.sentinels).toEqual([
      { id: "atlas", coordination_score: atlasScore, uptime_days: 49.5, cathedral: "FOR-ACADEMICS" },
      { id: "borealis", coordination_score: borealisScore, uptime_days: 15.5, cathedral: "FOR-ECONOMISTS" },
      { id: "cygnus", coordination_score: null, uptime_days: 5.25, cathedral: "DIPLOMACY" },
    ]);
    expect(doc.average_coordination).toBe((atlasScore + borealisScore) / 2);
    expect(atlasScore).toBe(coordinationScore({ apps: 3, packages: 2, workflows: 4, drift: 1.5, uptimeDays: 49.5 }));
    // (5 + 2) / (6 + 4)
    expect(doc.consensus_rate).toBe(0.7);
  });

  it("falls back to decided sessions without votes, and to null without either", () => {
    const noVotes = scenarioFacts().sentinels.map((s) => ({ ...s, votes: 0, votesWithOutcome: 0 }));
    // (2 approved + 1 rejected) / 4 evaluated
    expect(consensusRate({ sentinels: noVotes, consensus: scenarioFacts().consensus })).toBe(0.75);
    const none = { opened: 0, evaluated: 0, approved: 0, rejected: 0, noQuorum: 0, open: 0, sealedProofs: 0 };
    expect(consensusRate({ sentinels: noVotes, consensus: none })).toBeNull();
    const doc = json<SentinelCoordination>(
      sentinelCoordinationStep,
      inputs(scenarioFacts({ sentinels: [], consensus: none })),
    );
    expect([doc.sentinels, doc.average_coordination, doc.consensus_rate]).toEqual([[], null, null]);
  });
});

describe("papers.json and citations.bib", () => {
  const source = PapersSource.parse(
    JSON.parse(readFileSync(join(REPO_ROOT, "data/sources/academics/papers.json"), "utf8")),
  );

  it("index the curated papers with the spec's fields", () => {
    const doc = json<PapersIndex>(papersStep);
    expect(doc.cycle).toBe("C-170");
    expect(doc.papers).toEqual(
      source.papers.map((p) => ({
        id: p.id,
        title: p.title,
        status: p.status,
        venues: p.venues,
        key_result: p.key_result,
        path: p.path,
      })),
    );
  });

  it("cite every paper with the entry type of its status, and parse back", () => {
    const bib = text(citationsStep.generate(inputs(), new Map()));
    const entries = checkBibtex(bib);
    expect(entries.map((e) => e.key)).toEqual(source.papers.map((p) => p.id));
    expect(entries.map((e) => e.type)).toEqual(["article", "inproceedings", "misc", "misc"]);
    expect(bib).toMatch(/^[\x0A\x20-\x7E]*$/);
    const [gi, ledger, , deliberation] = entries;
    expect(gi?.fields).toMatchObject({ journal: "Integrity Platform Technical Reports", year: "2025" });
    expect(gi?.fields.author).toBe('Okafor, Adaeze and M{\\"u}ller, Jonas and Lindqvist, Maja');
    expect(gi?.fields.title).toContain("the {GI} and {MII} Integrity Scores");
    expect(ledger?.fields).toMatchObject({
      booktitle: "Integrity Platform Research Symposium 2026",
      note: "Accepted for publication",
    });
    expect(ledger?.fields.title).toBe(
      "Ledgers \\& Sentinels: Offline Audit of an {RFC} 9162 Merkle Log with Signed Checkpoints",
    );
    expect(ledger?.fields.author).toBe("Garc{\\'\\i}a, Luc{\\'\\i}a and {\\O}degaard, Ingrid");
    expect(deliberation?.fields.note).toBe("Under review at Integrity Platform Research Symposium 2026");
    expect(deliberation?.fields.howpublished).toBeUndefined();
    expect(deliberation?.fields.title).toContain("{$\\geq$} 0.95");
  });

  it("write doi and url fields raw", () => {
    const paper = { ...source.papers[0], doi: "10.5555/ip.2025_01" } as PapersSource["papers"][number];
    const [entry] = checkBibtex(paperEntry(paper));
    expect(entry?.fields.doi).toBe("10.5555/ip.2025_01");
    expect(entry?.fields.url).toBe("https://doi.org/10.5555/ip.2025_01");
    const withUrl = {
      ...source.papers[2],
      url: "https://example.org/papers/rewards",
    } as PapersSource["papers"][number];
    expect(checkBibtex(paperEntry(withUrl))[0]?.fields.url).toBe("https://example.org/papers/rewards");
  });

  it("reject a bad papers source naming the file and the field", () => {
    const raw = JSON.parse(readFileSync(join(REPO_ROOT, "data/sources/academics/papers.json"), "utf8"));
    delete raw.papers[1].venue_kind;
    const sources = patchedSources({ "academics/papers.json": JSON.stringify(raw) });
    expect(() => citationsStep.generate(makeInputs(scenarioFacts(), PULSE, sources), new Map())).toThrow(
      /data\/sources\/academics\/papers\.json: papers\[1\]\.venue_kind: required when status is accepted/,
    );
    raw.papers[1].venue_kind = "conference";
    raw.papers[3].id = raw.papers[0].id;
    const dup = patchedSources({ "academics/papers.json": JSON.stringify(raw) });
    expect(() => papersStep.generate(makeInputs(scenarioFacts(), PULSE, dup), new Map())).toThrow(
      /papers\[3\]\.id: duplicate id/,
    );
    raw.papers[3].id = "emoji-paper";
    raw.papers[3].title = "Rockets 🚀";
    const emoji = patchedSources({ "academics/papers.json": JSON.stringify(raw) });
    expect(() => citationsStep.generate(makeInputs(scenarioFacts(), PULSE, emoji), new Map())).toThrow(
      /no BibTeX form for "🚀"/,
    );
  });
});
