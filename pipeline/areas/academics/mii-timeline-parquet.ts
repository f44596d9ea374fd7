/** The Parquet copy of mii-timeline.csv (pipeline/areas/parquet.ts). */
import { parquetStepOf } from "../parquet.ts";
import { miiTimelineStep } from "./mii-timeline.ts";

export const miiTimelineParquetStep = parquetStepOf(miiTimelineStep);
