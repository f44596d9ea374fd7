/**
 * The philosophy area (/philosophy, cathedral FOR-PHILOSOPHERS): five public JSON documents (the
 * spec's four and the consensus monitoring dataset).
 * (The simulation WebSocket is served by the API, not generated.)
 */
import type { Step } from "../../step.ts";
import { consensusMonitoringStep } from "./consensus-monitoring.ts";
import { decisionsStep } from "./decisions.ts";
import { deliberationsStep } from "./deliberations.ts";
import { driftAnalysisStep } from "./drift.ts";
import { virtuesStep } from "./virtues.ts";

export const steps: Step[] = [deliberationsStep, virtuesStep, decisionsStep, driftAnalysisStep, consensusMonitoringStep];
