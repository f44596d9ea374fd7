/**
 * /philosophy/decisions.json: the curated record of decisions (data/sources/philosophy/
 * decisions.json), validated strictly, dated like every area document. Items are published
 * oldest first (by date, then id); ids must be unique.
 */
import { Decisions } from "../../../core/schemas/philosophy.ts";
import { documentInstant } from "../../lib/dating.ts";
import { publishJson } from "../../lib/json.ts";
import { SourceError } from "../../source-reader.ts";
import type { DocumentStep, SourceReader } from "../../step.ts";
import { DECISIONS_SOURCE, DecisionsSource } from "./sources.ts";
import { philosophy } from "../../../core/areas/philosophy.ts";
import { declaredOutput } from "../../../core/areas/declaration.ts";

export function readDecisions(sources: SourceReader): Decisions["decisions"] {
  const { decisions } = sources.json(DECISIONS_SOURCE, DecisionsSource);
  const seen = new Map<string, number>();
  decisions.forEach((d, i) => {
    const first = seen.get(d.id);
    if (first !== undefined) {
      throw new SourceError(
        `data/sources/${DECISIONS_SOURCE}`,
        `decisions[${i}].id: duplicate id "${d.id}" (also decisions[${first}])`,
      );
    }
    seen.set(d.id, i);
  });
  return [...decisions].sort((a, b) =>
    a.date !== b.date ? (a.date < b.date ? -1 : 1) : a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
  );
}

export const decisionsStep: DocumentStep = {
  kind: "document",
  ...declaredOutput(philosophy, "decisions.json"),
  name: "decisions",
  title: "Decisions",
  description:
    "Curated record of the platform's decisions, oldest first: topic, ethical frameworks applied, sentinels involved, reasoning, outcome and lessons learned.",
  schema: "philosophy/decisions",
  inputs: ["ledger", "pulse", `sources/${DECISIONS_SOURCE}`],
  version: 1,
  generate({ facts, pulse, sources }) {
    const decisions = readDecisions(sources);
    const { timestamp, cycle } = documentInstant(facts, pulse);
    return publishJson("philosophy/decisions.json", Decisions, { cycle, timestamp, decisions });
  },
};
