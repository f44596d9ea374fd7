/**
 * The exact text of every published JSON Schema file, `data/schemas/<name>.schema.json`, from the
 * registry: pure, so that the command that writes them (pipeline/schemas-cli.ts), the checks that
 * compare them (`npm run schemas -- --check`, `npm run pipeline -- --check`, the site build) and the
 * tests agree byte for byte.
 */
import { publishedSchemaNames, publishedSchemas } from "./index.ts";
import { toPublishedJsonSchema } from "./json-schema.ts";

/** Path of a registry entry's file, relative to data/schemas/, with `/` separators. */
export function schemaFileName(name: string): string {
  return `${name}.schema.json`;
}

/** Registry name → exact file text, in sorted name order. */
export function renderPublishedSchemas(): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of publishedSchemaNames) {
    const schema = toPublishedJsonSchema(name, publishedSchemas[name]);
    out.set(name, `${JSON.stringify(schema, null, 2)}\n`);
  }
  return out;
}

/** How a schemas folder differs from what the registry produces: files relative to it, `/`-separated. */
export interface SchemaDiff {
  /** Registry files absent from the folder. */
  missing: string[];
  /** Registry files whose text differs. */
  changed: string[];
  unchanged: string[];
  /** Files in the folder that no registry entry produces (any file: the folder is generated whole). */
  stale: string[];
}

/**
 * Compares a schemas folder — `files`, every file in it, and `read`, a file's text or undefined —
 * with `rendered` (`renderPublishedSchemas`).
 */
export function diffSchemaTexts(
  rendered: ReadonlyMap<string, string>,
  files: readonly string[],
  read: (file: string) => string | undefined,
): SchemaDiff {
  const diff: SchemaDiff = { missing: [], changed: [], unchanged: [], stale: [] };
  const expected = new Set<string>();
  for (const [name, text] of rendered) {
    const file = schemaFileName(name);
    expected.add(file);
    const current = read(file);
    if (current === undefined) diff.missing.push(file);
    else if (current !== text) diff.changed.push(file);
    else diff.unchanged.push(file);
  }
  diff.stale = files.filter((file) => !expected.has(file)).sort();
  return diff;
}

/** A diff's problems, one line per file (`missing  <file>`, `differs  <file>`, `stale    <file>`); none when the folder is exact. */
export function schemaDiffProblems(diff: SchemaDiff): string[] {
  return [
    ...diff.missing.map((f) => `missing  ${f}`),
    ...diff.changed.map((f) => `differs  ${f}`),
    ...diff.stale.map((f) => `stale    ${f}`),
  ];
}
