import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { describe, expect, it } from "vitest";
import { readCsv } from "../../core/release/csv-rows.ts";
import { AREAS } from "../../core/datapackage/contract.ts";
import { parquetOfCsv } from "./parquet.ts";
import type { TableSchema } from "../manifest.ts";

const AREAS_DIR = new URL("../../data/areas", import.meta.url).pathname;

interface Resource {
  path: string;
  access: string;
  mediatype: string;
  schema?: TableSchema;
}

/** Every public CSV table of the published manifests, with the resource its manifest lists beside it. */
function publishedTables(): { area: string; csv: Resource; parquet: Resource | undefined }[] {
  return AREAS.flatMap((area) => {
    const manifest = JSON.parse(readFileSync(join(AREAS_DIR, area, "datapackage.json"), "utf8")) as {
      resources: Resource[];
    };
    return manifest.resources
      .filter((r) => r.mediatype === "text/csv" && r.access === "public")
      .map((csv) => ({
        area,
        csv,
        parquet: manifest.resources.find((r) => r.path === csv.path.replace(/\.csv$/, ".parquet")),
      }));
  });
}

describe("the Parquet copies of the public CSV tables", () => {
  it("are listed beside every public CSV with the same fields, and DuckDB reads each one as its CSV, row for row, typed", async () => {
    const tables = publishedTables();
    expect(tables.length).toBeGreaterThanOrEqual(3);
    const db = await DuckDBInstance.create(":memory:");
    const connection = await db.connect();
    try {
      for (const { area, csv, parquet } of tables) {
        expect(parquet, `${area}/${csv.path} has no Parquet resource`).toBeDefined();
        expect(parquet!.mediatype).toBe("application/vnd.apache.parquet");
        expect(parquet!.schema).toEqual(csv.schema);
        const fields = csv.schema!.fields;
        const file = join(AREAS_DIR, area, parquet!.path);
        // Timestamps come back as epoch milliseconds, so the comparison is exact; numbers as doubles.
        const select = fields
          .map((f) => (f.type === "datetime" ? `epoch_ms("${f.name}") AS "${f.name}"` : `"${f.name}"`))
          .join(", ");
        const reader = await connection.runAndReadAll(`SELECT ${select} FROM read_parquet('${file}')`);
        const types = await connection.runAndReadAll(
          `SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('${file}'))`,
        );
        const declared = Object.fromEntries(types.getRows().map(([name, type]) => [String(name), String(type)]));
        const expectedType = {
          datetime: "TIMESTAMP WITH TIME ZONE",
          number: "DOUBLE",
          integer: "BIGINT",
          string: "VARCHAR",
          boolean: "BOOLEAN",
          date: "DATE",
          any: "VARCHAR",
        };
        expect(declared).toEqual(Object.fromEntries(fields.map((f) => [f.name, expectedType[f.type]])));
        const table = readCsv(readFileSync(join(AREAS_DIR, area, csv.path), "utf8"));
        expect(reader.columnNames()).toEqual(table.header);
        const rows = reader.getRows();
        expect(rows.length).toBe(table.rows.length);
        rows.forEach((row, r) =>
          row.forEach((value, c) => {
            const cell = table.rows[r]![c]!;
            const type = fields[c]!.type;
            const expected =
              type === "datetime"
                ? BigInt(Date.parse(cell))
                : type === "number"
                  ? Number(cell)
                  : type === "integer"
                    ? BigInt(cell)
                    : cell;
            if (value !== expected)
              expect(`${area}/${csv.path} row ${r + 1} ${fields[c]!.name}: ${String(value)}`).toBe(`… ${cell}`);
          }),
        );
      }
    } finally {
      connection.closeSync();
      db.closeSync();
    }
  });

  it("are byte-identical when written twice from the same rows, and refuse a cell their type cannot hold", () => {
    const schema: TableSchema = {
      fields: [
        { name: "timestamp", type: "datetime" },
        { name: "n", type: "integer" },
        { name: "x", type: "number" },
        { name: "label", type: "string" },
      ],
    };
    const csv =
      'timestamp,n,x,label\r\n2026-01-02T03:04:05.006Z,7,1.25,"a, ""b"""\r\n2026-01-02T03:04:05.007Z,8,-2,c\r\n';
    expect(Buffer.from(parquetOfCsv(csv, schema)).equals(Buffer.from(parquetOfCsv(csv, schema)))).toBe(true);
    expect(() => parquetOfCsv(csv.replace("1.25", "one"), schema)).toThrow(/column x: "one" is not a number/);
    expect(() => parquetOfCsv(csv.replace("timestamp,n", "time,n"), schema)).toThrow(
      /is not the Table Schema's fields/,
    );
  });
});
