/**
 * The registry of the areas: every area's declaration (core/areas/<area>.ts), in navigation order.
 * This list is the only one: the contract, the pipeline, the API, the portal and the workflow
 * (`npm run -s areas`) read the areas from here. Adding an area: docs/contributing.md.
 */
import { academics } from "./academics.ts";
import type { AreaDeclaration } from "./declaration.ts";
import { diplomacy } from "./diplomacy.ts";
import { economy } from "./economy.ts";
import { government } from "./government.ts";
import { philosophy } from "./philosophy.ts";

export * from "./declaration.ts";

export const AREA_DECLARATIONS = [government, academics, philosophy, economy, diplomacy] as const;

/** An area's name. */
export type Area = (typeof AREA_DECLARATIONS)[number]["name"];

/** The areas' names, in navigation order. */
export const AREAS = AREA_DECLARATIONS.map((d) => d.name) as unknown as readonly [Area, ...Area[]];

/** The declaration of an area. */
export function areaDeclaration<A extends Area>(area: A): AreaDeclaration<A> {
  return AREA_DECLARATIONS.find((d) => d.name === area)! as AreaDeclaration<A>;
}

for (const [i, d] of AREA_DECLARATIONS.entries()) {
  const twin = AREA_DECLARATIONS.findIndex((o) => o.name === d.name || o.cathedral === d.cathedral);
  if (twin !== i) throw new Error(`area ${d.name}: its name or cathedral repeats another area's`);
}
