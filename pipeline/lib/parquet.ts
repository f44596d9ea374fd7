/**
 * The Parquet copy of a published CSV table (docs/data-areas.md, "Parquet"): the same rows, the
 * same column names and order, typed by the table's Table Schema — datetime as
 * TIMESTAMP(MILLIS, UTC), integer as INT64, number as DOUBLE, boolean as BOOLEAN, date as DATE,
 * everything else as UTF-8 STRING — every column REQUIRED (the tables have no missing values).
 *
 * Written with hyparquet-writer (pure JavaScript, no native code, synchronous): the same rows give
 * the same bytes on every machine. Every setting that shapes the bytes is pinned here
 * (PARQUET_WRITER_SETTINGS), including `created_by`, so the file does not name the writer's
 * version: an upgrade that changes the bytes anyway shows as a difference under `--check`, and the
 * parquet steps' `version` is bumped for it (pipeline/step.ts).
 */
import { parquetWriteBuffer } from "hyparquet-writer";
import type { ColumnSource } from "hyparquet-writer";
import type { SchemaElement } from "hyparquet";
import { readCsv } from "../../core/release/csv-rows.ts";
import type { TableField, TableSchema } from "../manifest.ts";

export const PARQUET_MEDIATYPE = "application/vnd.apache.parquet";

/** Every writer setting that shapes the bytes, fixed. */
export const PARQUET_WRITER_SETTINGS = {
  codec: "SNAPPY",
  statistics: true,
  rowGroupSize: 1_048_576,
  pageSize: 1_048_576,
  createdBy: "integrity-platform pipeline (hyparquet-writer)",
} as const;

const DAY_MS = 86_400_000;

function column(field: TableField, cells: string[], label: string): { element: SchemaElement; source: ColumnSource } {
  const bad = (cell: string): never => {
    throw new Error(`${label}: column ${field.name}: ${JSON.stringify(cell)} is not a ${field.type}`);
  };
  const base = { name: field.name, repetition_type: "REQUIRED" as const };
  switch (field.type) {
    case "datetime": {
      const data = cells.map((c) => {
        const ms = Date.parse(c);
        return Number.isFinite(ms) && c.endsWith("Z") ? BigInt(ms) : bad(c);
      });
      return {
        element: { ...base, type: "INT64", logical_type: { type: "TIMESTAMP", isAdjustedToUTC: true, unit: "MILLIS" } },
        source: { name: field.name, data, nullable: false },
      };
    }
    case "date": {
      const data = cells.map((c) => {
        const ms = /^\d{4}-\d{2}-\d{2}$/.test(c) ? Date.parse(`${c}T00:00:00Z`) : NaN;
        return Number.isFinite(ms) ? ms / DAY_MS : bad(c);
      });
      return {
        element: { ...base, type: "INT32", converted_type: "DATE", logical_type: { type: "DATE" } },
        source: { name: field.name, data, nullable: false },
      };
    }
    case "integer": {
      const data = cells.map((c) => (/^-?\d+$/.test(c) ? BigInt(c) : bad(c)));
      return { element: { ...base, type: "INT64" }, source: { name: field.name, data, nullable: false } };
    }
    case "number": {
      const data = cells.map((c) => {
        const v = c.trim() === c && c !== "" ? Number(c) : NaN;
        return Number.isFinite(v) ? v : bad(c);
      });
      return { element: { ...base, type: "DOUBLE" }, source: { name: field.name, data, nullable: false } };
    }
    case "boolean": {
      const data = cells.map((c) => (c === "true" ? true : c === "false" ? false : bad(c)));
      return { element: { ...base, type: "BOOLEAN" }, source: { name: field.name, data, nullable: false } };
    }
    default:
      return {
        element: { ...base, type: "BYTE_ARRAY", converted_type: "UTF8", logical_type: { type: "STRING" } },
        source: { name: field.name, data: cells, nullable: false },
      };
  }
}

/** The Parquet bytes of a CSV table whose columns are `schema.fields`, in that order. */
export function parquetOfCsv(csv: Uint8Array | string, schema: TableSchema, label = "CSV"): Uint8Array {
  const text = typeof csv === "string" ? csv : new TextDecoder("utf-8", { fatal: true }).decode(csv);
  const table = readCsv(text, label);
  const names = schema.fields.map((f) => f.name);
  if (table.header.join(",") !== names.join(",")) {
    throw new Error(
      `${label}: the header ${table.header.join(",")} is not the Table Schema's fields ${names.join(",")}`,
    );
  }
  const columns = schema.fields.map((field, i) =>
    column(
      field,
      table.rows.map((r) => r[i]!),
      label,
    ),
  );
  const buffer = parquetWriteBuffer({
    columnData: columns.map((c) => c.source),
    schema: [{ name: "root", num_children: columns.length }, ...columns.map((c) => c.element)],
    ...PARQUET_WRITER_SETTINGS,
  });
  return new Uint8Array(buffer);
}
