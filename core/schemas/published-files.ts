/**
 * The exact text of every published JSON Schema file, `data/schemas/<name>.schema.json`, from the
 * registry: pure, so that the command that writes them (pipeline/schemas-cli.ts) and the tests that
 * compare them agree byte for byte.
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
