/**
 * /economy/coordination: each sentinel's coordination score (pipeline/lib/coordination.ts: the
 * spec formula over its latest heartbeat's apps, packages, workflows and drift and its uptime in
 * days, natural logarithm) for the sentinels that have sent a heartbeat, sorted by id, and their
 * mean (null when no sentinel has sent one).
 */
import { Coordination } from "../../../core/schemas/economy.ts";
import { meanOf, sentinelCoordination } from "../../lib/coordination.ts";
import { documentInstant } from "../../lib/dating.ts";
import { publishJson } from "../../lib/json.ts";
import type { DocumentStep } from "../../step.ts";
import { economy } from "../../../core/areas/economy.ts";
import { declaredOutput } from "../../../core/areas/declaration.ts";

/** The formula as published: the spec's expression, naming the logarithm and the one-day floor. */
export const COORDINATION_FORMULA =
  "s = (0.4 × apps + 0.3 × packages + 0.2 × workflows + 0.1 × (10 − drift)) × (1 + ln(uptime_days)); " +
  "ln is the natural logarithm; uptime below one day counts as one day; apps, packages, workflows and drift " +
  "(0–10) are those of the sentinel's latest heartbeat, uptime_days the days since its registration";

export const coordinationStep: DocumentStep = {
  kind: "document",
  ...declaredOutput(economy, "coordination.json"),
  name: "coordination",
  title: "Sentinel coordination scores",
  description:
    "Coordination score of every sentinel that has sent a heartbeat, its cathedral, the average score, and the formula (natural logarithm).",
  schema: "economy/coordination",
  inputs: ["ledger", "pulse"],
  version: 1,
  generate({ facts, pulse }) {
    const { timestamp, cycle } = documentInstant(facts, pulse);
    const sentinels: Coordination["sentinels"] = [];
    for (const s of facts.sentinels) {
      const score = sentinelCoordination(s);
      if (score !== null) sentinels.push({ id: s.id, score, cathedral: s.cathedral });
    }
    return publishJson("economy/coordination.json", Coordination, {
      cycle,
      timestamp,
      average_coordination: meanOf(sentinels.map((s) => s.score)),
      sentinels,
      formula: COORDINATION_FORMULA,
    });
  },
};
