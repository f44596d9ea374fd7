/**
 * A JSON array of records, streamed: the form of a rows step's JSON output (`[`, one record per
 * ledger entry, `]`), too large to parse whole. The manifest describes it with an inline array
 * schema whose items refer to the row schema (JsonArraySchema).
 */
import type { ValidateFunction } from "ajv";
import { DataError } from "./data-error.ts";
import { ajvProblem } from "./json-schemas.ts";

/**
 * Validates a JSON array fed in pieces of any size, element by element, each against an item
 * validator, in bounded memory. Only whitespace may follow the closing bracket.
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
  /** Continued after an element: a comma or the closing bracket comes first. */
  #separatorDue = false;
  items = 0;
  /** Called with each item once it is validated, in order (a table made of the items listens). */
  onItem: ((value: unknown) => void) | null = null;

  constructor(file: string, item: ValidateFunction) {
    this.file = file;
    this.#item = item;
  }

  feed(text: string): void {
    if (this.items === 0 && this.#state === "before" && this.#pending === "" && text.startsWith("\uFEFF")) {
      throw new DataError("encoding", this.file, "starts with a byte order mark");
    }
    this.#pending += text;
    if (this.#pending.length - this.#pos >= 1 << 18) this.#scan(false);
  }

  /**
   * Goes on inside an array whose opening and first `items` elements were validated before (a file
   * continued from a kept prefix): what is fed next starts with `,` and more elements, or `]`.
   */
  continueAfter(items: number): void {
    this.#state = "array";
    this.#depth = 1;
    this.#pending = "";
    this.#pos = this.#elementStart = 0;
    this.#separatorDue = items > 0;
    this.items = items;
  }

  end(): void {
    this.#scan(true);
    if (this.#state !== "after")
      throw new DataError(
        "syntax",
        this.file,
        this.#state === "before" ? "not a JSON array" : "the JSON array is never closed",
      );
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
      if (!this.#item(value))
        throw new DataError(
          "schema",
          this.file,
          `item ${this.items} does not match its JSON Schema: ${ajvProblem(this.#item.errors)}`,
        );
      this.onItem?.(value);
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
        if (this.#pending[start] !== "[") throw new DataError("syntax", this.file, "not a JSON array");
        this.#state = "array";
        this.#depth = 1;
        this.#pos = this.#elementStart = start + 1;
      }
    }
    if (this.#state === "array" && this.#separatorDue) {
      const at = this.#pending.slice(this.#pos).search(/\S/);
      if (at < 0) return;
      const c = this.#pending[this.#pos + at];
      if (c !== "," && c !== "]")
        throw new DataError("syntax", this.file, `item ${this.items + 1}: no comma before it`);
      this.#separatorDue = false;
      this.#pending = this.#pending.slice(this.#pos + at + 1);
      this.#pos = this.#elementStart = 0;
      if (c === "]") [this.#state, this.#depth] = ["after", 0];
      else this.#afterComma = true;
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
        if (hit[0] !== "[") throw new DataError("syntax", this.file, "not a JSON array");
        this.#state = "array";
        this.#depth = 1;
        pos = hit.index + 1;
        this.#elementStart = pos;
        continue;
      }
      if (this.#state === "after") {
        if (/\S/.test(text.slice(pos)))
          throw new DataError("syntax", this.file, "text after the end of the JSON array");
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
    if (final && pos < text.length) throw new DataError("syntax", this.file, "the JSON array is never closed");
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
      throw new DataError("syntax", this.file, `item ${this.items + 1}: empty element (a stray comma)`);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new DataError("syntax", this.file, `item ${this.items + 1}: not valid JSON (${(error as Error).message})`);
    }
    this.items += 1;
    if (!this.#item(value))
      throw new DataError(
        "schema",
        this.file,
        `item ${this.items} does not match its JSON Schema: ${ajvProblem(this.#item.errors)}`,
      );
    this.onItem?.(value);
  }
}

/** A manifest's inline schema for a JSON array of records: `{"type": "array", "items": {"$ref": <row $id>}}`. */
export interface JsonArraySchema {
  type: "array";
  items: { $ref: string };
}

export function isJsonArraySchema(value: unknown): value is JsonArraySchema {
  const v = value as JsonArraySchema;
  return (
    typeof v === "object" &&
    v !== null &&
    v.type === "array" &&
    typeof v.items?.$ref === "string" &&
    Object.keys(v).length === 2
  );
}
