/**
 * The published JSON Schemas (`data/schemas/*.schema.json`, draft 2020-12) as one ajv instance,
 * each compiled on first use and looked up by `$id`; and the one rendering of ajv's errors.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import type { ErrorObject, SchemaObject, ValidateFunction } from "ajv";
import type { RegExpEngine, RegExpLike } from "ajv/dist/types/index.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { schemaId } from "../../core/schemas/json-schema.ts";
import { DIGEST_PATTERN, isDigest } from "../../core/digest.ts";

/** The first few ajv errors, one line: `<instance path> <message>`. */
export function ajvProblem(errors: ErrorObject[] | null | undefined): string {
  const list = (errors ?? []).slice(0, 3).map((e) => {
    const params =
      e.keyword === "additionalProperties"
        ? ` (${String((e.params as { additionalProperty?: string }).additionalProperty)})`
        : "";
    return `${e.instancePath || "(root)"} ${e.message ?? e.keyword}${params}`;
  });
  return list.length > 0 ? list.join("; ") : "invalid";
}

/**
 * How ajv makes a schema's `pattern`: as a regular expression (with ajv's own flags), except the
 * digest pattern, which every audit-trail row is checked against, checked by isDigest.
 */
const patternEngine: RegExpEngine = Object.assign(
  (pattern: string, flags: string): RegExpLike => {
    if (pattern !== DIGEST_PATTERN.source) return new RegExp(pattern, flags);
    // ajv keys a schema's patterns by their text.
    const text = new RegExp(pattern, flags).toString();
    const digest = { test: isDigest, toString: () => text };
    return digest;
  },
  { code: "new RegExp" },
);

/** Every `*.schema.json` under a folder, compiled on first use and looked up by `$id`. */
export class JsonSchemaSet {
  readonly dir: string;
  readonly #ajv: Ajv2020;
  readonly #ids = new Map<string, string>();
  readonly #compiled = new Map<string, ValidateFunction>();

  /**
   * `formats: "fast"` checks formats (date-time, …) by regular expression only — what the runner
   * uses on every streamed row, where the schemas' own patterns already pin the exact forms; the
   * default "full" also checks calendar validity, as a downloader's verification does.
   */
  constructor(dir: string, options: { formats?: "full" | "fast" } = {}) {
    this.dir = dir;
    // Without ajv's optimizing pass a schema compiles in about 60 % of the time, and validates as
    // fast (the audit-trail row validator measured the same): a run compiles every published schema.
    this.#ajv = new Ajv2020({ strict: true, allErrors: false, code: { regExp: patternEngine, optimize: false } });
    addFormats.default(this.#ajv, { mode: options.formats ?? "full" });
    for (const file of listFiles(dir, ".schema.json")) {
      const schema = JSON.parse(readFileSync(join(dir, file), "utf8")) as SchemaObject;
      if (typeof schema.$id !== "string") throw new Error(`${join(dir, file)}: schema has no $id`);
      this.#ajv.addSchema(schema);
      this.#ids.set(schema.$id, file);
    }
  }

  has(id: string): boolean {
    return this.#ids.has(id);
  }

  /** The schema document with this `$id`. */
  schema(id: string): Record<string, unknown> {
    const file = this.#ids.get(id);
    if (!file) throw new Error(`no JSON Schema with $id ${id} in ${this.dir}`);
    return JSON.parse(readFileSync(join(this.dir, file), "utf8")) as Record<string, unknown>;
  }

  validator(id: string): ValidateFunction {
    let v = this.#compiled.get(id);
    if (!v) {
      if (!this.#ids.has(id)) throw new Error(`no JSON Schema with $id ${id} in ${this.dir}`);
      v = this.#ajv.getSchema(id);
      if (!v) throw new Error(`JSON Schema ${id} did not compile`);
      this.#compiled.set(id, v);
    }
    return v;
  }

  /** `$id` of a publishedSchemas registry name (`economy/supply`). */
  static idOf(name: string): string {
    return schemaId(name);
  }
}

function listFiles(dir: string, suffix: string): string[] {
  const found: string[] = [];
  const walk = (current: string): void => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const full = join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && entry.name.endsWith(suffix)) found.push(relative(dir, full).split(sep).join("/"));
    }
  };
  walk(dir);
  return found.sort();
}
