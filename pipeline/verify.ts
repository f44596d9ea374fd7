/**
 * Offline verification of the published data areas — what a downloader runs, with nothing but the
 * downloaded files: `data/areas/`, the trusted keys `data/keys/datasets.vkey`, the JSON Schemas
 * `data/schemas/` and the official Frictionless profiles. No ledger, no sources.
 *
 * For each area, in this order, stopping at the first failure (which names the file):
 *  1. `datapackage.json.sig` is a signed note from a trusted key over `<area> datapackage` and the
 *     sha256 of `datapackage.json`, and the manifest agrees with the published-data contract (every
 *     resource a file the contract publishes in the area, with its access tier and media type, its
 *     path following the path rule) — the same checks as the API and the site (core/datapackage);
 *  2. `datapackage.json` validates against the Data Package v2 profile, each resource against the
 *     Data Resource profile, each CSV's `schema` and `dialect` against Table Schema / Table Dialect;
 *  3. every resource file has the recorded `bytes` and `hash`;
 *     A keyed resource that is not present (a public copy holds none; `--keyed DIR` names where the
 *     keyed files are) is skipped and counted; `--public` fails on a keyed file present in the
 *     public folder of an area that is not SAMPLE data.
 *  4. every JSON resource validates against its JSON Schema (`jsonSchema`, a `$id` resolved in
 *     data/schemas/; a streamed JSON array of records has `{"type": "array", "items": {"$ref": <row
 *     $id>}}` and is checked item by item, in bounded memory), every CSV against its Table Schema (header = field names, each cell of the
 *     field's type and constraints) and, when it names one, each row against its row JSON Schema.
 *
 * The runner (pipeline/runner.ts) validates what it writes with the same validators exported here.
 * @module
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createHash } from "node:crypto";
import { join, relative, sep } from "node:path";
import { Ajv, type ErrorObject, type SchemaObject, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import Papa from "papaparse";
import type { NoteVerifier } from "../core/checkpoint.ts";
import { schemaId } from "../core/schemas/json-schema.ts";
import { hashFile, readChunks, type FileDigest } from "../store/digest-cache.ts";
import {
  AREAS,
  checkManifest,
  DataPackageError,
  isArea,
  isKeyed,
  MANIFEST_FILE,
  openManifestSignature,
  resourcePathProblem,
  SIGNATURE_FILE,
  type CheckedManifest,
} from "../core/datapackage/index.ts";
import type { TableField, TableSchema } from "./manifest.ts";
import { readTrustedKeys } from "./sign.ts";

/** A published file that fails a check: `file` is how it is named to the user. */
export class DataError extends Error {
  readonly file: string;
  readonly problem: string;
  constructor(file: string, problem: string) {
    super(`${file}: ${problem}`);
    this.name = "DataError";
    this.file = file;
    this.problem = problem;
  }
}


export function ajvProblem(errors: ErrorObject[] | null | undefined): string {
  const list = (errors ?? []).slice(0, 3).map((e) => {
    const params = e.keyword === "additionalProperties" ? ` (${String((e.params as { additionalProperty?: string }).additionalProperty)})` : "";
    return `${e.instancePath || "(root)"} ${e.message ?? e.keyword}${params}`;
  });
  return list.length > 0 ? list.join("; ") : "invalid";
}

// ---------------------------------------------------------------------------------------------
// JSON Schemas of data/schemas/

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
    this.#ajv = new Ajv2020({ strict: true, allErrors: false });
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

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Parses a JSON file's bytes (UTF-8, no BOM) and validates it; throws a DataError naming the file. */
export function validateJsonBytes(file: string, bytes: Uint8Array, validate: ValidateFunction): unknown {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new DataError(file, "not valid UTF-8");
  }
  if (text.startsWith("\uFEFF")) throw new DataError(file, "starts with a byte order mark");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new DataError(file, `not valid JSON (${(error as Error).message})`);
  }
  if (!validate(value)) throw new DataError(file, `does not match its JSON Schema: ${ajvProblem(validate.errors)}`);
  return value;
}

// ---------------------------------------------------------------------------------------------
// CSV against a Table Schema, streamed

/** A cell that does not read as its field's type or breaks a constraint. */
class CellError {
  readonly message: string;
  constructor(message: string) {
    this.message = message;
  }
}

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const INTEGER = /^[+-]?\d+$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})?$/;
const DATE = /^\d{4}-\d{2}-\d{2}/;
const TRUE_VALUES = new Set(["true", "True", "TRUE", "1"]);
const FALSE_VALUES = new Set(["false", "False", "FALSE", "0"]);
const DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Two ASCII digits at i as a number. */
function digits2(s: string, i: number): number {
  return (s.charCodeAt(i) - 48) * 10 + (s.charCodeAt(i + 1) - 48);
}

/** A real calendar date (and time of day) at the start of a string that matched DATE / DATETIME. */
function validCalendar(s: string, withTime: boolean): boolean {
  const year = digits2(s, 0) * 100 + digits2(s, 2);
  const month = digits2(s, 5);
  const day = digits2(s, 8);
  if (month < 1 || month > 12 || day < 1 || day > DAYS[month - 1]!) return false;
  if (month === 2 && day === 29 && !(year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0))) return false;
  return !withTime || (digits2(s, 11) < 24 && digits2(s, 14) < 60 && digits2(s, 17) < 60);
}

/**
 * A cell reader per Table Schema field: physical string → logical value, or a CellError. Built once
 * per field so that the common case (a valid cell) allocates nothing and tests only what applies.
 */
function cellReader(field: TableField, missingValues: ReadonlySet<string>): (cell: string) => unknown {
  const c = field.constraints ?? {};
  let parse: (cell: string) => unknown;
  switch (field.type) {
    case "number":
      parse = (cell) =>
        NUMBER.test(cell)
          ? Number(cell)
          : cell === "NaN"
            ? Number.NaN
            : cell === "INF" || cell === "-INF"
              ? (cell === "INF" ? Infinity : -Infinity)
              : new CellError(`"${preview(cell)}" is not a number`);
      break;
    case "integer":
      parse = (cell) => {
        if (!INTEGER.test(cell)) return new CellError(`"${preview(cell)}" is not an integer`);
        const n = Number(cell);
        return Number.isSafeInteger(n) ? n : new CellError(`${cell} is beyond the safe integer range`);
      };
      break;
    case "boolean":
      parse = (cell) => (TRUE_VALUES.has(cell) ? true : FALSE_VALUES.has(cell) ? false : new CellError(`"${preview(cell)}" is not a boolean`));
      break;
    case "datetime":
      parse = (cell) => (DATETIME.test(cell) && validCalendar(cell, true) ? cell : new CellError(`"${preview(cell)}" is not a datetime`));
      break;
    case "date":
      parse = (cell) => (cell.length === 10 && DATE.test(cell) && validCalendar(cell, false) ? cell : new CellError(`"${preview(cell)}" is not a date`));
      break;
    default:
      parse = (cell) => cell;
  }
  const enumSet = c.enum ? new Set<unknown>(c.enum) : null;
  const bounded = c.minimum !== undefined || c.maximum !== undefined || c.exclusiveMinimum !== undefined || c.exclusiveMaximum !== undefined;
  const checked =
    !enumSet && !bounded
      ? parse
      : (cell: string): unknown => {
          const v = parse(cell);
          if (v instanceof CellError) return v;
          if (enumSet && !enumSet.has(v)) return new CellError(`"${preview(cell)}" is not one of ${[...enumSet].join(", ")}`);
          if (typeof v === "number") {
            if (c.minimum !== undefined && !(v >= c.minimum)) return new CellError(`${cell} is below the minimum ${c.minimum}`);
            if (c.maximum !== undefined && !(v <= c.maximum)) return new CellError(`${cell} is above the maximum ${c.maximum}`);
            if (c.exclusiveMinimum !== undefined && !(v > c.exclusiveMinimum)) return new CellError(`${cell} is not above ${c.exclusiveMinimum}`);
            if (c.exclusiveMaximum !== undefined && !(v < c.exclusiveMaximum)) return new CellError(`${cell} is not below ${c.exclusiveMaximum}`);
          }
          return v;
        };
  if (missingValues.size === 0) return checked;
  return (cell) => (missingValues.has(cell) ? (c.required ? new CellError("a value is required") : null) : checked(cell));
}

/**
 * Where the complete records of RFC 4180 text end: the index just after the last CRLF outside
 * quotes. Throws on a line break that is not CRLF outside quotes. `open` is true when the text ends
 * inside a quoted field.
 */
function recordBoundary(text: string): { end: number; open: boolean } | { error: string } {
  let inQuote = false;
  let end = 0;
  let q = text.indexOf('"');
  let n = text.indexOf("\n");
  while (q >= 0 || n >= 0) {
    if (q >= 0 && (n < 0 || q < n)) {
      inQuote = !inQuote;
      q = text.indexOf('"', q + 1);
    } else {
      if (!inQuote) {
        if (text.charCodeAt(n - 1) !== 13) return { error: "a line ends with LF alone; the dialect's line terminator is CRLF" };
        end = n + 1;
      }
      n = text.indexOf("\n", n + 1);
    }
  }
  return { end, open: inQuote };
}

/**
 * Validates CSV text fed in pieces of any size: RFC 4180 (CRLF, quotes), UTF-8 without BOM, the
 * header equal to the Table Schema's field names, every cell of its field's type and constraints,
 * and each row (with number/integer/boolean cells converted) against an optional row JSON Schema.
 * Memory stays bounded: complete records are parsed (papaparse) and dropped as they arrive.
 */
export class CsvValidator {
  readonly file: string;
  readonly #names: string[];
  readonly #cells: ((cell: string) => unknown)[];
  readonly #row: ValidateFunction | undefined;
  #pending = "";
  #threshold = 1 << 18;
  #headerSeen = false;
  #started = false;
  /** Data rows validated so far. */
  rows = 0;

  constructor(file: string, schema: TableSchema, rowValidator?: ValidateFunction) {
    this.file = file;
    const missing = new Set(schema.missingValues ?? [""]);
    this.#names = schema.fields.map((f) => f.name);
    this.#cells = schema.fields.map((f) => cellReader(f, missing));
    this.#row = rowValidator;
  }

  feed(text: string): void {
    if (!this.#started) {
      this.#started = text.length > 0;
      if (text.startsWith("\uFEFF")) throw new DataError(this.file, "starts with a byte order mark");
    }
    this.#pending += text;
    if (this.#pending.length >= this.#threshold) this.#drain(false);
  }

  end(): void {
    this.#drain(true);
    if (!this.#headerSeen) throw new DataError(this.file, "empty: no header row");
  }

  #drain(final: boolean): void {
    const text = this.#pending;
    const b = recordBoundary(text);
    if ("error" in b) throw new DataError(this.file, `row ${this.rows + 1}: ${b.error}`);
    if (final && b.open) throw new DataError(this.file, `row ${this.rows + 1}: a quoted field is never closed`);
    const end = final ? text.length : b.end;
    if (end === 0) {
      this.#threshold = Math.max(this.#threshold, text.length * 2);
      return;
    }
    this.#pending = text.slice(end);
    this.#parse(text.slice(0, end));
  }

  /**
   * Parses complete records with papaparse, each handed to #record as it is read (step mode: no
   * array of the whole chunk's rows, which would survive young-generation collections and cost
   * more in GC than the parse itself). A chunk ending in CRLF yields one empty record after it:
   * each record is held back until the next arrives, and that last empty one is dropped.
   */
  #parse(chunk: string): void {
    let failure: unknown = null;
    let held: string[] | null = null;
    Papa.parse<string[]>(chunk, {
      delimiter: ",",
      newline: "\r\n",
      quoteChar: '"',
      escapeChar: '"',
      header: false,
      skipEmptyLines: false,
      dynamicTyping: false,
      step: (result, parser) => {
        if (failure !== null) return;
        try {
          if (held) this.#record(held);
          held = null;
          const error = result.errors[0];
          if (error) throw new DataError(this.file, `row ${this.rows + 1 + (this.#headerSeen ? 0 : -1)}: ${error.message}`);
          held = result.data;
        } catch (error) {
          failure = error;
          parser.abort();
        }
      },
    });
    if (failure !== null) throw failure;
    const last = held as string[] | null;
    if (last && !(chunk.endsWith("\r\n") && last.length === 1 && last[0] === "")) this.#record(last);
  }

  #record(record: string[]): void {
    if (!this.#headerSeen) {
      this.#headerSeen = true;
      if (record.length !== this.#names.length || record.some((name, i) => name !== this.#names[i])) {
        throw new DataError(this.file, `header is [${record.join(", ")}], the Table Schema's fields are [${this.#names.join(", ")}]`);
      }
      return;
    }
    this.rows += 1;
    if (record.length !== this.#names.length) {
      throw new DataError(this.file, `row ${this.rows}: ${record.length} cells, expected ${this.#names.length}`);
    }
    const row: Record<string, unknown> = {};
    for (let i = 0; i < record.length; i++) {
      const name = this.#names[i]!;
      const value = this.#cells[i]!(record[i]!);
      if (value instanceof CellError) throw new DataError(this.file, `row ${this.rows}, field ${name}: ${value.message}`);
      row[name] = value;
    }
    if (this.#row && !this.#row(row)) {
      throw new DataError(this.file, `row ${this.rows} does not match its row JSON Schema: ${ajvProblem(this.#row.errors)}`);
    }
  }
}

/**
 * Validates a JSON array fed in pieces of any size, element by element, each against an item
 * validator — for streamed JSON outputs (a rows step writing `[`, one record per entry, `]`) whose
 * whole document would not fit in memory. Only whitespace may follow the closing bracket.
 */
export class JsonArrayValidator {
  readonly file: string;
  readonly #item: ValidateFunction;
  #pending = "";
  /** Scan position in #pending, and the start of the current element. */
  #pos = 0;
  #elementStart = -1;
  #state: "before" | "array" | "after" = "before";
  #depth = 0;
  #inString = false;
  /** The current element follows a comma (so it may not be empty). */
  #afterComma = false;
  items = 0;

  constructor(file: string, item: ValidateFunction) {
    this.file = file;
    this.#item = item;
  }

  feed(text: string): void {
    if (this.items === 0 && this.#state === "before" && this.#pending === "" && text.startsWith("\uFEFF")) {
      throw new DataError(this.file, "starts with a byte order mark");
    }
    this.#pending += text;
    if (this.#pending.length - this.#pos >= 1 << 18) this.#scan(false);
  }

  end(): void {
    this.#scan(true);
    if (this.#state !== "after") throw new DataError(this.file, this.#state === "before" ? "not a JSON array" : "the JSON array is never closed");
  }

  static readonly #SPECIAL = /["\\[\]{},]/g;
  static readonly #IN_STRING = /["\\]/g;

  /**
   * Fast path at an element boundary: the elements up to the last raw newline (which valid JSON
   * only has outside strings) — or, at the end, up to the closing bracket — are parsed at once by
   * JSON.parse("[" … "]"). Returns false, leaving everything to the exact scanner, when that text
   * is not a clean run of complete elements (an element cut by the newline, or any error: the
   * scanner then finds and names it).
   */
  #fast(final: boolean): boolean {
    const text = this.#pending;
    const from = this.#elementStart;
    let end: number;
    if (final) {
      end = text.lastIndexOf("]");
      if (end < from || /\S/.test(text.slice(end + 1))) return false;
    } else {
      end = text.lastIndexOf("\n");
      if (end <= from) return false;
    }
    let body = text.slice(from, end).trimEnd();
    let next = end;
    const trailingComma = !final && body.endsWith(",");
    if (trailingComma) {
      body = body.slice(0, -1);
      next = from + text.slice(from, end).lastIndexOf(",") + 1;
    } else if (!final) return false;
    let values: unknown;
    try {
      values = JSON.parse(`[${body}]`);
    } catch {
      return false;
    }
    const list = values as unknown[];
    if (list.length === 0 && (trailingComma || this.#afterComma)) return false;
    for (const value of list) {
      this.items += 1;
      if (!this.#item(value)) throw new DataError(this.file, `item ${this.items} does not match its JSON Schema: ${ajvProblem(this.#item.errors)}`);
    }
    if (final) {
      this.#state = "after";
      this.#depth = 0;
      this.#pending = "";
      this.#pos = 0;
    } else {
      this.#pending = text.slice(next);
      this.#pos = 0;
      this.#elementStart = 0;
      this.#afterComma = true;
    }
    return true;
  }

  #scan(final: boolean): void {
    if (this.#state === "before") {
      const start = this.#pending.search(/\S/);
      if (start >= 0) {
        if (this.#pending[start] !== "[") throw new DataError(this.file, "not a JSON array");
        this.#state = "array";
        this.#depth = 1;
        this.#pos = this.#elementStart = start + 1;
      }
    }
    // The fast path starts again from the current element's start, whatever the scanner has read of it.
    if (this.#state === "array" && this.#fast(final) && !final) return;
    const text = this.#pending;
    let pos = this.#pos;
    while (pos < text.length) {
      if (this.#state === "before") {
        const m = /\S/g;
        m.lastIndex = pos;
        const hit = m.exec(text);
        if (!hit) {
          pos = text.length;
          break;
        }
        if (hit[0] !== "[") throw new DataError(this.file, "not a JSON array");
        this.#state = "array";
        this.#depth = 1;
        pos = hit.index + 1;
        this.#elementStart = pos;
        continue;
      }
      if (this.#state === "after") {
        if (/\S/.test(text.slice(pos))) throw new DataError(this.file, "text after the end of the JSON array");
        pos = text.length;
        break;
      }
      const re = this.#inString ? JsonArrayValidator.#IN_STRING : JsonArrayValidator.#SPECIAL;
      re.lastIndex = pos;
      const hit = re.exec(text);
      if (!hit) {
        pos = text.length;
        break;
      }
      const c = hit[0];
      const at = hit.index;
      if (c === "\\") {
        if (at + 1 >= text.length) {
          pos = at; // the escaped character is in the next piece
          break;
        }
        pos = at + 2;
        continue;
      }
      pos = at + 1;
      if (c === '"') this.#inString = !this.#inString;
      else if (c === "{" || c === "[") this.#depth += 1;
      else if ((c === "," || c === "]") && this.#depth === 1) {
        this.#element(text.slice(this.#elementStart, at), c === "]");
        this.#elementStart = pos;
        this.#afterComma = c === ",";
        if (c === "]") {
          this.#depth = 0;
          this.#state = "after";
        }
      } else if (c === "}" || c === "]") this.#depth -= 1;
    }
    if (final && pos < text.length) throw new DataError(this.file, "the JSON array is never closed");
    // Keep only what the current element still needs.
    const keep = this.#state === "array" ? Math.min(this.#elementStart, pos) : pos;
    this.#pending = text.slice(keep);
    this.#pos = pos - keep;
    this.#elementStart -= keep;
  }

  #element(raw: string, last: boolean): void {
    const text = raw.trim();
    if (text === "") {
      if (last && this.items === 0) return; // []
      throw new DataError(this.file, `item ${this.items + 1}: empty element (a stray comma)`);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new DataError(this.file, `item ${this.items + 1}: not valid JSON (${(error as Error).message})`);
    }
    this.items += 1;
    if (!this.#item(value)) throw new DataError(this.file, `item ${this.items} does not match its JSON Schema: ${ajvProblem(this.#item.errors)}`);
  }
}

/** A manifest's inline schema for a JSON array of records: `{"type": "array", "items": {"$ref": <row $id>}}`. */
export interface JsonArraySchema {
  type: "array";
  items: { $ref: string };
}

export function isJsonArraySchema(value: unknown): value is JsonArraySchema {
  const v = value as JsonArraySchema;
  return typeof v === "object" && v !== null && v.type === "array" && typeof v.items?.$ref === "string" && Object.keys(v).length === 2;
}

/** Streams a file through a piece validator (CSV or JSON array), hashing it in the same pass. */
function checkStreamedFile(path: string, file: string, validator: { feed(text: string): void; end(): void }): FileDigest & { problem: DataError | null } {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const h = createHash("sha256");
  let bytes = 0;
  let problem: DataError | null = null;
  const step = (fn: () => void) => {
    if (problem) return;
    try {
      fn();
    } catch (error) {
      problem = error instanceof DataError ? error : new DataError(file, error instanceof TypeError ? "not valid UTF-8" : (error as Error).message);
    }
  };
  readChunks(path, (chunk) => {
    h.update(chunk);
    bytes += chunk.length;
    step(() => validator.feed(decoder.decode(chunk, { stream: true })));
  });
  step(() => {
    validator.feed(decoder.decode());
    validator.end();
  });
  return { bytes, hash: `sha256:${h.digest("hex")}`, problem };
}

/** Streams a CSV file through a CsvValidator and hashes it in the same pass. */
export function checkCsvFile(path: string, file: string, schema: TableSchema, rowValidator?: ValidateFunction): FileDigest & { problem: DataError | null } {
  return checkStreamedFile(path, file, new CsvValidator(file, schema, rowValidator));
}

function preview(s: string): string {
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}

// ---------------------------------------------------------------------------------------------
// Frictionless profiles

export const PROFILE_NAMES = ["datapackage", "dataresource", "tableschema", "tabledialect"] as const;
export const PROFILE_BASE = "https://datapackage.org/profiles/2.0/";

/** Where the profiles are by default: `FRICTIONLESS_PROFILES`, else ../shared/vectors/frictionless beside the project. */
export function defaultProfilesDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.FRICTIONLESS_PROFILES ?? new URL("../../shared/vectors/frictionless/", import.meta.url).pathname;
}

/**
 * The four official Data Package v2 profiles (JSON Schema draft-07), each registered under its
 * official URL so that any `$ref` between them resolves by id.
 */
export class ProfileValidator {
  readonly #ajv: Ajv;
  readonly #compiled = new Map<string, ValidateFunction>();

  constructor(dir: string = defaultProfilesDir()) {
    this.#ajv = new Ajv({ strict: false, allErrors: false });
    addFormats.default(this.#ajv);
    this.#ajv.addFormat("textarea", true); // an editor hint in the profiles, not a constraint
    for (const name of PROFILE_NAMES) {
      const path = join(dir, `${name}.json`);
      if (!existsSync(path)) {
        throw new Error(`${path}: Frictionless profile not found; download it from ${PROFILE_BASE}${name}.json (or set FRICTIONLESS_PROFILES / --profiles)`);
      }
      this.#ajv.addSchema(JSON.parse(readFileSync(path, "utf8")) as SchemaObject, `${PROFILE_BASE}${name}.json`);
    }
  }

  /** Compiled on first use: the profiles are large and a conforming package needs only the first. */
  #validator(name: (typeof PROFILE_NAMES)[number]): ValidateFunction {
    let v = this.#compiled.get(name);
    if (!v) {
      v = this.#ajv.getSchema(`${PROFILE_BASE}${name}.json`)!;
      this.#compiled.set(name, v);
    }
    return v;
  }

  /**
   * Problems of a datapackage descriptor; empty when it conforms. The package profile inlines the
   * resource, Table Schema and dialect profiles; when it fails, each resource is checked against
   * those too, so the message says which part is wrong.
   */
  check(descriptor: unknown): string[] {
    const problems: string[] = [];
    const run = (name: (typeof PROFILE_NAMES)[number], value: unknown, where: string) => {
      const v = this.#validator(name);
      if (!v(value)) problems.push(`${where} does not conform to the ${name} profile: ${ajvProblem(v.errors)}`);
    };
    run("datapackage", descriptor, "package");
    if (problems.length === 0) return problems;
    const resources = (descriptor as { resources?: unknown })?.resources;
    if (Array.isArray(resources)) {
      resources.forEach((r: Record<string, unknown>, i) => {
        const where = `resource ${i} (${String(r?.name)})`;
        run("dataresource", r, where);
        if (r && typeof r.schema === "object") run("tableschema", r.schema, `${where} schema`);
        if (r && typeof r.dialect === "object") run("tabledialect", r.dialect, `${where} dialect`);
      });
    }
    return problems;
  }
}

// ---------------------------------------------------------------------------------------------
// areas

export interface AreaResult {
  area: string;
  ok: boolean;
  /** The first file that failed, as named to the user. */
  file?: string;
  problem?: string;
  resources: number;
  /** Keyed resources not present where verified (a public copy holds none): their hashes stay checked by whoever has them. */
  keyedAbsent: number;
}

export interface VerifyContext {
  trusted: NoteVerifier[];
  schemas: JsonSchemaSet;
  profiles: ProfileValidator;
  /** The areas folder of the keyed files (default: the public one). */
  keyedAreas?: string;
  /** Fail when a keyed file is present in the public folder of a non-SAMPLE area (the CI guard). */
  publicOnly?: boolean;
}

/** Verifies one area folder; stops at the first failure. */
export function verifyArea(areasDir: string, area: string, ctx: VerifyContext): AreaResult {
  const dir = join(areasDir, area);
  const manifestFile = join(dir, MANIFEST_FILE);
  const sigFile = join(dir, SIGNATURE_FILE);
  let resources = 0;
  let keyedAbsent = 0;
  try {
    if (!isArea(area)) throw new DataError(dir, `not an area of the published-data contract (${AREAS.join(", ")})`);
    if (!existsSync(manifestFile)) throw new DataError(manifestFile, "missing");
    const manifest = readFileSync(manifestFile);
    if (!existsSync(sigFile)) throw new DataError(sigFile, "missing: the manifest is not signed");
    // The contract's checks (core/datapackage): signature, then the manifest's agreement with the
    // contract (files, access tiers, media types, path rules); a failure names the file at fault.
    let checked: CheckedManifest;
    try {
      openManifestSignature(area, manifest, readFileSync(sigFile, "utf8"), ctx.trusted);
      checked = checkManifest(area, manifest);
    } catch (error) {
      if (!(error instanceof DataPackageError)) throw error;
      const file = error.subject === "signature" ? sigFile : error.subject === "keys" ? "datasets.vkey" : manifestFile;
      throw new DataError(file, error.code === "signature-other-manifest" ? `signature check failed: ${error.message}` : error.message);
    }
    const problems = ctx.profiles.check(checked.manifest);
    if (problems.length > 0) throw new DataError(manifestFile, problems[0]!);
    for (const r of checked.manifest.resources) {
      resources += 1;
      const keyed = isKeyed(checked.resources.get(r.path)!.file);
      if (keyed && ctx.publicOnly && checked.manifest.sample !== true && existsSync(join(dir, r.path))) {
        throw new DataError(join(dir, r.path), "a keyed file in the public data folder: keyed files belong in the keyed data folder (KEYED_DATA_DIR)");
      }
      const folder = keyed ? join(ctx.keyedAreas ?? areasDir, area) : dir;
      if (keyed && !existsSync(join(folder, r.path))) {
        keyedAbsent += 1;
        continue;
      }
      verifyResource(folder, manifestFile, r, ctx);
    }
    return { area, ok: true, resources, keyedAbsent };
  } catch (error) {
    if (error instanceof DataError) return { area, ok: false, file: error.file, problem: error.problem, resources, keyedAbsent };
    return { area, ok: false, file: manifestFile, problem: (error as Error).message, resources, keyedAbsent };
  }
}

function verifyResource(dir: string, manifestFile: string, r: Record<string, unknown>, ctx: VerifyContext): void {
  const path = r.path;
  if (typeof path !== "string" || resourcePathProblem(path) !== null) {
    throw new DataError(manifestFile, `resource ${String(r.name)}: path ${JSON.stringify(path)} is not a relative path inside the area`);
  }
  const file = join(dir, path);
  if (!existsSync(file) || !statSync(file).isFile()) throw new DataError(file, "missing");
  if (typeof r.hash !== "string" || !/^sha256:[0-9a-f]{64}$/.test(r.hash)) {
    throw new DataError(manifestFile, `resource ${String(r.name)}: hash must be sha256:<64 lowercase hex>`);
  }
  const validatorOf = (id: string): ValidateFunction => {
    if (!ctx.schemas.has(id)) throw new DataError(manifestFile, `resource ${String(r.name)}: JSON Schema ${id} is not in ${ctx.schemas.dir}`);
    return ctx.schemas.validator(id);
  };
  const checkDigest = (d: FileDigest) => {
    if (d.bytes !== r.bytes) throw new DataError(file, `${d.bytes} bytes, the manifest records ${String(r.bytes)}`);
    if (d.hash !== r.hash) throw new DataError(file, `sha256 is ${d.hash}, the manifest records ${r.hash}`);
  };
  const streamed = (validator: { feed(text: string): void; end(): void }) => {
    const result = checkStreamedFile(file, file, validator);
    checkDigest(result);
    if (result.problem) throw result.problem;
  };
  if (r.mediatype === "text/csv" || r.type === "table") {
    if (typeof r.schema !== "object" || r.schema === null) throw new DataError(manifestFile, `resource ${String(r.name)}: a table needs an inline Table Schema`);
    return streamed(new CsvValidator(file, r.schema as TableSchema, typeof r.jsonSchema === "string" ? validatorOf(r.jsonSchema) : undefined));
  }
  if (r.mediatype === "application/json" && isJsonArraySchema(r.jsonSchema)) {
    return streamed(new JsonArrayValidator(file, validatorOf(r.jsonSchema.items.$ref)));
  }
  const bytes = readFileSync(file);
  checkDigest({ bytes: bytes.length, hash: `sha256:${createHash("sha256").update(bytes).digest("hex")}` });
  if (r.mediatype === "application/json") {
    if (typeof r.jsonSchema !== "string") throw new DataError(manifestFile, `resource ${String(r.name)}: a JSON resource needs its jsonSchema`);
    validateJsonBytes(file, bytes, validatorOf(r.jsonSchema));
  }
}

export interface VerifyOptions {
  /** Trusted keys file; default `<areasDir>/../keys/datasets.vkey`. */
  keys?: string;
  /** JSON Schemas; default `<areasDir>/../schemas`. */
  schemas?: string;
  /** Frictionless profiles; default {@link defaultProfilesDir}. */
  profiles?: string;
  /** Only these areas; default every folder in areasDir. */
  areas?: readonly string[];
  /** The areas folder of the keyed files (`$KEYED_DATA_DIR/areas`); default areasDir. */
  keyed?: string;
  /** Fail on a keyed file in the public folder of a non-SAMPLE area. */
  publicOnly?: boolean;
}

export function verifyAreas(areasDir: string, options: VerifyOptions = {}): AreaResult[] {
  const ctx: VerifyContext = {
    trusted: readTrustedKeys(options.keys ?? join(areasDir, "..", "keys", "datasets.vkey")),
    schemas: new JsonSchemaSet(options.schemas ?? join(areasDir, "..", "schemas")),
    profiles: new ProfileValidator(options.profiles ?? defaultProfilesDir()),
    ...(options.keyed ? { keyedAreas: options.keyed } : {}),
    ...(options.publicOnly ? { publicOnly: true } : {}),
  };
  const areas =
    options.areas ??
    readdirSync(areasDir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
  return areas.map((area) => verifyArea(areasDir, area, ctx));
}
