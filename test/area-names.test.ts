/**
 * An area is declared once (core/areas/<area>.ts): the code names it in at most three production
 * modules outside its own files. Its own files are its declaration, its schemas (the zod module,
 * registered in core/schemas/index.ts with an example in core/schemas/examples-areas.ts), its steps
 * (pipeline/areas/<area>/) and its page (site/src/pages/<area>/). Every other module reaches an
 * area's files, routes and WebSockets through the declaration: `declaredOutput(area, file)`,
 * `routePath(area, name)`, `socketPath(area, name)`, `area.name`, or the contract's lookups.
 *
 * One rule for every area. A module names an area when one of its strings refers to the area's
 * files or URLs: a string that is the area's name (`"economy"`), or has it as a path segment
 * (`"economy/mii.json"`, `/economy/supply`, `` `/economy/${alias}` ``; segments split at `/`, `?`
 * and `#`). The strings are read with the TypeScript parser (an .astro page's frontmatter likewise,
 * and the quoted strings of its markup), so comments are prose and do not count, and neither do
 * import and export specifiers (`../economy/supply.ts` is a module of the core/economy domain, not
 * the area) nor names the area's word is only part of: event types (`economy.mint`), other folders'
 * names. The key tier that shares the government area's name is spelled once, in KEY_TIERS
 * (core/areas/declaration.ts), and read from there (`GOVERNMENT_KEY_TIER`).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { AREAS } from "../core/areas/index.ts";

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

/** The string literals of TypeScript or JavaScript code (template parts included), not import or export specifiers. */
function codeStrings(code: string): string[] {
  const out: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node) || ts.isImportTypeNode(node)) return;
    if (ts.isExternalModuleReference(node)) return;
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) return;
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) out.push(node.text);
    node.forEachChild(visit);
  };
  visit(ts.createSourceFile("module.ts", code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS));
  return out;
}

/** The strings of a module: its code's, or an .astro page's frontmatter's and the quoted strings of its markup. */
function moduleStrings(path: string, text: string): string[] {
  if (!path.endsWith(".astro")) return codeStrings(text);
  const frontmatter = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  const markup = frontmatter ? text.slice(frontmatter[0].length) : text;
  const quoted = [...markup.matchAll(/(["'`])([^"'`\n]*)\1/g)].map((m) => m[2]!);
  return [...(frontmatter ? codeStrings(frontmatter[1]!) : []), ...quoted];
}

/** Whether a string refers to the area: it is the area's name, or has it as a path segment. */
function refersTo(area: string, s: string): boolean {
  return s.split(/[/?#]/).includes(area);
}

const modules = productionModules();
const strings = new Map(modules.map((m) => [m, moduleStrings(m, readFileSync(join(REPO, m), "utf8"))]));

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

/** Modules outside the area's own files that name it. */
function namingModules(area: string): string[] {
  const own = ownFiles(area);
  return modules.filter((m) => !own(m) && strings.get(m)!.some((s) => refersTo(area, s)));
}

describe("an area's name", () => {
  it("scans the production modules and knows every area's own files", () => {
    expect(modules.length).toBeGreaterThan(300);
    for (const area of AREAS) {
      expect(modules).toContain(`core/areas/${area}.ts`);
      expect(modules.some((m) => m.startsWith(`pipeline/areas/${area}/`))).toBe(true);
    }
  });

  it("counts the strings that refer to an area's files or URLs, and only those", () => {
    const code = [
      'import { supply } from "../economy/supply.ts";',
      'export { mii } from "./economy/mii.ts";',
      "// the economy area's /economy/supply, in a comment",
      'const events = ["economy.mint", "economy-x", "macroeconomy"];',
      'type T = (typeof import("../economy/x.ts"))["y"];',
      'const a = "economy"; const b = "economy/mii.json";',
      "const c = `/economy/${alias}`; const d = `${base}/economy?x=1`;",
    ].join("\n");
    expect(codeStrings(code).filter((s) => refersTo("economy", s))).toEqual([
      "economy",
      "economy/mii.json",
      "/economy/",
      "/economy?x=1",
    ]);
    const page =
      '---\nconst pkg = areaPackage("economy");\n---\n<p>The economy page</p><a href="/economy/">Economy</a>';
    expect(moduleStrings("page.astro", page).filter((s) => refersTo("economy", s))).toEqual(["economy", "/economy/"]);
  });

  for (const area of AREAS) {
    it(`${area}: named in at most ${MAX_OUTSIDE} production modules outside its own files`, () => {
      const naming = namingModules(area);
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
      return [...readFileSync(join(REPO, m), "utf8").matchAll(list)].some((x) => x[1] !== x[2]);
    });
    expect(listing).toEqual([]);
  });
});
