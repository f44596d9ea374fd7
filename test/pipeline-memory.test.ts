/**
 * The regeneration's memory, checked by a test rather than a timing: a full regeneration of a fixed
 * 100,000-event sample ledger (the pipeline benchmark's ledger at a tenth of its size, written
 * through the store's bulk path) runs in a child process of its own — the benchmark's child, the
 * same code `npm run bench -- pipeline` measures — with every JavaScript heap capped at
 * HEAP_CAP_MB (`--max-old-space-size`, which V8 applies to each isolate: the main thread and the
 * pass helper thread alike). A regeneration that holds the ledger or its outputs in memory cannot
 * fit and the child fails; one that streams them does.
 *
 * Why a heap cap and not the resident size: the resident size depends on how the child's threads and
 * their allocators interleave, which the suite's neighbours change (the same child peaked at 305–330
 * MB alone and at 471–563 MB inside the full suite), while what a heap holds does not. What the
 * 100,000-event regeneration keeps alive at its worst, measured after each full collection (V8's
 * GCProfiler): 31–43 MB on the main thread, 19–21 MB on the pass helper. Holding the ledger's
 * entries takes the main thread's live heap to 89 MB and more; holding the streamed outputs adds
 * their 67 MB of text to whichever thread keeps them. Both were tried with this cap and failed (the
 * main thread out of memory; the helper stopped by its memory limit, failing the pass). A tighter
 * cap costs time: at 64 MB the main thread needed 83 full collections and 1.7 times the CPU, at 80 MB
 * ten. The 1,000,000-event regeneration's peak resident size (target 512 MB) is a reading of
 * `npm run bench -- pipeline` on an idle machine.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { steps } from "../pipeline/areas/index.ts";
import { prepareDataDir, seedSampleLedger } from "./support/pipeline/sample-ledger.ts";
import { tempDir } from "./support/store/helpers.ts";

const REPO = fileURLToPath(new URL("..", import.meta.url));
const EVENTS = 100_000;
export const HEAP_CAP_MB = 80;

describe("the regeneration's memory", () => {
  const { dir, cleanup } = tempDir("pipeline-memory-");
  let entries = 0;
  let dataDir = "";

  beforeAll(async () => {
    entries = await seedSampleLedger(dir, EVENTS);
    dataDir = prepareDataDir(dir);
  }, 120_000);
  afterAll(() => cleanup());

  it(`regenerates every area from a ${EVENTS.toLocaleString("en")}-event ledger with each heap capped at ${HEAP_CAP_MB} MB`, () => {
    const run = spawnSync(
      process.execPath,
      [
        `--max-old-space-size=${HEAP_CAP_MB}`,
        "--import",
        "tsx",
        join(REPO, "bench", "pipeline.ts"),
        "child",
        "run",
        dir,
        dataDir,
      ],
      { cwd: REPO, encoding: "utf8", maxBuffer: 1 << 24 },
    );
    // Out of memory on the main thread: the process aborts. On the helper: the pass fails (below).
    expect(run.status, `${run.signal ?? ""}\n${run.stderr.slice(-4000)}`).toBe(0);
    const result = JSON.parse(run.stdout.trim().split("\n").pop()!) as {
      maxRssMb: number;
      entries: number;
      written: number;
      failed: number;
    };
    expect(result.failed, run.stderr.slice(-4000)).toBe(0);
    expect(result.entries).toBe(entries);
    expect(result.written).toBeGreaterThanOrEqual(steps.length);
  }, 180_000);
});
