/**
 * Hand-built inputs for the area generators' tests: ledger facts, pulse records and a source reader,
 * so a test states every figure it feeds in and can compute the expected output by hand. For tests
 * and benchmarks only: no shipped module imports this one.
 */
import { activityFigures, authorityActivity } from "../../../../core/avm/activity.ts";
import { mkdtempSync, writeFileSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { signCheckpoint, verifierKey, type NoteSigner } from "../../../../core/checkpoint.ts";
import { leafHashOfText, rootHash } from "../../../../core/merkle.ts";
import { historyLine, sealPulse, type PulseRecord } from "../../../../core/pulse/history.ts";
import { PULSE_ORIGIN } from "../../../../core/pulse/published.ts";
import { sealEntry, type JsonObject, type LedgerEntry } from "../../../../core/ledger/entry.ts";
import type { LedgerFacts, SentinelFacts } from "../../../../pipeline/facts/types.ts";
import { Ajv2020 } from "ajv/dist/2020.js";
import { onTestFinished } from "vitest";
import addFormats from "ajv-formats";
import { createSourceReader } from "../../../../pipeline/source-reader.ts";
import type { GeneratorInputs, SourceReader } from "../../../../pipeline/step.ts";

/** The repository root (two levels above this file). */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");
/** The real curated sources, data/sources/. */
export const SOURCES_DIR = join(REPO_ROOT, "data", "sources");

/** Facts of an empty ledger, with `overrides` applied (shallow). */
export function makeFacts(overrides: Partial<LedgerFacts> = {}): LedgerFacts {
  return {
    size: 0,
    rootHash: `sha256:${"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}`,
    firstTs: null,
    asOf: null,
    sample: null,
    eventCounts: {},
    sentinels: [],
    supply: { mintedShards: 0n, burnedShards: 0n, lockedShards: 0n },
    supplyByCycle: [],
    multipliers: { "FOR-GOVERNMENTS": 1, "FOR-ACADEMICS": 1, "FOR-PHILOSOPHERS": 1, "FOR-ECONOMISTS": 1, DIPLOMACY: 1 },
    multiplierChanges: [],
    audits: {},
    deliberations: [],
    consensus: { opened: 0, evaluated: 0, approved: 0, rejected: 0, noQuorum: 0, open: 0, sealedProofs: 0 },
    consensusSessions: [],
    consensusRegistry: {
      current: null,
      offices: [],
      active_sessions: [],
      recent_proofs: [],
      sessions: 0,
      sealed_proofs: 0,
    },
    authorityActivity: activityFigures(authorityActivity.initial()),
    ...overrides,
  };
}

/** A sentinel that registered and never did anything, with `overrides` applied (shallow). */
export function makeSentinel(
  overrides: Partial<SentinelFacts> & Pick<SentinelFacts, "id" | "cathedral">,
): SentinelFacts {
  return {
    algorithm: "ed25519",
    publicKey: "d7".repeat(32),
    registeredAt: "2025-12-01T00:00:00.000Z",
    lastHeartbeat: null,
    heartbeatCount: 0,
    uptimeDays: 0,
    rewardsShards: 0n,
    mintCount: 0,
    lastMintCoordination: null,
    attestationCount: 0,
    votes: 0,
    votesWithOutcome: 0,
    ...overrides,
  };
}

/**
 * A sealed pulse record (valid hash, chained to `prev`) with the given scores and time. The id is
 * derived from `n` so fixtures are deterministic.
 */
export function makePulse(
  n: number,
  giScore: number,
  miiScore: number,
  generatedAt: string,
  prev: PulseRecord | null = null,
): PulseRecord {
  const id = `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
  return sealPulse({
    id,
    cycle: "C-151",
    branch: "main",
    giScore,
    miiScore,
    stats: { totalFiles: 10, totalLines: 1000, appsCount: 1, packagesCount: 2, workflowsCount: 3 },
    generatedAt,
    prev: prev?.hash ?? null,
  });
}

/** A chained history from [gi, mii] pairs, one record per `stepMs` from `start`. */
export function makePulseHistory(
  scores: readonly (readonly [number, number])[],
  start = "2025-12-01T06:00:00.000Z",
  stepMs = 86_400_000,
): PulseRecord[] {
  const out: PulseRecord[] = [];
  const t0 = Date.parse(start);
  scores.forEach(([gi, mii], i) => {
    out.push(makePulse(i + 1, gi, mii, new Date(t0 + i * stepMs).toISOString(), out[out.length - 1] ?? null));
  });
  return out;
}

/**
 * Writes `records` as the pulse history of the data folder `dataDir` (pulse/history.jsonl) with its
 * checkpoint signed by `signer`, listed in keys/datasets.vkey — as `npm run pulse` publishes them.
 */
export function writePulseHistory(
  dataDir: string,
  records: readonly PulseRecord[],
  signer: NoteSigner & { publicKeyHex: string },
): void {
  mkdirSync(join(dataDir, "pulse"), { recursive: true });
  mkdirSync(join(dataDir, "keys"), { recursive: true });
  const lines = records.map((r) => historyLine(r));
  writeFileSync(join(dataDir, "pulse", "history.jsonl"), lines.map((l) => `${l}\n`).join(""));
  writeFileSync(
    join(dataDir, "pulse", "checkpoint"),
    signCheckpoint({ origin: PULSE_ORIGIN, size: lines.length, rootHash: rootHash(lines.map(leafHashOfText)) }, signer),
  );
  writeFileSync(join(dataDir, "keys", "datasets.vkey"), `${verifierKey(signer.name, signer.publicKeyHex)}\n`);
}

/** A reader over the real data/sources/. */
export function repoSources(): SourceReader {
  return createSourceReader(SOURCES_DIR);
}

/** Temporary folders of patchedSources made outside a test, removed when the process exits. */
const patchedDirs: string[] = [];

/**
 * A reader over a temporary copy of some real sources with some files replaced: `files` maps a
 * source path to its new text; `copy` lists real source paths to copy unchanged. Messages name
 * files `data/sources/<path>` as the real reader does.
 */
export function patchedSources(files: Record<string, string>, copy: readonly string[] = []): SourceReader {
  const dir = mkdtempSync(join(tmpdir(), "sources-"));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    onTestFinished(remove); // called inside a test: removed when the test ends
  } catch {
    patchedDirs.push(dir); // at collection time: removed when the process exits
    if (patchedDirs.length === 1)
      process.once("exit", () => patchedDirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  }
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  for (const path of copy) write(path, readFileSync(join(SOURCES_DIR, path), "utf8"));
  for (const [path, text] of Object.entries(files)) write(path, text);
  return createSourceReader(dir);
}

/** Generator inputs from facts, pulse and (by default) the real sources. */
export function makeInputs(
  facts: LedgerFacts,
  pulse: readonly PulseRecord[] = [],
  sources: SourceReader = repoSources(),
): GeneratorInputs {
  return { facts, pulse, sources };
}

let ajv: Ajv2020 | null = null;

/**
 * Errors of `value` against the published JSON Schema `data/schemas/<name>.schema.json` (the check a
 * downloader runs, independent of zod); [] when valid.
 */
export function publishedSchemaErrors(name: string, value: unknown): string[] {
  if (ajv === null) {
    ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats.default(ajv);
  }
  const file = join(REPO_ROOT, "data", "schemas", `${name}.schema.json`);
  const schema = JSON.parse(readFileSync(file, "utf8")) as { $id: string };
  const validate = ajv.getSchema(schema.$id) ?? ajv.compile(schema);
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || "(root)"} ${e.message ?? ""}`);
}

/**
 * A hash-chained ledger (seq from 0, `prev` linking each entry to the one before) from typed events.
 * Payloads are not validated here: pass payloads valid for their type (core/events/registry.ts).
 */
export function makeLedgerEntries(events: readonly { type: string; payload: JsonObject; ts: string }[]): LedgerEntry[] {
  const out: LedgerEntry[] = [];
  events.forEach((event, seq) => {
    out.push(
      sealEntry({ seq, type: event.type, payload: event.payload, ts: event.ts, prev: out[seq - 1]?.hash ?? null })
        .entry,
    );
  });
  return out;
}
