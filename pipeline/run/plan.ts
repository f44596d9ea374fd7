/**
 * Plan the steps: check the step definitions against the published-data contract and each other,
 * order the selected ones by their `step:` dependencies, and give each the state the later phases
 * fill in.
 */
import { readFileSync } from "node:fs";
import { areaFile } from "../../core/datapackage/contract.ts";
import type { FileDigest } from "../../store/digest-cache.ts";
import { MANIFEST_FILE } from "../manifest.ts";
import { SIGNATURE_SUFFIX } from "../sign.ts";
import { checkSourcePath } from "../source-reader.ts";
import { AREAS, type Area, type InputName, type Step } from "../step.ts";
import { DataError } from "../validate/data-error.ts";
import { JsonSchemaSet } from "../validate/json-schemas.ts";
import type { RunContext } from "./context.ts";
import { TMP_SUFFIX } from "./context.ts";
import { CodedError } from "../../core/errors.ts";

/** A problem with the step definitions themselves: nothing runs. */
export class StepDefinitionError extends CodedError<"invalid-step"> {
  constructor(message: string) {
    super("invalid-step", message);
  }
}

/** One output as generated: its digest, and its bytes in memory (a document) or a staged file. */
export interface Output {
  digest: FileDigest;
  bytes?: Uint8Array;
  tmp?: string;
  /** The bytes equal the file already in place: nothing to write. */
  same: boolean;
}

/** The bytes a step produced in this run (generated, or staged), else the file in place. */
export function outputBytes(state: StepState): Uint8Array {
  const out = state.output;
  if (out?.bytes) return out.bytes;
  return readFileSync(out?.tmp ?? state.target);
}

export interface StepState {
  step: Step;
  inputs: InputName[];
  /** Where the output is published. */
  target: string;
  /** "fresh": up to date on disk; "stale": to run; "done": ran; "failed". */
  phase: "fresh" | "stale" | "done" | "failed";
  inputDigests?: Record<string, string>;
  inputsHash?: string;
  output?: Output;
  reason?: string;
}

export interface Plan {
  /** The selected steps, dependencies first. */
  order: readonly Step[];
  /** Every step given, by id: a dependency outside the selected areas is read from its file. */
  byId: ReadonlyMap<string, Step>;
  states: ReadonlyMap<string, StepState>;
  /** The selected areas that have steps. */
  areas: readonly Area[];
}

/** The declared inputs, and the ledger for a rows step (which is always fed the ledger). */
export function effectiveInputs(step: Step): InputName[] {
  const inputs = [...step.inputs];
  if (step.kind === "rows" && !inputs.includes("ledger")) inputs.unshift("ledger");
  return inputs;
}

export function stepDeps(inputs: readonly InputName[]): string[] {
  return inputs.filter((i) => i.startsWith("step:")).map((i) => i.slice(5));
}

export function planRun(run: RunContext): Plan {
  const { steps } = run.options;
  const order = planSteps(steps, run.areas, run.schemas.set);
  const areas = run.areas.filter((a) => order.some((s) => s.area === a));
  for (const area of run.areas) if (!areas.includes(area)) run.log(`${area}: no steps`);
  const states = new Map<string, StepState>();
  for (const step of order)
    states.set(step.id, { step, inputs: effectiveInputs(step), target: run.targetOf(step), phase: "stale" });
  return { order, byId: new Map(steps.map((s) => [s.id, s])), states, areas };
}

/** Marks a step failed, its reason naming the output file. */
export function failStep(state: StepState, error: unknown): void {
  state.phase = "failed";
  state.reason = reasonOf(error, state.target);
}

/** A DataError names its file already; any other failure is told as the output's. */
export function reasonOf(error: unknown, file: string): string {
  if (error instanceof DataError) return error.message;
  return `${file}: ${error instanceof Error ? error.message : String(error)}`;
}

/** Checks the step list and returns the selected steps in dependency order. */
export function planSteps(steps: readonly Step[], areas: readonly Area[], schemas: JsonSchemaSet): Step[] {
  const byId = new Map<string, Step>();
  const names = new Set<string>();
  for (const step of steps) {
    if (byId.has(step.id)) throw new StepDefinitionError(`two steps have the id ${step.id}`);
    if (!(AREAS as readonly string[]).includes(step.area))
      throw new StepDefinitionError(`${step.id}: unknown area ${step.area}`);
    try {
      checkSourcePath(step.path);
    } catch {
      throw new StepDefinitionError(
        `${step.id}: path ${JSON.stringify(step.path)} is not a relative path inside the area`,
      );
    }
    if (step.id !== `${step.area}/${step.path}`)
      throw new StepDefinitionError(`${step.id}: the id must be "${step.area}/${step.path}"`);
    // Every output is a file of the published-data contract, with the contract's tier and type.
    const file = areaFile(step.area, step.path);
    if (!file)
      throw new StepDefinitionError(
        `${step.id}: ${step.area} publishes no file ${step.path} (core/datapackage/contract.ts)`,
      );
    if (file.access !== step.access || file.mediatype !== step.mediatype) {
      throw new StepDefinitionError(
        `${step.id}: access ${step.access} and mediatype ${step.mediatype} differ from the contract's ${file.access} and ${file.mediatype}`,
      );
    }
    if (step.path === MANIFEST_FILE || step.path.endsWith(SIGNATURE_SUFFIX) || step.path.endsWith(TMP_SUFFIX)) {
      throw new StepDefinitionError(`${step.id}: the path is reserved`);
    }
    if (!/^[a-z0-9._-]+$/.test(step.name))
      throw new StepDefinitionError(`${step.id}: resource name ${JSON.stringify(step.name)} must match [a-z0-9._-]+`);
    if (names.has(`${step.area}\n${step.name}`))
      throw new StepDefinitionError(`${step.id}: resource name ${step.name} is used twice in ${step.area}`);
    names.add(`${step.area}\n${step.name}`);
    if (!Number.isSafeInteger(step.version) || step.version < 0)
      throw new StepDefinitionError(`${step.id}: version must be a non-negative integer`);
    if (step.mediatype === "application/json" || step.mediatype === "text/csv") {
      if (!step.schema) throw new StepDefinitionError(`${step.id}: a ${step.mediatype} output needs a schema`);
      if (!schemas.has(JsonSchemaSet.idOf(step.schema))) {
        throw new StepDefinitionError(`${step.id}: schema ${step.schema} is not in ${schemas.dir} (npm run schemas)`);
      }
    }
    for (const input of step.inputs) {
      if (input === "ledger" || input === "pulse") continue;
      if (input.startsWith("sources/")) {
        try {
          checkSourcePath(input.slice(8));
        } catch (error) {
          throw new StepDefinitionError(`${step.id}: input ${input}: ${(error as Error).message}`);
        }
        continue;
      }
      if (input.startsWith("step:")) {
        if (step.kind === "rows")
          throw new StepDefinitionError(`${step.id}: a rows step is fed the ledger; it cannot depend on ${input}`);
        continue;
      }
      throw new StepDefinitionError(`${step.id}: unknown input ${JSON.stringify(input)}`);
    }
    byId.set(step.id, step);
  }
  for (const step of steps) {
    for (const dep of stepDeps(step.inputs))
      if (!byId.has(dep)) throw new StepDefinitionError(`${step.id}: input step:${dep} names no step`);
  }
  // Depth-first topological order over the selected steps (dependencies of other areas are read from disk).
  const selected = steps.filter((s) => areas.includes(s.area));
  const order: Step[] = [];
  const mark = new Map<string, "visiting" | "done">();
  const visit = (step: Step, path: string[]): void => {
    const m = mark.get(step.id);
    if (m === "done") return;
    if (m === "visiting") throw new StepDefinitionError(`dependency cycle: ${[...path, step.id].join(" → ")}`);
    mark.set(step.id, "visiting");
    for (const dep of stepDeps(step.inputs)) {
      const d = byId.get(dep)!;
      if (areas.includes(d.area)) visit(d, [...path, step.id]);
    }
    mark.set(step.id, "done");
    order.push(step);
  };
  for (const step of selected) visit(step, []);
  return order;
}
