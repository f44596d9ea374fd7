/** Small pipeline steps shared by the runner and verify tests: real steps, tiny outputs. */
import type { DocumentStep } from "../../../pipeline/step.ts";

/** A pulse-badge-shaped JSON document (a published schema the tests can validate against). */
export const badge = (label: string, message: string): string =>
  `${JSON.stringify({ schemaVersion: 1, label, message, color: "brightgreen" }, null, 2)}\n`;

/** The number of ledger entries, as a badge: depends on the ledger only. */
export const countStep: DocumentStep = {
  kind: "document",
  id: "economy/supply.json",
  area: "economy",
  path: "supply.json",
  name: "count",
  title: "Entry count",
  description: "How many ledger entries there are.",
  mediatype: "application/json",
  access: "public",
  schema: "pulse-badge",
  inputs: ["ledger"],
  version: 1,
  generate: ({ facts }) => badge("entries", String(facts.size)),
};
