/**
 * What changed in a table between two releases, row by row (docs/releases.md): rows are matched by
 * the table's primary key (a repeated key is told apart by its occurrence, first, second, …, so a
 * table whose key is not unique is still compared exactly). A row whose key is new is added, one
 * whose key is gone is removed, one whose key stays with other cells is changed (old and new values).
 * Pure: two tables in, the lists out, in table order (added and changed by the new table, removed by
 * the old).
 */
import type { CsvTable } from "./csv-rows.ts";

export type Row = Record<string, string>;

export interface RowChange {
  key: Row;
  old: Row;
  new: Row;
}

export interface TableChanges {
  added: Row[];
  removed: Row[];
  changed: RowChange[];
}

export interface ChangeCounts {
  added: number;
  removed: number;
  changed: number;
}

export function countsOf(changes: TableChanges): ChangeCounts {
  return { added: changes.added.length, removed: changes.removed.length, changed: changes.changed.length };
}

function rowsOf(table: CsvTable): Row[] {
  return table.rows.map((cells) => Object.fromEntries(table.header.map((name, i) => [name, cells[i]!])));
}

function keyed(rows: Row[], primaryKey: readonly string[]): Map<string, Row> {
  const seen = new Map<string, number>();
  const out = new Map<string, Row>();
  for (const row of rows) {
    const base = JSON.stringify(primaryKey.map((k) => row[k] ?? null));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.set(`${base}#${n}`, row);
  }
  return out;
}

function sameRow(a: Row, b: Row): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
}

/** The changes from `before` (null: the table is new) to `after`, keyed by `primaryKey`. */
export function diffTables(before: CsvTable | null, after: CsvTable, primaryKey: readonly string[]): TableChanges {
  if (primaryKey.length === 0) throw new Error("a table is compared by a primary key of at least one column");
  for (const k of primaryKey)
    if (!after.header.includes(k)) throw new Error(`the primary key column ${k} is not in the table`);
  const old = keyed(before ? rowsOf(before) : [], primaryKey);
  const now = keyed(rowsOf(after), primaryKey);
  const added: Row[] = [];
  const changed: RowChange[] = [];
  for (const [key, row] of now) {
    const previous = old.get(key);
    if (!previous) added.push(row);
    else if (!sameRow(previous, row))
      changed.push({ key: Object.fromEntries(primaryKey.map((k) => [k, row[k]!])), old: previous, new: row });
  }
  const removed = [...old].filter(([key]) => !now.has(key)).map(([, row]) => row);
  return { added, removed, changed };
}
