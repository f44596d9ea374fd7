/**
 * The Parquet copy beside every public CSV table (pipeline/lib/parquet.ts says how it is typed and
 * why its bytes are fixed): one document step per table, fed the table's own output (`step:` input),
 * so it reruns exactly when the CSV changes and never reads the ledger a second time. Same columns,
 * same Table Schema, same primary key and access tier as the CSV. Each area lists the copies of its
 * tables with its steps (`<table>-parquet.ts` beside the table's step).
 */
import { publishedSchemas } from "../../core/schemas/index.ts";
import { toPublishedJsonSchema } from "../../core/schemas/json-schema.ts";
import { tableSchemaFromJsonSchema } from "../manifest.ts";
import { parquetOfCsv, PARQUET_MEDIATYPE } from "../lib/parquet.ts";
import type { DocumentStep, Step } from "../step.ts";

/** The Parquet step of a public CSV step. */
export function parquetStepOf(csv: Step): DocumentStep {
  if (csv.mediatype !== "text/csv" || !csv.schema || !csv.path.endsWith(".csv"))
    throw new Error(`${csv.id}: a Parquet copy is made of a CSV table with a row schema`);
  const schemaName = csv.schema;
  const path = `${csv.path.slice(0, -".csv".length)}.parquet`;
  return {
    kind: "document",
    id: `${csv.area}/${path}`,
    area: csv.area,
    path,
    name: `${csv.name}-parquet`,
    title: `${csv.title} (Parquet)`,
    description: `The rows of ${csv.path} as Apache Parquet: the same columns and Table Schema, typed (datetime as TIMESTAMP in milliseconds, UTC).`,
    mediatype: PARQUET_MEDIATYPE,
    access: csv.access,
    schema: schemaName,
    ...(csv.primaryKey ? { primaryKey: csv.primaryKey } : {}),
    inputs: [`step:${csv.id}`],
    version: 1,
    generate(_inputs, outputs) {
      const bytes = outputs.get(csv.id);
      if (!bytes) throw new Error(`${csv.id}: its output was not handed to ${csv.area}/${path}`);
      const schema = tableSchemaFromJsonSchema(
        toPublishedJsonSchema(schemaName, publishedSchemas[schemaName as keyof typeof publishedSchemas]),
      );
      return parquetOfCsv(bytes, schema, csv.id);
    },
  };
}
