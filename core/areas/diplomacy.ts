/**
 * The diplomacy area: three curated documents. The standards and protocols ("Auth: not shown" in
 * the interface spec) are public like the treaty framework.
 */
import { declareArea } from "./declaration.ts";

export const diplomacy = declareArea({
  name: "diplomacy",
  cathedral: "DIPLOMACY",
  manifest: {
    title: "Integrity Platform — diplomacy",
    description: "Treaty framework, international standards alignment and diplomatic protocols.",
  },
  files: {
    "treaty-framework.json": "public",
    "standards.json": "public",
    "protocols.json": "public",
  },
  rate: {
    bucket: "diplomacy",
    quotas: { anonymous: 100, government: 1_000, academic: 1_000, institutional: 1_000, economist: 1_000 },
  },
  page: {
    label: "Diplomacy",
    summary: "The treaty framework for exchanging integrity data, standards alignment and diplomatic protocols.",
  },
  apiTag: "Diplomacy area",
  attested: ["treaty-framework.json", "standards.json", "protocols.json"],
});
