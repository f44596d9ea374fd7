/**
 * Test support for the schema tests: for every published schema its example
 * (core/schemas/examples.ts) and the counter-examples that BOTH zod and the generated JSON Schema
 * must reject. The counter-examples are data: test/fixtures/schemas/<schema name>.json holds, for
 * each, either a JSON Patch (RFC 6902: add, remove, replace) applied to the schema's example, or a
 * whole `value`, with an optional `note` saying why it must be refused. Rules that only zod enforces
 * (cross-field refinements) are tested separately in core/schemas/schemas.test.ts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { z } from "zod";
import { examples } from "../../../../core/schemas/examples.ts";
import type { publishedSchemas } from "../../../../core/schemas/index.ts";

type Registry = typeof publishedSchemas;
export type Fixtures = {
  [K in keyof Registry]: { valid: z.input<Registry[K]>; invalid: unknown[] };
};

export const FIXTURES_DIR = fileURLToPath(new URL("../../../fixtures/schemas/", import.meta.url));

type Operation = { op: "add" | "replace"; path: string; value: unknown } | { op: "remove"; path: string };
type CounterExample = { note?: string; patch: Operation[] } | { note?: string; value: unknown };

/** The parent container and last key of a JSON Pointer (RFC 6901) in `document`. */
function locate(document: unknown, pointer: string): { parent: Record<string, unknown> | unknown[]; key: string } {
  if (!pointer.startsWith("/")) throw new Error(`JSON Pointer ${JSON.stringify(pointer)} must start with /`);
  const keys = pointer
    .slice(1)
    .split("/")
    .map((k) => k.replace(/~1/g, "/").replace(/~0/g, "~"));
  let parent = document as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) {
    const next = parent[key];
    if (typeof next !== "object" || next === null) throw new Error(`${pointer}: no container at ${key}`);
    parent = next as Record<string, unknown>;
  }
  return { parent, key: keys[keys.length - 1]! };
}

/** A copy of `document` with the patch applied (the subset of RFC 6902 the fixtures use). */
export function applyPatch(document: unknown, patch: readonly Operation[]): unknown {
  const copy = structuredClone(document);
  for (const operation of patch) {
    const { parent, key } = locate(copy, operation.path);
    const exists = Object.hasOwn(parent, key);
    if (operation.op === "add" && exists && !Array.isArray(parent))
      throw new Error(`add ${operation.path}: already there`);
    if (operation.op !== "add" && !exists) throw new Error(`${operation.op} ${operation.path}: not there`);
    if (operation.op === "remove") {
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else delete parent[key];
    } else if (Array.isArray(parent) && operation.op === "add") parent.splice(Number(key), 0, operation.value);
    else (parent as Record<string, unknown>)[key] = structuredClone(operation.value);
  }
  return copy;
}

function* jsonFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* jsonFiles(path);
    else if (entry.name.endsWith(".json")) yield path;
  }
}

function loadFixtures(): Fixtures {
  const fixtures: Record<string, { valid: unknown; invalid: unknown[] }> = {};
  for (const file of jsonFiles(FIXTURES_DIR)) {
    const name = relative(FIXTURES_DIR, file)
      .replace(/\\/g, "/")
      .replace(/\.json$/, "");
    const data = JSON.parse(readFileSync(file, "utf8")) as { schema: string; invalid: CounterExample[] };
    if (data.schema !== name) throw new Error(`${file}: names schema ${data.schema}, its path says ${name}`);
    if (!Object.hasOwn(examples, name)) throw new Error(`${file}: no published schema ${name}`);
    const valid = examples[name as keyof typeof examples];
    fixtures[name] = { valid, invalid: data.invalid.map((c) => ("patch" in c ? applyPatch(valid, c.patch) : c.value)) };
  }
  return fixtures as Fixtures;
}

export const fixtures: Fixtures = loadFixtures();
