/**
 * `npm run bench -- pipeline`: the pipeline runner on a 1,000,000-event sample ledger.
 *
 * - Floor: reading and parsing the same events once the plainest way: raw `node:sqlite` rows of the
 *   ledger's table, each payload parsed (`JSON.parse`) — none of the project's code.
 * - Full regeneration into a fresh data folder (every area step, manifests, signatures) vs the
 *   floor: target <= 3x its time.
 * - Report only: the store's own read (`for await (const e of ledger.entries()) {}`) against the same
 *   raw floor, which shows what the store adds to a read (it was the floor before; a floor that runs
 *   the code under test hides that code's cost on both sides of the ratio).
 * - A second run with nothing new vs the full one: target <= 5% of its time (the ledger is not read).
 * - A run after INCREMENT (10,000) new events vs the full one: target <= 5% of its time. Every run
 *   keeps its folds' state (pipeline/run/folds.ts) as `npm run pipeline` does, so this run folds the
 *   new events only; the events are the simulation's next ones (the ledger is its first `size`).
 * - Report only: the main thread's own CPU time in the full run against the floor's (the thread that
 *   sets the time on an idle machine; CPU time is what a shared machine distorts least).
 * - Peak memory of the full run (the peak resident size of the child process it runs in, its own:
 *   harness.ts peakRssMb): target <= 512 MB at 1M
 *   events, <= 1 GB beyond (`npm run bench -- pipeline --events 10000000`).
 *
 * The ledger is written by the seed simulator (pipeline/seed/simulate.ts) through the store's bulk path
 * into a temporary folder (test/support/pipeline/sample-ledger.ts);
 * each measured part runs in its own child process so that its peak resident size is its own. The floors and the
 * full run alternate, best of `BENCH_PIPELINE_ROUNDS` (3) each; the peak memory is the largest of all.
 * `--events N` (or `BENCH_PIPELINE_SIZE`) changes the number of events (a quick try, or the 10M figure);
 * `BENCH_PIPELINE_ROUNDS=1` spares the rounds of a long one.
 */
import { spawnSync } from "node:child_process";
import { DatabaseSync } from "node:sqlite";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { resourceUsage } from "node:process";
import { DATASET_KEY, loadSigningKey } from "../store/keys.ts";
import { LEDGER_ORIGIN } from "../store/open-ledger.ts";
import { openLedgerStore } from "../store/open-ledger.ts";
import { tempDir } from "../test/support/store/helpers.ts";
import { steps } from "../pipeline/areas/index.ts";
import { runPipeline } from "../pipeline/runner.ts";
import { locateSteps } from "../pipeline/step-code.ts";
import { peakRssMb, printComparisons, printReadings, type Comparison } from "./harness.ts";

const REPO = fileURLToPath(new URL("..", import.meta.url));
const SELF = fileURLToPath(import.meta.url);
const ROUNDS = Number(process.env.BENCH_PIPELINE_ROUNDS ?? 3);
/** The new events of the incremental run. */
const INCREMENT = 10_000;

interface ChildResult {
  seconds: number;
  /** User + system CPU time of the whole process (every thread). */
  cpuSeconds: number;
  /**
   * User + system CPU time of the main thread over the measured part alone: the thread that reads the
   * ledger, hashes its leaves, folds the facts and gives the rows, beside the pass helper that folds the
   * tree and validates, hashes and writes the streamed outputs (`cpuSeconds` covers the whole process, its start and
   * every thread included).
   */
  mainCpuSeconds: number;
  maxRssMb: number;
  entries: number;
  written: number;
  unchanged: number;
  failed: number;
}

/** Runs one measured part in a child process and returns what it reports. */
function child(part: "floor" | "store-read" | "run", dir: string, dataDir: string): ChildResult {
  const result = spawnSync(process.execPath, ["--import", "tsx", SELF, "child", part, dir, dataDir], {
    cwd: REPO,
    encoding: "utf8",
    maxBuffer: 1 << 26,
  });
  if (result.status !== 0)
    throw new Error(`bench child ${part} failed (${result.status}):\n${result.stderr}\n${result.stdout.slice(-4000)}`);
  const last = result.stdout.trim().split("\n").pop() ?? "";
  return JSON.parse(last) as ChildResult;
}

export async function run(): Promise<void> {
  const size = Number(process.env.BENCH_PIPELINE_SIZE ?? 1_000_000);
  const { dir, cleanup } = tempDir("bench-pipeline-");
  try {
    console.log(`\nPipeline: seeding a ${size.toLocaleString("en")}-event sample ledger …`);
    // Imported here, not at the top: the measured child processes load this module too, and must not
    // carry the test fixtures in their time and memory.
    const { appendEvents, prepareDataDir, seedSampleLedger } =
      await import("../test/support/pipeline/sample-ledger.ts");
    const held = await seedSampleLedger(dir, size, INCREMENT);
    const entries = size;
    const dataDir = prepareDataDir(dir);

    // Floor and full run alternate, best of ROUNDS each (the machines are shared and noisy); each
    // full run starts from a fresh data folder, and the second run follows the last one.
    const floors: ChildResult[] = [];
    const storeReads: ChildResult[] = [];
    const fulls: ChildResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      floors.push(child("floor", dir, dataDir));
      storeReads.push(child("store-read", dir, dataDir));
      rmSync(join(dataDir, "areas"), { recursive: true, force: true });
      rmSync(join(dir, "state", "pipeline-digests.json"), { force: true });
      rmSync(join(dir, "state", "pipeline"), { recursive: true, force: true });
      fulls.push(child("run", dir, dataDir));
    }
    const best = (runs: ChildResult[]) => runs.reduce((a, b) => (b.seconds < a.seconds ? b : a));
    const floor = best(floors);
    const storeRead = best(storeReads);
    const paired = (subjects: ChildResult[]) =>
      subjects.map((s, i) => ({ subject: s.seconds, floor: floors[i]!.seconds }));
    // The fastest run's time, and the peak memory of all of them.
    const full = { ...best(fulls), maxRssMb: Math.max(...fulls.map((r) => r.maxRssMb)) };
    const second = child("run", dir, dataDir);
    const total = await appendEvents(dir, held);
    const incremental = child("run", dir, dataDir);
    if (full.failed > 0 || second.failed > 0 || incremental.failed > 0)
      console.log(`  note: ${full.failed} step(s) failed in the full run — the figures cover the rest`);
    const comparisons: Comparison[] = [
      {
        name: `Full regeneration of ${steps.length} steps from ${entries.toLocaleString("en")} ledger events (${full.written} files written)`,
        subject: "runPipeline, fresh data folder",
        floor: RAW_FLOOR,
        subjectSeconds: full.seconds,
        floorSeconds: floor.seconds,
        items: entries,
        kind: "time",
        target: 3,
        rounds: paired(fulls),
      },
      {
        name: `The store's read of the same ${entries.toLocaleString("en")} events (report only)`,
        subject: "for await (const e of ledger.entries()) {} — the store's read, each event parsed",
        floor: RAW_FLOOR,
        subjectSeconds: storeRead.seconds,
        floorSeconds: floor.seconds,
        items: entries,
        kind: "time",
        rounds: paired(storeReads),
      },
      {
        // On an idle machine the slower of the pass's two threads sets the full run's time; a thread's
        // own CPU time moves far less than wall time on a shared machine (waiting for a core is not
        // charged), so this line shows where the main thread stands even when the time does not.
        name: `The full regeneration's main thread, CPU time (report only)`,
        subject:
          "runPipeline's main thread (reads, hashes the leaves, folds the facts, gives the rows), process.threadCpuUsage",
        floor: "the raw floor's thread, measured the same way",
        subjectSeconds: full.mainCpuSeconds,
        floorSeconds: floor.mainCpuSeconds,
        items: entries,
        kind: "time",
        rounds: fulls.map((s, i) => ({ subject: s.mainCpuSeconds, floor: floors[i]!.mainCpuSeconds })),
      },
      {
        name: `Second run with nothing new (${second.unchanged} unchanged, ${second.entries} entries read)`,
        subject: "runPipeline, same data folder",
        floor: "the full regeneration above",
        subjectSeconds: second.seconds,
        floorSeconds: full.seconds,
        items: entries,
        kind: "time",
        target: 0.05,
      },
      {
        name: `Run after ${(total - entries).toLocaleString("en")} new events (${incremental.entries.toLocaleString("en")} entries read, ${incremental.written} files written)`,
        subject: "runPipeline, same data folder and fold state",
        floor: "the full regeneration above",
        subjectSeconds: incremental.seconds,
        floorSeconds: full.seconds,
        items: total - entries,
        kind: "time",
        target: 0.05,
      },
    ];
    printComparisons("Pipeline (npm run bench -- pipeline)", comparisons);
    console.log(
      `  CPU time (user + system, every thread): floor ${floor.cpuSeconds.toFixed(1)} s, store read ${storeRead.cpuSeconds.toFixed(1)} s, full run ${full.cpuSeconds.toFixed(1)} s, run after new events ${incremental.cpuSeconds.toFixed(1)} s (the ledger pass reads and hashes the leaves on one thread; a helper thread folds the tree and validates, hashes and writes the streamed outputs)`,
    );
    printReadings("Pipeline peak memory (peak resident size of each child process)", [
      {
        name: "Full regeneration, peak resident size",
        unit: "MB",
        values: fulls.map((r) => r.maxRssMb),
        better: "lower",
        target: entries > 1_000_000 ? 1024 : 512,
      },
      { name: "Second run, peak resident size", unit: "MB", values: [second.maxRssMb], better: "lower" },
      { name: "Run after new events, peak resident size", unit: "MB", values: [incremental.maxRssMb], better: "lower" },
      { name: "Raw floor, peak resident size", unit: "MB", values: floors.map((r) => r.maxRssMb), better: "lower" },
      {
        name: "Store read, peak resident size",
        unit: "MB",
        values: storeReads.map((r) => r.maxRssMb),
        better: "lower",
      },
    ]);
  } finally {
    cleanup();
  }
}

const RAW_FLOOR = "raw node:sqlite rows of the entries table, each payload parsed once (JSON.parse)";

/**
 * The floor: every event read and parsed the plainest way — one `node:sqlite` statement over the
 * ledger's table, each row's payload parsed — with none of the project's code in the loop.
 */
export function rawReadAndParse(path: string): number {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    let entries = 0;
    for (const row of db.prepare("SELECT seq, type, payload, ts, prev, hash FROM entries ORDER BY seq").iterate()) {
      if (JSON.parse(row.payload as string) !== null) entries += 1;
    }
    return entries;
  } finally {
    db.close();
  }
}

/** Child mode: `node --import tsx bench/pipeline.ts child <floor|store-read|run> <dir> <dataDir>`. */
async function childMain(part: string, dir: string, dataDir: string): Promise<void> {
  if (part === "floor") {
    const t0 = process.hrtime.bigint();
    const cpu0 = process.threadCpuUsage();
    const entries = rawReadAndParse(join(dir, "ledger.sqlite"));
    const mainCpu = process.threadCpuUsage(cpu0);
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const usage = resourceUsage();
    console.log(
      JSON.stringify({
        seconds,
        cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6,
        mainCpuSeconds: (mainCpu.user + mainCpu.system) / 1e6,
        maxRssMb: peakRssMb(),
        entries,
        written: 0,
        unchanged: 0,
        failed: 0,
      } satisfies ChildResult),
    );
    return;
  }
  const ledger = await openLedgerStore({ path: join(dir, "ledger.sqlite"), origin: LEDGER_ORIGIN });
  const t0 = process.hrtime.bigint();
  const cpu0 = process.threadCpuUsage();
  let entries = 0;
  let written = 0;
  let unchanged = 0;
  let failed = 0;
  if (part === "store-read") {
    for await (const _ of ledger.entries()) entries += 1;
  } else {
    const report = await runPipeline({
      dataDir,
      ledger,
      steps,
      // Where the steps' code is, as npm run pipeline finds it: its cost is part of every run.
      code: await locateSteps(new URL("../pipeline/areas/index.ts", import.meta.url), steps),
      log: () => {},
      signingKey: () => loadSigningKey(DATASET_KEY, join(dir, "state"), {}),
      digestCache: join(dir, "state", "pipeline-digests.json"),
      // Each fold's state, kept as npm run pipeline keeps it (its cost is part of a full run).
      stateDir: join(dir, "state", "pipeline"),
    });
    entries = report.ledgerEntries;
    for (const s of report.steps) {
      if (s.status === "written") written += 1;
      else if (s.status === "unchanged") unchanged += 1;
      else if (s.status === "failed") {
        failed += 1;
        console.error(`${s.id}: ${s.reason}`);
      }
    }
  }
  const mainCpu = process.threadCpuUsage(cpu0);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  await ledger.close();
  const usage = resourceUsage();
  const result: ChildResult = {
    seconds,
    cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6,
    mainCpuSeconds: (mainCpu.user + mainCpu.system) / 1e6,
    maxRssMb: peakRssMb(),
    entries,
    written,
    unchanged,
    failed,
  };
  console.log(JSON.stringify(result));
}

if (process.argv[1] === SELF && process.argv[2] === "child") {
  await childMain(process.argv[3]!, process.argv[4]!, process.argv[5]!);
}
