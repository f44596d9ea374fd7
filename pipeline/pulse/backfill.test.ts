import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { historyLines, verifyHistory } from "../../core/pulse/history.ts";
import {
  MIN_RECORDS,
  SAMPLE_HISTORY_NOTICE,
  backfillPulses,
  commitsToMeasure,
  type BackfillOptions,
} from "./backfill.ts";
import { verifyPublished } from "./indexer.ts";
import { TEST_DATASET_KEY, commit, gitInit, makeDataDir, tempDir } from "../../test/support/pipeline/pulse/helpers.ts";

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function world() {
  const { dir, cleanup } = tempDir("pulse-backfill-test-");
  cleanups.push(cleanup);
  const repo = join(dir, "repo");
  gitInit(repo);
  // The repository publishes a data folder (schemas and the scoring configuration), so that a past
  // commit has something for gi.schema_valid to measure.
  makeDataDir(repo);
  const shas = [
    commit(repo, { "README.md": "# demo\n" }, "init", "2026-03-01T10:00:00Z"),
    commit(repo, { "api/start.ts": "start()\n" }, "api", "2026-03-01T11:00:00Z"),
    // Two commits in the same second: only the later one is measured.
    commit(repo, { "site/astro.config.mjs": "export default {}\n" }, "site", "2026-03-01T12:00:00Z"),
    commit(repo, { ".github/workflows/ci.yml": "on: push\n" }, "ci", "2026-03-01T12:00:00Z"),
    commit(repo, { "pkg/package.json": "{}\n" }, "package", "2026-03-02T09:30:00Z"),
  ];
  const data = makeDataDir(dir);
  const options = (extra: Partial<BackfillOptions> = {}): BackfillOptions => ({
    repo,
    dataDir: data,
    configPath: join(data, "sources/scoring.json"),
    branch: "main",
    now: new Date("2026-03-05T00:00:00.000Z"),
    dryRun: false,
    trustNewKey: false,
    env: { STATE_DIR: join(dir, "state"), DATASET_SIGNING_KEY: TEST_DATASET_KEY },
    log: () => {},
    ...extra,
  });
  return { dir, repo, data, shas, options };
}

const history = (data: string) => verifyHistory(historyLines(readFileSync(join(data, "pulse/history.jsonl"), "utf8")));

describe("pulse backfill", () => {
  it("measures every past commit (one per second), dated by the commit and stamped with it", async () => {
    const { repo, data, shas, options } = world();
    const status = () => execFileSync("git", ["-C", repo, "status", "--porcelain"], { encoding: "utf8" });
    const refs = () => execFileSync("git", ["-C", repo, "show-ref"], { encoding: "utf8" });
    const [statusBefore, refsBefore] = [status(), refs()];

    const report = await backfillPulses(options());
    expect(report.measured.map((m) => m.commit)).toEqual([shas[0], shas[1], shas[3], shas[4]]);
    expect(report.simulated).toEqual([]);

    const { records, problems } = history(data);
    expect(problems).toEqual([]);
    expect(records.map((r) => r.generatedAt)).toEqual([
      "2026-03-01T10:00:00.000Z",
      "2026-03-01T11:00:00.000Z",
      "2026-03-01T12:00:00.000Z",
      "2026-03-02T09:30:00.000Z",
    ]);
    expect(records.map((r) => r.origin)).toEqual(report.measured.map((m) => ({ kind: "backfill", commit: m.commit })));
    // Each record measured the repository as it was at its commit.
    expect(records.map((r) => r.stats.appsCount)).toEqual([0, 1, 2, 2]);
    expect(records.map((r) => r.stats.workflowsCount)).toEqual([0, 0, 1, 1]);
    expect(records.map((r) => r.stats.packagesCount)).toEqual([0, 0, 0, 1]);
    for (const r of records) {
      expect(r.cycle).toMatch(/^C-\d+$/);
      expect(r.scoring?.inputs["gi.ledger_verified"]?.measured).toBe(false);
      expect(r.scoring?.inputs["mii.history_append_only"]?.measured).toBe(true);
    }
    expect(verifyPublished(data).ok).toBe(true);
    // The repository measured is left as it was.
    expect([status(), refs()]).toEqual([statusBefore, refsBefore]);

    // Nothing newer: a second run appends nothing.
    const again = await backfillPulses(options());
    expect(again.measured).toEqual([]);
    expect(again.reason).toMatch(/no commit newer/);
    expect(history(data).records).toHaveLength(4);
  });

  it("gives the same bytes for the same repository, and appends after what is there", async () => {
    const a = world();
    await backfillPulses(a.options({ now: new Date("2026-03-01T11:30:00.000Z") }));
    expect(history(a.data).records).toHaveLength(2);
    await backfillPulses(a.options());
    const b = world();
    await backfillPulses(b.options());
    expect(history(a.data).records.map((r) => r.hash)).toEqual(history(b.data).records.map((r) => r.hash));
    expect(readFileSync(join(a.data, "pulse/history.jsonl"), "utf8")).toBe(
      readFileSync(join(b.data, "pulse/history.jsonl"), "utf8"),
    );
  });

  it("picks commits strictly after the newest record and not after now", async () => {
    const { repo, shas } = world();
    const picked = await commitsToMeasure(
      repo,
      Date.parse("2026-03-01T10:00:00Z"),
      Date.parse("2026-03-02T00:00:00Z"),
      100,
    );
    expect(picked.map((c) => c.sha)).toEqual([shas[1], shas[3]]);
    expect((await commitsToMeasure(repo, 0, Date.parse("2026-03-05T00:00:00Z"), 2)).map((c) => c.sha)).toEqual([
      shas[3],
      shas[4],
    ]);
  });

  it("without git history, tops a short history up with simulated records marked as sample data", async () => {
    const { dir, options } = world();
    const notARepo = join(dir, "plain");
    mkdirSync(notARepo);
    const data = makeDataDir(join(dir, "other"));
    const report = await backfillPulses(
      options({ repo: notARepo, dataDir: data, configPath: join(data, "sources/scoring.json") }),
    );
    expect(report.measured).toEqual([]);
    expect(report.reason).toMatch(/not inside a git work tree/);
    const { records, problems } = history(data);
    expect(problems).toEqual([]);
    expect(records).toHaveLength(MIN_RECORDS);
    for (const r of records) expect(r.origin).toEqual({ kind: "sample", notice: SAMPLE_HISTORY_NOTICE });
    expect(records.at(-1)!.generatedAt).toBe("2026-03-05T00:00:00.000Z");
    expect(new Set(records.map((r) => r.giScore)).size).toBeGreaterThan(1);
  });
});
