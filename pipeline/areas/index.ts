/**
 * Every pipeline step: each declared area's `steps` (pipeline/areas/<area>/index.ts), complete by
 * type: an area of the registry (core/areas/index.ts) without its steps is a compile error. Order
 * does not matter to the runner (it orders by declared `step:` dependencies and sorts each
 * manifest's resources by path).
 */
import type { Area, Step } from "../step.ts";
import { AREAS } from "../step.ts";
import * as academics from "./academics/index.ts";
import * as diplomacy from "./diplomacy/index.ts";
import * as economy from "./economy/index.ts";
import * as government from "./government/index.ts";
import * as philosophy from "./philosophy/index.ts";

/** What an area's `index.ts` exports: its steps, and the Parquet copies of its public CSV tables. */
interface AreaSteps {
  readonly steps: readonly Step[];
  readonly tableCopies?: readonly Step[];
}

/** Each area's steps. */
const areaModules: { readonly [A in Area]: AreaSteps } = {
  government,
  academics,
  philosophy,
  economy,
  diplomacy,
};

/** Each area's steps, its tables' Parquet copies included. */
export const areaSteps = (area: Area): readonly Step[] => [
  ...areaModules[area].steps,
  ...(areaModules[area].tableCopies ?? []),
];

export const steps: readonly Step[] = AREAS.flatMap(areaSteps);
