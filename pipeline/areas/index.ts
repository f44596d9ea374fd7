/**
 * Every pipeline step: the five areas' `steps` together. Order does not matter to the runner (it
 * orders by declared `step:` dependencies and sorts each manifest's resources by path).
 */
import type { Step } from "../step.ts";
import { steps as academics } from "./academics/index.ts";
import { steps as diplomacy } from "./diplomacy/index.ts";
import { steps as economy } from "./economy/index.ts";
import { steps as government } from "./government/index.ts";
import { steps as parquet } from "./parquet.ts";
import { steps as philosophy } from "./philosophy/index.ts";

export const steps: readonly Step[] = [
  ...government,
  ...academics,
  ...philosophy,
  ...economy,
  ...diplomacy,
  ...parquet,
];
