/**
 * Academics area (/academics, cathedral FOR-ACADEMICS): every file public.
 */
import type { Step } from "../../step.ts";
import { datasetStep } from "./dataset.ts";
import { miiTimelineStep } from "./mii-timeline.ts";
import { citationsStep, papersStep } from "./papers.ts";
import { sentinelCoordinationStep } from "./sentinel-coordination.ts";

export const steps: Step[] = [datasetStep, miiTimelineStep, sentinelCoordinationStep, papersStep, citationsStep];
