/**
 * An area is declared once (core/areas/<area>.ts): its name appears in at most three production
 * modules outside its own files — the registry of areas, the registry of steps, and at most one
 * module that reads another area's facts. Its own files are its declaration, its schemas (the zod
 * module, registered in core/schemas/index.ts with an example in core/schemas/examples-areas.ts), its steps
 * (pipeline/areas/<area>/) and its page (site/src/pages/<area>/).
 *
 * The word is the area's name, lowercase and whole. A name that is also the name of another thing
 * of the code — a key tier (core/areas/declaration.ts KEY_TIERS: the government key), or a domain
 * under core/ (core/economy/, core/philosophy/) — cannot be told from that thing by a scan; those
 * areas are held to a narrower rule: no module outside the registries lists the areas (two area
 * names in one list, string or pattern).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { AREAS, KEY_TIERS } from "../core/areas/index.ts";

const REPO = resolve(fileURLToPath(new URL("..", import.meta.url)));
const ROOTS = ["core", "store", "pipeline", "api", "cli", "site/src"];
const SOURCE = /\.(?:ts|astro|mjs|js)$/;
const MAX_OUTSIDE = 3;

/** Production modules under the scanned folders, relative to the repository with `/`. */
function productionModules(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (SOURCE.test(name) && !name.endsWith(".test.ts")) found.push(relative(REPO, path).split("\\").join("/"));
    }
  };
  for (const root of ROOTS) walk(join(REPO, root));
  return found.sort();
}

const modules = productionModules();
const texts = new Map(modules.map((m) => [m, readFileSync(join(REPO, m), "utf8")]));

/** The modules that are an area's own. */
function ownFiles(area: string): (module: string) => boolean {
  return (m) =>
    m === `core/areas/${area}.ts` ||
    m === `core/schemas/${area}.ts` ||
    m === "core/schemas/index.ts" ||
    m === "core/schemas/examples-areas.ts" ||
    m.startsWith(`pipeline/areas/${area}/`) ||
    m.startsWith(`site/src/pages/${area}/`);
}

/** Whether the name also names another thing of the code (a key tier, a core/ domain). */
function hasHomonym(area: string): boolean {
  return (KEY_TIERS as readonly string[]).includes(area) || existsSync(join(REPO, "core", area));
}

/** Modules outside the area's own files that name it. */
function namingModules(area: string): string[] {
  const word = new RegExp(`\\b${area}\\b`);
  const own = ownFiles(area);
  return modules.filter((m) => !own(m) && word.test(texts.get(m)!));
}

describe("an area's name", () => {
  it("scans the production modules and knows every area's own files", () => {
    expect(modules.length).toBeGreaterThan(300);
    for (const area of AREAS) {
      expect(modules).toContain(`core/areas/${area}.ts`);
      expect(modules.some((m) => m.startsWith(`pipeline/areas/${area}/`))).toBe(true);
    }
  });

  for (const area of AREAS.filter((a) => !hasHomonym(a))) {
    it(`${area}: appears in at most ${MAX_OUTSIDE} production modules outside its own files`, () => {
      const naming = namingModules(area);
      expect(naming).toContain("core/areas/index.ts");
      expect(naming.length, naming.join(", ")).toBeLessThanOrEqual(MAX_OUTSIDE);
    });
  }

  it("no module outside the registries lists the areas", () => {
    const registries = new Set(["core/areas/index.ts", "pipeline/areas/index.ts"]);
    // Two different area names joined by a list separator: `a|b`, `"a", "b"`, `a, b`, `a,b`.
    const names = AREAS.join("|");
    const list = new RegExp(`\\b(${names})\\b["'\`]?\\s*(?:\\||,)\\s*["'\`]?\\b(${names})\\b`, "g");
    const listing = modules.filter((m) => {
      if (registries.has(m)) return false;
      return [...texts.get(m)!.matchAll(list)].some((x) => x[1] !== x[2]);
    });
    expect(listing).toEqual([]);
  });
});
