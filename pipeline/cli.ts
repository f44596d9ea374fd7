/**
 * `npm run pipeline -- [options]`: regenerate data/areas/ (see pipeline/runner.ts) and, on a run of
 * all areas, the migration's verification tree data/migration/ (pipeline/migration/publish.ts).
 *
 *   --ledger PATH          the SQLite ledger (default: LEDGER_DB or .state/ledger.sqlite)
 *   --ledger-export DIR    read a published export instead (DIR/ledger.jsonl + DIR/checkpoint)
 *   --ledger-key KEY       key the export's checkpoint must verify with: a note verifier key, a hex
 *                          Ed25519 public key, or a file holding verifier keys
 *                          (default: <data>/keys/ledger.vkey)
 *   --data DIR             the data folder (default: data)
 *   --keyed-dir DIR        where keyed outputs and keyed sources are (default: KEYED_DATA_DIR, else
 *                          the data folder; see pipeline/layout.ts)
 *   --areas a,b            only these areas (default: all five)
 *   --check                write nothing; exit 1 listing every file that differs from data/
 *   --trust-new-key        append the dataset signing key to <data>/keys/datasets.vkey (and the ledger
 *                          key to <data>/keys/ledger.vkey) if missing
 *   --now ISO              accepted for the workflow's sake and only logged: generators are dated
 *                          by their data (the last ledger entry, the newest pulse), never a clock
 *
 * After a successful run the ledger's latest signed checkpoint is published in <data>/ledger/checkpoint
 * and its key listed in <data>/keys/ledger.vkey (pipeline/ledger-publication.ts); `--check` verifies
 * them instead.
 *
 * Exit status: 0 done, 1 a step failed (or --check found differences), 2 bad usage.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { parseVerifierKey, type NoteVerifier } from "../core/checkpoint.ts";
import type { LedgerReader } from "../core/ledger/store.ts";
import { DATASET_KEY, loadSigningKey } from "../store/keys.ts";
import { EXPORT_CHECKPOINT, ExportLedgerReader } from "../store/ledger-jsonl.ts";
import { LEDGER_ORIGIN, defaultLedgerPath, openLedger, stateDir } from "../store/open-ledger.ts";
import { SqliteLedger } from "../store/sqlite-ledger.ts";
import { steps } from "./areas/index.ts";
import { LEDGER_CHECKPOINT, LEDGER_VKEY, ledgerPublicationProblems, publishLedgerCheckpoint, type SignedTree } from "./ledger-publication.ts";
import { isArea } from "./manifest.ts";
import { publishMigration } from "./migration/publish.ts";
import { runPipeline } from "./runner.ts";
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
  const areas = value.split(",").map((a) => a.trim()).filter((a) => a !== "");
  for (const a of areas) if (!isArea(a)) throw new Error(`unknown area "${a}"; areas: ${AREAS.join(", ")}`);
  return [...new Set(areas as Area[])];
}

export async function main(argv: readonly string[], log: (line: string) => void = console.log): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
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
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  let areas: Area[] | undefined;
  try {
    areas = parseAreas(values.areas);
    if (values.now !== undefined && !Number.isFinite(Date.parse(values.now))) throw new Error(`--now "${values.now}" is not an ISO 8601 time`);
    if (values.ledger && values["ledger-export"]) throw new Error("give --ledger or --ledger-export, not both");
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const dataDir = values.data ?? "data";
  if (values.now !== undefined) log(`--now ${values.now}: logged only; every output is dated by its data, not by a clock`);

  let ledger: LedgerReader;
  let close = () => {};
  // How the ledger's checkpoint to publish is had (pipeline/ledger-publication.ts): an export's own,
  // or one signed with the ledger key over the embedded store's current tree.
  let signTree: () => SignedTree;
  try {
    if (values["ledger-export"]) {
      const dir = values["ledger-export"];
      const note = readFileSync(join(dir, EXPORT_CHECKPOINT), "utf8");
      const keyArg = values["ledger-key"] ?? join(dataDir, "keys", "ledger.vkey");
      if (!values["ledger-key"] && !existsSync(keyArg)) throw new Error(`no key to verify ${dir}/${EXPORT_CHECKPOINT}: pass --ledger-key or publish ${keyArg}`);
      const reader = new ExportLedgerReader(dir, ledgerVerifiers(keyArg, note));
      ledger = reader;
      signTree = () => ({ note: reader.latestCheckpoint() });
      log(`ledger: export ${dir}, checkpoint verified (${reader.checkpoint.origin})`);
    } else {
      const path = values.ledger ?? defaultLedgerPath();
      if (!existsSync(path)) throw new Error(`no ledger at ${path}: run \`npm run seed\` for the sample ledger, or pass --ledger PATH / --ledger-export DIR`);
      const sqlite = new SqliteLedger(path, { origin: LEDGER_ORIGIN });
      ledger = sqlite;
      close = () => sqlite.close();
      signTree = () => {
        const { ledger: writer, key } = openLedger({ path, log });
        try {
          return { note: writer.checkpoint(), signer: key };
        } finally {
          writer.close();
        }
      };
      log(`ledger: ${path}`);
    }
  } catch (error) {
    console.error(`pipeline: ${(error as Error).message}`);
    return 1;
  }
  try {
    const keyedDataDir = values["keyed-dir"] ?? process.env.KEYED_DATA_DIR;
    const report = await runPipeline({
      dataDir,
      ...(keyedDataDir ? { keyedDataDir } : {}),
      ledger,
      steps,
      ...(areas ? { areas } : {}),
      check: values.check ?? false,
      trustNewKey: values["trust-new-key"] ?? false,
      log,
      signingKey: () => loadSigningKey(DATASET_KEY, stateDir(), process.env, log),
      digestCache: join(stateDir(), "pipeline-digests.json"),
    });
    if (!report.ok) {
      for (const f of report.steps.filter((s) => s.status === "failed")) console.error(`pipeline: step ${f.id} failed (${f.file}): ${f.reason}`);
      if (values.check && report.differences.length > 0) console.error(`pipeline --check: ${report.differences.length} file(s) differ from what the pipeline produces`);
    }
    const migration = areas
      ? null
      : publishMigration({
          dataDir,
          check: values.check ?? false,
          trustNewKey: values["trust-new-key"] ?? false,
          log,
          signingKey: () => loadSigningKey(DATASET_KEY, stateDir(), process.env, log),
        });
    const ok = report.ok && (migration?.ok ?? true);
    if (values.check) {
      const problems = ledgerPublicationProblems(dataDir, ledger);
      for (const problem of problems) console.error(`pipeline --check: ${problem}`);
      return ok && problems.length === 0 ? 0 : 1;
    }
    if (!ok) return 1;
    const published = publishLedgerCheckpoint({ dataDir, ledger, sign: signTree!, trustNewKey: values["trust-new-key"] ?? false });
    log(`ledger checkpoint: ${published.checkpoint === "written" ? "published" : "unchanged"} (size ${published.size}) in ${join(dataDir, LEDGER_CHECKPOINT)}; key ${published.vkey} in ${join(dataDir, LEDGER_VKEY)}`);
    return 0;
  } catch (error) {
    console.error(`pipeline: ${(error as Error).message}`);
    return 1;
  } finally {
    close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
