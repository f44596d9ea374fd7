/**
 * CSV against a Table Schema, streamed: RFC 4180 with CRLF, the header equal to the field names,
 * every cell of its field's type and constraints, and each row against an optional row JSON Schema.
 */
import type { ValidateFunction } from "ajv";
import Papa from "papaparse";
import { CSV_DATETIME_FORMAT, type TableField, type TableSchema } from "../manifest.ts";
import { DataError } from "./data-error.ts";
import { ajvProblem } from "./json-schemas.ts";

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
/** A datetime of CSV_DATETIME_FORMAT: exactly three fraction digits and "Z". */
const DATETIME_MS_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
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
              ? cell === "INF"
                ? Infinity
                : -Infinity
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
      parse = (cell) =>
        TRUE_VALUES.has(cell)
          ? true
          : FALSE_VALUES.has(cell)
            ? false
            : new CellError(`"${preview(cell)}" is not a boolean`);
      break;
    case "datetime": {
      // A declared pattern is kept to: every reader of the manifest casts the cell with it.
      const shape = field.format === CSV_DATETIME_FORMAT ? DATETIME_MS_Z : DATETIME;
      const expected = field.format === CSV_DATETIME_FORMAT ? ` of the form ${CSV_DATETIME_FORMAT}` : "";
      parse = (cell) =>
        shape.test(cell) && validCalendar(cell, true)
          ? cell
          : new CellError(`"${preview(cell)}" is not a datetime${expected}`);
      break;
    }
    case "date":
      parse = (cell) =>
        cell.length === 10 && DATE.test(cell) && validCalendar(cell, false)
          ? cell
          : new CellError(`"${preview(cell)}" is not a date`);
      break;
    default:
      parse = (cell) => cell;
  }
  const enumSet = c.enum ? new Set<unknown>(c.enum) : null;
  const bounded =
    c.minimum !== undefined ||
    c.maximum !== undefined ||
    c.exclusiveMinimum !== undefined ||
    c.exclusiveMaximum !== undefined;
  const checked =
    !enumSet && !bounded
      ? parse
      : (cell: string): unknown => {
          const v = parse(cell);
          if (v instanceof CellError) return v;
          if (enumSet && !enumSet.has(v))
            return new CellError(`"${preview(cell)}" is not one of ${[...enumSet].join(", ")}`);
          if (typeof v === "number") {
            if (c.minimum !== undefined && !(v >= c.minimum))
              return new CellError(`${cell} is below the minimum ${c.minimum}`);
            if (c.maximum !== undefined && !(v <= c.maximum))
              return new CellError(`${cell} is above the maximum ${c.maximum}`);
            if (c.exclusiveMinimum !== undefined && !(v > c.exclusiveMinimum))
              return new CellError(`${cell} is not above ${c.exclusiveMinimum}`);
            if (c.exclusiveMaximum !== undefined && !(v < c.exclusiveMaximum))
              return new CellError(`${cell} is not below ${c.exclusiveMaximum}`);
          }
          return v;
        };
  if (missingValues.size === 0) return checked;
  return (cell) =>
    missingValues.has(cell) ? (c.required ? new CellError("a value is required") : null) : checked(cell);
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
        if (text.charCodeAt(n - 1) !== 13)
          return { error: "a line ends with LF alone; the dialect's line terminator is CRLF" };
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
      if (text.startsWith("\uFEFF")) throw new DataError("encoding", this.file, "starts with a byte order mark");
    }
    this.#pending += text;
    if (this.#pending.length >= this.#threshold) this.#drain(false);
  }

  end(): void {
    this.#drain(true);
    if (!this.#headerSeen) throw new DataError("empty", this.file, "empty: no header row");
  }

  #drain(final: boolean): void {
    const text = this.#pending;
    const b = recordBoundary(text);
    if ("error" in b) throw new DataError("syntax", this.file, `row ${this.rows + 1}: ${b.error}`);
    if (final && b.open)
      throw new DataError("syntax", this.file, `row ${this.rows + 1}: a quoted field is never closed`);
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
          if (held) this.record(held);
          held = null;
          const error = result.errors[0];
          if (error)
            throw new DataError(
              "syntax",
              this.file,
              `row ${this.rows + 1 + (this.#headerSeen ? 0 : -1)}: ${error.message}`,
            );
          held = result.data;
        } catch (error) {
          failure = error;
          parser.abort();
        }
      },
    });
    if (failure !== null) throw failure;
    const last = held as string[] | null;
    if (last && !(chunk.endsWith("\r\n") && last.length === 1 && last[0] === "")) this.record(last);
  }

  /**
   * Checks one record's cells as read (the first record is the header): what each parsed record
   * goes through, and what a table written from already parsed rows is checked with
   * (pipeline/pass/csv-of-items.ts). `validated`: the row the cells were written from, already
   * valid against the row schema; when the cells read back as exactly its members, the row schema
   * would give the same answer and is not run again.
   */
  record(record: string[], validated?: Readonly<Record<string, unknown>>): void {
    if (!this.#headerSeen) {
      this.#headerSeen = true;
      if (record.length !== this.#names.length || record.some((name, i) => name !== this.#names[i])) {
        throw new DataError(
          "table",
          this.file,
          `header is [${record.join(", ")}], the Table Schema's fields are [${this.#names.join(", ")}]`,
        );
      }
      return;
    }
    this.rows += 1;
    if (record.length !== this.#names.length) {
      throw new DataError(
        "table",
        this.file,
        `row ${this.rows}: ${record.length} cells, expected ${this.#names.length}`,
      );
    }
    const row: Record<string, unknown> = {};
    let same = validated !== undefined && Object.keys(validated).length === record.length;
    for (let i = 0; i < record.length; i++) {
      const name = this.#names[i]!;
      const value = this.#cells[i]!(record[i]!);
      if (value instanceof CellError)
        throw new DataError("table", this.file, `row ${this.rows}, field ${name}: ${value.message}`);
      row[name] = value;
      same &&= validated![name] === value;
    }
    if (this.#row && !same && !this.#row(row)) {
      throw new DataError(
        "schema",
        this.file,
        `row ${this.rows} does not match its row JSON Schema: ${ajvProblem(this.#row.errors)}`,
      );
    }
  }
}

function preview(s: string): string {
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}
