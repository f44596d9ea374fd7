import { afterEach, describe, expect, it } from "vitest";
import { join } from "node:path";
import { appendOnlyProblem, checkAppendOnly } from "./append-only.ts";
import { commit, gitInit, tempDir, writeFiles } from "../../test/support/pipeline/pulse/helpers.ts";

const enc = new TextEncoder();
const problem = (before: string, after: string | null) =>
  appendOnlyProblem(enc.encode(before), after === null ? null : enc.encode(after));

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

describe("appendOnlyProblem", () => {
  it("accepts appended whole lines and an unchanged file", () => {
    expect(problem("", "a\n")).toBeNull();
    expect(problem("a\nb\n", "a\nb\n")).toBeNull();
    expect(problem("a\nb\n", "a\nb\nc\nd\n")).toBeNull();
  });

  it("names the first changed, removed or cut line", () => {
    expect(problem("a\nb\nc\n", "a\nB\nc\nd\n")).toBe("line 2: changed");
    expect(problem("a\nb\nc\n", "a\nb\n")).toBe("line 3: removed");
    expect(problem("a\nb\nc\n", "a\nc\n")).toBe("line 2: changed");
    expect(problem("a\nbb\n", "a\nb")).toBe("line 2: changed (cut short)");
    expect(problem("a\nb\n", null)).toBe("line 1: the file was removed (it had 2 line(s))");
    expect(problem("a\nb", "a\nbc\n")).toMatch(/^line 2: changed \(the earlier file did not end with a newline/);
  });
});

describe("--check-append-only guard on a git repository", () => {
  it("passes an appended file, fails an edited earlier line naming it, accepts a file new since REV", async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const repo = join(dir, "repo");
    const file = join(repo, "data/pulse/history.jsonl");
    gitInit(repo);
    commit(repo, { "README.md": "r\n" }, "no history yet", "2026-01-01T00:00:00Z");
    commit(repo, { "data/pulse/history.jsonl": "one\ntwo\n" }, "pulse: first", "2026-01-02T00:00:00Z");
    expect(await checkAppendOnly(repo, file, "HEAD~1")).toEqual({
      ok: true,
      message: "data/pulse/history.jsonl: not present at HEAD~1, nothing to keep",
    });

    commit(repo, { "data/pulse/history.jsonl": "one\ntwo\nthree\n" }, "pulse: second", "2026-01-03T00:00:00Z");
    expect(await checkAppendOnly(repo, file, "HEAD~1")).toMatchObject({
      ok: true,
      message: expect.stringMatching(/1 line\(s\) appended since HEAD~1/),
    });

    writeFiles(repo, { "data/pulse/history.jsonl": "one\nTWO\nthree\nfour\n" });
    const edited = await checkAppendOnly(repo, file, "HEAD");
    expect(edited).toEqual({
      ok: false,
      message: "data/pulse/history.jsonl line 2: changed since HEAD: the history is append-only",
    });

    await expect(checkAppendOnly(repo, file, "no-such-rev")).rejects.toThrow(/unknown revision no-such-rev/);
  });
});
