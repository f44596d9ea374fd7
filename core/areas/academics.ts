/** The academics area: the research dataset, the MII timeline, coordination metrics, papers and citations. */
import { declareArea } from "./declaration.ts";

export const academics = declareArea({
  name: "academics",
  cathedral: "FOR-ACADEMICS",
  manifest: {
    title: "Integrity Platform — academics",
    description: "Research dataset, MII timeline, sentinel coordination metrics and the papers index.",
  },
  files: {
    "dataset.json": "public",
    "mii-timeline.csv": "public",
    "mii-timeline.parquet": "public",
    "sentinel-coordination.json": "public",
    "papers.json": "public",
    "citations.bib": "public",
  },
  // One count with the philosophy area (the spec's "Academics & Philosophers" row).
  rate: { bucket: "academics-philosophy", quotas: { anonymous: 100, academic: 1_000, institutional: 10_000 } },
  page: {
    label: "Academics",
    summary: "The research dataset, the 30-day MII timeline, sentinel coordination metrics, papers and citations.",
  },
  apiTag: "Academics area",
  attested: ["dataset.json", "mii-timeline.csv", "sentinel-coordination.json"],
});
