/**
 * A step's code, for its identity (as owid/etl's `checksum_input` folds a step's files into its
 * input checksum): the module that defines the step and every module of the repository it imports,
 * transitively. The digest is `digestOf({<path>: sha256 of the file's bytes, …})` over paths
 * relative to the repository root with `/`, so it is the same on every machine and checkout and
 * never depends on a file's time. Only static relative imports are followed: `import type` is
 * erased at run time, and a dependency from node_modules is named by the step's `version`.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { digestOf } from "../core/digest.ts";
import type { Step } from "./step.ts";

/** Where each step's code is. */
export interface StepCode {
  /** The repository's root folder. */
  root: string;
  /** Each step's module, relative to the root with `/`, e.g. "pipeline/areas/economy/supply.ts". */
  modules: ReadonlyMap<Step, string>;
}

/** `import … from "x"`, `export … from "x"`, `import "x"` at the start of a line; group 1 marks `type`. */
const STATIC_IMPORT = /^[ \t]*(?:import|export)\s+(type\s+)?(?:[^;'"`]*?\s+from\s+)?["']([^"'\n]+)["']/gm;
const DYNAMIC_IMPORT = /\bimport\(\s*["']([^"'\n]+)["']\s*\)/g;
const SOURCE = /\.(?:[cm]?ts|[cm]?js)$/;

/** The relative specifiers a module's text imports at run time. */
export function relativeImports(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(STATIC_IMPORT)) if (!m[1] && m[2]!.startsWith(".")) found.push(m[2]!);
  for (const m of text.matchAll(DYNAMIC_IMPORT)) if (m[1]!.startsWith(".")) found.push(m[1]!);
  return found;
}

/** Digests of module graphs, each file read and hashed once. */
export class CodeDigests {
  readonly root: string;
  readonly #files = new Map<string, { hash: string; imports: string[] }>();
  readonly #digests = new Map<string, string>();

  constructor(root: string) {
    this.root = resolve(root);
  }

  /** `sha256:<hex>` of the given modules (paths relative to the root) and everything they import. */
  digest(modules: readonly string[]): string {
    const key = [...modules].sort().join("\n");
    let digest = this.#digests.get(key);
    if (!digest) {
      const hashes: Record<string, string> = {};
      const pending = [...modules];
      while (pending.length > 0) {
        const path = pending.pop()!;
        if (path in hashes) continue;
        const file = this.#file(path);
        hashes[path] = file.hash;
        pending.push(...file.imports);
      }
      digest = digestOf(hashes);
      this.#digests.set(key, digest);
    }
    return digest;
  }

  #file(path: string): { hash: string; imports: string[] } {
    let file = this.#files.get(path);
    if (!file) {
      const bytes = readFileSync(join(this.root, path));
      const imports = SOURCE.test(path)
        ? relativeImports(bytes.toString("utf8")).map((spec) => this.#resolve(path, spec))
        : [];
      file = { hash: `sha256:${createHash("sha256").update(bytes).digest("hex")}`, imports };
      this.#files.set(path, file);
    }
    return file;
  }

  #resolve(from: string, spec: string): string {
    const target = resolve(this.root, dirname(from), spec);
    const path = relative(this.root, target);
    if (path.startsWith("..") || isAbsolute(path)) throw new Error(`${from} imports ${spec}, outside the repository`);
    if (!existsSync(target)) throw new Error(`${from} imports ${spec}, which does not exist`);
    return path.split(sep).join("/");
  }
}

/**
 * Finds each step's module: the module in the import graph of `registry` (a module that imports
 * every step, e.g. pipeline/areas/index.ts) that exports the step object. The modules are loaded
 * already, so importing them again only looks them up. Throws for a step no module exports.
 */
export async function locateSteps(registry: string | URL, steps: readonly Step[], root?: string): Promise<StepCode> {
  const entry = registry instanceof URL ? fileURLToPath(registry) : resolve(registry);
  const base = resolve(root ?? repositoryRoot(dirname(entry)));
  const start = relative(base, entry).split(sep).join("/");
  const seen = new Set<string>();
  const pending = [start];
  const modules = new Map<Step, string>();
  const wanted = new Set<unknown>(steps);
  while (pending.length > 0) {
    const path = pending.pop()!;
    if (seen.has(path) || !SOURCE.test(path)) continue;
    seen.add(path);
    // Only modules that can define a step are looked into: the registry's folder and below.
    if (path !== start && !path.startsWith(`${dirname(start)}/`)) continue;
    const exported = (await import(pathToFileURL(join(base, path)).href)) as Record<string, unknown>;
    for (const value of Object.values(exported))
      if (wanted.has(value) && !modules.has(value as Step)) modules.set(value as Step, path);
    for (const spec of relativeImports(readFileSync(join(base, path), "utf8")))
      pending.push(resolveIn(base, path, spec));
  }
  const missing = steps.filter((s) => !modules.has(s));
  if (missing.length > 0)
    throw new Error(
      `no module under ${dirname(start)} exports step(s) ${missing.map((s) => s.id).join(", ")}: export each step from its module`,
    );
  return { root: base, modules };
}

function resolveIn(root: string, from: string, spec: string): string {
  return relative(root, resolve(root, dirname(from), spec))
    .split(sep)
    .join("/");
}

/** The nearest folder above `dir` that holds a package.json. */
function repositoryRoot(dir: string): string {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, "package.json"))) return d;
    if (dirname(d) === d) throw new Error(`no package.json above ${dir}`);
  }
}
