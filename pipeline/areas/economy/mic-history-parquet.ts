/** The Parquet copy of mic-history.csv (pipeline/areas/parquet.ts). */
import { parquetStepOf } from "../parquet.ts";
import { micHistoryStep } from "./mic-history.ts";

export const micHistoryParquetStep = parquetStepOf(micHistoryStep);
