/**
 * `npm run schemas`: writes the JSON Schema of every registry entry (core/schemas/published-files.ts)
 * to data/schemas/<name>.schema.json, removes every other file there (the folder is generated whole),
 * and says what it did. `npm run schemas -- --check` writes nothing and exits 1 listing every file
 * that is missing, different or stale — the comparison (`diffSchemaFiles`, core's `diffSchemaTexts`)
 * that `npm run pipeline -- --check` and the site build make too.
 */
import { mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { filesUnder } from "../store/files.ts";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  diffSchemaTexts,
  renderPublishedSchemas,
  schemaDiffProblems,
  schemaFileName,
  type SchemaDiff,
} from "../core/schemas/published-files.ts";

export type { SchemaDiff };

/** data/schemas/ of this checkout. */
export const SCHEMAS_DIR = fileURLToPath(new URL("../data/schemas", import.meta.url));

function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** Compares what the registry produces with the files in dir (core/schemas/published-files.ts `diffSchemaTexts`). */
export function diffSchemaFiles(dir: string, rendered: ReadonlyMap<string, string>): SchemaDiff {
  return diffSchemaTexts(rendered, filesUnder(dir), (file) => readIfExists(join(dir, file)));
}

/** Removes now-empty folders below dir (not dir itself). */
function removeEmptyDirs(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const full = join(dir, entry.name);
    removeEmptyDirs(full);
    if (readdirSync(full).length === 0) rmdirSync(full);
  }
}

function main(argv: readonly string[]): number {
  const check = argv.includes("--check");
  const unknown = argv.filter((a) => a !== "--check");
  if (unknown.length > 0) {
    console.error(`usage: npm run schemas [-- --check]; unknown arguments: ${unknown.join(" ")}`);
    return 2;
  }
  const rendered = renderPublishedSchemas();
  const diff = diffSchemaFiles(SCHEMAS_DIR, rendered);
  const shown = relative(process.cwd(), SCHEMAS_DIR) || ".";

  if (check) {
    const problems = schemaDiffProblems(diff);
    if (problems.length === 0) {
      console.log(`${shown}: all ${rendered.size} schemas up to date`);
      return 0;
    }
    console.error(`${shown} is not what the registry produces (run \`npm run schemas\`):`);
    for (const line of problems) console.error(`  ${line}`);
    return 1;
  }

  mkdirSync(SCHEMAS_DIR, { recursive: true });
  for (const [name, text] of rendered) {
    const file = schemaFileName(name);
    if (diff.unchanged.includes(file)) {
      console.log(`unchanged ${file}`);
      continue;
    }
    const path = join(SCHEMAS_DIR, file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    console.log(`${diff.missing.includes(file) ? "wrote    " : "updated  "} ${file}`);
  }
  for (const file of diff.stale) {
    rmSync(join(SCHEMAS_DIR, file));
    console.log(`removed   ${file}`);
  }
  removeEmptyDirs(SCHEMAS_DIR);
  const written = diff.missing.length + diff.changed.length;
  console.log(`${shown}: ${written} written, ${diff.unchanged.length} unchanged, ${diff.stale.length} removed`);
  return 0;
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  process.exitCode = main(process.argv.slice(2));
}
