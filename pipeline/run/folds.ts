/**
 * The folds a ledger pass continues instead of starting over (pipeline/pass/fold-state.ts): the
 * facts accumulator, and each stale rows step whose sink keeps a state. A fold continues from its
 * kept state when the run has a state folder, is not `--check`, knows the fold's code, and the
 * state was made by the same code and inputs at a watermark that is a prefix of the ledger; a rows
 * step also needs its published file to be the one its state describes (size and sha256). The pass
 * then starts at the earliest watermark among the folds it runs (the first entry when any of them
 * starts over), and every fold is fed only the entries after its own. After the pass each fold's
 * new state is kept at the ledger's size; a rows step that failed loses its state.
 */
import { join } from "node:path";
import { digestOf } from "../../core/digest.ts";
import type { FileDigest } from "../../store/digest-cache.ts";
import { createFactsAccumulator, type FactsAccumulator, type FactsSnapshot } from "../facts/accumulate.ts";
import {
  dropFoldState,
  loadFoldState,
  saveFoldState,
  stateFile,
  type FoldState,
  type Watermark,
} from "../pass/fold-state.ts";
import type { PassResult, StreamedResults } from "../pass/ledger-pass.ts";
import type { OutputResume } from "../pass/output-stager-worker.ts";
import type { RunContext } from "./context.ts";
import type { Inputs } from "./inputs.ts";
import type { StepState } from "./plan.ts";

/** The fold state of the facts accumulator's file name. */
const FACTS = "facts";

/** A rows step's kept fold: the output it wrote, the bytes before its closing text, its sink's state. */
interface RowsFold {
  digest: FileDigest;
  bodyBytes: number;
  sink: unknown;
}

/** How one rows step is fed in this pass. */
export interface RowsStart {
  /** The first entry its sink is fed. */
  from: number;
  /** Its kept prefix and sink state, when it continues. */
  resume?: OutputResume;
  sinkState?: unknown;
}

export interface Folds {
  accumulator: FactsAccumulator;
  factsFrom: number;
  /** Where the pass starts: the earliest watermark of the folds it runs, or the first entry. */
  start?: { size: number; edge: Uint8Array[] };
  rows: Map<StepState, RowsStart>;
  /** Keeps every fold's new state after a pass that succeeded. */
  save(
    pass: PassResult,
    streamed: StreamedResults,
    rows: readonly StepState[],
    ledger: { size: number; root: string },
  ): void;
}

/** What the facts fold is made by, or null when its code is unknown (then it is never kept). */
function factsIdentity(inputs: Inputs): string | null {
  const code = inputs.factsCode();
  return code ? digestOf({ fold: FACTS, code }) : null;
}

/** What a rows step's fold is made by: its id, version, code and every input but the ledger. */
function rowsIdentity(state: StepState): string | null {
  const digests = { ...state.inputDigests };
  if (!digests.code) return null;
  delete digests.ledger;
  return digestOf({ fold: state.step.id, version: state.step.version, inputs: digests });
}

export async function planFolds(
  run: RunContext,
  inputs: Inputs,
  rows: readonly StepState[],
  ledgerSize: number,
): Promise<Folds> {
  const dir = run.check ? undefined : run.options.stateDir;
  const newAccumulator = run.options.accumulator ?? createFactsAccumulator;
  const factsId = dir && !run.options.accumulator ? factsIdentity(inputs) : null;
  const ledger = run.options.ledger;
  const load = <T>(fold: string, identity: string | null) =>
    dir && identity ? loadFoldState<T>(stateFile(dir, fold), identity, ledger, ledgerSize, run.log) : null;

  const marks: (Watermark | null)[] = [];
  const facts = await load<FactsSnapshot>(FACTS, factsId);
  marks.push(facts?.watermark ?? null);
  const starts = new Map<StepState, RowsStart>();
  for (const state of rows) {
    const kept = await load<RowsFold>(state.step.id, rowsIdentity(state));
    const published = kept ? run.digests.digest(state.target) : null;
    const usable =
      kept !== null &&
      published !== null &&
      published.hash === kept.fold.digest.hash &&
      published.bytes === kept.fold.digest.bytes;
    if (kept && !usable) run.log(`${state.target}: not the file its fold state describes; full fold`);
    marks.push(usable ? kept.watermark : null);
    starts.set(
      state,
      usable
        ? {
            from: kept.watermark.size,
            resume: { from: state.target, bytes: kept.fold.bodyBytes, head: "", published: kept.fold.digest },
            sinkState: kept.fold.sink,
          }
        : { from: 0 },
    );
  }
  const earliest = marks.some((m) => m === null)
    ? null
    : (marks as Watermark[]).reduce((a, b) => (b.size < a.size ? b : a));
  return {
    accumulator: facts ? createFactsAccumulator(facts.fold) : newAccumulator(),
    factsFrom: facts?.watermark.size ?? 0,
    ...(earliest && earliest.size > 0 ? { start: { size: earliest.size, edge: earliest.edge } } : {}),
    rows: starts,
    save(pass, streamed, passRows, at) {
      if (!dir) return;
      const watermark: Watermark = { size: at.size, root: at.root, edge: streamed.edge };
      const keep = <T>(fold: string, state: FoldState<T>) => {
        try {
          saveFoldState(stateFile(dir, fold), state);
        } catch (error) {
          run.log(`${stateFile(dir, fold)}: not saved (${(error as Error).message}); the next run folds it whole`);
        }
      };
      const snapshot = pass.accumulator.snapshot?.();
      if (factsId && snapshot) keep(FACTS, { identity: factsId, watermark, fold: snapshot });
      passRows.forEach((state, i) => {
        const digest = streamed.outputs[i]!;
        const end = streamed.ends[i] ?? null;
        const identity = rowsIdentity(state);
        if (digest instanceof Error || !end || !identity) return dropFoldState(stateFile(dir, state.step.id));
        keep<RowsFold>(state.step.id, {
          identity,
          watermark,
          fold: { digest, bodyBytes: digest.bytes - end.endBytes, sink: end.state },
        });
      });
    },
  };
}

/** The state folder of the command line: `pipeline/` under the ledger's `.state/`. */
export function pipelineStateDir(stateDir: string): string {
  return join(stateDir, "pipeline");
}
