/**
 * Each area's manifest, from the states of its steps: a resource per output (size, sha256, input
 * hash and digests, schemas) and the sources the area read — the ledger (from the facts, or as its
 * manifest already records it), the published pulse history and the curated files. `created` is the
 * newest of those sources' times, never the clock. An area with a failed step gets no manifest.
 */
import type { Area, Step } from "../step.ts";
import {
  buildManifest,
  buildResource,
  MANIFEST_FILE,
  renderManifest,
  type LedgerSource,
  type PackageDescriptor,
  type ResourceDescriptor,
} from "../manifest.ts";
import type { AreaRelease } from "../release/plan.ts";
import { join } from "node:path";
import type { RunContext } from "./context.ts";
import { recordedLedger, type PassOutcome } from "./execute.ts";
import type { Inputs } from "./inputs.ts";
import { reasonOf, type Plan, type StepState } from "./plan.ts";

export interface AreaOutcome {
  area: Area;
  states: StepState[];
  manifestFile: string;
  /** The manifest (its text final once the release phase has given it its version), or why the area cannot be published. */
  manifest: { text: string; pkg: PackageDescriptor } | { failed: string };
  /** The area's release (pipeline/release/), once decided. */
  release?: AreaRelease;
}

export function buildAreaManifests(run: RunContext, plan: Plan, inputs: Inputs, pass: PassOutcome): AreaOutcome[] {
  return plan.areas.map((area) => {
    const states = plan.order.filter((s) => s.area === area).map((s) => plan.states.get(s.id)!);
    const manifestFile = join(run.files.areasDir, area, MANIFEST_FILE);
    if (states.some((s) => s.phase === "failed"))
      return {
        area,
        states,
        manifestFile,
        manifest: { failed: `nothing of ${area} is written because a step failed` },
      };
    try {
      const pkg = manifestOf(run, inputs, pass, area, states);
      return { area, states, manifestFile, manifest: { text: renderManifest(pkg), pkg } };
    } catch (error) {
      const reason = reasonOf(error, manifestFile);
      for (const s of states) [s.phase, s.reason] = ["failed", reason];
      return { area, states, manifestFile, manifest: { failed: reason } };
    }
  });
}

/** A CSV table or its Parquet copy: a resource with a Table Schema. */
function isTable(step: Step): boolean {
  return step.mediatype === "text/csv" || step.mediatype === "application/vnd.apache.parquet";
}

function manifestOf(
  run: RunContext,
  inputs: Inputs,
  pass: PassOutcome,
  area: Area,
  states: readonly StepState[],
): PackageDescriptor {
  const used = new Set(states.flatMap((s) => s.inputs));
  const { facts } = pass;
  const ledger = inputs.ledger;
  const ledgerSource: LedgerSource | undefined = used.has("ledger")
    ? facts
      ? { origin: ledger!.origin, size: facts.size, root: facts.rootHash, asOf: facts.asOf, sample: facts.sample }
      : { ...recordedLedger(run, inputs, area)!, origin: ledger!.origin }
    : undefined;
  const pulse = used.has("pulse") ? inputs.pulseRecords : null;
  const pulseSource =
    pulse && inputs.pulse && !("error" in inputs.pulse)
      ? { records: pulse.length, root: inputs.pulse.root }
      : undefined;
  const curated: Record<string, string> = {};
  for (const input of used) if (input.startsWith("sources/")) curated[input.slice(8)] = inputs.source(input.slice(8));
  const times = [ledgerSource?.asOf, ...(pulse ?? []).map((r) => r.generatedAt)]
    .filter((t): t is string => typeof t === "string")
    .sort((a, b) => Date.parse(a) - Date.parse(b));
  const created = times[times.length - 1] ?? null;
  const resources: ResourceDescriptor[] = states.map((s) =>
    buildResource({
      step: s.step,
      bytes: s.output!.digest.bytes,
      hash: s.output!.digest.hash,
      inputsHash: s.inputsHash!,
      inputs: s.inputDigests!,
      ...(s.step.schema ? { jsonSchema: run.schemas.jsonSchemaOf(s.step) } : {}),
      ...(isTable(s.step)
        ? {
            tableSchema: {
              ...run.schemas.tableSchemaOf(s.step),
              ...(s.step.primaryKey ? { primaryKey: [...s.step.primaryKey] } : {}),
            },
          }
        : {}),
    }),
  );
  return buildManifest({
    area,
    resources,
    ...(ledgerSource ? { ledger: ledgerSource } : {}),
    ...(pulseSource ? { pulse: pulseSource } : {}),
    curated,
    created,
  });
}
