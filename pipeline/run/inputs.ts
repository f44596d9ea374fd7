/**
 * Digest the inputs. A step's input hash is `digestOf({id, version, inputs})`, `inputs` mapping each
 * declared input to its digest, and `code` to the digest of the step's code:
 *  - `ledger`: `sha256:<RFC 9162 root>@<size>` — O(log n) in the store, no scan;
 *  - `pulse`: `sha256:<root of the lines of data/pulse/history.jsonl>@<records>`, only the lines the
 *    signed checkpoint covers (core/pulse/published.ts, the API's and the indexer's rule);
 *  - `sources/<path>`: sha256 of the curated file;
 *  - `step:<id>`: sha256 of that step's output;
 *  - `code`: the step's module and the repository modules it imports (pipeline/step-code.ts), with
 *    the facts accumulator's for a document step fed the facts — when the run knows where it is.
 * A step is up to date when its area's manifest records the same input hash and its file still has
 * the recorded size and sha256 (the digest cache spares re-reading a file whose stat is unchanged).
 */
import { readFileSync } from "node:fs";
import { relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { digestOf, formatDigest } from "../../core/digest.ts";
import type { PulseRecord } from "../../core/pulse/history.ts";
import { checkPublished } from "../../core/pulse/published.ts";
import type { FileDigest } from "../../store/digest-cache.ts";
import { sourceFile } from "../layout.ts";
import { CodeDigests } from "../step-code.ts";
import type { Step } from "../step.ts";
import type { RunContext } from "./context.ts";
import { failStep, type Plan, type StepState } from "./plan.ts";

export interface LedgerInput {
  size: number;
  /** `sha256:<hex>` RFC 9162 root of the first `size` entries. */
  root: string;
  origin: string;
}

export type PulseInput = { records: PulseRecord[]; root: string } | { error: string };

const FACTS_MODULE = fileURLToPath(new URL("../facts/accumulate.ts", import.meta.url));

/** The default facts accumulator's module, relative to `root` with `/`; null when it is outside. */
export function factsModule(root: string): string | null {
  const facts = relative(root, FACTS_MODULE);
  return facts.startsWith("..") ? null : facts.split(sep).join("/");
}

/**
 * The modules whose code is a step's identity: its own module, and the facts accumulator for a
 * document step fed the one ledger pass's facts (`facts`: null when the run uses another).
 */
export function stepCodeModules(step: Step, module: string, facts: string | null): string[] {
  const fedFacts = step.kind === "document" && step.inputs.includes("ledger") && facts !== null;
  return fedFacts ? [module, facts] : [module];
}

export class Inputs {
  /** The ledger's size, root and origin, when a step reads the ledger. */
  ledger: LedgerInput | null = null;
  /** The published pulse history, when a step reads it. */
  readonly pulse: PulseInput | null = null;
  readonly #run: RunContext;
  readonly #plan: Plan;
  readonly #sources = new Map<string, string | Error>();
  readonly #code: CodeDigests | null;
  /** The default facts accumulator's module, relative to the code's root; null for another accumulator or root. */
  readonly #facts: string | null;

  constructor(run: RunContext, plan: Plan) {
    this.#run = run;
    this.#plan = plan;
    const code = run.options.code;
    this.#code = code ? new CodeDigests(code.root) : null;
    this.#facts = code && !run.options.accumulator ? factsModule(code.root) : null;
    const uses = (input: string) => [...plan.states.values()].some((s) => s.inputs.includes(input as never));
    if (uses("pulse")) this.pulse = pulseInput(run);
  }

  /** Reads what the plan's inputs need from the ledger (its size and root), before anything is digested. */
  async load(): Promise<this> {
    const uses = [...this.#plan.states.values()].some((s) => s.inputs.includes("ledger"));
    if (uses) this.ledger = await ledgerInput(this.#run);
    return this;
  }

  /** The published pulse records, when they verified. */
  get pulseRecords(): PulseRecord[] | null {
    return this.pulse && !("error" in this.pulse) ? this.pulse.records : null;
  }

  /** sha256 of a curated source, hashed once per run. */
  source(path: string): string {
    let d = this.#sources.get(path);
    if (d === undefined) {
      const file = sourceFile(this.#run.layout, path);
      const digest = this.#run.digests.digest(file);
      d = digest ? digest.hash : new Error(`input sources/${path}: ${file} not found`);
      this.#sources.set(path, d);
    }
    if (d instanceof Error) throw d;
    return d;
  }

  /** Fills in the step's input digests and hash; false while a step it depends on has not run yet. */
  hash(state: StepState): boolean {
    const digests: Record<string, string> = {};
    for (const input of state.inputs) {
      if (input === "ledger") digests[input] = `${this.ledger!.root}@${this.ledger!.size}`;
      else if (input === "pulse") {
        const pulse = this.pulse;
        if (!pulse || "error" in pulse) throw new Error(pulse ? pulse.error : "pulse history not loaded");
        digests[input] = `${pulse.root}@${pulse.records.length}`;
      } else if (input.startsWith("sources/")) digests[input] = this.source(input.slice(8));
      else {
        const d = this.#output(input.slice(5));
        if (d === undefined) return false;
        digests[input] = d;
      }
    }
    const code = this.#codeOf(state);
    if (code) digests.code = code;
    state.inputDigests = digests;
    state.inputsHash = digestOf({ id: state.step.id, version: state.step.version, inputs: digests });
    return true;
  }

  /** The file, when the area's manifest records this input hash and the file still has the recorded bytes. */
  upToDate(state: StepState): FileDigest | null {
    const record = this.#run.recorded(state.step.area)?.records.get(state.step.path);
    if (!record || record.inputsHash !== state.inputsHash) return null;
    const digest = this.#run.digests.digest(state.target);
    return digest && digest.bytes === record.bytes && digest.hash === record.hash ? digest : null;
  }

  /** The digest of the default facts accumulator's code, when the run knows where it is. */
  factsCode(): string | null {
    return this.#code && this.#facts ? this.#code.digest([this.#facts]) : null;
  }

  /** The digest of the step's code, when the run knows its module. */
  #codeOf(state: StepState): string | null {
    const module = this.#run.options.code?.modules.get(state.step);
    if (!module || !this.#code) return null;
    return this.#code.digest(stepCodeModules(state.step, module, this.#facts));
  }

  /** A step output's sha256: the run's own, or the file of a step outside the selected areas; undefined until it ran. */
  #output(id: string): string | undefined {
    const state = this.#plan.states.get(id);
    if (state) {
      if (state.phase === "failed") throw new Error(`input step:${id} failed`);
      if (state.phase === "fresh" || state.phase === "done") return state.output!.digest.hash;
      return undefined;
    }
    const target = this.#run.targetOf(this.#plan.byId.get(id)!);
    const digest = this.#run.digests.digest(target);
    if (!digest) throw new Error(`input step:${id}: ${target} does not exist (run its area first)`);
    return digest.hash;
  }
}

/** Marks every step whose inputs are unchanged since its area was published as fresh. */
export function markUpToDate(plan: Plan, inputs: Inputs): void {
  for (const state of plan.states.values()) skipIfUpToDate(state, inputs);
}

/** Fresh when up to date; a step whose inputs cannot be digested fails. */
export function skipIfUpToDate(state: StepState, inputs: Inputs): void {
  try {
    if (!inputs.hash(state)) return;
    const digest = inputs.upToDate(state);
    if (digest) {
      state.phase = "fresh";
      state.output = { digest, same: true };
    }
  } catch (error) {
    failStep(state, error);
  }
}

async function ledgerInput(run: RunContext): Promise<LedgerInput> {
  const { ledger } = run.options;
  const size = await ledger.size();
  const root = formatDigest(await ledger.rootHash(size));
  run.log(`ledger: ${size} entries, root ${root}`);
  return { size, root, origin: ledger.origin };
}

function pulseInput(run: RunContext): PulseInput {
  const { historyFile, checkpointFile, vkeyFile } = run.files;
  const text = (path: string) => readText(path);
  const check = checkPublished({
    historyText: text(historyFile) ?? "",
    checkpointText: text(checkpointFile),
    vkeyText: text(vkeyFile),
  });
  if (!check.signed) return { error: `${historyFile}: ${check.issues[0]?.message ?? "does not verify"}` };
  if (check.signed.size < check.lines.length)
    run.log(`pulse: ${check.lines.length - check.signed.size} line(s) after the signed checkpoint are not used`);
  return { records: check.signed.records, root: formatDigest(check.signed.rootHash) };
}

export function readText(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}
