/**
 * /philosophy/deliberations.json: every deliberation recorded on the ledger
 * (`deliberation.recorded`), OLDEST FIRST — the ledger's order, so a new deliberation is appended
 * at the end and earlier items never move.
 *
 * The ledger accepts any identifier as a virtue tag; the published schema allows only the five
 * virtues. Tags that are not virtue names are left out, and repeated tags are kept once, in the
 * order first given. Every other field is copied as recorded.
 */
import { VIRTUES, Deliberations, type Virtue } from "../../../core/schemas/philosophy.ts";
import type { DeliberationFacts } from "../../facts/types.ts";
import { documentInstant } from "../../lib/dating.ts";
import { publishJson } from "../../lib/json.ts";
import type { DocumentStep } from "../../step.ts";
import { philosophy } from "../../../core/areas/philosophy.ts";
import { declaredOutput } from "../../../core/areas/declaration.ts";

const VIRTUE_SET: ReadonlySet<string> = new Set(VIRTUES);

/** The virtue tags of a recorded position: only virtue names, each once, in recorded order. */
export function virtueTags(tags: readonly string[]): Virtue[] {
  const out: Virtue[] = [];
  for (const tag of tags) if (VIRTUE_SET.has(tag) && !out.includes(tag as Virtue)) out.push(tag as Virtue);
  return out;
}

export function publishedDeliberation(d: DeliberationFacts): Deliberations["deliberations"][number] {
  return {
    id: d.id,
    topic: d.topic,
    sentinels: d.sentinels.map((s) => ({
      id: s.id,
      position: s.position,
      reasoning: s.reasoning,
      virtue_tags: virtueTags(s.virtue_tags),
    })),
    consensus: d.consensus,
    outcome: d.outcome,
  };
}

export const deliberationsStep: DocumentStep = {
  kind: "document",
  ...declaredOutput(philosophy, "deliberations.json"),
  name: "deliberations",
  title: "Deliberations",
  description:
    "Every deliberation recorded on the ledger, oldest first: its topic, each sentinel's position, reasoning and virtue tags, the agreement score (consensus, in [0, 1]) and the outcome.",
  schema: "philosophy/deliberations",
  inputs: ["ledger", "pulse"],
  version: 1,
  generate({ facts, pulse }) {
    const { timestamp, cycle } = documentInstant(facts, pulse);
    return publishJson("philosophy/deliberations.json", Deliberations, {
      cycle,
      timestamp,
      deliberations: facts.deliberations.map(publishedDeliberation),
    });
  },
};
