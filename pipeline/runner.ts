/**
 * The pipeline runner: turns the steps (pipeline/step.ts) into the files of `data/areas/<area>/`,
 * their manifests (pipeline/manifest.ts) and signatures (pipeline/sign.ts). I/O is injected: the
 * ledger is any LedgerReader, the data folder a path, the signing key a loader called only when a
 * manifest must be signed.
 *
 * Inputs and their digests (the step's input hash is `digestOf({id, version, inputs})`, `inputs`
 * mapping each declared input name to its digest; a rows step always has the ledger as input):
 *  - `ledger`: `sha256:<RFC 9162 root>@<size>`, from `rootHash()` and `size()` — O(log n) in the
 *    store, no scan;
 *  - `pulse`: `sha256:<root of the lines of data/pulse/history.jsonl>@<records>`: only the lines the
 *    signed checkpoint covers, checked with core/pulse/published.ts (the API's and the indexer's rule);
 *  - `sources/<path>`: sha256 of `data/sources/<path>`;
 *  - `step:<id>`: sha256 of that step's output bytes.
 *
 * A step is skipped when its input hash equals the one its area's manifest records and its file
 * still has the recorded size and sha256 (store/digest-cache.ts DigestCache spares re-reading files whose
 * stat has not changed since they were hashed). When every step that reads the ledger is up to date
 * the ledger is not read at all. Otherwise there is exactly one streaming pass over the ledger
 * (pipeline/pass/ledger-pass.ts): every entry goes to the facts accumulator and to the sink of every
 * stale rows step, while a helper thread rehashes the entries against the ledger's root and
 * validates, hashes and stages the streamed text. Then the stale document steps run in dependency
 * order.
 *
 * Every output is validated before it is written: JSON against `data/schemas/<schema>.schema.json`
 * (ajv), CSV against the Table Schema derived from the row schema and against the row schema itself
 * (pipeline/verify.ts, the same code a downloader runs). Outputs are staged as temporary files in
 * their own folder and renamed into place area by area, only when every step of the area succeeded;
 * a failed area keeps its previous files, manifest and signature untouched.
 *
 * `check: true` computes everything from scratch (no step is skipped, the ledger is read), writes
 * nothing into the data folder (staging goes to the OS temp folder) and reports every output whose
 * bytes differ from the file, every manifest that is missing or different and every file a manifest
 * lists that no step produces any more. Signatures are not byte-compared — a fresh clone signs with
 * another development key — but verified against the published keys (data/keys/datasets.vkey).
 */
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync, writeSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { digestOf, formatDigest } from "../core/digest.ts";
import type { LedgerEntry } from "../core/ledger/entry.ts";
import type { LedgerReader } from "../core/ledger/store.ts";
import type { PulseRecord } from "../core/pulse/history.ts";
import type { NoteSigner } from "../core/checkpoint.ts";
import { createFactsAccumulator, type FactsAccumulator } from "./facts/accumulate.ts";
import type { LedgerFacts } from "./facts/types.ts";
import {
  MANIFEST_FILE,
  buildManifest,
  buildResource,
  readManifest,
  renderManifest,
  tableSchemaFromJsonSchema,
  type LedgerSource,
  type PreviousManifest,
  type ResourceDescriptor,
  type TableSchema,
} from "./manifest.ts";
import { areaFile } from "../core/datapackage/contract.ts";
import { checkPublished } from "../core/pulse/published.ts";
import { outputFile, sourceFile, type DataLayout } from "./layout.ts";
import { SIGNATURE_SUFFIX, ensureTrustedKey, parseTrustedKeys, signManifest, verifyManifestSignature } from "./sign.ts";
import { checkSourcePath, createSourceReader } from "./source-reader.ts";
import { AREAS, type Area, type DocumentStep, type InputName, type RowsStep, type Step } from "./step.ts";
import type { OutputCheck } from "./pass/rehash-and-stage-worker.ts";
import { readLedgerOnce, type StreamedOutput } from "./pass/ledger-pass.ts";
import { DigestCache, type FileDigest } from "../store/digest-cache.ts";
import { CsvValidator } from "./validate/csv-table.ts";
import { DataError } from "./validate/data-error.ts";
import type { JsonArraySchema } from "./validate/json-array.ts";
import { validateJsonBytes } from "./validate/json-document.ts";
import { JsonSchemaSet } from "./validate/json-schemas.ts";

export interface RunOptions {
  /** The data folder: areas/, sources/, pulse/, schemas/, keys/ beneath it. */
  dataDir: string;
  /** Where keyed outputs and keyed sources are (pipeline/layout.ts); default dataDir. */
  keyedDataDir?: string;
  ledger: LedgerReader;
  steps: readonly Step[];
  /** Only these areas (default: all five). */
  areas?: readonly Area[];
  check?: boolean;
  log: (line: string) => void;
  /** Loads the dataset signing key; called only when a manifest must be (re)signed. */
  signingKey?: () => NoteSigner & { publicKeyHex: string };
  /** Append the signing key to data/keys/datasets.vkey when that file exists without it. */
  trustNewKey?: boolean;
  /**
   * A file (under `.state/`) where the sha256 of the data files is remembered with their stat
   * (store/digest-cache.ts), so that a run with nothing new does not re-read them. Unused by --check.
   */
  digestCache?: string;
  /** The facts accumulator (default pipeline/facts/accumulate.ts). */
  accumulator?: () => FactsAccumulator;
}

/** "blocked": the step succeeded but its area was not written because another of its steps failed. */
export type StepStatus = "written" | "unchanged" | "failed" | "blocked" | "differs" | "matches";

export interface StepReport {
  id: string;
  file: string;
  status: StepStatus;
  reason?: string;
}

export interface RunReport {
  ok: boolean;
  steps: StepReport[];
  /** Manifests and signatures written, orphans removed (normal mode). */
  written: string[];
  /** --check: files that differ, are missing or stale, and signatures that do not verify. */
  differences: string[];
  /** Entries read from the ledger (0 when it was not read). */
  ledgerEntries: number;
  ledgerRead: boolean;
}

/** A problem with the step definitions themselves: nothing runs. */
export class StepDefinitionError extends Error {
  override name = "StepDefinitionError";
}

// ---------------------------------------------------------------------------------------------

interface Output {
  digest: FileDigest;
  /** Document bytes in memory, or a staged temporary file. */
  bytes?: Uint8Array;
  tmp?: string;
  /** The bytes equal the file already in place: nothing to write. */
  same: boolean;
}

interface StepState {
  step: Step;
  inputs: InputName[];
  target: string;
  /** "fresh": up to date on disk; "stale": to run; "done": ran; "failed". */
  phase: "fresh" | "stale" | "done" | "failed";
  inputDigests?: Record<string, string>;
  inputsHash?: string;
  output?: Output;
  reason?: string;
}

const TMP_SUFFIX = ".tmp";

function effectiveInputs(step: Step): InputName[] {
  const inputs = [...step.inputs];
  if (step.kind === "rows" && !inputs.includes("ledger")) inputs.unshift("ledger");
  return inputs;
}

function stepDeps(inputs: readonly InputName[]): string[] {
  return inputs.filter((i) => i.startsWith("step:")).map((i) => i.slice(5));
}

function sha256Digest(bytes: Uint8Array): FileDigest {
  return { bytes: bytes.length, hash: `sha256:${createHash("sha256").update(bytes).digest("hex")}` };
}

/** Checks the step list and returns the selected steps in dependency order. */
export function planSteps(steps: readonly Step[], areas: readonly Area[], schemas: JsonSchemaSet): Step[] {
  const byId = new Map<string, Step>();
  const names = new Set<string>();
  for (const step of steps) {
    if (byId.has(step.id)) throw new StepDefinitionError(`two steps have the id ${step.id}`);
    if (!(AREAS as readonly string[]).includes(step.area)) throw new StepDefinitionError(`${step.id}: unknown area ${step.area}`);
    try {
      checkSourcePath(step.path);
    } catch {
      throw new StepDefinitionError(`${step.id}: path ${JSON.stringify(step.path)} is not a relative path inside the area`);
    }
    if (step.id !== `${step.area}/${step.path}`) throw new StepDefinitionError(`${step.id}: the id must be "${step.area}/${step.path}"`);
    // Every output is a file of the published-data contract, with the contract's tier and type.
    const file = areaFile(step.area, step.path);
    if (!file) throw new StepDefinitionError(`${step.id}: ${step.area} publishes no file ${step.path} (core/datapackage/contract.ts)`);
    if (file.access !== step.access || file.mediatype !== step.mediatype) {
      throw new StepDefinitionError(`${step.id}: access ${step.access} and mediatype ${step.mediatype} differ from the contract's ${file.access} and ${file.mediatype}`);
    }
    if (step.path === MANIFEST_FILE || step.path.endsWith(SIGNATURE_SUFFIX) || step.path.endsWith(TMP_SUFFIX)) {
      throw new StepDefinitionError(`${step.id}: the path is reserved`);
    }
    if (!/^[a-z0-9._-]+$/.test(step.name)) throw new StepDefinitionError(`${step.id}: resource name ${JSON.stringify(step.name)} must match [a-z0-9._-]+`);
    if (names.has(`${step.area}\n${step.name}`)) throw new StepDefinitionError(`${step.id}: resource name ${step.name} is used twice in ${step.area}`);
    names.add(`${step.area}\n${step.name}`);
    if (!Number.isSafeInteger(step.version) || step.version < 0) throw new StepDefinitionError(`${step.id}: version must be a non-negative integer`);
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
        if (step.kind === "rows") throw new StepDefinitionError(`${step.id}: a rows step is fed the ledger; it cannot depend on ${input}`);
        continue;
      }
      throw new StepDefinitionError(`${step.id}: unknown input ${JSON.stringify(input)}`);
    }
    byId.set(step.id, step);
  }
  for (const step of steps) {
    for (const dep of stepDeps(step.inputs)) if (!byId.has(dep)) throw new StepDefinitionError(`${step.id}: input step:${dep} names no step`);
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

/** Throws on any use: handed to a generator in place of an input it did not declare. */
function undeclared<T extends object>(stepId: string, input: string, shape: T): T {
  return new Proxy(shape, {
    get(_target, property) {
      if (property === "then") return undefined;
      throw new Error(`${stepId} reads the ${input} but does not declare "${input}" as an input`);
    },
  });
}

function writeAtomic(path: string, data: Uint8Array | string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}${TMP_SUFFIX}`);
  try {
    writeFileSync(tmp, data);
    renameSync(tmp, path);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
}

function readIfExists(path: string): Buffer | null {
  try {
    return readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

function messageOf(error: unknown, file: string): string {
  if (error instanceof DataError) return error.message;
  const message = error instanceof Error ? error.message : String(error);
  return message.includes(file) ? message : `${file}: ${message}`;
}

// ---------------------------------------------------------------------------------------------

export async function runPipeline(options: RunOptions): Promise<RunReport> {
  const { dataDir, ledger, log } = options;
  const check = options.check ?? false;
  const areas = options.areas ?? AREAS;
  const areasDir = join(dataDir, "areas");
  const sourcesDir = join(dataDir, "sources");
  const historyFile = join(dataDir, "pulse", "history.jsonl");
  const checkpointFile = join(dataDir, "pulse", "checkpoint");
  const vkeyFile = join(dataDir, "keys", "datasets.vkey");
  const schemas = new JsonSchemaSet(join(dataDir, "schemas"), { formats: "fast" });
  // --check hashes every file; a normal run trusts what it hashed before while stat agrees.
  const digests = new DigestCache({ ...(options.digestCache ? { file: options.digestCache } : {}), trust: !check });
  const order = planSteps(options.steps, areas, schemas);
  const allById = new Map(options.steps.map((s) => [s.id, s]));
  const layout: DataLayout = { dataDir, ...(options.keyedDataDir ? { keyedDataDir: options.keyedDataDir } : {}) };
  const targetOf = (step: Step) => outputFile(layout, step.area, step.path);
  const stageDir = check ? mkdtempSync(join(tmpdir(), "pipeline-check-")) : null;
  const stagePath = (target: string) =>
    stageDir ? join(stageDir, target.replaceAll("/", "_")) : join(dirname(target), `.${basename(target)}.${process.pid}${TMP_SUFFIX}`);

  const report: RunReport = { ok: true, steps: [], written: [], differences: [], ledgerEntries: 0, ledgerRead: false };
  const states = new Map<string, StepState>();
  const previous = new Map<Area, PreviousManifest | null>();
  const activeAreas = areas.filter((a) => order.some((s) => s.area === a));
  for (const area of areas) if (!activeAreas.includes(area)) log(`${area}: no steps`);
  for (const area of activeAreas) previous.set(area, check ? null : readManifest(join(areasDir, area, MANIFEST_FILE)));
  let pulse: { records: PulseRecord[]; root: string } | { error: string } | null = null;

  try {
    // --- base inputs, each computed once and only if a step declares it
    const uses = (input: string) => order.some((s) => effectiveInputs(s).some((i) => i === input));
    let ledgerDigest: { size: number; root: string; origin: string } | null = null;
    if (uses("ledger")) {
      const size = ledger.size();
      const root = formatDigest(ledger.rootHash(size));
      ledgerDigest = { size, root, origin: ledger.origin };
      log(`ledger: ${size} entries, root ${root}`);
    }
    if (uses("pulse")) {
      // The same rule as the API and npm run pulse (core/pulse/published.ts): only the lines the
      // signed checkpoint covers feed a signed manifest.
      const text = (path: string) => readIfExists(path)?.toString("utf8") ?? null;
      const check = checkPublished({ historyText: text(historyFile) ?? "", checkpointText: text(checkpointFile), vkeyText: text(vkeyFile) });
      const first = check.issues[0];
      if (!check.signed) {
        pulse = { error: `${historyFile}: ${first?.message ?? "does not verify"}` };
      } else {
        if (check.signed.size < check.lines.length) log(`pulse: ${check.lines.length - check.signed.size} line(s) after the signed checkpoint are not used`);
        pulse = { records: check.signed.records, root: formatDigest(check.signed.rootHash) };
      }
    }
    const sourceDigests = new Map<string, string | Error>();
    const sourceDigest = (path: string): string => {
      let d = sourceDigests.get(path);
      if (d === undefined) {
        const file = sourceFile(layout, path);
        const digest = digests.digest(file);
        d = digest ? digest.hash : new Error(`input sources/${path}: ${file} not found`);
        sourceDigests.set(path, d);
      }
      if (d instanceof Error) throw d;
      return d;
    };
    const outputDigest = (id: string): string | undefined => {
      const state = states.get(id);
      if (state) {
        if (state.phase === "failed") throw new Error(`input step:${id} failed`);
        if (state.phase === "fresh" || state.phase === "done") return state.output!.digest.hash;
        return undefined; // not run yet
      }
      const dep = allById.get(id)!;
      const digest = digests.digest(targetOf(dep));
      if (!digest) throw new Error(`input step:${id}: ${targetOf(dep)} does not exist (run its area first)`);
      return digest.hash;
    };
    /** The input digests and hash, or undefined while a step dependency has not run yet. */
    const inputsOf = (state: StepState): boolean => {
      const digests: Record<string, string> = {};
      for (const input of state.inputs) {
        if (input === "ledger") digests[input] = `${ledgerDigest!.root}@${ledgerDigest!.size}`;
        else if (input === "pulse") {
          if (!pulse || "error" in pulse) throw new Error(pulse ? pulse.error : "pulse history not loaded");
          digests[input] = `${pulse.root}@${pulse.records.length}`;
        } else if (input.startsWith("sources/")) digests[input] = sourceDigest(input.slice(8));
        else {
          const d = outputDigest(input.slice(5));
          if (d === undefined) return false;
          digests[input] = d;
        }
      }
      state.inputDigests = digests;
      state.inputsHash = digestOf({ id: state.step.id, version: state.step.version, inputs: digests });
      return true;
    };
    const fail = (state: StepState, error: unknown) => {
      state.phase = "failed";
      state.reason = messageOf(error, state.target);
    };
    /** Up to date: the manifest records this input hash and the file still has the recorded bytes. */
    const upToDate = (state: StepState): FileDigest | null => {
      const record = previous.get(state.step.area)?.records.get(state.step.path);
      if (!record || record.inputsHash !== state.inputsHash) return null;
      const digest = digests.digest(state.target);
      return digest && digest.bytes === record.bytes && digest.hash === record.hash ? digest : null;
    };

    // --- plan: what is up to date
    for (const step of order) {
      const state: StepState = { step, inputs: effectiveInputs(step), target: targetOf(step), phase: "stale" };
      states.set(step.id, state);
      try {
        if (!check && inputsOf(state)) {
          const digest = upToDate(state);
          if (digest) {
            state.phase = "fresh";
            state.output = { digest, same: true };
          }
        }
      } catch (error) {
        fail(state, error);
      }
    }
    // An area whose manifest lacks the current ledger's asOf needs the pass for its `created`.
    const ledgerAreas = activeAreas.filter((a) => order.some((s) => s.area === a && effectiveInputs(s).includes("ledger")));
    const recordedLedger = (area: Area): LedgerSource | null => {
      const l = previous.get(area)?.ledger ?? null;
      return l && ledgerDigest && l.root === ledgerDigest.root && l.size === ledgerDigest.size ? l : null;
    };
    const needPass =
      ledgerDigest !== null &&
      ([...states.values()].some((s) => s.phase === "stale" && s.inputs.includes("ledger")) || ledgerAreas.some((a) => !recordedLedger(a)));

    // --- the one pass over the ledger (pipeline/pass/ledger-pass.ts)
    let facts: LedgerFacts | null = null;
    if (needPass && ledgerDigest) {
      const rows: { state: StepState; output: StreamedOutput }[] = [];
      for (const state of states.values()) {
        if (state.phase !== "stale" || state.step.kind !== "rows") continue;
        const step = state.step;
        try {
          if (!inputsOf(state)) throw new Error("unreachable: a rows step has no step inputs");
          const { head, sink } = step.start(generatorInputs(step, state.inputs, null));
          rows.push({ state, output: { tmp: stagePath(state.target), head, sink, check: streamCheck(step, state.target) } });
        } catch (error) {
          fail(state, error);
        }
      }
      log(`reading the ledger once: ${ledgerDigest.size} entries${rows.length > 0 ? `, streaming ${rows.map((r) => r.state.step.id).join(", ")}` : ""}`);
      const pass = await readLedgerOnce({
        ledger,
        size: ledgerDigest.size,
        root: ledgerDigest.root,
        accumulator: (options.accumulator ?? createFactsAccumulator)(),
        outputs: rows.map((r) => r.output),
      });
      report.ledgerRead = true;
      report.ledgerEntries = pass.read;
      facts = pass.facts;
      rows.forEach(({ state, output }, i) => {
        const digest = pass.outputs[i]!;
        if (digest instanceof Error) return fail(state, digest);
        const current = digests.digest(state.target);
        const same = current !== null && current.hash === digest.hash && current.bytes === digest.bytes;
        if (same && !check) rmSync(output.tmp, { force: true });
        state.output = { digest, same, ...(same && !check ? {} : { tmp: output.tmp }) };
        state.phase = "done";
      });
    }

    // --- documents, in dependency order
    for (const step of order) {
      const state = states.get(step.id)!;
      if (step.kind !== "document" || state.phase !== "stale") continue;
      try {
        if (!inputsOf(state)) throw new Error("unreachable: dependencies run first");
        if (!check) {
          const digest = upToDate(state);
          if (digest) {
            state.phase = "fresh";
            state.output = { digest, same: true };
            continue;
          }
        }
        const outputs = new Map<string, Uint8Array>();
        for (const dep of stepDeps(state.inputs)) outputs.set(dep, bytesOf(dep));
        const generated = step.generate(generatorInputs(step, state.inputs, facts), outputs);
        const bytes = typeof generated === "string" ? Buffer.from(generated, "utf8") : generated;
        validateOutput(step, state.target, bytes);
        const digest = sha256Digest(bytes);
        const current = digests.digest(state.target);
        const same = current !== null && current.hash === digest.hash && current.bytes === digest.bytes;
        state.output = { digest, bytes, same };
        state.phase = "done";
      } catch (error) {
        fail(state, error);
      }
    }

    // --- commit (or compare), area by area
    const trusted = (() => {
      const text = readIfExists(vkeyFile);
      try {
        return text ? parseTrustedKeys(text.toString("utf8"), vkeyFile) : [];
      } catch {
        return [];
      }
    })();
    let written = 0;
    let unchanged = 0;
    let failed = 0;
    for (const area of activeAreas) {
      const areaStates = order.filter((s) => s.area === area).map((s) => states.get(s.id)!);
      const manifestFile = join(areasDir, area, MANIFEST_FILE);
      const sigFile = manifestFile + SIGNATURE_SUFFIX;
      const prev = check ? readManifest(manifestFile) : previous.get(area)!;
      const orphans = [...(prev?.records.keys() ?? [])].filter((p) => !areaStates.some((s) => s.step.path === p));
      const printFailure = (reason: string) => {
        for (const s of areaStates) {
          if (s.phase === "failed") {
            failed += 1;
            log(`${s.step.id} … FAILED: ${s.reason}`);
            report.steps.push({ id: s.step.id, file: s.target, status: "failed", reason: s.reason! });
          } else {
            log(`${s.step.id} … not written (${reason})`);
            report.steps.push({ id: s.step.id, file: s.target, status: "blocked", reason });
          }
        }
        report.ok = false;
      };
      if (areaStates.some((s) => s.phase === "failed")) {
        printFailure(`nothing of ${area} is written because a step failed`);
        continue;
      }
      let manifestText: string;
      try {
        const used = new Set(areaStates.flatMap((s) => s.inputs));
        const ledgerSource: LedgerSource | undefined = used.has("ledger")
          ? facts
            ? { origin: ledgerDigest!.origin, size: facts.size, root: facts.rootHash, asOf: facts.asOf, sample: facts.sample }
            : { ...recordedLedger(area)!, origin: ledgerDigest!.origin }
          : undefined;
        const pulseSource = used.has("pulse") && pulse && !("error" in pulse) ? { records: pulse.records.length, root: pulse.root } : undefined;
        const curated: Record<string, string> = {};
        for (const input of used) if (input.startsWith("sources/")) curated[input.slice(8)] = sourceDigest(input.slice(8));
        const times = [ledgerSource?.asOf, ...(used.has("pulse") && pulse && !("error" in pulse) ? pulse.records.map((r) => r.generatedAt) : [])]
          .filter((t): t is string => typeof t === "string")
          .sort((a, b) => Date.parse(a) - Date.parse(b));
        const created = times[times.length - 1] ?? null;
        const resources: ResourceDescriptor[] = areaStates.map((s) =>
          buildResource({
            step: s.step,
            bytes: s.output!.digest.bytes,
            hash: s.output!.digest.hash,
            inputsHash: s.inputsHash!,
            inputs: s.inputDigests!,
            ...(s.step.schema ? { jsonSchema: jsonSchemaOf(s.step) } : {}),
            ...(s.step.mediatype === "text/csv" ? { tableSchema: tableSchemaOf(s.step) } : {}),
          }),
        );
        manifestText = renderManifest(
          buildManifest({
            area,
            resources,
            ...(ledgerSource ? { ledger: ledgerSource } : {}),
            ...(pulseSource ? { pulse: pulseSource } : {}),
            curated,
            created,
          }),
        );
      } catch (error) {
        for (const s of areaStates) [s.phase, s.reason] = ["failed", messageOf(error, manifestFile)];
        printFailure(messageOf(error, manifestFile));
        continue;
      }
      const manifestOnDisk = readIfExists(manifestFile);
      const manifestSame = manifestOnDisk !== null && manifestOnDisk.toString("utf8") === manifestText;
      const signatureProblem = (bytes: Uint8Array | string): string | null => {
        const sig = readIfExists(sigFile);
        if (!sig) return `${sigFile}: missing`;
        try {
          verifyManifestSignature(area, bytes, sig.toString("utf8"), trusted);
          return null;
        } catch (error) {
          return `${sigFile}: ${(error as Error).message}`;
        }
      };

      if (check) {
        for (const s of areaStates) {
          const same = s.output!.same;
          if (!same) report.differences.push(s.target);
          log(`${s.step.id} … ${same ? "matches" : existsSync(s.target) ? "DIFFERS from the file" : "MISSING"}`);
          report.steps.push({ id: s.step.id, file: s.target, status: same ? "matches" : "differs" });
          if (same) unchanged += 1;
          else written += 1;
        }
        for (const p of orphans) {
          report.differences.push(outputFile(layout, area, p));
          log(`${outputFile(layout, area, p)} … STALE: listed in the manifest, produced by no step`);
        }
        if (!manifestSame) {
          report.differences.push(manifestFile);
          log(`${manifestFile} … ${manifestOnDisk ? "DIFFERS (stale manifest)" : "MISSING"}`);
        } else {
          const problem = signatureProblem(manifestText);
          if (problem) {
            report.differences.push(sigFile);
            log(`${problem}`);
          }
        }
        continue;
      }

      // Sign first (the key must be trusted), then move everything into place.
      let signature: string | null = null;
      try {
        if (!manifestSame || signatureProblem(manifestText) !== null) {
          if (!options.signingKey) throw new Error("no dataset signing key configured");
          const key = options.signingKey();
          const trust = ensureTrustedKey(vkeyFile, key, options.trustNewKey ?? false);
          if (trust.action !== "present") {
            log(`${vkeyFile}: ${trust.action === "created" ? "created with" : "added"} ${trust.vkey}`);
            report.written.push(vkeyFile);
            trusted.push({ name: key.name, publicKeyHex: key.publicKeyHex });
          }
          signature = signManifest(area, manifestText, key);
        }
      } catch (error) {
        for (const s of areaStates) [s.phase, s.reason] = ["failed", `signing failed: ${(error as Error).message}`];
        printFailure(`signing failed: ${(error as Error).message}`);
        continue;
      }
      for (const s of areaStates) {
        const out = s.output!;
        if (!out.same) {
          if (out.tmp) {
            mkdirSync(dirname(s.target), { recursive: true });
            renameSync(out.tmp, s.target);
          } else writeAtomic(s.target, out.bytes!);
          digests.remember(s.target, out.digest);
          written += 1;
        } else unchanged += 1;
        log(`${s.step.id} … ${out.same ? "unchanged" : "written"}`);
        report.steps.push({ id: s.step.id, file: s.target, status: out.same ? "unchanged" : "written" });
      }
      for (const p of orphans) {
        const file = outputFile(layout, area, p);
        if (existsSync(file)) unlinkSync(file);
        log(`${file} … removed (no step produces it any more)`);
        report.written.push(file);
      }
      if (!manifestSame) {
        writeAtomic(manifestFile, manifestText);
        report.written.push(manifestFile);
        log(`${manifestFile} … written`);
      }
      if (signature !== null) {
        writeAtomic(sigFile, signature);
        report.written.push(sigFile);
        log(`${sigFile} … signed`);
      }
    }
    if (check) {
      log(`check: ${written} differ, ${unchanged} match, ${failed} failed${report.differences.length > 0 ? "" : " — data/ is what the pipeline produces"}`);
      for (const d of report.differences) log(`  differs: ${d}`);
      if (report.differences.length > 0) report.ok = false;
    } else {
      log(`${written} written, ${unchanged} unchanged, ${failed} failed`);
    }
    if (failed > 0) report.ok = false;
    return report;
  } finally {
    try {
      digests.save();
    } catch (error) {
      log(`${options.digestCache}: not saved (${(error as Error).message}); the next run hashes the data files again`);
    }
    for (const state of states.values()) if (state.output?.tmp) rmSync(state.output.tmp, { force: true });
    if (stageDir) rmSync(stageDir, { recursive: true, force: true });
  }

  // --- helpers that close over the run

  /**
   * The manifest's `jsonSchema`: the schema's `$id` (a document; a CSV's row), or for a streamed JSON
   * output — an array of records — an inline array schema whose items refer to the row schema.
   */
  function jsonSchemaOf(step: Step): string | JsonArraySchema {
    const id = JsonSchemaSet.idOf(step.schema!);
    return step.kind === "rows" && step.mediatype === "application/json" ? { type: "array", items: { $ref: id } } : id;
  }

  /** How the helper thread validates a streamed output (CSV rows, JSON array items); null for other media. */
  function streamCheck(step: Step, file: string): OutputCheck | null {
    if (!step.schema) return null;
    const common = { file, schemasDir: schemas.dir, schemaId: JsonSchemaSet.idOf(step.schema) };
    if (step.mediatype === "text/csv") return { kind: "csv", ...common, table: tableSchemaOf(step) };
    if (step.mediatype === "application/json") return { kind: "json-array", ...common };
    return null;
  }

  function tableSchemaOf(step: Step): TableSchema {
    return tableSchemaFromJsonSchema(schemas.schema(JsonSchemaSet.idOf(step.schema!)));
  }

  function validateOutput(step: Step, file: string, bytes: Uint8Array): void {
    if (step.mediatype === "application/json") validateJsonBytes(file, bytes, schemas.validator(JsonSchemaSet.idOf(step.schema!)));
    else if (step.mediatype === "text/csv") {
      const csv = new CsvValidator(file, tableSchemaOf(step), schemas.validator(JsonSchemaSet.idOf(step.schema!)));
      let text: string;
      try {
        text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
      } catch {
        throw new DataError("encoding", file, "not valid UTF-8");
      }
      csv.feed(text);
      csv.end();
    } else if (bytes.length === 0) throw new DataError("empty", file, "empty output");
  }

  function bytesOf(id: string): Uint8Array {
    const state = states.get(id);
    const out = state?.output;
    if (out?.bytes) return out.bytes;
    if (out?.tmp) return readFileSync(out.tmp);
    return readFileSync(targetOf(allById.get(id)!));
  }

  function generatorInputs(step: Step, inputs: readonly InputName[], factsValue: LedgerFacts | null) {
    const allowed = new Set(inputs.filter((i) => i.startsWith("sources/")).map((i) => i.slice(8)));
    const sources = createSourceReader((path) => sourceFile(layout, path), { allowed, reader: step.id, label: sourcesDir });
    const pulseValue =
      inputs.includes("pulse") && pulse && !("error" in pulse) ? pulse.records : undeclared(step.id, "pulse", [] as PulseRecord[]);
    const factsInput = inputs.includes("ledger") && factsValue ? factsValue : undeclared(step.id, "ledger", {} as LedgerFacts);
    return { facts: factsInput, pulse: pulseValue, sources };
  }
}

export type { DocumentStep, RowsStep };
