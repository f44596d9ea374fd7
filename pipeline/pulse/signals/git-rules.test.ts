import { afterEach, describe, expect, it } from "vitest";
import { join } from "node:path";
import { loadConfig } from "../config.ts";
import { PROJECT_ROOT, commit, gitInit, tempDir } from "../../../test/support/pipeline/pulse/helpers.ts";
import { generatedEditedByHand, generatedUntouched, historyAppendOnly, windowCommits } from "./git-rules.ts";

const config = loadConfig(join(PROJECT_ROOT, "data/sources/scoring.json"));
const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

describe("MII signals from git log", () => {
  it("measures the share of window commits following each rule", async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const repo = join(dir, "repo");
    gitInit(repo);
    const H = "data/pulse/history.jsonl";
    commit(repo, { "old.txt": "x\n", [H]: "zero\n" }, "before the window", "2025-11-01T00:00:00Z");
    commit(repo, { [H]: "zero\none\n" }, "pulse: C-1", "2026-01-10T00:00:00Z"); // appends: follows both
    commit(repo, { [H]: "ZERO\none\n" }, "fix typo", "2026-01-11T00:00:00Z"); // rewrites line 1
    commit(repo, { "data/schemas/a.schema.json": "{}\n" }, "tweak schema", "2026-01-12T00:00:00Z"); // by hand
    commit(
      repo,
      { "data/schemas/b.schema.json": "{}\n", "core/schemas/b.ts": "b\n" },
      "schema b",
      "2026-01-13T00:00:00Z",
    ); // with input
    commit(repo, { "data/v1/pulse/latest.json": "{}\n" }, "data: regenerate", "2026-01-14T00:00:00Z"); // generator commit
    commit(repo, { "later.txt": "x\n" }, "after now", "2026-02-01T00:00:00Z");

    const now = new Date("2026-01-20T00:00:00.000Z");
    const commits = await windowCommits(repo, now, config.thresholds);
    expect(commits.map((c) => c.subject)).toEqual([
      "data: regenerate",
      "schema b",
      "tweak schema",
      "fix typo",
      "pulse: C-1",
    ]);
    expect(commits[1]!.files).toEqual(["core/schemas/b.ts", "data/schemas/b.schema.json"]);

    const append = await historyAppendOnly(repo, commits, H);
    expect(append.value).toBe(4 / 5);
    expect(append.reason).toMatch(
      /4 of 5 commits keep data\/pulse\/history\.jsonl append-only \(2 touch it\); not append-only: [0-9a-f]{12} line 1: changed/,
    );

    const generated = generatedUntouched(commits, config.rules);
    expect(generated.value).toBe(4 / 5);
    expect(generated.reason).toMatch(/by hand: [0-9a-f]{12} edits data\/schemas\//);

    const fewer = await windowCommits(repo, now, { ...config.thresholds, windowMaxCommits: 2 });
    expect(fewer.map((c) => c.subject)).toEqual(["data: regenerate", "schema b"]);
  });

  it("is unmeasured when the window holds no commit, or the repository has none", async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const repo = join(dir, "repo");
    gitInit(repo);
    expect(await windowCommits(repo, new Date("2026-01-20T00:00:00Z"), config.thresholds)).toEqual([]);
    commit(repo, { "a.txt": "a\n" }, "long ago", "2020-01-01T00:00:00Z");
    const commits = await windowCommits(repo, new Date("2026-01-20T00:00:00Z"), config.thresholds);
    expect(commits).toEqual([]);
    expect((await historyAppendOnly(repo, commits, "data/pulse/history.jsonl")).value).toBeNull();
    expect(generatedUntouched(commits, config.rules)).toEqual({ value: null, reason: "no commit in the window" });
  });

  it("lets a generator's own commit change outputs alone", () => {
    const c = {
      sha: "0".repeat(40),
      parent: null,
      committedAt: "",
      subject: "pulse: C-9",
      files: ["data/v1/pulse/badge.json"],
    };
    expect(generatedEditedByHand(c, config.rules.generated, config.rules.generatedMessagePrefixes)).toBeNull();
    expect(
      generatedEditedByHand(
        { ...c, subject: "edit badge" },
        config.rules.generated,
        config.rules.generatedMessagePrefixes,
      ),
    ).toBe("data/v1/");
    expect(
      generatedEditedByHand(
        { ...c, subject: "edit", files: [...c.files, "core/pulse/badge.ts"] },
        config.rules.generated,
        config.rules.generatedMessagePrefixes,
      ),
    ).toBeNull();
  });
});
