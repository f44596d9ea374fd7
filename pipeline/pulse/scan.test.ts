import { afterEach, describe, expect, it } from "vitest";
import { join } from "node:path";
import { loadConfig } from "./config.ts";
import { classify, countLines, globToRegExp, scanLocal } from "./scan.ts";
import { PROJECT_ROOT, commit, gitInit, tempDir, writeFiles } from "../../test/support/pipeline/pulse/helpers.ts";

const config = loadConfig(join(PROJECT_ROOT, "data/sources/scoring.json"));
const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

describe("scan of a local git repository", () => {
  it("counts tracked files, newline bytes of text files, apps, packages and workflows exactly", async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const repo = join(dir, "repo");
    gitInit(repo);
    commit(
      repo,
      {
        "README.md": "a\nb\nc\n", // 3
        "package.json": "{\n}\n", // 2, the root: not a package
        ".gitignore": "ignored.txt\n", // 1
        "api/start.ts": "1\n2\n", // 2, api is an app (entry file)
        "pipeline/cli.ts": "x\n", // 1, pipeline is an app
        "apps/web/index.ts": "x\n", // 1, apps/web is an app (glob)
        "apps/web/package.json": "{}\n", // 1, a package
        "packages/x/package.json": "{}\n", // 1, a package
        "tools/sub/cli.ts": "y\n", // 1, not an app: not directly in a top-level folder
        "lib/util.ts": "no final newline", // 0
        "lib/crlf.txt": "one\r\ntwo\r\n", // 2
        ".github/workflows/ci.yml": "on: push\n", // 1, workflow
        ".github/workflows/pulse.yaml": "on: push\n", // 1, workflow
        ".github/workflows/README.md": "notes\n", // 1, not a workflow
        "image.png": new Uint8Array([0x89, 0x50, 0x0a, 0x00, 0x0a, 0x0a]), // binary: no lines
      },
      "initial",
      "2026-01-01T00:00:00Z",
    );
    writeFiles(repo, { "untracked.txt": "u\nu\n", "ignored.txt": "i\n" });

    const scan = await scanLocal(repo, config.scan);
    expect(scan.stats).toEqual({ totalFiles: 15, totalLines: 18, appsCount: 3, packagesCount: 2, workflowsCount: 2 });
    expect(scan.apps).toEqual(["api", "apps/web", "pipeline"]);
    expect(scan.packages).toEqual(["apps/web/package.json", "packages/x/package.json"]);
    expect(scan.workflows).toEqual([".github/workflows/ci.yml", ".github/workflows/pulse.yaml"]);
    expect(scan.notes).toContain("1 binary file(s) add no lines");
  });

  it("does not count a tracked file deleted from the work tree, and says so", async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const repo = join(dir, "repo");
    gitInit(repo);
    commit(repo, { "a.txt": "1\n", "b.txt": "1\n2\n" }, "two files", "2026-01-01T00:00:00Z");
    commit(repo, {}, "nothing", "2026-01-02T00:00:00Z");
    const { rmSync } = await import("node:fs");
    rmSync(join(repo, "b.txt"));
    const scan = await scanLocal(repo, config.scan);
    expect(scan.stats).toMatchObject({ totalFiles: 1, totalLines: 1 });
    expect(scan.notes.join("\n")).toMatch(/1 tracked file\(s\) missing from the work tree, not counted: b\.txt/);
  });
});

describe("scan helpers", () => {
  it("matches globs by path segment", () => {
    expect(globToRegExp("apps/*").test("apps/web")).toBe(true);
    expect(globToRegExp("apps/*").test("apps/web/src")).toBe(false);
    expect(globToRegExp("**/package.json").test("package.json")).toBe(true);
    expect(globToRegExp("**/package.json").test("a/b/package.json")).toBe(true);
    expect(globToRegExp("**/package.json").test("a/package.jsonx")).toBe(false);
    expect(globToRegExp(".github/workflows/*.yml").test(".github/workflows/ci.yml")).toBe(true);
    expect(globToRegExp(".github/workflows/*.yml").test(".github/workflowsXci.yml")).toBe(false);
  });

  it("counts newline bytes and refuses binary files", () => {
    const enc = new TextEncoder();
    expect(countLines(enc.encode(""))).toBe(0);
    expect(countLines(enc.encode("a"))).toBe(0);
    expect(countLines(enc.encode("a\n\nb\n"))).toBe(3);
    expect(countLines(new Uint8Array([0x61, 0x00, 0x0a]))).toBeNull();
  });

  it("classifies this repository's layout with the default rules", () => {
    const found = classify(
      [
        "api/start.ts",
        "site/astro.config.mjs",
        "pipeline/cli.ts",
        "cli/ledger-cli.ts",
        "bench/run.ts",
        "core/schemas/write-json-schemas.ts",
        "package.json",
      ],
      config.scan,
    );
    expect(found).toEqual({ apps: ["api", "pipeline", "site"], packages: [], workflows: [] });
  });
});
