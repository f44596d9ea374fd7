/** The Parquet copy of cathedral-multipliers.csv (pipeline/areas/parquet.ts). */
import { parquetStepOf } from "../parquet.ts";
import { cathedralMultipliersStep } from "./multipliers.ts";

export const cathedralMultipliersParquetStep = parquetStepOf(cathedralMultipliersStep);
