import { cpSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../test/support/store/helpers.ts";
import { steps } from "./areas/index.ts";
import { supplyStep } from "./areas/economy/supply.ts";
import { auditTrailCsvStep, auditTrailJsonStep } from "./areas/government/audit-trail.ts";
import { factsModule, stepCodeModules } from "./run/inputs.ts";
import { CodeDigests, locateSteps, relativeImports } from "./step-code.ts";
import { listedResources } from "../core/datapackage/references.ts";

describe("relativeImports", () => {
  it("finds what a module imports at run time, and nothing else", () => {
    const text = [
      `import { a } from "./a.ts";`,
      `import {`,
      `  b,`,
      `  type B,`,
      `} from "../b.ts";`,
      `import "./side-effect.ts";`,
      `export * from "./c.ts";`,
      `export { d } from './d.ts';`,
      `import type { T } from "./types.ts";`,
      `export type { U } from "./more-types.ts";`,
      `import { z } from "zod";`,
      `import { readFileSync } from "node:fs";`,
      ` * import { x } from "./in-a-comment.ts";`,
      `// import { y } from "./commented-out.ts";`,
      `const m = await import("./lazy.ts");`,
      `export const from = "./not-an-import.ts";`,
    ].join("\n");
    expect(relativeImports(text)).toEqual(["./a.ts", "../b.ts", "./side-effect.ts", "./c.ts", "./d.ts", "./lazy.ts"]);
  });
});

describe("CodeDigests", () => {
  function tree(dir: string): void {
    mkdirSync(join(dir, "src", "lib"), { recursive: true });
    writeFileSync(
      join(dir, "src", "step.ts"),
      `import { f } from "./lib/f.ts";\nimport type { T } from "./types.ts";\nexport const step = f();\n`,
    );
    writeFileSync(join(dir, "src", "lib", "f.ts"), `import { g } from "./g.ts";\nexport const f = () => g();\n`);
    writeFileSync(
      join(dir, "src", "lib", "g.ts"),
      `import { f } from "./f.ts";\nimport data from "./table.json" with { type: "json" };\nexport const g = () => data.n;\nvoid f;\n`,
    );
    writeFileSync(join(dir, "src", "lib", "table.json"), `{"n": 1}\n`);
    writeFileSync(join(dir, "src", "types.ts"), `export type T = number;\n`);
  }

  it("is the same in any checkout, changes with any imported file's bytes, and not with a type-only import or a file's time", () => {
    const { dir, cleanup } = tempDir("step-code-");
    try {
      tree(join(dir, "one"));
      cpSync(join(dir, "one"), join(dir, "elsewhere", "two"), { recursive: true });
      const one = new CodeDigests(join(dir, "one")).digest(["src/step.ts"]);
      expect(one).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(new CodeDigests(join(dir, "elsewhere", "two")).digest(["src/step.ts"])).toBe(one);

      utimesSync(join(dir, "one", "src", "lib", "g.ts"), new Date(0), new Date(0));
      writeFileSync(join(dir, "one", "src", "types.ts"), `export type T = string;\n`);
      expect(new CodeDigests(join(dir, "one")).digest(["src/step.ts"])).toBe(one);

      writeFileSync(join(dir, "one", "src", "lib", "table.json"), `{"n": 2}\n`);
      expect(new CodeDigests(join(dir, "one")).digest(["src/step.ts"])).not.toBe(one);
    } finally {
      cleanup();
    }
  });

  it("refuses an import that leaves the repository or names no file", () => {
    const { dir, cleanup } = tempDir("step-code-");
    try {
      mkdirSync(join(dir, "repo"));
      writeFileSync(join(dir, "repo", "a.ts"), `import { x } from "../outside.ts";\n`);
      writeFileSync(join(dir, "outside.ts"), `export const x = 1;\n`);
      writeFileSync(join(dir, "repo", "b.ts"), `import { y } from "./missing.ts";\n`);
      expect(() => new CodeDigests(join(dir, "repo")).digest(["a.ts"])).toThrow(/outside the repository/);
      expect(() => new CodeDigests(join(dir, "repo")).digest(["b.ts"])).toThrow(/does not exist/);
    } finally {
      cleanup();
    }
  });
});

describe("locateSteps", () => {
  it("finds the module of every step of the registry", async () => {
    const code = await locateSteps(new URL("./areas/index.ts", import.meta.url), steps);
    expect(code.modules.size).toBe(steps.length);
    expect(code.modules.get(supplyStep)).toBe("pipeline/areas/economy/supply.ts");
    expect(code.modules.get(auditTrailCsvStep)).toBe("pipeline/areas/government/audit-trail.ts");
    expect(code.modules.get(auditTrailJsonStep)).toBe("pipeline/areas/government/audit-trail.ts");
    // A step lives in its area's folder, or (the Parquet copies of every area's tables) beside them.
    for (const module of code.modules.values()) expect(module).toMatch(/^pipeline\/areas\/(?:[a-z]+\/)?[a-z-]+\.ts$/);
    // Two steps of one module share their code; steps of different modules do not.
    const digests = new CodeDigests(code.root);
    expect(digests.digest([code.modules.get(auditTrailCsvStep)!])).toBe(
      digests.digest([code.modules.get(auditTrailJsonStep)!]),
    );
    expect(digests.digest([code.modules.get(supplyStep)!])).not.toBe(
      digests.digest([code.modules.get(auditTrailCsvStep)!]),
    );
  });

  it("refuses a step that no module exports", async () => {
    const stray = { ...supplyStep };
    await expect(locateSteps(new URL("./areas/index.ts", import.meta.url), [stray])).rejects.toThrow(
      /exports step\(s\) economy\/supply\.json/,
    );
  });
});

describe("the committed data/ and this code", () => {
  // A step's code is part of its identity, recorded in its area's signed manifest. A change to a
  // module a step imports, committed without regenerating data/, leaves every such manifest stale:
  // `npm start` on a fresh clone (no signing key) then cannot re-sign them and stops.
  it("records in every area manifest the code digest each step has now (else run npm run pipeline and commit data/)", async () => {
    const code = await locateSteps(new URL("./areas/index.ts", import.meta.url), steps);
    const digests = new CodeDigests(code.root);
    const facts = factsModule(code.root);
    const stale: string[] = [];
    for (const step of steps) {
      const manifest = JSON.parse(
        readFileSync(join(code.root, "data", "areas", step.area, "datapackage.json"), "utf8"),
      ) as Record<string, unknown>;
      const recorded = listedResources<{ path: string; inputs?: { code?: string } }>(manifest).find(
        (r) => r.path === step.path,
      )?.inputs?.code;
      if (recorded !== digests.digest(stepCodeModules(step, code.modules.get(step)!, facts))) stale.push(step.id);
    }
    expect(stale).toEqual([]);
  });
});
