/**
 * The areas as the portal lists them (navigation, home page, page headings): each declared area
 * (core/areas/<area>.ts `page`, `cathedral`), in the registry's navigation order. No build-time
 * module here, so the list reads the same in the build and in a plain Node process.
 */
import { AREAS as AREA_SLUGS, areaDeclaration, type Area } from "../../../core/areas/index.ts";

export interface AreaInfo {
  slug: Area;
  /** Navigation label and page heading. */
  name: string;
  /** The spec's cathedral value of the area. */
  cathedral: string;
  /** One line for the home page and the page's meta description. */
  summary: string;
}

export const AREAS: readonly AreaInfo[] = AREA_SLUGS.map((slug) => {
  const { page, cathedral } = areaDeclaration(slug);
  return { slug, name: page.label, cathedral, summary: page.summary };
});

export function areaInfo(slug: Area): AreaInfo {
  return AREAS.find((a) => a.slug === slug)!;
}
