/**
 * A pipeline step: one published file, a pure function of declared inputs.
 *
 * - `document` steps turn the ledger facts, the pulse history and curated sources into bytes.
 * - `rows` steps stream: the runner feeds them every ledger entry during the same single pass that
 *   builds the facts, and appends what they return to the output (audit trail, mint history).
 *
 * No step reads the wall clock: documents are dated by the ledger (`facts.asOf`) or the pulse.
 */
import type { z } from "zod";
import type { LedgerEntry } from "../core/ledger/entry.ts";
import type { PulseRecord } from "../core/pulse/history.ts";
import type { LedgerFacts } from "./facts/types.ts";

/** The areas and access tiers are the published-data contract's (core/datapackage/contract.ts). */
export { AREAS, type AccessTier, type Area } from "../core/datapackage/contract.ts";
import type { AccessTier, Area } from "../core/datapackage/contract.ts";

/** Curated inputs under data/sources/, read and validated by path. */
export interface SourceReader {
  /** Parses `data/sources/<path>` as JSON and validates it; throws naming the file and field. */
  json<T>(path: string, schema: z.ZodType<T>): T;
  text(path: string): string;
}

export interface GeneratorInputs {
  facts: LedgerFacts;
  /** Verified pulse history, oldest first. */
  pulse: readonly PulseRecord[];
  sources: SourceReader;
}

/**
 * Declared inputs; their digests (with the step's id, version and code) make the step's input hash.
 * `sources/<path>` names a file under data/sources/; `step:<id>` another step's output.
 */
export type InputName = "ledger" | "pulse" | `sources/${string}` | `step:${string}`;

interface StepBase {
  /** `<area>/<path>`, e.g. "economy/supply.json". */
  id: string;
  area: Area;
  /** Output path under data/areas/<area>/, e.g. "supply.json" or "ledger/export.csv". */
  path: string;
  /** Frictionless resource name: lowercase, [a-z0-9._-]. */
  name: string;
  title: string;
  description: string;
  mediatype:
    "application/json" | "text/csv" | "application/pdf" | "application/x-bibtex" | "application/vnd.apache.parquet";
  access: AccessTier;
  /** publishedSchemas registry name: the document's schema, or one CSV row's. */
  schema?: string;
  /**
   * A table (CSV, and its Parquet copy): the columns that name a row, the Table Schema's
   * `primaryKey`. The changes resource between releases matches rows by it.
   */
  primaryKey?: readonly string[];
  inputs: readonly InputName[];
  /**
   * Part of the step's identity. The step's own code already is (pipeline/step-code.ts), so bump it
   * only for what that digest cannot see: a dependency from node_modules, or the runtime, changing
   * the output for the same inputs and code.
   */
  version: number;
}

export interface DocumentStep extends StepBase {
  kind: "document";
  generate(inputs: GeneratorInputs, outputs: ReadonlyMap<string, Uint8Array>): string | Uint8Array;
}

export interface RowSink {
  /**
   * Text to append for this entry ("" for none). `payloadText` is the payload's JCS text as stored,
   * which the pass checks against the ledger root: use it rather than canonicalizing again.
   */
  push(entry: LedgerEntry, payloadText: string): string;
  /** Text that closes the file. */
  end(): string;
  /**
   * What the sink needs to go on after the last entry pushed (plain data, none for a sink that keeps
   * nothing), given back to `start` by a later run that continues the file from there. A sink
   * without it is never continued: its file is folded from the first entry every time.
   */
  state?(): unknown;
  /**
   * For a JSON array of records whose members are all strings, in the layout of core/json-rows.ts:
   * the records as data. `record` gives the entry's members in `columns` order (null for no row) —
   * the record whose JSON text `push` would write, counted as `push` counts it. The ledger pass then
   * calls `record` instead of `push` and its helper thread writes the text (pipeline/pass/
   * json-of-records.ts): the same bytes, made on the other core. `head` must be the layout's, and
   * `end()` its closing text for the rows counted (the helper checks it).
   */
  records?: {
    columns: readonly string[];
    record(entry: LedgerEntry, payloadText: string): readonly string[] | null;
  };
}

export interface RowsStep extends StepBase {
  kind: "rows";
  /**
   * Text that opens the file (CSV header, "[") and the sink for the entries; with `from` (a
   * `state()` of this step's sink), a sink that goes on from there — the file up to it is kept.
   */
  start(inputs: Omit<GeneratorInputs, "facts">, from?: unknown): { head: string; sink: RowSink };
  /**
   * For a CSV table: the id of a JSON-array rows step whose items are exactly this table's rows, in
   * order, with the table's field names. When both are folded from the same entry in one pass, the
   * pass helper writes this table from that output's validated items (pipeline/pass/csv-of-items.ts)
   * and this step's sink is not fed; otherwise the sink makes it. Both give the same bytes (a test
   * compares them); the sink must keep no state but `null` and close with nothing.
   */
  rowsOf?: string;
}

export type Step = DocumentStep | RowsStep;
