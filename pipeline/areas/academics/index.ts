/**
 * Academics area (/academics, cathedral FOR-ACADEMICS): every file public.
 */
import type { Step } from "../../step.ts";
import { datasetStep } from "./dataset.ts";
import { miiTimelineStep } from "./mii-timeline.ts";
import { miiTimelineParquetStep } from "./mii-timeline-parquet.ts";
import { citationsStep, papersStep } from "./papers.ts";
import { sentinelCoordinationStep } from "./sentinel-coordination.ts";

export const steps: Step[] = [datasetStep, miiTimelineStep, sentinelCoordinationStep, papersStep, citationsStep];

/** The Parquet copies of its public CSV tables. */
export const tableCopies: Step[] = [miiTimelineParquetStep];
