/**
 * The 500-line rule (docs/structure.md): a production module over 500 lines says at its top why it
 * is one module, in a sentence that starts "Over 500 lines on purpose". Tests, test support and
 * benchmarks are not production code.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PRODUCTION = ["core", "store", "pipeline", "api", "cli", "site/src"];
const LIMIT = 500;
const REASON = "Over 500 lines on purpose";

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" ? [] : modules(path);
    return /\.(ts|mjs)$/.test(e.name) && !e.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** The modules over the limit whose first comment gives no reason. */
function unexplainedLongModules(root: string, folders: readonly string[]): string[] {
  return folders
    .flatMap((f) => modules(join(root, f)))
    .filter((path) => {
      const text = readFileSync(path, "utf8");
      if (text.split("\n").length <= LIMIT) return false;
      const header = text.slice(0, text.indexOf("*/") + 2);
      return !header.includes(REASON);
    })
    .map((path) => relative(root, path));
}

describe("the 500-line rule", () => {
  it("holds for every production module", () => {
    expect(unexplainedLongModules(ROOT, PRODUCTION)).toEqual([]);
  });

  it("names a long module without a reason, and passes it with one", () => {
    const dir = mkdtempSync(join(tmpdir(), "module-size-"));
    try {
      mkdirSync(join(dir, "core"));
      const body = "export const x = 1;\n".repeat(LIMIT);
      writeFileSync(join(dir, "core", "long.ts"), `/** Long. */\n${body}`);
      writeFileSync(join(dir, "core", "long.test.ts"), `/** A test. */\n${body}`);
      writeFileSync(join(dir, "core", "short.ts"), "/** Short. */\nexport const y = 2;\n");
      expect(unexplainedLongModules(dir, ["core"])).toEqual(["core/long.ts"]);
      writeFileSync(join(dir, "core", "long.ts"), `/**\n * Long.\n * ${REASON}: it is a table.\n */\n${body}`);
      expect(unexplainedLongModules(dir, ["core"])).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
