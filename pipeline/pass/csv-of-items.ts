/**
 * A CSV table made on the pass helper thread from the items of a JSON array output as they are
 * validated (`RowsStep.rowsOf`): each item written by core/csv.ts's writer in the Table Schema's
 * field order — the writer the table's own sink uses — and its cells checked exactly as
 * CsvValidator checks a parsed record (type, constraints, row schema). Only the RFC 4180 parse is
 * not done again: the text is the writer's own, which its tests hold to RFC 4180.
 */
import type { ValidateFunction } from "ajv";
import { csvWriter, type CsvCell } from "../../core/csv.ts";
import type { TableSchema } from "../manifest.ts";
import { CsvValidator } from "../validate/csv-table.ts";
import { DataError } from "../validate/data-error.ts";

export class CsvOfItems {
  readonly #names: string[];
  readonly #writer: ReturnType<typeof csvWriter<string>>;
  readonly #check: CsvValidator;
  readonly #file: string;

  constructor(file: string, table: TableSchema, row?: ValidateFunction) {
    this.#file = file;
    this.#names = table.fields.map((f) => f.name);
    this.#writer = csvWriter(this.#names);
    this.#check = new CsvValidator(file, table, row);
  }

  /** The header a new file must open with (the table's own sink writes it). */
  get header(): string {
    return this.#writer.header;
  }

  /** Checks that `text` is the header, and counts it as read. */
  head(text: string): void {
    if (text !== this.#writer.header)
      throw new DataError("table", this.#file, `opens with ${JSON.stringify(text)}, not the header of its fields`);
    this.#check.record(this.#names);
  }

  /** Goes on after a kept prefix: the header was read with it. */
  continue(): void {
    this.#check.record(this.#names);
  }

  /** The item's CSV record, checked; throws a DataError naming the file and row. */
  row(item: unknown): string {
    const record = item as Readonly<Record<string, CsvCell>>;
    let text: string;
    try {
      text = this.#writer.row(record);
    } catch (error) {
      throw new DataError("table", this.#file, `row ${this.#check.rows + 1}: ${(error as Error).message}`);
    }
    this.#check.record(
      this.#names.map((name) => String(record[name])),
      record,
    );
    return text;
  }
}
