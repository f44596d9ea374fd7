/**
 * /academics/sentinel-coordination.json (public).
 *
 * - sentinels: every registered sentinel by id: coordination_score (pipeline/lib/coordination.ts;
 *   null before its first heartbeat), uptime_days (`SentinelFacts.uptimeDays`), cathedral.
 * - average_coordination: mean of the non-null scores; null when no sentinel has one.
 * - consensus_rate: how often sentinels' consensus votes agreed with the evaluated outcome of their
 *   session — Σ votesWithOutcome / Σ votes over all sentinels (vote-weighted, so a sentinel's
 *   weight is its number of votes). When no sentinel has voted (sessions run by offices only),
 *   the share of evaluated sessions that reached a decision, (approved + rejected) / evaluated
 *   (NO_QUORUM counts as not reaching consensus). Null when there is neither a vote nor an
 *   evaluated session: a rate of nothing is not 0.
 */
import { SentinelCoordination } from "../../../core/schemas/index.ts";
import type { LedgerFacts } from "../../facts/types.ts";
import { meanOf, sentinelCoordination } from "../../lib/coordination.ts";
import { documentInstant } from "../../lib/dating.ts";
import { publishJson } from "../../lib/json.ts";
import type { DocumentStep } from "../../step.ts";
import { academics } from "../../../core/areas/academics.ts";
import { declaredOutput } from "../../../core/areas/declaration.ts";

export function consensusRate(facts: Pick<LedgerFacts, "sentinels" | "consensus">): number | null {
  let votes = 0;
  let agreed = 0;
  for (const s of facts.sentinels) {
    votes += s.votes;
    agreed += s.votesWithOutcome;
  }
  if (votes > 0) return agreed / votes;
  const c = facts.consensus;
  if (c.evaluated > 0) return (c.approved + c.rejected) / c.evaluated;
  return null;
}

export const sentinelCoordinationStep: DocumentStep = {
  kind: "document",
  ...declaredOutput(academics, "sentinel-coordination.json"),
  name: "sentinel-coordination",
  title: "Sentinel coordination",
  description:
    "Coordination score, uptime and cathedral of every sentinel, their average, and the consensus rate (share of sentinels' votes that matched the session outcome).",
  schema: "academics/sentinel-coordination",
  inputs: ["ledger", "pulse"],
  version: 1,
  generate({ facts, pulse }) {
    const { timestamp, cycle } = documentInstant(facts, pulse);
    const sentinels = facts.sentinels.map((s) => ({
      id: s.id,
      coordination_score: sentinelCoordination(s),
      uptime_days: s.uptimeDays,
      cathedral: s.cathedral,
    }));
    const doc: SentinelCoordination = {
      cycle,
      timestamp,
      sentinels,
      average_coordination: meanOf(sentinels.map((s) => s.coordination_score)),
      consensus_rate: consensusRate(facts),
    };
    return publishJson("academics/sentinel-coordination.json", SentinelCoordination, doc);
  },
};
