/**
 * How a person cites an area's release: a BibTeX entry (`@misc`, which every style knows, with the
 * version) and a Citation File Format 1.2.0 file. Neither names a web address: the data is made
 * before anyone knows where a copy of it will be served (and a release may be served from several);
 * the area page prints the release's address on the copy a reader is on (docs/releases.md). Both are
 * pure functions of the release record, so they are as deterministic as the release itself; dated
 * by the release's data (its manifest's `created`), never a clock — an area with no dated input
 * (curated sources only) gives no year.
 */
import { bibtexEntry, bibtexTitle, escapeBibtex } from "../lib/bibtex.ts";
import { AREA_INFO, LICENSE } from "../manifest.ts";
import type { Area } from "../step.ts";

export const PUBLISHER = "Integrity Platform";

export interface CitedRelease {
  area: Area;
  version: string;
  /** The release's date (ISO 8601), or null. */
  date: string | null;
}

export function citationBibtex(r: CitedRelease): string {
  const year = r.date?.slice(0, 4);
  const month = r.date ? Number(r.date.slice(5, 7)) : null;
  return bibtexEntry("misc", `integrity-platform-${r.area}-${r.version.replaceAll(".", "-")}`, [
    { name: "author", value: `{${escapeBibtex(PUBLISHER)}}` },
    { name: "title", value: bibtexTitle(`${AREA_INFO[r.area].title}, version ${r.version}`) },
    { name: "howpublished", value: "Dataset (Frictionless Data Package)" },
    { name: "version", value: escapeBibtex(r.version) },
    ...(year ? [{ name: "year", value: year }] : []),
    ...(month ? [{ name: "month", value: String(month) }] : []),
    { name: "publisher", value: escapeBibtex(PUBLISHER) },
    { name: "note", value: escapeBibtex(`License ${LICENSE.name}`) },
  ]);
}

const yamlString = (s: string) => JSON.stringify(s);

export function citationCff(r: CitedRelease): string {
  return [
    "cff-version: 1.2.0",
    `message: ${yamlString("If you use this dataset, please cite it as below.")}`,
    "type: dataset",
    `title: ${yamlString(AREA_INFO[r.area].title)}`,
    `abstract: ${yamlString(AREA_INFO[r.area].description)}`,
    "authors:",
    `  - name: ${yamlString(PUBLISHER)}`,
    `version: ${yamlString(r.version)}`,
    ...(r.date ? [`date-released: ${yamlString(r.date.slice(0, 10))}`] : []),
    `license: ${LICENSE.name}`,
    "",
  ].join("\n");
}
