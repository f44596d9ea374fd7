/**
 * The philosophy area (/philosophy, cathedral FOR-PHILOSOPHERS): six public JSON documents (the
 * spec's four, the consensus monitoring dataset and the consensus registry).
 * (The simulation WebSocket is served by the API, not generated.)
 */
import type { Step } from "../../step.ts";
import { consensusMonitoringStep } from "./consensus-monitoring.ts";
import { consensusRegistryStep } from "./consensus-registry.ts";
import { decisionsStep } from "./decisions.ts";
import { deliberationsStep } from "./deliberations.ts";
import { driftAnalysisStep } from "./drift.ts";
import { virtuesStep } from "./virtues.ts";

export const steps: Step[] = [
  deliberationsStep,
  virtuesStep,
  decisionsStep,
  driftAnalysisStep,
  consensusMonitoringStep,
  consensusRegistryStep,
];
