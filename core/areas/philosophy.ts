/**
 * The philosophy area: deliberations, virtues, decisions, drift and the consensus records, and the
 * council simulation the API serves over a WebSocket (`/philosophy/simulation`), formed from them.
 */
import { declareArea } from "./declaration.ts";

export const philosophy = declareArea({
  name: "philosophy",
  cathedral: "FOR-PHILOSOPHERS",
  manifest: {
    title: "Integrity Platform — philosophy",
    description: "Recorded deliberations, virtue compliance, decisions and drift analysis.",
  },
  files: {
    "deliberations.json": "public",
    "virtues.json": "public",
    "decisions.json": "public",
    "drift-analysis.json": "public",
    "consensus-monitoring.json": "public",
    "consensus-registry.json": "public",
  },
  sockets: ["simulation"],
  // One count with the academics area (the spec's "Academics & Philosophers" row).
  rate: { bucket: "academics-philosophy", quotas: { anonymous: 100, academic: 1_000, institutional: 10_000 } },
  page: {
    label: "Philosophy",
    summary: "Virtue scores and how each is measured, drift analysis, recorded deliberations and decisions.",
  },
  apiTag: "Philosophers area",
  attested: ["virtues.json", "drift-analysis.json", "deliberations.json"],
});
