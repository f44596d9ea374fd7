import { afterEach, describe, expect, it } from "vitest";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { parseVerifierKey, verifyCheckpoint } from "../../core/checkpoint.ts";
import { historyLines, verifyHistory } from "../../core/pulse/history.ts";
import { openLedger } from "../../store/open-ledger.ts";
import { PulseRefusal, runPulse, verifyPublished } from "./indexer.ts";
import { PULSE_ORIGIN } from "./published.ts";
import {
  PROJECT_ROOT,
  commit,
  gitInit,
  makeDataDir,
  makeLedger,
  options,
  sentinelEvents,
  tempDir,
} from "../../test/support/pipeline/pulse/helpers.ts";

const cleanups: (() => void)[] = [];
afterEach(async () => cleanups.splice(0).forEach((c) => c()));

const DAY1 = "2026-03-01T06:00:00.000Z";
const DAY2 = "2026-03-02T06:00:00.000Z";

/** A scanned repository, shared by the runs of one test. */
function makeRepo(dir: string): string {
  const repo = join(dir, "repo");
  gitInit(repo);
  commit(
    repo,
    { "README.md": "# demo\n", "api/start.ts": "start()\n", ".github/workflows/ci.yml": "on: push\n" },
    "init",
    "2026-02-20T00:00:00Z",
  );
  commit(
    repo,
    { "pkg/package.json": "{}\n", "data/schemas/x.schema.json": "{}\n" },
    "hand-edited schema",
    "2026-02-25T00:00:00Z",
  );
  return repo;
}

/** A folder with a data dir and a ledger (two sentinels, one alive at DAY1). */
async function makeWorld(dir: string): Promise<{ data: string }> {
  const data = makeDataDir(dir);
  await makeLedger(
    join(dir, "ledger.sqlite"),
    { STATE_DIR: join(dir, "state") },
    sentinelEvents([
      { sentinel: "s1", ts: "2026-03-01T01:00:00.000Z" },
      { sentinel: "s2", ts: "2026-02-20T01:00:00.000Z" },
    ]),
  );
  return { data };
}

/** Every file under dir as relative path → bytes. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (at: string) => {
    for (const name of readdirSync(at, { withFileTypes: true })) {
      const full = join(at, name.name);
      if (name.isDirectory()) walk(full);
      else out.set(relative(dir, full).split(sep).join("/"), readFileSync(full, "hex"));
    }
  };
  walk(dir);
  return out;
}

function publishedAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true });
  addFormats.default(ajv);
  for (const name of ["pulse-badge", "pulse-history", "pulse-record"]) {
    ajv.addSchema(JSON.parse(readFileSync(join(PROJECT_ROOT, `data/schemas/${name}.schema.json`), "utf8")), name);
  }
  return ajv;
}

describe("pulse indexer, end to end", () => {
  it("records two chained pulses a day apart, signs the checkpoint, writes valid static files and notes each on the ledger", async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const repo = makeRepo(dir);
    const { data } = await makeWorld(dir);

    const first = await runPulse(options(dir, repo, data, DAY1));
    const r1 = first.record!;
    expect(r1).toMatchObject({ cycle: "C-241", branch: "main", generatedAt: DAY1, prev: null });
    expect(r1.stats).toEqual({ totalFiles: 5, totalLines: 5, appsCount: 1, packagesCount: 1, workflowsCount: 1 });
    // GI: ledger verified (1), sentinels 1 of 2 (0.5), schemas 3 of 3 (1); history empty, GitHub ones unmeasured.
    expect(r1.scoring!.inputs).toMatchObject({
      "gi.ledger_verified": { value: 1, measured: true, weight: 0.25 },
      "gi.sentinel_heartbeats": { value: 0.5, measured: true, weight: 0.15 },
      "gi.schema_valid": { value: 1, measured: true, weight: 0.2 },
      "gi.history_verified": { value: null, measured: false, weight: 0.2 },
      "gi.ci_success": { value: null, measured: false },
      "mii.history_append_only": { value: 1, measured: true },
      "mii.generated_untouched": { value: 0.5, measured: true },
      "mii.ci_green_before_merge": { value: null, measured: false },
    });
    expect(r1.giScore).toBe(Number(((0.25 * 1 + 0.15 * 0.5 + 0.2 * 1) / 0.6).toFixed(4)));
    expect(r1.miiScore).toBe(0.75);
    expect(first.written).toEqual([
      "keys/datasets.vkey",
      "pulse/history.jsonl",
      "pulse/checkpoint",
      "v1/pulse/badge.json",
      "v1/pulse/badge.svg",
      "v1/pulse/badge/gi.json",
      "v1/pulse/badge/gi.svg",
      "v1/pulse/badge/mii.json",
      "v1/pulse/badge/mii.svg",
      "v1/pulse/history.json",
      "v1/pulse/latest.json",
    ]);

    const second = await runPulse(options(dir, repo, data, DAY2));
    const r2 = second.record!;
    expect(r2).toMatchObject({ cycle: "C-242", generatedAt: DAY2, prev: r1.hash });
    expect(second.written).not.toContain("keys/datasets.vkey"); // the key is already trusted
    // The second run sees the first run's history (verified) and static files (validated).
    expect(r2.scoring!.inputs["gi.history_verified"]).toEqual({ value: 1, measured: true, weight: 0.2 });
    expect(second.signals["gi.schema_valid"].reason).toMatch(/^8 of 8 JSON files/);

    // History: two canonical lines, chained; checkpoint signed by the published key over them.
    const historyText = readFileSync(join(data, "pulse/history.jsonl"), "utf8");
    const report = verifyHistory(historyLines(historyText));
    expect(report.problems).toEqual([]);
    expect(report.records.map((r) => r.id)).toEqual([r1.id, r2.id]);
    const keys = readFileSync(join(data, "keys/datasets.vkey"), "utf8").trim().split("\n").map(parseVerifierKey);
    const cp = verifyCheckpoint(readFileSync(join(data, "pulse/checkpoint"), "utf8"), keys);
    expect({ ...cp, rootHash: Buffer.from(cp.rootHash).toString("hex") }).toEqual({
      origin: PULSE_ORIGIN,
      size: 2,
      rootHash: Buffer.from(report.rootHash).toString("hex"),
    });
    expect(verifyPublished(data)).toEqual({ ok: true, problems: [], records: 2 });

    // Static files validate against the published JSON Schemas and say what the history says.
    const ajv = publishedAjv();
    const read = (p: string) => JSON.parse(readFileSync(join(data, "v1/pulse", p), "utf8"));
    for (const [file, schema] of [
      ["badge.json", "pulse-badge"],
      ["badge/gi.json", "pulse-badge"],
      ["badge/mii.json", "pulse-badge"],
      ["history.json", "pulse-history"],
      ["latest.json", "pulse-record"],
    ] as const) {
      expect(ajv.validate(schema, read(file)), `${file}: ${ajv.errorsText()}`).toBe(true);
    }
    expect(read("history.json")).toEqual({ count: 2, items: [r2, r1] });
    expect(read("latest.json")).toEqual(r2);
    expect(read("badge/mii.json").message).toBe(`${(r2.miiScore * 100).toFixed(1)}%`);
    expect(readFileSync(join(data, "v1/pulse/badge.svg"), "utf8")).toMatch(/^<svg [^>]*aria-label="integrity: /);

    // The ledger holds both pulses, and still verifies.
    const { ledger } = await openLedger({ path: join(dir, "ledger.sqlite"), env: { STATE_DIR: join(dir, "state") } });
    try {
      const pulses = (await Array.fromAsync(ledger.entries())).filter((e) => e.type === "pulse.recorded");
      expect(pulses.map((e) => e.payload)).toEqual(
        [r1, r2].map((r) => ({
          id: r.id,
          cycle: r.cycle,
          hash: r.hash,
          giScore: r.giScore,
          miiScore: r.miiScore,
          generatedAt: r.generatedAt,
        })),
      );
      expect(pulses.map((e) => e.ts)).toEqual([DAY1, DAY2]);
      expect((await ledger.verify()).ok).toBe(true);
    } finally {
      await ledger.close();
    }
  });

  it("gives byte-identical files for the same inputs in two fresh folders", async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const repo = makeRepo(dir);
    const snapshots = [];
    for (const name of ["a", "b"]) {
      const world = join(dir, name);
      const { data } = await makeWorld(world);
      await runPulse(options(world, repo, data, DAY1));
      await runPulse(options(world, repo, data, DAY2));
      snapshots.push(snapshot(data));
    }
    expect(snapshots[0]!.size).toBe(15); // sources, 3 schemas, vkey, history, checkpoint, 8 static files
    expect(snapshots[1]).toEqual(snapshots[0]);
  });

  it("--dry-run computes the record and writes nothing", async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const repo = makeRepo(dir);
    const { data } = await makeWorld(dir);
    const before = snapshot(data);
    const run = await runPulse(options(dir, repo, data, DAY1, { dryRun: true }));
    expect(run.record).toMatchObject({ cycle: "C-241", prev: null });
    expect(run.written).toEqual([]);
    expect(snapshot(data)).toEqual(before);
    expect(existsSync(join(dir, "state/keys/datasets.ed25519"))).toBe(false);
    const { ledger } = await openLedger({ path: join(dir, "ledger.sqlite"), env: { STATE_DIR: join(dir, "state") } });
    expect((await Array.fromAsync(ledger.entries())).some((e) => e.type === "pulse.recorded")).toBe(false);
    await ledger.close();
  });

  it("refuses to write a record when no signal of a score was measured", async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const repo = join(dir, "repo");
    gitInit(repo);
    commit(repo, { "a.txt": "a\n" }, "long before the window", "2025-01-01T00:00:00Z");
    const { data } = await makeWorld(dir);
    const attempt = runPulse(options(dir, repo, data, DAY1));
    await expect(attempt).rejects.toThrow(PulseRefusal);
    await expect(runPulse(options(dir, repo, data, DAY1))).rejects.toThrow(/no signal of MII was measured/);
    expect(existsSync(join(data, "pulse/history.jsonl"))).toBe(false);
  });

  it("refuses a --now that is not after the last record", async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const repo = makeRepo(dir);
    const { data } = await makeWorld(dir);
    await runPulse(options(dir, repo, data, DAY2));
    await expect(runPulse(options(dir, repo, data, DAY1))).rejects.toThrow(
      /history.jsonl line 2: generatedAt 2026-03-01T06:00:00.000Z is not after/,
    );
    expect(verifyPublished(data).records).toBe(1);
  });
});
