/**
 * The government area. The audit trail is published as `ledger/export.json` and
 * `ledger/export.csv` (government key); the spec's `/government/ledger/export` route reads the JSON
 * one, filtered by the spec's query.
 */
import { declareArea } from "./declaration.ts";

export const government = declareArea({
  name: "government",
  cathedral: "FOR-GOVERNMENTS",
  manifest: {
    title: "Integrity Platform — government",
    description:
      "Compliance report, ledger audit trail, sentinel status and policy impact projections for public-sector oversight.",
  },
  files: {
    "compliance-report.json": "government",
    "ledger/export.json": "government",
    "ledger/export.csv": "government",
    "transparency.pdf": "public",
    "sentinel-status.json": "public",
    "policy-impact.json": "government",
    "authority-activity.json": "public",
  },
  routes: { "ledger/export": { file: "ledger/export.json", kind: "export" } },
  rate: { bucket: "government", quotas: { anonymous: 100, government: null } },
  page: {
    label: "Government",
    summary:
      "Sentinel status and alerts, the transparency report, and the keyed compliance, policy-impact and audit-trail files.",
  },
  apiTag: "Government area",
  attested: ["compliance-report.json", "sentinel-status.json", "ledger/export.csv"],
  keyedSources: ["compliance.json", "policy-impact.json"],
});
