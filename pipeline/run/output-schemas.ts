/**
 * The schemas of the outputs, as the runner uses them: each step's JSON Schema and Table Schema for
 * its manifest entry, how the pass helper validates a streamed output, and the check of a document's
 * bytes before it is written — the validators a downloader runs (pipeline/validate/).
 */
import type { OutputCheck } from "../pass/output-stager-worker.ts";
import { tableSchemaFromJsonSchema, type TableSchema } from "../manifest.ts";
import type { Step } from "../step.ts";
import { CsvValidator } from "../validate/csv-table.ts";
import { DataError } from "../validate/data-error.ts";
import type { JsonArraySchema } from "../validate/json-array.ts";
import { validateJsonBytes } from "../validate/json-document.ts";
import { JsonSchemaSet } from "../validate/json-schemas.ts";

export class OutputSchemas {
  readonly set: JsonSchemaSet;

  constructor(set: JsonSchemaSet) {
    this.set = set;
  }

  /**
   * The manifest's `jsonSchema`: the schema's `$id` (a document; a CSV's row), or for a streamed JSON
   * output — an array of records — an inline array schema whose items refer to the row schema.
   */
  jsonSchemaOf(step: Step): string | JsonArraySchema {
    const id = JsonSchemaSet.idOf(step.schema!);
    return step.kind === "rows" && step.mediatype === "application/json" ? { type: "array", items: { $ref: id } } : id;
  }

  tableSchemaOf(step: Step): TableSchema {
    return tableSchemaFromJsonSchema(this.set.schema(JsonSchemaSet.idOf(step.schema!)));
  }

  /** How the pass helper validates a streamed output (CSV rows, JSON array items); null for other media. */
  streamCheck(step: Step, file: string): OutputCheck | null {
    if (!step.schema) return null;
    const common = { file, schemasDir: this.set.dir, schemaId: JsonSchemaSet.idOf(step.schema) };
    if (step.mediatype === "text/csv") return { kind: "csv", ...common, table: this.tableSchemaOf(step) };
    if (step.mediatype === "application/json") return { kind: "json-array", ...common };
    return null;
  }

  /** Checks a document's bytes; throws a DataError naming the file. */
  validate(step: Step, file: string, bytes: Uint8Array): void {
    if (step.mediatype === "application/json")
      validateJsonBytes(file, bytes, this.set.validator(JsonSchemaSet.idOf(step.schema!)));
    else if (step.mediatype === "text/csv") {
      const csv = new CsvValidator(
        file,
        this.tableSchemaOf(step),
        this.set.validator(JsonSchemaSet.idOf(step.schema!)),
      );
      let text: string;
      try {
        text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
      } catch {
        throw new DataError("encoding", file, "not valid UTF-8");
      }
      csv.feed(text);
      csv.end();
    } else if (bytes.length === 0) throw new DataError("empty", file, "empty output");
  }
}
