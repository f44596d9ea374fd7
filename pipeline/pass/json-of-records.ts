/**
 * A JSON array of records written on the pass helper thread from the records the pass sends
 * (`RowSink.records`, framed by ./record-frames.ts): each record becomes the object of its columns,
 * is checked against the row schema, and is written as JSON.stringify of that object in the layout of
 * core/json-rows.ts. The text parses back to exactly the object checked, so it is not parsed again:
 * the file is a JSON array of valid items by construction.
 */
import type { ValidateFunction } from "ajv";
import { JSON_ROWS_HEAD, jsonRowsEnd, jsonRowsLine } from "../../core/json-rows.ts";
import { DataError } from "../validate/data-error.ts";
import { ajvProblem } from "../validate/json-schemas.ts";
import { FrameError, readFrames } from "./record-frames.ts";

export class JsonOfRecords {
  readonly file: string;
  readonly #columns: readonly string[];
  readonly #item: ValidateFunction | null;
  /** Records written so far, the kept prefix's included (only whether there are any is known of it). */
  items = 0;
  /** Called with each item once it is checked, in order (a table made of the items listens). */
  onItem: ((value: unknown) => void) | null = null;

  constructor(file: string, columns: readonly string[], item: ValidateFunction | null) {
    if (columns.length === 0) throw new Error(`${file}: a record needs at least one column`);
    if (columns.some((name) => name === "__proto__"))
      throw new Error(`${file}: a record's column may not be named __proto__`);
    this.file = file;
    this.#columns = columns;
    this.#item = item;
  }

  /** The text that opens a new file. */
  get head(): string {
    return JSON_ROWS_HEAD;
  }

  /** Goes on after a kept prefix that holds records (`items` > 0) or none. */
  continueAfter(items: number): void {
    this.items = items;
  }

  /** The lines of the records framed in `frames`, each checked, handed to `write` in order. */
  lines(frames: string, write: (text: string) => void): void {
    try {
      readFrames(frames, (cells) => write(this.#line(cells)));
    } catch (error) {
      if (error instanceof FrameError)
        throw new DataError("syntax", this.file, `item ${this.items + 1}: ${error.message}`);
      throw error;
    }
  }

  /** The closing text. */
  end(): string {
    return jsonRowsEnd(this.items);
  }

  #line(cells: string[]): string {
    const columns = this.#columns;
    if (cells.length !== columns.length)
      throw new DataError(
        "schema",
        this.file,
        `item ${this.items + 1} has ${cells.length} members, not ${columns.length}`,
      );
    const item: Record<string, string> = {};
    for (let i = 0; i < columns.length; i++) item[columns[i]!] = cells[i]!;
    if (this.#item && !this.#item(item))
      throw new DataError(
        "schema",
        this.file,
        `item ${this.items + 1} does not match its JSON Schema: ${ajvProblem(this.#item.errors)}`,
      );
    const line = jsonRowsLine(this.items, JSON.stringify(item));
    this.items += 1;
    this.onItem?.(item);
    return line;
  }
}
