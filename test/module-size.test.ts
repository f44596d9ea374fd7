/**
 * The 500-line rule (docs/structure.md): no production module is over 500 lines; a long one is split
 * along its seams. Tests, test support and benchmarks are not production code.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PRODUCTION = ["core", "store", "pipeline", "api", "cli", "site/src"];
const LIMIT = 500;

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" ? [] : modules(path);
    return /\.(ts|mjs)$/.test(e.name) && !e.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** The production modules over the limit, with their line counts. */
function longModules(root: string, folders: readonly string[]): string[] {
  return folders
    .flatMap((f) => modules(join(root, f)))
    .map((path) => ({ path, lines: readFileSync(path, "utf8").split("\n").length }))
    .filter((m) => m.lines > LIMIT)
    .map((m) => `${relative(root, m.path)} (${m.lines} lines)`);
}

describe("the 500-line rule", () => {
  it("holds for every production module", () => {
    expect(longModules(ROOT, PRODUCTION)).toEqual([]);
  });

  it("names a long module, whatever its header says, and leaves tests alone", () => {
    const dir = mkdtempSync(join(tmpdir(), "module-size-"));
    try {
      mkdirSync(join(dir, "core"));
      const body = "export const x = 1;\n".repeat(LIMIT);
      writeFileSync(
        join(dir, "core", "long.ts"),
        `/**\n * Long.\n * Over 500 lines on purpose: it is a table.\n */\n${body}`,
      );
      writeFileSync(join(dir, "core", "long.test.ts"), `/** A test. */\n${body}`);
      writeFileSync(join(dir, "core", "short.ts"), "/** Short. */\nexport const y = 2;\n");
      expect(longModules(dir, ["core"])).toEqual([`core/long.ts (${LIMIT + 5} lines)`]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
