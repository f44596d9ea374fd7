/**
 * The import rules (.dependency-cruiser.cjs) catch what they forbid: a tiny tree shaped like the
 * project is cruised with the real configuration, once clean and once with every violation planted.
 * (The real tree itself is checked by `npm run lint:imports`, which `npm test` runs beside the tests.)
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CONFIG = join(ROOT, ".dependency-cruiser.cjs");
const DEPCRUISE = join(ROOT, "node_modules", "dependency-cruiser", "bin", "dependency-cruise.mjs");
const FOLDERS = ["core", "store", "pipeline", "api", "site", "cli", "packages", "bench", "test"];

/** Imports every layer may make: each layer downward, tests and benchmarks anywhere. */
const CLEAN: Record<string, string> = {
  "core/digest.ts": `import { hash } from "node:crypto";\nexport const d = (s: string) => hash("sha256", s);\n`,
  "core/rules.ts": `import { d } from "./digest.ts";\nexport const r = d("x");\n`,
  "store/ledger.ts": `import { readFileSync } from "node:fs";\nimport { r } from "../core/rules.ts";\nexport const l = r + String(readFileSync);\n`,
  "store/ledger/engine.ts": `import { r } from "../../core/rules.ts";\nexport const e = r;\n`,
  "store/drivers/driver.ts": `import { e } from "../ledger/engine.ts";\nexport const c = e;\n`,
  "store/drivers/sqlite/backend.ts": `import { e } from "../../ledger/engine.ts";\nimport { c } from "../driver.ts";\nexport const s = e + c;\n`,
  "store/drivers/registry.ts": `import { s } from "./sqlite/backend.ts";\nexport const all = [s];\n`,
  "pipeline/step.ts": `import { l } from "../store/ledger.ts";\nexport const p = l;\n`,
  "api/app.ts": `import { l } from "../store/ledger.ts";\nimport { r } from "../core/rules.ts";\nexport const a = l + r;\n`,
  "site/src/lib/page.ts": `import { l } from "../../../store/ledger.ts";\nexport const s = l;\n`,
  "cli/run.ts": `import { p } from "../pipeline/step.ts";\nimport { a } from "../api/app.ts";\nconsole.log(p, a);\n`,
  "test/support/core/builders.ts": `import { r } from "../../../core/rules.ts";\nexport const b = r;\n`,
  "core/rules.test.ts": `import { b } from "../test/support/core/builders.ts";\nimport { existsSync } from "node:fs";\nexport const t = b + String(existsSync);\n`,
  "bench/core.ts": `import { b } from "../test/support/core/builders.ts";\nimport { a } from "../api/app.ts";\nexport const x = b + a;\n`,
  // Floors inside a layer: a folder imports the floors below it.
  "core/ledger/entry.ts": `import { d } from "../digest.ts";\nexport const e = d("e");\n`,
  "core/avm/rules.ts": `import { e } from "../ledger/entry.ts";\nexport const v = e;\n`,
  "api/http/cache.ts": `export const c = 1;\n`,
  "api/routes/ledger.ts": `import { c } from "../http/cache.ts";\nimport { v } from "../../core/avm/rules.ts";\nexport const g = c + v;\n`,
};

/** One violation as the `err` reporter (the one `npm run lint:imports` uses) prints it. */
interface Violation {
  rule: string;
  from: string;
  to: string;
}

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function cruise(files: Record<string, string>): Violation[] {
  dir = mkdtempSync(join(tmpdir(), "import-rules-"));
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { module: "NodeNext", allowImportingTsExtensions: true, noEmit: true } }),
  );
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const folders = FOLDERS.filter((f) => Object.keys(files).some((p) => p.startsWith(`${f}/`)));
  const run = spawnSync(process.execPath, [DEPCRUISE, "--config", CONFIG, "--output-type", "err", ...folders], {
    cwd: dir,
    encoding: "utf8",
  });
  expect(run.stderr).toBe("");
  const violations = [...run.stdout.matchAll(/^\s+error ([\w-]+): (\S+) → *(\S*)$/gm)].map(([, rule, from, to]) => ({
    rule: rule!,
    from: from!,
    to: to!,
  }));
  // The exit status is how npm test fails: it must agree with what was printed.
  expect(run.status === 0).toBe(violations.length === 0);
  return violations;
}

/**
 * Every violation below, planted at once in one copy of the clean tree and cruised once (a cruise
 * costs a second of CPU): each test reads the violations of its own planted files. None of the
 * planted files imports another, so each is judged as if it stood alone.
 */
const PLANTED: Record<string, string> = {
  "core/up.ts": `import { l } from "../store/ledger.ts";\nexport const u = l;\n`,
  "core/io.ts": `import { readFileSync } from "node:fs";\nexport const f = readFileSync;\n`,
  "store/up.ts": `import { p } from "../pipeline/step.ts";\nexport const u = p;\n`,
  "store/ledger/up.ts": `import { s } from "../drivers/sqlite/backend.ts";\nexport const u = s;\n`,
  "store/drivers/postgres/side.ts": `import { s } from "../sqlite/backend.ts";\nimport { all } from "../registry.ts";\nexport const p = s + all;\n`,
  "pipeline/side.ts": `import { a } from "../api/app.ts";\nexport const s = a;\n`,
  "api/side.ts": `import { p } from "../pipeline/step.ts";\nexport const s = p;\n`,
  "site/src/lib/verify.ts": `import { p } from "../../../pipeline/step.ts";\nexport const v = p;\n`,
  "packages/verify/src/index.ts": `import { r } from "../../../core/rules.ts";\nexport const v = r;\n`,
  "api/entry.ts": `import "../cli/run.ts";\nexport const e = 1;\n`,
  "pipeline/uses-fixture.ts": `import { b } from "../test/support/core/builders.ts";\nexport const u = b;\n`,
  "pipeline/areas/helpers.ts": `import { expect } from "vitest";\nexport const e = expect;\n`,
  "core/a.ts": `import { b } from "./b.ts";\nexport const a = () => b;\n`,
  "core/b.ts": `import { a } from "./a.ts";\nexport const b = () => a;\n`,
  "api/typo.ts": `import { l } from "../store/ledgr.ts";\nexport const t = l;\n`,
  "core/ground.ts": `import { e } from "./ledger/entry.ts";\nexport const g = e;\n`,
  "core/money/up.ts": `import { v } from "../avm/rules.ts";\nexport const u = v;\n`,
  "core/money/side.ts": `import { e } from "../ledger/entry.ts";\nexport const s = e;\n`,
  "api/clients/up.ts": `import { g } from "../routes/ledger.ts";\nexport const u = g;\n`,
};
let plantedViolations: Violation[] | undefined;

/** The violations found in planted file `path`, as [rule, from, to]. */
function planted(path: string): Array<[string, string, string]> {
  if (!(path in PLANTED)) throw new Error(`${path} is not planted`);
  plantedViolations ??= cruise({ ...CLEAN, ...PLANTED });
  return plantedViolations.filter((v) => v.from === path).map((v) => [v.rule, v.from, v.to]);
}

describe("the import rules", () => {
  it("pass a tree whose imports go only downward", () => {
    expect(cruise(CLEAN)).toEqual([]);
  });

  it("fail core importing a layer above it", () => {
    expect(planted("core/up.ts")).toContainEqual(["core-imports-only-core", "core/up.ts", "store/ledger.ts"]);
  });

  it("fail core importing an I/O module, but not node:crypto", () => {
    expect(planted("core/io.ts")).toEqual([["core-no-io", "core/io.ts", "fs"]]);
  });

  it("fail store importing pipeline", () => {
    expect(planted("store/up.ts")).toContainEqual(["store-imports-only-core", "store/up.ts", "pipeline/step.ts"]);
  });

  it("fail the ledger engine importing a store driver, and a driver importing another or the registry", () => {
    expect(planted("store/ledger/up.ts")).toContainEqual([
      "store-engine-not-drivers",
      "store/ledger/up.ts",
      "store/drivers/sqlite/backend.ts",
    ]);
    expect(planted("store/drivers/postgres/side.ts")).toEqual([
      ["store-driver-not-another", "store/drivers/postgres/side.ts", "store/drivers/sqlite/backend.ts"],
      ["store-driver-not-another", "store/drivers/postgres/side.ts", "store/drivers/registry.ts"],
    ]);
  });

  it("fail pipeline and api importing each other", () => {
    expect(planted("pipeline/side.ts")).toContainEqual(["pipeline-not-api", "pipeline/side.ts", "api/app.ts"]);
    expect(planted("api/side.ts")).toContainEqual(["api-not-pipeline", "api/side.ts", "pipeline/step.ts"]);
  });

  it("fail the portal importing pipeline code", () => {
    expect(planted("site/src/lib/verify.ts")).toContainEqual([
      "site-imports-core-and-store",
      "site/src/lib/verify.ts",
      "pipeline/step.ts",
    ]);
  });

  it("fail a standalone package importing the project", () => {
    expect(planted("packages/verify/src/index.ts")).toContainEqual([
      "packages-standalone",
      "packages/verify/src/index.ts",
      "core/rules.ts",
    ]);
  });

  it("fail anything importing an entry point", () => {
    expect(planted("api/entry.ts")).toContainEqual(["nothing-imports-cli", "api/entry.ts", "cli/run.ts"]);
  });

  it("fail production code importing test support", () => {
    expect(planted("pipeline/uses-fixture.ts")).toContainEqual([
      "production-not-test-support",
      "pipeline/uses-fixture.ts",
      "test/support/core/builders.ts",
    ]);
  });

  it("fail production code importing the test runner (test support outside test/support/)", () => {
    expect(planted("pipeline/areas/helpers.ts")).toContainEqual([
      "production-not-test-framework",
      "pipeline/areas/helpers.ts",
      "vitest",
    ]);
  });

  it("fail an import circle", () => {
    expect(planted("core/a.ts").map(([rule]) => rule)).toContain("no-circular");
  });

  it("fail a folder of core/ or api/ importing a higher floor, or a neighbour on its own floor", () => {
    expect(planted("core/ground.ts")).toEqual([["core-floor-2-not-up", "core/ground.ts", "core/ledger/entry.ts"]]);
    expect(planted("core/money/up.ts")).toEqual([["core-floor-3-not-up", "core/money/up.ts", "core/avm/rules.ts"]]);
    expect(planted("core/money/side.ts")).toEqual([
      ["core-floor-3-not-sideways", "core/money/side.ts", "core/ledger/entry.ts"],
    ]);
    expect(planted("api/clients/up.ts")).toEqual([["api-floor-1-not-up", "api/clients/up.ts", "api/routes/ledger.ts"]]);
  });

  it("fail an import that resolves to nothing", () => {
    expect(planted("api/typo.ts")).toContainEqual(["not-to-unresolvable", "api/typo.ts", "../store/ledgr.ts"]);
  });
});

describe("the floors inside core/ and api/", () => {
  const rules = (
    createRequire(import.meta.url)(CONFIG) as {
      forbidden: { name: string; from: { path?: string }; to: { path?: string } }[];
    }
  ).forbidden;
  /** Whether a floor rule of `layer` names `path` (as a room that imports, or one imported). */
  const onAFloor = (layer: string, path: string) =>
    rules
      .filter((rule) => rule.name.startsWith(`${layer}-floor-`))
      .some((rule) => [rule.from.path, rule.to.path].some((pattern) => pattern && new RegExp(pattern).test(path)));

  it.each(["core", "api"])("hold every folder of %s/: a new folder must be given a floor", (layer) => {
    const folders = readdirSync(join(ROOT, layer), { withFileTypes: true }).filter((entry) => entry.isDirectory());
    expect(folders.length).toBeGreaterThan(5);
    for (const folder of folders) expect(onAFloor(layer, `${layer}/${folder.name}/module.ts`), folder.name).toBe(true);
    expect(onAFloor(layer, `${layer}/no-such-folder/module.ts`)).toBe(false);
  });

  it("leave nothing loose at the root of api/ but the app and the entry point", () => {
    const loose = readdirSync(join(ROOT, "api"), { withFileTypes: true })
      .filter((entry) => entry.isFile() && !entry.name.endsWith(".test.ts"))
      .map((entry) => entry.name);
    expect(loose.sort()).toEqual(["app.ts", "start.ts"]);
  });
});
