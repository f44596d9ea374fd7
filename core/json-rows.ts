/**
 * The layout of a JSON array of records as the platform writes it — a rows step's JSON output
 * (pipeline/areas/government/audit-trail.ts), its pass helper (pipeline/pass/), and the API's JSON
 * export (api/sources/audit-trail-export.ts): `[`, then each record on a line of its own, after
 * `\n` for the first and `,\n` for the others, then `\n]\n` (`]\n` when there is none). One record
 * per line is what lets a reader take the file line by line.
 */

export const JSON_ROWS_HEAD = "[";

/** The text a record's JSON text is written with: `index` is its position among the records. */
export function jsonRowsLine(index: number, recordText: string): string {
  return `${index === 0 ? "\n" : ",\n"}${recordText}`;
}

/** The closing text after `count` records. */
export function jsonRowsEnd(count: number): string {
  return count === 0 ? "]\n" : "\n]\n";
}
