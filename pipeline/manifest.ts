/**
 * The per-area manifest `data/areas/<area>/datapackage.json`: a Frictionless Data Package v2 listing
 * every output (size, sha256, schema, access tier, input hash and digests) and the sources the area
 * read (ledger, pulse history, curated files). Keys in one fixed order and no clock, so the same
 * inputs give the same bytes. The layout: README "Manifest layout".
 */
import { readFileSync } from "node:fs";
import { digestOf } from "../core/digest.ts";
import { immutablePathOf, listedResources, schemaReference } from "../core/datapackage/references.ts";
import { AREA_DECLARATIONS } from "../core/areas/index.ts";
import type { AccessTier, Area, Step } from "./step.ts";

export { isArea, MANIFEST_FILE } from "../core/datapackage/contract.ts";

export const DATAPACKAGE_PROFILE = "https://datapackage.org/profiles/2.0/datapackage.json";
/** The layout version of the manifests this module writes. */
export const MANIFEST_LAYOUT_VERSION = "1.0.0";

export const LICENSE = {
  name: "CC-BY-4.0",
  path: "https://creativecommons.org/licenses/by/4.0/",
  title: "Creative Commons Attribution 4.0 International",
} as const;

/** Each area's manifest title and description, as its declaration states them (core/areas/<area>.ts). */
export const AREA_INFO = Object.fromEntries(AREA_DECLARATIONS.map((d) => [d.name, d.manifest])) as Record<
  Area,
  { title: string; description: string }
>;

// ---------------------------------------------------------------------------------------------
// Table Schema

export type TableFieldType = "string" | "number" | "integer" | "boolean" | "datetime" | "date" | "any";

export interface TableConstraints {
  required?: boolean;
  enum?: (string | number)[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
}

/**
 * How a CSV datetime column is declared: a pattern, because Table Schema v1's default `datetime`
 * format has no fraction of a second (a v1 reader refuses "…:56.000Z") while v2's accepts one.
 * Every published timestamp has exactly three fraction digits and "Z" (the CSV validator refuses any
 * other), which the pattern states for both: v1 readers map `%f` to milliseconds, strptime-style v2
 * readers read up to six digits. The zone is UTC ("Z"), as the field's description says.
 */
export const CSV_DATETIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ";

export interface TableField {
  name: string;
  type: TableFieldType;
  /** Datetime columns: CSV_DATETIME_FORMAT. */
  format?: string;
  description?: string;
  constraints?: TableConstraints;
}

export interface TableSchema {
  fields: TableField[];
  missingValues?: string[];
  primaryKey?: string[];
}

type JsonSchemaProperty = {
  type?: unknown;
  format?: unknown;
  description?: unknown;
  enum?: unknown;
  minimum?: unknown;
  maximum?: unknown;
  exclusiveMinimum?: unknown;
  exclusiveMaximum?: unknown;
};

/**
 * The Table Schema of a CSV whose rows are described by a JSON Schema object schema: one field per
 * property, in the property order (which is the column order). Types map string → string (datetime
 * for `format: date-time`, date for `format: date`), number, integer, boolean, anything else → any.
 * Regex patterns are not copied (JSON Schema patterns are ECMAScript, Table Schema's are XML
 * Schema): the row JSON Schema, referenced by `jsonSchema`, still enforces them.
 */
export function tableSchemaFromJsonSchema(rowSchema: Record<string, unknown>): TableSchema {
  const properties = rowSchema.properties;
  if (rowSchema.type !== "object" || typeof properties !== "object" || properties === null) {
    throw new Error(
      `a CSV row schema must be an object schema with properties (${String(rowSchema.$id ?? rowSchema.title ?? "?")})`,
    );
  }
  const required = new Set(Array.isArray(rowSchema.required) ? (rowSchema.required as string[]) : []);
  const fields = Object.entries(properties as Record<string, JsonSchemaProperty>).map(([name, p]): TableField => {
    const type: TableFieldType =
      p.type === "string"
        ? p.format === "date-time"
          ? "datetime"
          : p.format === "date"
            ? "date"
            : "string"
        : p.type === "number" || p.type === "integer" || p.type === "boolean"
          ? p.type
          : "any";
    const constraints: TableConstraints = {};
    if (required.has(name)) constraints.required = true;
    if (Array.isArray(p.enum) && p.enum.every((v) => typeof v === "string" || typeof v === "number")) {
      constraints.enum = p.enum as (string | number)[];
    }
    if (type === "number" || type === "integer") {
      for (const key of ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] as const) {
        if (typeof p[key] === "number") constraints[key] = p[key];
      }
    }
    return {
      name,
      type,
      ...(type === "datetime" ? { format: CSV_DATETIME_FORMAT } : {}),
      ...(typeof p.description === "string" ? { description: p.description } : {}),
      ...(Object.keys(constraints).length > 0 ? { constraints } : {}),
    };
  });
  if (fields.length === 0) throw new Error("a CSV row schema needs at least one property");
  return { fields, missingValues: [] };
}

export const CSV_DIALECT = {
  header: true,
  delimiter: ",",
  lineTerminator: "\r\n",
  quoteChar: '"',
  doubleQuote: true,
} as const;

// ---------------------------------------------------------------------------------------------
// resources and packages

const FORMATS: Record<Step["mediatype"], { format: string; text: boolean }> = {
  "application/json": { format: "json", text: true },
  "text/csv": { format: "csv", text: true },
  "application/pdf": { format: "pdf", text: false },
  "application/x-bibtex": { format: "bib", text: true },
  "application/vnd.apache.parquet": { format: "parquet", text: false },
};

export interface ResourceInput {
  step: Pick<Step, "name" | "path" | "title" | "description" | "mediatype" | "access">;
  bytes: number;
  /** `sha256:<hex>` of the file. */
  hash: string;
  inputsHash: string;
  /** Declared input name → digest. */
  inputs: Record<string, string>;
  /**
   * `$id` of the JSON Schema of the document (JSON) or of one row (CSV); for a streamed JSON array
   * of records, `{"type": "array", "items": {"$ref": <row $id>}}`.
   */
  jsonSchema?: string | { type: "array"; items: { $ref: string } };
  /** Tables only: CSV and Parquet. */
  tableSchema?: TableSchema;
}

export interface ResourceDescriptor {
  name: string;
  type?: "table";
  path: string;
  /** Public files: the content-addressed copy the static build publishes (`sha256/<hex><ext>`). */
  immutablePath?: string;
  title: string;
  description: string;
  format: string;
  mediatype: string;
  encoding?: "utf-8";
  bytes: number;
  hash: string;
  dialect?: typeof CSV_DIALECT;
  schema?: TableSchema;
  jsonSchema?: string | { type: "array"; items: { $ref: string } };
  access: AccessTier;
  inputs_hash: string;
  inputs: Record<string, string>;
}

export function buildResource(r: ResourceInput): ResourceDescriptor {
  const { format, text } = FORMATS[r.step.mediatype];
  const csv = r.step.mediatype === "text/csv";
  const table = csv || r.step.mediatype === "application/vnd.apache.parquet";
  if (table && !r.tableSchema) throw new Error(`${r.step.path}: a ${format} table resource needs a Table Schema`);
  const inputs: Record<string, string> = {};
  for (const name of Object.keys(r.inputs).sort()) inputs[name] = r.inputs[name]!;
  // Relative schema references, so a reader of the static copy fetches them (core/datapackage/references.ts).
  const jsonSchema =
    r.jsonSchema === undefined
      ? undefined
      : typeof r.jsonSchema === "string"
        ? schemaReference(r.jsonSchema)
        : { type: "array" as const, items: { $ref: schemaReference(r.jsonSchema.items.$ref) } };
  return {
    name: r.step.name,
    ...(table ? { type: "table" as const } : {}),
    path: r.step.path,
    ...(r.step.access === "public" ? { immutablePath: immutablePathOf(r.step.path, r.hash) } : {}),
    title: r.step.title,
    description: r.step.description,
    format,
    mediatype: r.step.mediatype,
    ...(text ? { encoding: "utf-8" as const } : {}),
    bytes: r.bytes,
    hash: r.hash,
    ...(csv ? { dialect: CSV_DIALECT } : {}),
    ...(table ? { schema: r.tableSchema! } : {}),
    ...(jsonSchema ? { jsonSchema } : {}),
    access: r.step.access,
    inputs_hash: r.inputsHash,
    inputs,
  };
}

export interface SampleMarker {
  generator: string;
  seed: string;
  notice: string;
}

export interface LedgerSource {
  origin: string | null;
  size: number;
  /** `sha256:<hex>` RFC 9162 root over the entries. */
  root: string;
  /** Timestamp of the last entry (null for an empty ledger). */
  asOf: string | null;
  /** The simulator's marker when the ledger is sample data. */
  sample: SampleMarker | null;
}

export interface PackageInput {
  area: Area;
  resources: ResourceDescriptor[];
  /** Present when a step of the area reads the ledger. */
  ledger?: LedgerSource;
  /** Present when a step of the area reads the pulse history. */
  pulse?: { records: number; root: string };
  /** Curated files: path under data/sources/ → sha256 digest. */
  curated: Record<string, string>;
  created?: string | null;
}

export interface PackageDescriptor {
  $schema: string;
  name: string;
  title: string;
  description: string;
  version: string;
  created?: string;
  keywords: string[];
  licenses: (typeof LICENSE)[];
  sample?: true;
  sources: Record<string, unknown>[];
  /** The public files: what a standard reader of the public copy reads. */
  resources: ResourceDescriptor[];
  /** The keyed files (not on the public copy), when the area has any. */
  keyedResources?: ResourceDescriptor[];
}

export function buildManifest(p: PackageInput): PackageDescriptor {
  if (p.resources.length === 0) throw new Error(`${p.area}: a data package needs at least one resource`);
  const resources = [...p.resources].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const info = AREA_INFO[p.area];
  const sources: Record<string, unknown>[] = [];
  if (p.ledger) {
    sources.push({
      kind: "ledger",
      title: "Integrity Platform ledger (RFC 9162 Merkle log, signed C2SP checkpoints)",
      ...(p.ledger.origin ? { origin: p.ledger.origin } : {}),
      size: p.ledger.size,
      root: p.ledger.root,
      asOf: p.ledger.asOf,
      ...(p.ledger.sample ? { sample: p.ledger.sample } : {}),
    });
  }
  if (p.pulse) {
    sources.push({
      kind: "pulse",
      title: "Integrity pulse history (data/pulse/history.jsonl)",
      records: p.pulse.records,
      root: p.pulse.root,
    });
  }
  for (const path of Object.keys(p.curated).sort()) {
    sources.push({ kind: "curated", title: `Curated source data/sources/${path}`, hash: p.curated[path]! });
  }
  const sample = p.ledger?.sample ?? null;
  const description = sample
    ? `${info.description} SAMPLE DATA, not real activity: ${sample.notice} (generator ${sample.generator}, seed ${sample.seed}).`
    : info.description;
  const version = `${MANIFEST_LAYOUT_VERSION}+sha256.${digestOf(resources.map((r) => [r.name, r.hash])).slice(7, 19)}`;
  return {
    $schema: DATAPACKAGE_PROFILE,
    name: `integrity-platform-${p.area}`,
    title: info.title,
    description,
    version,
    ...(p.created ? { created: p.created } : {}),
    keywords: ["integrity-platform", p.area, ...(sample ? ["sample-data"] : [])],
    licenses: [LICENSE],
    ...(sample ? { sample: true as const } : {}),
    sources,
    resources: resources.filter((r) => r.access === "public"),
    ...(resources.some((r) => r.access !== "public")
      ? { keyedResources: resources.filter((r) => r.access !== "public") }
      : {}),
  };
}

/** The manifest's bytes: two-space JSON, keys in construction order, final newline. */
export function renderManifest(pkg: PackageDescriptor): string {
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

export interface ManifestRecord {
  path: string;
  bytes: number;
  hash: string;
  inputsHash: string;
}

export interface PreviousManifest {
  /** The file's exact text. */
  text: string;
  descriptor: Record<string, unknown>;
  /** Resources by path. */
  records: Map<string, ManifestRecord>;
  /** The recorded ledger source, if the area read the ledger. */
  ledger: LedgerSource | null;
}

/**
 * Reads an existing manifest for its records. Returns null when it is missing or unreadable: the
 * runner then regenerates everything of that area.
 */
export function readManifest(path: string): PreviousManifest | null {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return null;
  }
  let descriptor: Record<string, unknown>;
  try {
    descriptor = JSON.parse(text) as Record<string, unknown>;
    if (typeof descriptor !== "object" || descriptor === null || !Array.isArray(descriptor.resources)) return null;
  } catch {
    return null;
  }
  const records = new Map<string, ManifestRecord>();
  for (const r of listedResources<Record<string, unknown>>(descriptor)) {
    if (
      typeof r?.path === "string" &&
      typeof r.hash === "string" &&
      typeof r.inputs_hash === "string" &&
      typeof r.bytes === "number"
    ) {
      records.set(r.path, { path: r.path, bytes: r.bytes, hash: r.hash, inputsHash: r.inputs_hash });
    }
  }
  const sources = Array.isArray(descriptor.sources) ? (descriptor.sources as Record<string, unknown>[]) : [];
  const l = sources.find((s) => s?.kind === "ledger");
  const sample = l?.sample as SampleMarker | undefined;
  const ledger: LedgerSource | null =
    l && typeof l.size === "number" && typeof l.root === "string"
      ? {
          origin: typeof l.origin === "string" ? l.origin : null,
          size: l.size,
          root: l.root,
          asOf: typeof l.asOf === "string" ? l.asOf : null,
          sample:
            sample &&
            typeof sample.generator === "string" &&
            typeof sample.seed === "string" &&
            typeof sample.notice === "string"
              ? sample
              : null,
        }
      : null;
  return { text, descriptor, records, ledger };
}
