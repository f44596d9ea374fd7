/**
 * `npm run pipeline -- [options]` (USAGE; docs/data-areas.md): regenerate data/areas/
 * (pipeline/runner.ts) from the SQLite ledger or a verified export, then — on a run of all areas —
 * the migration's verification tree (pipeline/migration/publish.ts), and after a successful run the
 * ledger's anchor, its latest signed checkpoint and key, and the ledger as C2SP tiles for that
 * checkpoint (pipeline/ledger-publication.ts, pipeline/ledger-tiles.ts), then the static copies of
 * the sealed deliberation proofs anchored to that checkpoint (pipeline/proof-copies.ts). `--check`
 * writes nothing and verifies all four instead, the published pulse as `npm run pulse -- --verify`
 * does (pipeline/pulse/published.ts: every history line under its signed checkpoint, and the static
 * copies under data/v1/ exactly what that history gives), and that `<data>/schemas/` is what
 * core/schemas gives (the comparison of `npm run schemas -- --check`, pipeline/schemas-cli.ts; a
 * normal run only says when it is not, since `npm run schemas` writes it). `--now` is only logged: outputs are dated by their
 * data, never a clock. Exit status: 0 done, 1 a step failed or --check found differences, 2 bad usage.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { parseVerifierKey, type NoteVerifier } from "../core/checkpoint.ts";
import { validateEvent } from "../core/events/registry.ts";
import { PinnedLedgerReader } from "../core/ledger/pinned-reader.ts";
import type { LedgerReader } from "../core/ledger/store.ts";
import { DATASET_KEY, loadSigningKey } from "../store/keys.ts";
import { EXPORT_CHECKPOINT, ExportLedgerReader } from "../store/ledger-jsonl.ts";
import {
  LEDGER_ORIGIN,
  defaultLedgerPath,
  isPostgresLocation,
  ledgerExists,
  openLedger,
  openLedgerStore,
  shownLocation,
  stateDir,
} from "../store/open-ledger.ts";
import { steps } from "./areas/index.ts";
import {
  LEDGER_CHECKPOINT,
  LEDGER_DIR,
  LEDGER_VKEY,
  ledgerPublicationProblems,
  publishLedgerCheckpoint,
  type SignedTree,
} from "./ledger-publication.ts";
import { isArea } from "./manifest.ts";
import { publishMigration } from "./migration/publish.ts";
import { PROOF_COPIES_DIR, publishProofCopies } from "./proof-copies.ts";
import { verifyPublished } from "./pulse/published.ts";
import { runPipeline } from "./runner.ts";
import { pipelineStateDir } from "./run/folds.ts";
import { diffSchemaFiles } from "./schemas-cli.ts";
import { renderPublishedSchemas } from "../core/schemas/published-files.ts";
import { locateSteps } from "./step-code.ts";
import { parseTrustedKeys } from "./sign.ts";
import { AREAS, type Area } from "./step.ts";

/** `--ledger-key`: a verifier key, a hex public key (named by the checkpoint's origin), or a file of verifier keys. */
export function ledgerVerifiers(key: string, checkpointNote: string): NoteVerifier[] {
  if (/^[0-9a-f]{64}$/.test(key)) return [{ name: checkpointNote.split("\n")[0] ?? "", publicKeyHex: key }];
  if (existsSync(key)) return parseTrustedKeys(readFileSync(key, "utf8"), key);
  return [parseVerifierKey(key)];
}

const USAGE =
  "usage: npm run pipeline -- [--ledger PATH | --ledger-export DIR [--ledger-key KEY]] [--data DIR] [--keyed-dir DIR] [--areas a,b] [--check] [--trust-new-key] [--now ISO]";

export function parseAreas(value: string | undefined): Area[] | undefined {
  if (value === undefined || value.trim() === "" || value.trim() === "all") return undefined;
  const areas = value
    .split(",")
    .map((a) => a.trim())
    .filter((a) => a !== "");
  for (const a of areas) if (!isArea(a)) throw new Error(`unknown area "${a}"; areas: ${AREAS.join(", ")}`);
  return [...new Set(areas as Area[])];
}

interface CliOptions {
  values: ReturnType<typeof parseCli>["values"];
  areas: Area[] | undefined;
  dataDir: string;
  check: boolean;
  trustNewKey: boolean;
}

function parseCli(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    options: {
      ledger: { type: "string" },
      "ledger-export": { type: "string" },
      "ledger-key": { type: "string" },
      data: { type: "string" },
      "keyed-dir": { type: "string" },
      areas: { type: "string" },
      check: { type: "boolean" },
      "trust-new-key": { type: "boolean" },
      now: { type: "string" },
    },
    strict: true,
    allowPositionals: false,
  });
}

/** The run's phases: read the ledger, regenerate the areas, then the migration tree and the ledger's anchor (all published, or all checked). */
export async function main(argv: readonly string[], log: (line: string) => void = console.log): Promise<number> {
  const options = parseOptions(argv);
  if (typeof options === "number") return options;
  if (options.values.now !== undefined)
    log(`--now ${options.values.now}: logged only; every output is dated by its data, not by a clock`);
  let input: LedgerInput;
  try {
    input = await openLedgerInput(options, log);
  } catch (error) {
    console.error(`pipeline: ${(error as Error).message}`);
    return 1;
  }
  try {
    const areas = await regenerateAreas(options, input.ledger, log);
    const migration = options.areas
      ? null
      : publishMigration({
          dataDir: options.dataDir,
          check: options.check,
          trustNewKey: options.trustNewKey,
          log,
          signingKey: datasetKey(log),
        });
    const ok = areas && (migration?.ok ?? true);
    if (options.check) {
      const anchored = await checkLedgerAnchor(options, input.ledger);
      const copies = await publishProofCopies({ dataDir: options.dataDir, ledger: input.ledger, check: true, log });
      for (const d of copies.differences) console.error(`pipeline --check: ${d}`);
      const pulse = checkPulse(options);
      const schemas = schemaProblems(options.dataDir);
      for (const p of schemas) console.error(`pipeline --check: ${p}`);
      return ok && anchored && copies.ok && pulse && schemas.length === 0 ? 0 : 1;
    }
    for (const p of schemaProblems(options.dataDir)) log(`pipeline: ${p}`);
    if (!ok) return 1;
    await publishLedgerAnchor(options, input, log);
    const copies = await publishProofCopies({ dataDir: options.dataDir, ledger: input.ledger, check: false, log });
    log(
      `proof copies: ${copies.written} written, ${copies.kept} unchanged, ${copies.removed} removed in ${join(options.dataDir, PROOF_COPIES_DIR)}`,
    );
    return 0;
  } catch (error) {
    console.error(`pipeline: ${(error as Error).message}`);
    return 1;
  } finally {
    await input.close();
  }
}

/** The options, or exit status 2 after saying what is wrong. */
function parseOptions(argv: readonly string[]): CliOptions | number {
  try {
    const { values } = parseCli(argv);
    const areas = parseAreas(values.areas);
    if (values.now !== undefined && !Number.isFinite(Date.parse(values.now)))
      throw new Error(`--now "${values.now}" is not an ISO 8601 time`);
    if (values.ledger && values["ledger-export"]) throw new Error("give --ledger or --ledger-export, not both");
    return {
      values,
      areas,
      dataDir: values.data ?? "data",
      check: values.check ?? false,
      trustNewKey: values["trust-new-key"] ?? false,
    };
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
}

interface LedgerInput {
  ledger: LedgerReader;
  close(): Promise<void>;
  /**
   * The ledger's checkpoint to publish (pipeline/ledger-publication.ts): an export's own, or one
   * signed with the ledger key over the embedded store's current tree.
   */
  signTree(): Promise<SignedTree>;
}

/**
 * The ledger to read: a published export verified against its checkpoint key; a shared PostgreSQL
 * ledger, read as of its newest checkpoint that verifies with the ledger key (a live ledger keeps
 * growing under the run; core/ledger/pinned-reader.ts), never written to; or the embedded SQLite
 * ledger, whose current tree the run signs with the ledger key.
 */
async function openLedgerInput({ values, dataDir }: CliOptions, log: (line: string) => void): Promise<LedgerInput> {
  const trustedKeys = (note: string) => {
    const keyArg = values["ledger-key"] ?? join(dataDir, "keys", "ledger.vkey");
    if (!values["ledger-key"] && !existsSync(keyArg))
      throw new Error(`no key to verify the ledger's checkpoint: pass --ledger-key or publish ${keyArg}`);
    return ledgerVerifiers(keyArg, note);
  };
  if (values["ledger-export"]) {
    const dir = values["ledger-export"];
    const note = readFileSync(join(dir, EXPORT_CHECKPOINT), "utf8");
    const reader = new ExportLedgerReader(dir, trustedKeys(note));
    log(`ledger: export ${dir}, checkpoint verified (${reader.checkpoint.origin})`);
    return { ledger: reader, close: async () => {}, signTree: async () => ({ note: await reader.latestCheckpoint() }) };
  }
  const path = values.ledger ?? defaultLedgerPath();
  if (!(await ledgerExists(path)))
    throw new Error(
      `no ledger at ${shownLocation(path)}: run \`npm run seed\` for the sample ledger, or pass --ledger PATH / --ledger-export DIR`,
    );
  const reader = await openLedgerStore({ path, origin: LEDGER_ORIGIN });
  if (isPostgresLocation(path)) {
    try {
      const note = await reader.latestCheckpoint();
      const pinned = await PinnedLedgerReader.open(reader, trustedKeys(note ?? ""), validateEvent);
      log(
        `ledger: live ${shownLocation(path)}, read as of its checkpoint of size ${pinned.checkpoint.size} (verified, ${pinned.origin})`,
      );
      return {
        ledger: pinned,
        close: () => reader.close(),
        signTree: async () => ({ note: await pinned.latestCheckpoint() }),
      };
    } catch (error) {
      await reader.close();
      throw error;
    }
  }
  log(`ledger: ${shownLocation(path)}`);
  return {
    ledger: reader,
    close: () => reader.close(),
    signTree: async () => {
      const { ledger: writer, key } = await openLedger({ path, log });
      try {
        return { note: await writer.checkpoint(), signer: key };
      } finally {
        await writer.close();
      }
    },
  };
}

/** data/areas/ (pipeline/runner.ts); true when every area was written, or matches under --check. */
async function regenerateAreas(
  options: CliOptions,
  ledger: LedgerReader,
  log: (line: string) => void,
): Promise<boolean> {
  const keyedDataDir = options.values["keyed-dir"] ?? process.env.KEYED_DATA_DIR;
  const report = await runPipeline({
    dataDir: options.dataDir,
    ...(keyedDataDir ? { keyedDataDir } : {}),
    ledger,
    steps,
    code: await locateSteps(new URL("./areas/index.ts", import.meta.url), steps),
    ...(options.areas ? { areas: options.areas } : {}),
    check: options.check,
    trustNewKey: options.trustNewKey,
    log,
    signingKey: datasetKey(log),
    digestCache: join(stateDir(), "pipeline-digests.json"),
    stateDir: pipelineStateDir(stateDir()),
  });
  if (!report.ok) {
    for (const f of report.steps.filter((s) => s.status === "failed"))
      console.error(`pipeline: step ${f.id} failed (${f.file}): ${f.reason}`);
    if (options.check && report.differences.length > 0)
      console.error(`pipeline --check: ${report.differences.length} file(s) differ from what the pipeline produces`);
  }
  return report.ok;
}

/**
 * What differs between `<dataDir>/schemas/` and the JSON Schemas core/schemas gives, one line per
 * file, saying how to fix it; none when they are the same (`npm run schemas -- --check`).
 */
export function schemaProblems(dataDir: string): string[] {
  const dir = join(dataDir, "schemas");
  const diff = diffSchemaFiles(dir, renderPublishedSchemas());
  return [
    ...diff.missing.map((f) => `${join(dir, f)} is missing`),
    ...diff.changed.map((f) => `${join(dir, f)} differs from what core/schemas gives`),
    ...diff.stale.map((f) => `${join(dir, f)} is no schema core/schemas gives`),
  ].map((p) => `${p} (\`npm run schemas\` writes them)`);
}

/** --check: the published checkpoint verifies, the ledger extends it, and it covers the whole ledger. */
async function checkLedgerAnchor(options: CliOptions, ledger: LedgerReader): Promise<boolean> {
  const problems = await ledgerPublicationProblems(options.dataDir, ledger);
  for (const problem of problems) console.error(`pipeline --check: ${problem}`);
  return problems.length === 0;
}

/**
 * --check: the published pulse (data/pulse/, data/v1/) as `npm run pulse -- --verify` checks it — a
 * line after the signed checkpoint, or a static copy that is not what the signed history gives, is
 * a difference. The pipeline never writes these files: `npm run pulse` does.
 */
function checkPulse(options: CliOptions): boolean {
  const result = verifyPublished(options.dataDir);
  for (const problem of result.problems) console.error(`pipeline --check: pulse: ${problem}`);
  return result.ok;
}

async function publishLedgerAnchor(
  options: CliOptions,
  input: LedgerInput,
  log: (line: string) => void,
): Promise<void> {
  const published = await publishLedgerCheckpoint({
    dataDir: options.dataDir,
    ledger: input.ledger,
    sign: input.signTree,
    trustNewKey: options.trustNewKey,
  });
  log(
    `ledger checkpoint: ${published.checkpoint === "written" ? "published" : "unchanged"} (size ${published.size}) in ${join(options.dataDir, LEDGER_CHECKPOINT)}; key ${published.vkey} in ${join(options.dataDir, LEDGER_VKEY)}`,
  );
  const { tiles } = published;
  log(
    `ledger tiles: ${tiles.written} written, ${tiles.removed} superseded partial(s) removed${tiles.strays > 0 ? `, ${tiles.strays} stray file(s) removed (not tiles or bundles of the checkpoint's size)` : ""}${tiles.rebuilt ? " (rebuilt from the first entry: the tiles of the previous checkpoint were not all there)" : ""} in ${join(options.dataDir, LEDGER_DIR, "tile")}`,
  );
}

function datasetKey(log: (line: string) => void) {
  return () => loadSigningKey(DATASET_KEY, stateDir(), process.env, log);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
