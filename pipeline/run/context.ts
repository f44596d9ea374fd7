/**
 * What one run works with: its options, where its files are, the output schemas, the digest cache,
 * the manifests that may spare a step, and where outputs are staged. `--check` decides three things
 * here and nowhere else before the last phase: no recorded manifest spares a step, every file is
 * hashed afresh, and outputs are staged outside the data folder.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import type { NoteSigner } from "../../core/checkpoint.ts";
import type { LedgerReader } from "../../core/ledger/store.ts";
import { DigestCache } from "../../store/digest-cache.ts";
import type { FactsAccumulator } from "../facts/accumulate.ts";
import { outputFile, type DataLayout } from "../layout.ts";
import { MANIFEST_FILE, readManifest, type PreviousManifest } from "../manifest.ts";
import { AREAS, type Area, type Step } from "../step.ts";
import type { StepCode } from "../step-code.ts";
import { JsonSchemaSet } from "../validate/json-schemas.ts";
import { OutputSchemas } from "./output-schemas.ts";

export interface RunOptions {
  /** The data folder: areas/, sources/, pulse/, schemas/, keys/ beneath it. */
  dataDir: string;
  /** Where keyed outputs and keyed sources are (pipeline/layout.ts); default dataDir. */
  keyedDataDir?: string;
  ledger: LedgerReader;
  steps: readonly Step[];
  /** Only these areas (default: all five). */
  areas?: readonly Area[];
  /** Compare with data/ instead of publishing (./compare.ts). */
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
  /**
   * A folder (under `.state/`) where the ledger pass keeps each fold's state, so that the next run
   * folds only the entries appended since (./folds.ts). Unused by --check; none: every fold is whole.
   */
  stateDir?: string;
  /** The facts accumulator (default pipeline/facts/accumulate.ts). */
  accumulator?: () => FactsAccumulator;
  /** Where each step's code is (pipeline/step-code.ts): a step's identity then includes its code. */
  code?: StepCode;
}

/** The suffix of every file the runner stages beside its target. */
export const TMP_SUFFIX = ".tmp";

export interface RunContext {
  readonly options: RunOptions;
  readonly log: (line: string) => void;
  readonly check: boolean;
  /** The selected areas. */
  readonly areas: readonly Area[];
  readonly layout: DataLayout;
  readonly files: {
    areasDir: string;
    sourcesDir: string;
    historyFile: string;
    checkpointFile: string;
    vkeyFile: string;
  };
  readonly schemas: OutputSchemas;
  readonly digests: DigestCache;
  /** Where a step's output is published. */
  targetOf(step: Step): string;
  /** The manifest on disk whose records may spare a step of the area: none under --check. */
  recorded(area: Area): PreviousManifest | null;
  /** Where the output for `target` is staged until its area is published. */
  stagePath(target: string): string;
  /** Saves the digest cache and removes the staging folder. */
  close(): void;
}

export function openRun(options: RunOptions): RunContext {
  const { dataDir } = options;
  const check = options.check ?? false;
  const layout: DataLayout = { dataDir, ...(options.keyedDataDir ? { keyedDataDir: options.keyedDataDir } : {}) };
  const areasDir = join(dataDir, "areas");
  // --check hashes every file; a normal run trusts what it hashed before while stat agrees.
  const digests = new DigestCache({ ...(options.digestCache ? { file: options.digestCache } : {}), trust: !check });
  const manifests = new Map<Area, PreviousManifest | null>();
  let stageDir: string | null = null;
  return {
    options,
    log: options.log,
    check,
    areas: options.areas ?? AREAS,
    layout,
    files: {
      areasDir,
      sourcesDir: join(dataDir, "sources"),
      historyFile: join(dataDir, "pulse", "history.jsonl"),
      checkpointFile: join(dataDir, "pulse", "checkpoint"),
      vkeyFile: join(dataDir, "keys", "datasets.vkey"),
    },
    schemas: new OutputSchemas(new JsonSchemaSet(join(dataDir, "schemas"), { formats: "fast" })),
    digests,
    targetOf: (step) => outputFile(layout, step.area, step.path),
    recorded(area) {
      if (check) return null;
      if (!manifests.has(area)) manifests.set(area, readManifest(join(areasDir, area, MANIFEST_FILE)));
      return manifests.get(area)!;
    },
    stagePath(target) {
      if (!check) return join(dirname(target), `.${basename(target)}.${process.pid}${TMP_SUFFIX}`);
      stageDir ??= mkdtempSync(join(tmpdir(), "pipeline-check-"));
      return join(stageDir, target.replaceAll("/", "_"));
    },
    close() {
      try {
        digests.save();
      } catch (error) {
        options.log(
          `${options.digestCache}: not saved (${(error as Error).message}); the next run hashes the data files again`,
        );
      }
      if (stageDir) rmSync(stageDir, { recursive: true, force: true });
    },
  };
}
