/**
 * GET /government/ledger/export?from&to&format&filter — the filtered audit-trail export
 * (interface spec, Government area), read from the published `ledger/export.json` (one row per
 * line) and filtered as it streams, so a large export is never held in memory. (Not the ledger's
 * own export for offline verification: that is store/ledger-jsonl.ts.)
 *
 * Decisions where the spec is silent ("Syntax of filter: not shown"):
 * - `from` / `to`: a date `YYYY-MM-DD` (the whole UTC day) or an instant
 *   `YYYY-MM-DDTHH:MM:SS[.sss]Z`; both inclusive; `from` may not be after `to`.
 * - `format`: `json` (default: a JSON array, one row per line, like the published file) or `csv`
 *   (RFC 4180 with the published header: timestamp,event_type,agent,data,attestation_hash).
 * - `filter`: comma-separated `field:value` terms over `event_type` and `agent`, at most 20; terms
 *   of one field are alternatives, different fields must all match; values match exactly.
 *   Example: `filter=event_type:mic_mint,event_type:mic_burn,agent:ATLAS`.
 */
import { createInterface } from "node:readline";
import type { Context } from "hono";
import { z } from "@hono/zod-openapi";
import { csvWriter } from "../../core/csv.ts";
import { JSON_ROWS_HEAD, jsonRowsEnd, jsonRowsLine } from "../../core/json-rows.ts";

const COLUMNS = ["timestamp", "event_type", "agent", "data", "attestation_hash"] as const;
type Row = Record<(typeof COLUMNS)[number], string>;

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/;
const FILTER_FIELDS = new Set(["event_type", "agent"]);
const MAX_TERMS = 20;
const TERM_SYNTAX = 'terms are field:value with field event_type or agent, e.g. "event_type:mic_mint,agent:ATLAS"';

type FilterField = "event_type" | "agent";

/** A bound as a ledger timestamp, or why it is not one. */
function bound(value: string, end: boolean): string | { reason: string } {
  const instant = DATE.test(value)
    ? `${value}T${end ? "23:59:59.999" : "00:00:00.000"}Z`
    : INSTANT.test(value)
      ? value
      : null;
  if (instant === null) return { reason: "is not a date (YYYY-MM-DD) or a UTC instant (YYYY-MM-DDTHH:MM:SS[.sss]Z)" };
  const ms = Date.parse(instant);
  // Date.parse accepts 2025-02-30; a real calendar day prints back as itself.
  if (!Number.isFinite(ms) || new Date(ms).toISOString().slice(0, 10) !== instant.slice(0, 10))
    return { reason: "is not a real calendar date" };
  return new Date(ms).toISOString();
}

/** A filter as field → accepted values, or why it is not one. */
function terms(value: string): Map<FilterField, Set<string>> | { reason: string } {
  const list = value.split(",");
  if (list.length > MAX_TERMS) return { reason: `has more than ${MAX_TERMS} terms` };
  const filter = new Map<FilterField, Set<string>>();
  for (const term of list) {
    const colon = term.indexOf(":");
    const field = colon > 0 ? term.slice(0, colon) : "";
    const accepted = term.slice(colon + 1);
    if (!FILTER_FIELDS.has(field) || accepted === "") return { reason: TERM_SYNTAX };
    const key = field as FilterField;
    filter.set(key, (filter.get(key) ?? new Set()).add(accepted));
  }
  return filter;
}

/** A bound parameter: refused by the route's query check, before the handler, when it is not one. */
const boundParameter = (end: boolean) =>
  z.string().superRefine((value, ctx) => {
    const parsed = bound(value, end);
    if (typeof parsed !== "string") ctx.addIssue({ code: "custom", message: parsed.reason });
  });

/**
 * The query of the export, as the route declares it. Every check is here, so a refused query is
 * answered by the route's strict query check (400 `invalid-query`) before the handler: no quota
 * counted, no key needed (docs/api.md).
 */
export const ExportQuery = z
  .strictObject({
    from: boundParameter(false).optional().openapi({
      description:
        "Inclusive start: a date `YYYY-MM-DD` (the whole UTC day) or a UTC instant `YYYY-MM-DDTHH:MM:SS[.sss]Z`",
    }),
    to: boundParameter(true).optional().openapi({ description: "Inclusive end, as `from`; not before `from`" }),
    format: z
      .enum(["json", "csv"], { message: 'must be "json" or "csv"' })
      .optional()
      .openapi({ description: "`json` (default) or `csv`" }),
    filter: z
      .string()
      .max(2000, "is longer than 2000 characters")
      .superRefine((value, ctx) => {
        const parsed = terms(value);
        if (!(parsed instanceof Map)) ctx.addIssue({ code: "custom", message: parsed.reason });
      })
      .optional()
      .openapi({
        description: "Comma-separated `field:value` terms over `event_type` and `agent` (at most 20)",
        example: "event_type:mic_mint,agent:ATLAS",
      }),
  })
  .superRefine((q, ctx) => {
    const from = q.from === undefined ? null : bound(q.from, false);
    const to = q.to === undefined ? null : bound(q.to, true);
    if (typeof from === "string" && typeof to === "string" && from > to)
      ctx.addIssue({ code: "custom", path: ["from"], message: "is after to" });
  });

export interface ExportRequest {
  format: "json" | "csv";
  /** Inclusive bounds as ledger timestamps (ISO 8601, milliseconds, UTC). */
  from: string | null;
  to: string | null;
  /** Field → accepted values. */
  filter: Map<FilterField, Set<string>>;
}

/** The export asked for, from the route's query: already checked by ExportQuery. */
export function exportRequest(c: Context): ExportRequest {
  const q = (c.req.valid as (target: "query") => z.output<typeof ExportQuery>)("query");
  const from = q.from === undefined ? null : bound(q.from, false);
  const to = q.to === undefined ? null : bound(q.to, true);
  const filter = q.filter === undefined ? new Map<FilterField, Set<string>>() : terms(q.filter);
  if (
    (from !== null && typeof from !== "string") ||
    (to !== null && typeof to !== "string") ||
    !(filter instanceof Map)
  ) {
    throw new Error("the export's query reached its handler unchecked"); // ExportQuery refuses these first
  }
  return { format: q.format ?? "json", from, to, filter };
}

function matches(row: Row, request: ExportRequest): boolean {
  if (request.from !== null && row.timestamp < request.from) return false;
  if (request.to !== null && row.timestamp > request.to) return false;
  for (const [field, values] of request.filter) if (!values.has(row[field])) return false;
  return true;
}

/** The rows of the published JSON export that match, formatted, in pieces of about 64 KiB. */
export async function* exportBody(input: NodeJS.ReadableStream, request: ExportRequest): AsyncGenerator<Uint8Array> {
  const encoder = new TextEncoder();
  const csv = csvWriter(COLUMNS);
  let out = request.format === "csv" ? csv.header : JSON_ROWS_HEAD;
  let rows = 0;
  const lines = createInterface({ input, crlfDelay: Infinity });
  for await (const line of lines) {
    // The published layout: "[", then one row per line ("{…}," or "{…}"), then "]".
    const text = line.endsWith(",") ? line.slice(0, -1) : line;
    if (!text.startsWith("{")) continue;
    const row = JSON.parse(text) as Row;
    if (!matches(row, request)) continue;
    out += request.format === "csv" ? csv.row(row) : jsonRowsLine(rows, text);
    rows += 1;
    if (out.length >= 1 << 16) {
      yield encoder.encode(out);
      out = "";
    }
  }
  if (request.format === "json") out += jsonRowsEnd(rows);
  if (out !== "") yield encoder.encode(out);
}
