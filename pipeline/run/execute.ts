/**
 * Execute the stale steps: first the one pass over the ledger (pipeline/pass/ledger-pass.ts), which
 * builds the facts and streams every stale rows step, then the stale document steps in dependency
 * order. Only a step's declared inputs reach its generator; any other input it touches throws.
 */
import { createHash } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import type { PulseRecord } from "../../core/pulse/history.ts";
import type { LedgerFacts } from "../facts/types.ts";
import { readLedgerOnce, type StreamedOutput } from "../pass/ledger-pass.ts";
import { sourceFile } from "../layout.ts";
import type { LedgerSource } from "../manifest.ts";
import { createSourceReader } from "../source-reader.ts";
import type { GeneratorInputs, InputName, RowsStep, Step } from "../step.ts";
import type { FileDigest } from "../../store/digest-cache.ts";
import type { RunContext } from "./context.ts";
import { planFolds } from "./folds.ts";
import { skipIfUpToDate, type Inputs } from "./inputs.ts";
import { failStep, outputBytes, stepDeps, type Plan, type StepState } from "./plan.ts";

export interface PassOutcome {
  /** Whether the ledger was read, and how many entries. */
  ran: boolean;
  read: number;
  facts: LedgerFacts | null;
  /**
   * Resolves once the entries read are known to be the ledger's (the helper answers the root) and
   * every streamed output is finished and its step done or failed; rejects when they are not the
   * ledger's or the helper died. Document steps that do not read a streamed output run meanwhile
   * (`runDocumentSteps`), in memory: nothing may be published or kept before it resolves.
   */
  streamed: Promise<void>;
}

/**
 * The ledger pass runs when a stale step reads the ledger, or when an area that reads it has no
 * manifest recording the current ledger (its `created` and ledger source come from the facts).
 */
export async function runLedgerPass(run: RunContext, plan: Plan, inputs: Inputs): Promise<PassOutcome> {
  const ledger = inputs.ledger;
  const states = [...plan.states.values()];
  const stale = states.some((s) => s.phase === "stale" && s.inputs.includes("ledger"));
  const unrecorded = plan.areas.some(
    (a) => states.some((s) => s.step.area === a && s.inputs.includes("ledger")) && !recordedLedger(run, inputs, a),
  );
  if (!ledger || !(stale || unrecorded)) return { ran: false, read: 0, facts: null, streamed: Promise.resolve() };

  const staleRows = states.filter((s) => s.phase === "stale" && s.step.kind === "rows");
  const folds = await planFolds(run, inputs, staleRows, ledger.size);
  const rows: { state: StepState; output: StreamedOutput }[] = [];
  for (const state of staleRows) {
    const step = state.step as RowsStep;
    const start = folds.rows.get(state)!;
    try {
      const { head, sink } = step.start(generatorInputs(run, inputs, step, state.inputs, null), start.sinkState);
      const output: StreamedOutput = {
        tmp: run.stagePath(state.target),
        head,
        sink,
        check: run.schemas.streamCheck(step, state.target),
        from: start.from,
        ...(start.resume ? { resume: { ...start.resume, head } } : {}),
      };
      rows.push({ state, output });
    } catch (error) {
      failStep(state, error);
    }
  }
  markTablesOfItems(rows);
  const from = folds.start?.size ?? 0;
  run.log(
    `reading the ledger once: ${from > 0 ? `entries ${from}–${ledger.size - 1} of ${ledger.size} (the rest is folded already)` : `${ledger.size} entries`}${rows.length > 0 ? `, streaming ${rows.map((r) => r.state.step.id).join(", ")}` : ""}`,
  );
  const pass = await readLedgerOnce({
    ledger: run.options.ledger,
    size: ledger.size,
    root: ledger.root,
    accumulator: folds.accumulator,
    outputs: rows.map((r) => r.output),
    ...(folds.start ? { start: folds.start } : {}),
    factsFrom: folds.factsFrom,
  });
  const streamed = pass.outputs.then((results) => {
    folds.save(
      pass,
      results,
      rows.map((r) => r.state),
      ledger,
    );
    rows.forEach(({ state, output }, i) => {
      const digest = results.outputs[i]!;
      if (digest instanceof Error) return failStep(state, digest);
      const same = sameAsPublished(run, state, digest);
      if (same) rmSync(output.tmp, { force: true });
      state.output = { digest, same, ...(same ? {} : { tmp: output.tmp }) };
      state.phase = "done";
    });
  });
  // The runner removes the staged files its steps hold; if taking the results failed, none holds them.
  streamed.catch(() => {
    for (const { output } of rows) rmSync(output.tmp, { force: true });
  });
  return { ran: true, read: pass.read, facts: pass.facts, streamed };
}

/**
 * Points each CSV table with `rowsOf` at its JSON output when both are in this pass and folded from
 * the same entry (both continued or both whole), and moves such tables after every other output.
 */
function markTablesOfItems(rows: { state: StepState; output: StreamedOutput }[]): void {
  const madeOf = (r: (typeof rows)[number]) => {
    const id = (r.state.step as RowsStep).rowsOf;
    const source = id === undefined ? undefined : rows.find((s) => s.state.step.id === id);
    const same =
      source &&
      source.output.from === r.output.from &&
      !!source.output.resume === !!r.output.resume &&
      source.output.check?.kind === "json-array" &&
      r.output.check?.kind === "csv" &&
      // The table skips its row schema for a row that reads back as the validated item: the same schema.
      source.output.check.schemaId === r.output.check.schemaId;
    return same ? source : undefined;
  };
  // One table per source (the helper feeds one): a second table naming a taken source uses its sink.
  const taken = new Set<(typeof rows)[number]>();
  const sources = new Map(
    rows.map((r) => {
      const source = madeOf(r);
      if (!source || taken.has(source)) return [r, undefined];
      taken.add(source);
      return [r, source];
    }),
  );
  rows.sort((a, b) => Number(sources.get(a) !== undefined) - Number(sources.get(b) !== undefined));
  rows.forEach((r) => {
    const source = sources.get(r);
    if (source) r.output.rowsOf = rows.indexOf(source);
  });
}

/**
 * Runs the stale document steps, dependencies first; a step whose inputs turn out unchanged is
 * fresh. With `ready` false, a step that reads an output still being made (a streamed output not
 * finished, or a step left for that reason) is left stale for a later call.
 */
export function runDocumentSteps(
  run: RunContext,
  plan: Plan,
  inputs: Inputs,
  facts: LedgerFacts | null,
  ready = true,
): void {
  for (const step of plan.order) {
    const state = plan.states.get(step.id)!;
    if (step.kind !== "document" || state.phase !== "stale") continue;
    if (!ready && stepDeps(state.inputs).some((dep) => plan.states.get(dep)?.phase === "stale")) continue;
    // Its step inputs have run by now: digest them, and skip the step if that makes it up to date.
    skipIfUpToDate(state, inputs);
    if (state.phase !== "stale") continue;
    if (!state.inputsHash) {
      failStep(state, new Error("unreachable: dependencies run first"));
      continue;
    }
    try {
      const outputs = new Map<string, Uint8Array>();
      for (const dep of stepDeps(state.inputs)) outputs.set(dep, bytesOf(run, plan, dep));
      const generated = step.generate(generatorInputs(run, inputs, step, state.inputs, facts), outputs);
      const bytes = typeof generated === "string" ? Buffer.from(generated, "utf8") : generated;
      run.schemas.validate(step, state.target, bytes);
      const digest = sha256Digest(bytes);
      state.output = { digest, bytes, same: sameAsPublished(run, state, digest) };
      state.phase = "done";
    } catch (error) {
      failStep(state, error);
    }
  }
}

/** The area's manifest records the ledger as it is now: the facts are not needed for its sources. */
export function recordedLedger(run: RunContext, inputs: Inputs, area: Step["area"]): LedgerSource | null {
  const l = run.recorded(area)?.ledger ?? null;
  return l && inputs.ledger && l.root === inputs.ledger.root && l.size === inputs.ledger.size ? l : null;
}

function sameAsPublished(run: RunContext, state: StepState, digest: FileDigest): boolean {
  const current = run.digests.digest(state.target);
  return current !== null && current.hash === digest.hash && current.bytes === digest.bytes;
}

function sha256Digest(bytes: Uint8Array): FileDigest {
  return { bytes: bytes.length, hash: `sha256:${createHash("sha256").update(bytes).digest("hex")}` };
}

/** Another step's output: generated in this run, staged, or the published file. */
function bytesOf(run: RunContext, plan: Plan, id: string): Uint8Array {
  const state = plan.states.get(id);
  return state ? outputBytes(state) : readFileSync(run.targetOf(plan.byId.get(id)!));
}

function generatorInputs(
  run: RunContext,
  inputs: Inputs,
  step: Step,
  declared: readonly InputName[],
  facts: LedgerFacts | null,
): GeneratorInputs {
  const allowed = new Set(declared.filter((i) => i.startsWith("sources/")).map((i) => i.slice(8)));
  const sources = createSourceReader((path) => sourceFile(run.layout, path), {
    allowed,
    reader: step.id,
    label: run.files.sourcesDir,
  });
  const pulse =
    declared.includes("pulse") && inputs.pulseRecords
      ? inputs.pulseRecords
      : undeclared(step.id, "pulse", [] as PulseRecord[]);
  const factsInput = declared.includes("ledger") && facts ? facts : undeclared(step.id, "ledger", {} as LedgerFacts);
  return { facts: factsInput, pulse, sources };
}

/** Throws on any use: handed to a generator in place of an input it did not declare. */
function undeclared<T extends object>(stepId: string, input: string, shape: T): T {
  return new Proxy(shape, {
    get(_target, property) {
      if (property === "then") return undefined;
      throw new Error(`${stepId} reads the ${input} but does not declare "${input}" as an input`);
    },
  });
}
