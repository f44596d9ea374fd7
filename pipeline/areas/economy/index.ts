/** The economy area (/economy, cathedral FOR-ECONOMISTS): six JSON documents and two CSV tables (and their Parquet copies). */
import type { Step } from "../../step.ts";
import { coordinationStep } from "./coordination.ts";
import { micHistoryStep } from "./mic-history.ts";
import { micHistoryParquetStep } from "./mic-history-parquet.ts";
import { miiStep } from "./mii.ts";
import { cathedralMultipliersStep } from "./multipliers.ts";
import { cathedralMultipliersParquetStep } from "./multipliers-parquet.ts";
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

/** The Parquet copies of its public CSV tables. */
export const tableCopies: Step[] = [micHistoryParquetStep, cathedralMultipliersParquetStep];
