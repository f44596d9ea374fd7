/**
 * gi.schema_valid: of the JSON files under data/ that have a matching JSON Schema, the share that
 * validate (ajv, JSON Schema 2020-12 — the same check a downloader runs). A file's schema is:
 *
 * - for `schemas/**\/*.schema.json`: the 2020-12 meta-schema (a published schema must itself be valid);
 * - for the static pulse copies `v1/pulse/…`: pulse-badge (badge.json, badge/gi.json, badge/mii.json),
 *   pulse-history (history.json), pulse-record (latest.json);
 * - for a resource of an area's `datapackage.json` with a `jsonSchema` URL: the schema with that `$id`
 *   (a listed resource that is missing counts as failing);
 * - for any other file: the schema whose `$id` its own `$schema` names, if there is one.
 *
 * Files without a matching schema are not counted; null when no file has one.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { measured, unmeasured, type Signal } from "./types.ts";
import { listedResources, schemaIdOf } from "../../../core/datapackage/references.ts";

const SCHEMA_BASE = "https://integrity-platform.example/schemas/";
/** Static pulse files and the published schema each must satisfy. */
export const PULSE_STATIC_SCHEMAS: Readonly<Record<string, string>> = {
  "v1/pulse/badge.json": "pulse-badge",
  "v1/pulse/badge/gi.json": "pulse-badge",
  "v1/pulse/badge/mii.json": "pulse-badge",
  "v1/pulse/history.json": "pulse-history",
  "v1/pulse/latest.json": "pulse-record",
};
const META = "meta-schema 2020-12";

/** Every `*.json` file under dir, as sorted `/`-separated relative paths; dot files are skipped. */
function jsonFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string) => {
    let names: string[];
    try {
      names = readdirSync(at);
    } catch {
      return;
    }
    for (const name of names.sort()) {
      if (name.startsWith(".")) continue;
      const full = join(at, name);
      const stat = statSync(full);
      if (stat.isDirectory()) walk(full);
      else if (stat.isFile() && name.endsWith(".json")) out.push(relative(dir, full).split(sep).join("/"));
    }
  };
  walk(dir);
  return out;
}

function parseJson(path: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(readFileSync(path, "utf8")) };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

export function datasetSchemaValidity(dataDir: string): Signal {
  const files = jsonFiles(dataDir);
  const ajv = new Ajv2020({ strict: true, allErrors: false });
  addFormats.default(ajv);
  const failures: string[] = [];
  const targets = new Map<string, string>(); // file → schema $id, or META
  const parsed = new Map<string, unknown>();

  // Published schemas first: they are files to check and the registry everything else uses.
  for (const file of files) {
    if (!(file.startsWith("schemas/") && file.endsWith(".schema.json"))) continue;
    targets.set(file, META);
    const json = parseJson(join(dataDir, file));
    if (!json.ok) {
      failures.push(`${file}: not JSON (${json.error})`);
      continue;
    }
    parsed.set(file, json.value);
    try {
      if (!ajv.validateSchema(json.value as object)) throw new Error(ajv.errorsText(ajv.errors));
      ajv.addSchema(json.value as object);
    } catch (error) {
      failures.push(`${file}: not a valid JSON Schema 2020-12 (${(error as Error).message})`);
    }
  }
  const known = (id: string) => ajv.schemas[id] !== undefined;

  for (const [file, name] of Object.entries(PULSE_STATIC_SCHEMAS)) {
    if (files.includes(file) && known(`${SCHEMA_BASE}${name}.schema.json`))
      targets.set(file, `${SCHEMA_BASE}${name}.schema.json`);
  }
  for (const file of files.filter((f) => f === "datapackage.json" || f.endsWith("/datapackage.json"))) {
    const json = parseJson(join(dataDir, file));
    if (!json.ok || typeof json.value !== "object" || json.value === null) continue;
    for (const r of listedResources<{ path?: unknown; jsonSchema?: unknown }>(json.value as Record<string, unknown>)) {
      const id = typeof r.jsonSchema === "string" ? schemaIdOf(r.jsonSchema) : null;
      if (typeof r.path !== "string" || id === null || !r.path.endsWith(".json") || !known(id)) continue;
      const target = join(dirname(file), r.path).split(sep).join("/");
      if (!files.includes(target)) failures.push(`${target}: listed in ${file} but missing`);
      else targets.set(target, id);
    }
  }
  for (const file of files) {
    if (targets.has(file)) continue;
    const json = parseJson(join(dataDir, file));
    const declared = json.ok ? (json.value as { $schema?: unknown } | null)?.$schema : undefined;
    if (typeof declared === "string" && known(declared)) targets.set(file, declared);
  }

  let valid = 0;
  let metaChecked = 0;
  for (const [file, id] of targets) {
    if (id === META) {
      metaChecked++;
      if (!failures.some((f) => f.startsWith(`${file}:`))) valid++;
      continue;
    }
    const json =
      parsed.get(file) !== undefined ? { ok: true as const, value: parsed.get(file) } : parseJson(join(dataDir, file));
    if (!json.ok) {
      failures.push(`${file}: not JSON (${json.error})`);
      continue;
    }
    let validate;
    try {
      validate = ajv.getSchema(id);
    } catch (error) {
      failures.push(`${file}: schema ${id} does not compile (${(error as Error).message})`);
      continue;
    }
    if (validate?.(json.value)) valid++;
    else failures.push(`${file}: does not validate against ${id}: ${ajv.errorsText(validate?.errors)}`);
  }
  // A listed-but-missing resource is a failing file of its own.
  const missing = failures.filter((f) => f.endsWith("but missing")).length;
  const total = targets.size + missing;
  if (total === 0) return unmeasured(`no JSON file under ${dataDir} has a matching JSON Schema`);
  const first = failures[0] ? `; first failure: ${failures[0]}` : "";
  return measured(
    valid / total,
    `${valid} of ${total} JSON files under data/ validate against their schema (${metaChecked} schema files against the 2020-12 meta-schema)${first}`,
  );
}
