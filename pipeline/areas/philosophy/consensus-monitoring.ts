/**
 * /philosophy/consensus-monitoring.json: the spec's monitoring targets for consensus sessions,
 * measured from the ledger per ISO week (core/consensus/monitoring.ts), each target beside the
 * measured value: sessions (3–5), average duration (≤ 45 min), agreement rate (≥ 85 %), GI drift
 * per session (≤ 0.01) and quorum failures (< 5 %). Weeks run from the first session's to the one
 * the ledger ends in; only sessions that followed the rules count (the consensus registry's fold).
 */
import { weeklyMonitoring } from "../../../core/consensus/monitoring.ts";
import { ConsensusMonitoring } from "../../../core/schemas/consensus.ts";
import { documentInstant } from "../../lib/dating.ts";
import { publishJson } from "../../lib/json.ts";
import type { DocumentStep } from "../../step.ts";
import { philosophy } from "../../../core/areas/philosophy.ts";
import { declaredOutput } from "../../../core/areas/declaration.ts";

export const consensusMonitoringStep: DocumentStep = {
  kind: "document",
  ...declaredOutput(philosophy, "consensus-monitoring.json"),
  name: "consensus-monitoring",
  title: "Consensus monitoring",
  description:
    "The consensus sessions' monitoring targets per ISO week (Monday to Sunday, UTC), each measured value beside its target and whether it was met: sessions opened (target 3–5), average minutes from opening to close (at most 45), mean agreement score of the closed sessions (at least 0.85), the largest |gi_delta| of a closed session (at most 0.01) and the share of closed sessions without quorum (below 0.05). A week's sessions are those opened in it; a measure with no closed session is null; the last week is incomplete.",
  schema: "philosophy/consensus-monitoring",
  inputs: ["ledger", "pulse"],
  version: 1,
  generate({ facts, pulse }) {
    const { timestamp, cycle } = documentInstant(facts, pulse);
    const weeks = facts.asOf === null ? [] : weeklyMonitoring(facts.consensusSessions, facts.asOf);
    return publishJson("philosophy/consensus-monitoring.json", ConsensusMonitoring, { cycle, timestamp, weeks });
  },
};
