/**
 * /academics/dataset.json (public, refreshed every 6 hours): the cycle, the MII baseline, every
 * sentinel's coordination score and a curated description of the platform's software.
 *
 * - mii_baseline: the MII of the OLDEST pulse in the 30-day window that ends at the document
 *   timestamp (the value the window's changes are measured from); when the window holds no pulse,
 *   the newest pulse before it (the value carried into the window); null when there is no pulse.
 * - sentinels: every registered sentinel, by id, with `score` = its coordination score
 *   (pipeline/lib/coordination.ts; null before its first heartbeat).
 * - apps, packages: `data/sources/academics/software.json`, a curated description, not file or line
 *   counts, so the dataset does not change with every commit (the pulse `stats` count files).
 */
import { z } from "zod";
import type { PulseRecord } from "../../../core/pulse/history.ts";
import { AcademicsDataset, DatasetApp, DatasetPackage } from "../../../core/schemas/index.ts";
import { sentinelCoordination } from "../../lib/coordination.ts";
import { documentInstant, pulseWindow } from "../../lib/dating.ts";
import { publishJson } from "../../lib/json.ts";
import type { DocumentStep } from "../../step.ts";
import { academics } from "../../../core/areas/academics.ts";
import { declaredOutput } from "../../../core/areas/declaration.ts";

export const SOFTWARE_SOURCE = "academics/software.json";

function uniqueNames(items: readonly { name: string }[], ctx: z.RefinementCtx, key: string): void {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    if (seen.has(item.name))
      ctx.addIssue({ code: "custom", path: [key, i, "name"], message: `duplicate name ${item.name}` });
    seen.add(item.name);
  });
}

export const SoftwareSource = z
  .strictObject({
    apps: z.array(DatasetApp).min(1),
    packages: z.array(DatasetPackage).min(1),
  })
  .superRefine((source, ctx) => {
    uniqueNames(source.apps, ctx, "apps");
    uniqueNames(source.packages, ctx, "packages");
  });
export type SoftwareSource = z.infer<typeof SoftwareSource>;

/** See the module comment. */
export function miiBaseline(pulse: readonly PulseRecord[], endMs: number): number | null {
  const window = pulseWindow(pulse, endMs);
  if (window[0]) return window[0].miiScore;
  let before: PulseRecord | null = null;
  for (const record of pulse) {
    const t = Date.parse(record.generatedAt);
    if (t <= endMs && (!before || t > Date.parse(before.generatedAt))) before = record;
  }
  return before?.miiScore ?? null;
}

export const datasetStep: DocumentStep = {
  kind: "document",
  ...declaredOutput(academics, "dataset.json"),
  name: "dataset",
  title: "Research dataset",
  description:
    "Cycle, MII baseline (oldest MII of the 30-day window), each sentinel's coordination score and cathedral, and a curated description of the platform's applications and packages.",
  schema: "academics/dataset",
  inputs: ["ledger", "pulse", `sources/${SOFTWARE_SOURCE}`],
  version: 1,
  generate({ facts, pulse, sources }) {
    const software = sources.json(SOFTWARE_SOURCE, SoftwareSource);
    const { cycle, ms } = documentInstant(facts, pulse);
    const doc: AcademicsDataset = {
      cycle,
      mii_baseline: miiBaseline(pulse, ms),
      sentinels: facts.sentinels.map((s) => ({ id: s.id, score: sentinelCoordination(s), cathedral: s.cathedral })),
      apps: software.apps,
      packages: software.packages,
    };
    return publishJson("academics/dataset.json", AcademicsDataset, doc);
  },
};
