import Papa from "papaparse";
import { canonicalize } from "../../../core/canonical.ts";
import { describe, expect, it } from "vitest";
import { sealEntry, type JsonObject, type LedgerEntry } from "../../../core/ledger/entry.ts";
import {
  CathedralMultiplierRow,
  Coordination,
  EconomyMii,
  MicMintingRow,
  RoiByCathedral,
  SentinelRoi,
  Supply,
} from "../../../core/schemas/economy.ts";
import { publishedSchemas } from "../../../core/schemas/index.ts";
import type { LedgerFacts } from "../../facts/types.ts";
import type { DocumentStep, GeneratorInputs, RowsStep, Step } from "../../step.ts";
import {
  makeFacts,
  makeInputs,
  makePulseHistory,
  makeSentinel,
  patchedSources,
  publishedSchemaErrors,
} from "../../../test/support/pipeline/areas/helpers.ts";
import { steps } from "./index.ts";
import { micHistoryLine } from "./mic-history.ts";

// ---------------------------------------------------------------------------------------------
// Hand-built ledger facts: every figure below is computed by hand in the tests.

const AS_OF = "2025-12-03T12:00:00.000Z";

function facts(overrides: Partial<LedgerFacts> = {}): LedgerFacts {
  return makeFacts({
    size: 42,
    firstTs: "2025-12-01T00:00:00.000Z",
    asOf: AS_OF,
    sentinels: [
      makeSentinel({
        id: "s-alpha",
        cathedral: "FOR-ECONOMISTS",
        lastHeartbeat: {
          ts: AS_OF,
          status: "operational",
          gi_score: 0.97,
          apps: 3,
          packages: 5,
          workflows: 2,
          drift: 1,
        },
        heartbeatCount: 12,
        uptimeDays: 10,
        rewardsShards: 1_500_000n,
        mintCount: 2,
        lastMintCoordination: 13.2,
      }),
      makeSentinel({
        id: "s-beta",
        cathedral: "FOR-GOVERNMENTS",
        lastHeartbeat: { ts: AS_OF, status: "degraded", gi_score: 0.91, apps: 1, packages: 0, workflows: 4, drift: 0 },
        heartbeatCount: 3,
        uptimeDays: 0.5,
        rewardsShards: 250_000n,
        mintCount: 1,
        lastMintCoordination: 2.2,
      }),
      makeSentinel({ id: "s-gamma", cathedral: "FOR-ECONOMISTS", uptimeDays: 2 }),
    ],
    supply: { mintedShards: 2_000_000n, burnedShards: 100_000n, lockedShards: 400_000n },
    multipliers: {
      "FOR-GOVERNMENTS": 1,
      "FOR-ACADEMICS": 1,
      "FOR-PHILOSOPHERS": 1,
      "FOR-ECONOMISTS": 1.5,
      DIPLOMACY: 1,
    },
    multiplierChanges: [
      {
        ts: "2025-12-02T09:30:00.000Z",
        cycle: "C-152",
        cathedral: "FOR-ECONOMISTS",
        multiplier: 1.25,
        reason: "quarterly review",
      },
      {
        ts: "2025-12-03T10:00:00.000Z",
        cycle: "C-153",
        cathedral: "FOR-ECONOMISTS",
        multiplier: 1.5,
        reason: 'raised, per the "C-153" review\nsecond line',
      },
    ],
    ...overrides,
  });
}

// Two pulses; the newer (2025-12-04T06:00Z, C-154) is later than the ledger, so it dates the documents.
const PULSE = makePulseHistory(
  [
    [0.98, 0.96],
    [0.97, 0.97],
  ],
  "2025-12-03T06:00:00.000Z",
);
const DOC_TIME = "2025-12-04T06:00:00.000Z";

const byId = new Map<string, Step>(steps.map((s) => [s.id, s]));
function documentStep(id: string): DocumentStep {
  const step = byId.get(id);
  if (!step || step.kind !== "document") throw new Error(`no document step ${id}`);
  return step;
}
function generate(id: string, inputs: GeneratorInputs = makeInputs(facts(), PULSE)): string {
  const out = documentStep(id).generate(inputs, new Map());
  if (typeof out !== "string") throw new Error("expected text");
  return out;
}
function json(id: string, inputs?: GeneratorInputs): unknown {
  const text = generate(id, inputs);
  expect(text.endsWith("}\n")).toBe(true);
  expect(text).toBe(JSON.stringify(JSON.parse(text), null, 2) + "\n");
  return JSON.parse(text);
}
function expectValid(id: string, doc: unknown): void {
  const step = byId.get(id);
  const name = step?.schema as keyof typeof publishedSchemas;
  expect(publishedSchemas[name].safeParse(doc).success, `${id} zod`).toBe(true);
  expect(publishedSchemaErrors(name, doc), `${id} ajv`).toEqual([]);
}
function parseCsv(text: string): Record<string, string>[] {
  const parsed = Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true, dynamicTyping: false });
  expect(parsed.errors).toEqual([]);
  return parsed.data;
}
function expectCrlf(text: string): void {
  // Every record ends with CRLF; a bare LF appears only inside a quoted field.
  expect(text.endsWith("\r\n")).toBe(true);
  const outsideQuotes = text.replace(/"(?:[^"]|"")*"/g, "");
  expect(outsideQuotes.replaceAll("\r\n", "")).not.toMatch(/[\r\n]/);
}

// ---------------------------------------------------------------------------------------------

describe("economy steps", () => {
  it("are public, versioned, named and declare a registry schema", () => {
    expect(steps.map((s) => s.path)).toEqual([
      "supply.json",
      "mii.json",
      "coordination.json",
      "roi.json",
      "mic-history.csv",
      "sentinel-roi.json",
      "cathedral-multipliers.csv",
    ]);
    for (const s of steps) {
      expect(s.area).toBe("economy");
      expect(s.id).toBe(`economy/${s.path}`);
      expect(s.access).toBe("public");
      expect(s.version).toBe(1);
      expect(s.name).toMatch(/^[a-z0-9._-]+$/);
      expect(Object.hasOwn(publishedSchemas, s.schema ?? "")).toBe(true);
      expect(s.mediatype).toBe(s.path.endsWith(".csv") ? "text/csv" : "application/json");
      expect(s.inputs).toContain("ledger");
    }
  });

  it("read only the sources they declare", () => {
    for (const s of steps) {
      if (s.kind !== "document") continue;
      const declared = s.inputs.filter((i) => i.startsWith("sources/")).map((i) => i.slice("sources/".length));
      const read: string[] = [];
      const base = makeInputs(facts(), PULSE);
      const sources = {
        json: <T>(path: string, schema: import("zod").ZodType<T>) => (read.push(path), base.sources.json(path, schema)),
        text: (path: string) => (read.push(path), base.sources.text(path)),
      };
      s.generate({ ...base, sources }, new Map());
      expect([...new Set(read)].sort(), s.id).toEqual([...declared].sort());
    }
  });

  it("give byte-identical output for the same inputs", () => {
    for (const s of steps) {
      if (s.kind !== "document") continue;
      expect(generate(s.id)).toBe(generate(s.id));
    }
  });
});

describe("supply.json", () => {
  it("is minted, minted − burned − locked, locked and burned, in MIC", () => {
    const doc = json("economy/supply.json") as Supply;
    expectValid("economy/supply.json", doc);
    expect(doc).toEqual({
      cycle: "C-154",
      timestamp: DOC_TIME,
      total_supply: 2,
      total_supply_shards: "2000000",
      circulating: 1.5,
      circulating_shards: "1500000",
      locked: 0.4,
      locked_shards: "400000",
      burned: 0.1,
      burned_shards: "100000",
    });
    expect(Object.keys(doc)).toEqual([
      "cycle",
      "timestamp",
      "total_supply",
      "total_supply_shards",
      "circulating",
      "circulating_shards",
      "locked",
      "locked_shards",
      "burned",
      "burned_shards",
    ]);
  });

  it("is exact for amounts that floats would round", () => {
    const doc = json(
      "economy/supply.json",
      makeInputs(
        facts({
          supply: { mintedShards: 3_000_000_000_000_003n, burnedShards: 1n, lockedShards: 1_000_000_000_000_001n },
        }),
        PULSE,
      ),
    ) as Supply;
    expect(doc.total_supply).toBe(3_000_000_000.000003);
    expect(doc.circulating).toBe(2_000_000_000.000001);
    expect(doc.locked).toBe(1_000_000_000.000001);
    expect(doc.burned).toBe(0.000001);
  });

  it("writes figures past 2^53 shards exactly: the shard strings, and the numbers' text from them", () => {
    // 2^53 + 2 shards: a double reads 9007199254.740993 MIC; the largest accepted amount rounds further.
    const minted = 2n ** 63n - 1n;
    const locked = 2n ** 53n + 2n;
    const text = generate(
      "economy/supply.json",
      makeInputs(facts({ supply: { mintedShards: minted, burnedShards: 0n, lockedShards: locked } }), PULSE),
    );
    const doc = JSON.parse(text) as Supply;
    expectValid("economy/supply.json", doc);
    expect([doc.total_supply_shards, doc.locked_shards, doc.circulating_shards, doc.burned_shards]).toEqual(
      [minted, locked, minted - locked, 0n].map(String),
    );
    expect(text).toContain('"total_supply": 9223372036854.775807,');
    expect(text).toContain('"locked": 9007199254.740994,');
    expect(text).toContain('"circulating": 9214364837600.034813,');
  });

  it("is dated by the ledger when the ledger is newer than the pulse", () => {
    const doc = json("economy/supply.json", makeInputs(facts({ asOf: "2025-12-05T00:00:01.000Z" }), PULSE)) as Supply;
    expect([doc.timestamp, doc.cycle]).toEqual(["2025-12-05T00:00:01.000Z", "C-155"]);
  });

  it("refuses a ledger that burned and locked more than it minted", () => {
    expect(() =>
      generate(
        "economy/supply.json",
        makeInputs(facts({ supply: { mintedShards: 10n, burnedShards: 6n, lockedShards: 5n } }), PULSE),
      ),
    ).toThrow(/inconsistent supply.*circulating would be -1/);
  });
});

describe("mii.json", () => {
  it("is the newest pulse's MII against the threshold of data/sources/economy/minting.json", () => {
    const doc = json("economy/mii.json") as EconomyMii;
    expectValid("economy/mii.json", doc);
    expect(doc).toEqual({ timestamp: DOC_TIME, mii: 0.97, threshold: 0.95, minting_active: true, cycle: "C-154" });
  });

  it("reports minting inactive below the threshold, and at the threshold active", () => {
    const low = makePulseHistory([[0.99, 0.9499]]);
    expect((json("economy/mii.json", makeInputs(facts(), low)) as EconomyMii).minting_active).toBe(false);
    const source = (t: number) =>
      patchedSources({
        "economy/minting.json": JSON.stringify({ version: "t", description: "test", mii_threshold: t }),
      });
    const at = makePulseHistory([[0.99, 0.9]]);
    const doc = json("economy/mii.json", makeInputs(facts(), at, source(0.9))) as EconomyMii;
    expect([doc.threshold, doc.minting_active]).toEqual([0.9, true]);
  });

  it("fails without pulse history instead of publishing a score nobody measured", () => {
    expect(() => generate("economy/mii.json", makeInputs(facts(), []))).toThrow(/no pulse history/);
  });

  it("names the file and the field of a bad minting source", () => {
    const bad = patchedSources({
      "economy/minting.json": JSON.stringify({ version: "t", description: "d", mii_threshold: 1.5 }),
    });
    expect(() => generate("economy/mii.json", makeInputs(facts(), PULSE, bad))).toThrow(
      /data\/sources\/economy\/minting\.json: mii_threshold:/,
    );
  });
});

describe("coordination.json", () => {
  it("scores every sentinel with a heartbeat by the spec formula (natural log, uptime ≥ 1 day)", () => {
    const doc = json("economy/coordination.json") as Coordination;
    expectValid("economy/coordination.json", doc);
    // alpha: (0.4·3 + 0.3·5 + 0.2·2 + 0.1·(10 − 1)) × (1 + ln 10) = 4 × 3.302585092994046
    // beta:  (0.4·1 + 0.3·0 + 0.2·4 + 0.1·10) × (1 + ln 1) = 2.2 (half a day counts as one)
    const alpha = 4 * (1 + Math.LN10);
    expect(doc.sentinels.map((s) => [s.id, s.cathedral])).toEqual([
      ["s-alpha", "FOR-ECONOMISTS"],
      ["s-beta", "FOR-GOVERNMENTS"],
    ]);
    expect(doc.sentinels[0]?.score).toBeCloseTo(alpha, 12);
    expect(doc.sentinels[1]?.score).toBeCloseTo(2.2, 12);
    expect(doc.average_coordination).toBeCloseTo((alpha + 2.2) / 2, 12);
    expect(doc.formula).toMatch(/natural logarithm/);
    expect(doc.formula).toContain("(1 + ln(uptime_days))");
  });

  it("averages nothing as null when no sentinel has sent a heartbeat", () => {
    const doc = json(
      "economy/coordination.json",
      makeInputs(facts({ sentinels: [makeSentinel({ id: "s-new", cathedral: "DIPLOMACY" })] }), PULSE),
    ) as Coordination;
    expectValid("economy/coordination.json", doc);
    expect([doc.sentinels, doc.average_coordination]).toEqual([[], null]);
  });
});

describe("roi.json and sentinel-roi.json", () => {
  it("ROI is MIC earned per day in service", () => {
    const doc = json("economy/sentinel-roi.json") as SentinelRoi;
    expectValid("economy/sentinel-roi.json", doc);
    expect(doc.sentinels.map((s) => [s.id, s.cathedral, s.total_rewards, s.multiplier, s.roi])).toEqual([
      ["s-alpha", "FOR-ECONOMISTS", 1.5, 1.5, 0.15], // 1.5 MIC / 10 days
      ["s-beta", "FOR-GOVERNMENTS", 0.25, 1, 0.25], // 0.25 MIC / max(0.5, 1) day
      ["s-gamma", "FOR-ECONOMISTS", 0, 1.5, 0], // nothing earned in 2 days
    ]);
    expect(doc.sentinels[0]?.coordination_score).toBeCloseTo(4 * (1 + Math.LN10), 12);
    expect(doc.sentinels[2]?.coordination_score).toBeNull();
  });

  it("covers all five cathedrals", () => {
    const doc = json("economy/roi.json") as RoiByCathedral;
    expectValid("economy/roi.json", doc);
    expect(Object.keys(doc.by_cathedral)).toEqual([
      "FOR-GOVERNMENTS",
      "FOR-ACADEMICS",
      "FOR-PHILOSOPHERS",
      "FOR-ECONOMISTS",
      "DIPLOMACY",
    ]);
    expect(doc.by_cathedral["FOR-ECONOMISTS"]).toEqual({
      multiplier: 1.5,
      total_rewards: 1.5,
      sentinel_count: 2,
      average_roi: 0.075,
    });
    expect(doc.by_cathedral["FOR-GOVERNMENTS"]).toEqual({
      multiplier: 1,
      total_rewards: 0.25,
      sentinel_count: 1,
      average_roi: 0.25,
    });
    for (const c of ["FOR-ACADEMICS", "FOR-PHILOSOPHERS", "DIPLOMACY"] as const) {
      expect(doc.by_cathedral[c]).toEqual({ multiplier: 1, total_rewards: 0, sentinel_count: 0, average_roi: null });
    }
  });

  it("sums rewards in shards, exactly", () => {
    const many = Array.from({ length: 10 }, (_, i) =>
      makeSentinel({ id: `s-${i}`, cathedral: "DIPLOMACY", rewardsShards: 100_000n, uptimeDays: 1 }),
    );
    const doc = json("economy/roi.json", makeInputs(facts({ sentinels: many }), PULSE)) as RoiByCathedral;
    expect(doc.by_cathedral.DIPLOMACY.total_rewards).toBe(1); // ten times 0.1 MIC, not 0.9999999999999999
  });
});

// ---------------------------------------------------------------------------------------------

function entries(list: { type: string; payload: JsonObject; ts: string }[]): LedgerEntry[] {
  const out: LedgerEntry[] = [];
  list.forEach((e, seq) =>
    out.push(sealEntry({ seq, type: e.type, payload: e.payload, ts: e.ts, prev: out[seq - 1]?.hash ?? null }).entry),
  );
  return out;
}

const mint = (sentinel: string, amount: string, score: number, cycle: string, cathedral = "FOR-ECONOMISTS") => ({
  sentinel,
  cycle,
  cathedral,
  amount_shards: amount,
  coordination_score: score,
  multiplier: 1.5,
});

const LEDGER = entries([
  {
    type: "sample.generated",
    payload: { generator: "test", seed: "1", notice: "test data" },
    ts: "2025-12-01T00:00:00.000Z",
  },
  {
    type: "mic_mint",
    payload: mint("s-alpha", "1234567", 13.210340371976184, "C-151"),
    ts: "2025-12-01T01:00:00.000Z",
  },
  {
    type: "sentinel.heartbeat",
    payload: {
      sentinel: "s-alpha",
      status: "operational",
      gi_score: 0.97,
      apps: 3,
      packages: 5,
      workflows: 2,
      drift: 1,
    },
    ts: "2025-12-01T02:00:00.000Z",
  },
  { type: "mic_mint", payload: mint("s-beta", "5", 2.2, "C-152", "FOR-GOVERNMENTS"), ts: "2025-12-02T01:00:00.000Z" },
  // 2^53 + 1 shards: a float would lose the last shard.
  { type: "mic_mint", payload: mint("s-alpha", "9007199254740993", 0, "C-153"), ts: "2025-12-03T01:00:00.000Z" },
]);

function runRows(step: RowsStep, list: readonly LedgerEntry[]): { text: string; pieces: string[] } {
  const { head, sink } = step.start({ pulse: [], sources: makeInputs(facts()).sources });
  const pieces = list.map((e) => sink.push(e, canonicalize(e.payload)));
  return { text: head + pieces.join("") + sink.end(), pieces };
}

describe("mic-history.csv", () => {
  const step = byId.get("economy/mic-history.csv") as RowsStep;

  it("streams one row per mic_mint entry and nothing for other entries", () => {
    expect(step.kind).toBe("rows");
    const { pieces } = runRows(step, LEDGER);
    expect(pieces.map((p) => p !== "")).toEqual([false, true, false, true, true]);
  });

  it("parses back to the mints, amounts exact to the shard, with CRLF", () => {
    const { text } = runRows(step, LEDGER);
    expectCrlf(text);
    expect(text.split("\r\n")[0]).toBe("timestamp,cycle,sentinel,amount,cathedral,coordination_score");
    const rows = parseCsv(text);
    expect(rows).toEqual([
      {
        timestamp: "2025-12-01T01:00:00.000Z",
        cycle: "C-151",
        sentinel: "s-alpha",
        amount: "1.234567",
        cathedral: "FOR-ECONOMISTS",
        coordination_score: "13.210340371976184",
      },
      {
        timestamp: "2025-12-02T01:00:00.000Z",
        cycle: "C-152",
        sentinel: "s-beta",
        amount: "0.000005",
        cathedral: "FOR-GOVERNMENTS",
        coordination_score: "2.2",
      },
      {
        timestamp: "2025-12-03T01:00:00.000Z",
        cycle: "C-153",
        sentinel: "s-alpha",
        amount: "9007199254.740993",
        cathedral: "FOR-ECONOMISTS",
        coordination_score: "0",
      },
    ]);
    for (const row of rows) {
      const typed = { ...row, amount: Number(row.amount), coordination_score: Number(row.coordination_score) };
      expect(MicMintingRow.safeParse(typed).success).toBe(true);
      expect(publishedSchemaErrors("economy/mic-history-row", typed)).toEqual([]);
    }
  });

  it("is only the header for a ledger without mints, and deterministic", () => {
    expect(runRows(step, LEDGER.slice(0, 1)).text).toBe(
      "timestamp,cycle,sentinel,amount,cathedral,coordination_score\r\n",
    );
    expect(runRows(step, LEDGER).text).toBe(runRows(step, LEDGER).text);
  });

  it("fails on a malformed mint naming the entry", () => {
    const [bad] = entries([
      {
        type: "mic_mint",
        payload: { ...mint("s-alpha", "1", 1, "C-151"), amount_shards: "1.5" },
        ts: "2025-12-01T01:00:00.000Z",
      },
    ]);
    expect(() => micHistoryLine(bad as LedgerEntry)).toThrow(/ledger entry 0 is not a valid mic_mint: amount_shards/);
  });
});

describe("cathedral-multipliers.csv", () => {
  it("lists every recorded change, quoting where RFC 4180 requires", () => {
    const text = generate("economy/cathedral-multipliers.csv");
    expectCrlf(text);
    expect(text).toContain('"raised, per the ""C-153"" review\nsecond line"');
    const rows = parseCsv(text);
    expect(rows).toEqual([
      {
        timestamp: "2025-12-02T09:30:00.000Z",
        cycle: "C-152",
        cathedral: "FOR-ECONOMISTS",
        multiplier: "1.25",
        reason: "quarterly review",
      },
      {
        timestamp: "2025-12-03T10:00:00.000Z",
        cycle: "C-153",
        cathedral: "FOR-ECONOMISTS",
        multiplier: "1.5",
        reason: 'raised, per the "C-153" review\nsecond line',
      },
    ]);
    for (const row of rows) {
      const typed = { ...row, multiplier: Number(row.multiplier) };
      expect(CathedralMultiplierRow.safeParse(typed).success).toBe(true);
      expect(publishedSchemaErrors("economy/cathedral-multipliers-row", typed)).toEqual([]);
    }
  });

  it("is only the header when no multiplier changed", () => {
    expect(generate("economy/cathedral-multipliers.csv", makeInputs(facts({ multiplierChanges: [] }), PULSE))).toBe(
      "timestamp,cycle,cathedral,multiplier,reason\r\n",
    );
  });
});
