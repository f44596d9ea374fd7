/**
 * The pipeline runner: turns the steps (pipeline/step.ts) into the files of `data/areas/<area>/`,
 * their manifests and signatures, in named phases (pipeline/run/). I/O is injected: the ledger is
 * any LedgerReader, the data folder a path, the signing key a loader called only when a manifest
 * must be signed. `check` compares with what is published instead of publishing, and writes nothing.
 */
import { rmSync } from "node:fs";
import { buildAreaManifests } from "./run/area-manifest.ts";
import { compareAreas } from "./run/compare.ts";
import { openRun, type RunOptions } from "./run/context.ts";
import { runDocumentSteps, runLedgerPass } from "./run/execute.ts";
import { Inputs, markUpToDate } from "./run/inputs.ts";
import { planRun } from "./run/plan.ts";
import { publishAreas } from "./run/publish.ts";
import { releaseAreas } from "./release/phase.ts";
import type { RunReport } from "./run/report.ts";

export type { RunOptions } from "./run/context.ts";
export { planSteps, StepDefinitionError } from "./run/plan.ts";
export type { RunReport, StepReport, StepStatus } from "./run/report.ts";

export async function runPipeline(options: RunOptions): Promise<RunReport> {
  const run = openRun(options);
  const plan = planRun(run); // throws StepDefinitionError before anything is read
  try {
    const inputs = await new Inputs(run, plan).load();
    markUpToDate(plan, inputs);
    const pass = await runLedgerPass(run, plan, inputs);
    // The documents that read no streamed output are made while the helper finishes the tree and
    // those outputs; a root that does not match fails the run here, before anything is published.
    try {
      runDocumentSteps(run, plan, inputs, pass.facts, false);
    } finally {
      await pass.streamed;
    }
    runDocumentSteps(run, plan, inputs, pass.facts);
    const areas = buildAreaManifests(run, plan, inputs, pass);
    releaseAreas(run.files.areasDir, areas);
    return run.check ? compareAreas(run, areas, pass) : publishAreas(run, areas, pass);
  } finally {
    for (const state of plan.states.values()) if (state.output?.tmp) rmSync(state.output.tmp, { force: true });
    run.close();
  }
}
