/**
 * The economy area. Its extension-less endpoints (`/economy/mii`, same bytes as `mii.json`) and the
 * live `/economy/supply` ("real-time" in the spec: the API computes it from the ledger as it grows,
 * in the schema, tier and quota of `supply.json`, which stays the published file — the pipeline's
 * figures at its ledger size) are its routes.
 */
import { declareArea } from "./declaration.ts";

export const economy = declareArea({
  name: "economy",
  cathedral: "FOR-ECONOMISTS",
  manifest: {
    title: "Integrity Platform — economy",
    description: "MIC supply, MII, coordination, returns by cathedral, minting history and cathedral multipliers.",
  },
  files: {
    "supply.json": "public",
    "mii.json": "public",
    "coordination.json": "public",
    "roi.json": "public",
    "mic-history.csv": "public",
    "mic-history.parquet": "public",
    "sentinel-roi.json": "public",
    "cathedral-multipliers.csv": "public",
    "cathedral-multipliers.parquet": "public",
  },
  routes: {
    supply: { file: "supply.json", kind: "live" },
    mii: { file: "mii.json", kind: "alias" },
    coordination: { file: "coordination.json", kind: "alias" },
    roi: { file: "roi.json", kind: "alias" },
  },
  rate: { bucket: "economy", quotas: { anonymous: 100, economist: 2_000, institutional: null } },
  page: {
    label: "Economy",
    summary: "MIC supply and minting history, MII and minting status, coordination scores and returns by cathedral.",
  },
  apiTag: "Economists area",
  attested: ["supply.json", "mic-history.csv", "roi.json"],
});
