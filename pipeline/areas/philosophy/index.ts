/**
 * The philosophy area (/philosophy, cathedral FOR-PHILOSOPHERS): four public JSON documents.
 * (The simulation WebSocket is served by the API, not generated.)
 */
import type { Step } from "../../step.ts";
import { decisionsStep } from "./decisions.ts";
import { deliberationsStep } from "./deliberations.ts";
import { driftAnalysisStep } from "./drift.ts";
import { virtuesStep } from "./virtues.ts";

export const steps: Step[] = [deliberationsStep, virtuesStep, decisionsStep, driftAnalysisStep];
