/** The economy area (/economy, cathedral FOR-ECONOMISTS): five JSON documents and two CSV files. */
import type { Step } from "../../step.ts";
import { coordinationStep } from "./coordination.ts";
import { micHistoryStep } from "./mic-history.ts";
import { miiStep } from "./mii.ts";
import { cathedralMultipliersStep } from "./multipliers.ts";
import { roiStep, sentinelRoiStep } from "./roi.ts";
import { supplyStep } from "./supply.ts";

export const steps: Step[] = [
  supplyStep,
  miiStep,
  coordinationStep,
  roiStep,
  micHistoryStep,
  sentinelRoiStep,
  cathedralMultipliersStep,
];
