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
 *   --areas a,b            only these areas (default: all five)
 *   --check                write nothing; exit 1 listing every file that differs from data/
 *   --trust-new-key        append the dataset signing key to <data>/keys/datasets.vkey if missing
 *   --now ISO              accepted for the workflow's sake and only logged: generators are dated
 *                          by their data (the last ledger entry, the newest pulse), never a clock
 *
 * Exit status: 0 done, 1 a step failed (or --check found differences), 2 bad usage.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { canonicalize } from "../core/canonical.ts";
import { parseVerifierKey, verifyCheckpoint, type Checkpoint, type NoteVerifier } from "../core/checkpoint.ts";
import { entryShapeProblem, type LedgerEntry } from "../core/ledger/entry.ts";
import { validateEvent } from "../core/ledger/events.ts";
import type { LedgerReader, LedgerVerifyReport, StoredEntry } from "../core/ledger/store.ts";
import { ChainVerifier } from "../core/ledger/verify.ts";
import { equalBytes } from "../core/merkle.ts";
import { formatDigest } from "../core/digest.ts";
import { DATASET_KEY, loadSigningKey } from "../store/keys.ts";
import { EXPORT_CHECKPOINT, EXPORT_LINES } from "../store/ledger-export.ts";
import { LEDGER_ORIGIN, defaultLedgerPath, stateDir } from "../store/open-ledger.ts";
import { SqliteLedger } from "../store/sqlite-ledger.ts";
import { steps } from "./areas/index.ts";
import { isArea } from "./manifest.ts";
import { publishMigration } from "./migration/publish.ts";
import { runPipeline } from "./runner.ts";
import { parseTrustedKeys } from "./sign.ts";
import { AREAS, type Area } from "./step.ts";

/**
 * A LedgerReader over a published export (store/ledger-export.ts), verified offline.
 *
 * Opening reads only the signed checkpoint, which must verify with a trusted key: `size()` and
 * `rootHash()` come from it, so a run with nothing new never touches the JSONL. `entries()` streams
 * the file in 1 MiB chunks (memory: one chunk, one line and the O(log n) right edge of the tree —
 * never the whole export) and verifies as it goes — each line's shape, hash, canonical form, event
 * schema, the prev chain — and at the end of the checkpointed entries the recomputed root must equal
 * the signed one, else it throws. The runner writes nothing before the pass is over, so a tampered
 * export fails the run. Lines after the checkpointed size are not read. Proofs are not available
 * from an export; `rootHash(n)` only for the checkpointed size.
 */
export class ExportLedgerReader implements LedgerReader {
  readonly dir: string;
  readonly checkpoint: Checkpoint;
  readonly #note: string;

  constructor(dir: string, verifiers: NoteVerifier[]) {
    this.dir = dir;
    const file = join(dir, EXPORT_CHECKPOINT);
    this.#note = readFileSync(file, "utf8");
    try {
      this.checkpoint = verifyCheckpoint(this.#note, verifiers);
    } catch (error) {
      throw new Error(`${file}: ${(error as Error).message}`);
    }
    if (!existsSync(join(dir, EXPORT_LINES))) throw new Error(`${join(dir, EXPORT_LINES)}: not found`);
  }

  /** The log's origin, as its checkpoint names it. */
  get origin(): string {
    return this.checkpoint.origin;
  }

  size(): number {
    return this.checkpoint.size;
  }

  rootHash(treeSize?: number): Uint8Array {
    if (treeSize !== undefined && treeSize !== this.checkpoint.size) {
      throw new RangeError(`an export only knows the root of its checkpointed size ${this.checkpoint.size}`);
    }
    return this.checkpoint.rootHash;
  }

  inclusionProof(): Uint8Array[] {
    throw new Error("inclusion proofs are not available from a ledger export");
  }

  consistencyProof(): Uint8Array[] {
    throw new Error("consistency proofs are not available from a ledger export");
  }

  latestCheckpoint(): string {
    return this.#note;
  }

  /** Streams entries start <= seq < end; the chain is verified from seq 0, whatever start is. */
  *entries(start = 0, end?: number): IterableIterator<LedgerEntry> {
    for (const { entry } of this.#read(start, end, false)) yield entry;
  }

  /** As entries(), with each payload's JCS text (the line is verified to be the entry's JCS). */
  storedEntries(start = 0, end?: number): IterableIterator<StoredEntry> {
    return this.#read(start, end, true);
  }

  *#read(start: number, end: number | undefined, withText: boolean): IterableIterator<StoredEntry> {
    const stop = Math.min(end ?? this.checkpoint.size, this.checkpoint.size);
    const verifier = new ChainVerifier(validateEvent, 1);
    // Problems are collected and reported once at the end (report() recomputes the root, so it is
    // not called per entry); the runner writes nothing until the pass has ended without an error.
    const file = join(this.dir, EXPORT_LINES);
    for (const line of this.#lines(stop)) {
      const seq = verifier.size;
      let entry: unknown;
      try {
        entry = JSON.parse(line);
      } catch {
        throw new Error(`${file}: line ${seq + 1} is not valid JSON`);
      }
      const shape = entryShapeProblem(entry);
      if (shape) throw new Error(`${file}: line ${seq + 1}: ${shape}`);
      verifier.add(entry as LedgerEntry, { text: line });
      if (seq >= start) {
        const e = entry as LedgerEntry;
        yield { entry: e, payloadText: withText ? canonicalize(e.payload) : "" };
      }
    }
    const report = verifier.report();
    const problem = report.problems[0];
    if (problem) throw new Error(`${file}: seq ${problem.seq}: ${problem.problem}`);
    if (verifier.size < stop) throw new Error(`${file}: ${verifier.size} lines, the checkpoint covers ${this.checkpoint.size}`);
    if (stop === this.checkpoint.size && !equalBytes(report.rootHash, this.checkpoint.rootHash)) {
      throw new Error(`${file}: the entries hash to root ${formatDigest(report.rootHash)}, the checkpoint signs ${formatDigest(this.checkpoint.rootHash)}`);
    }
  }

  /** The first `count` lines of the JSONL, read in chunks. */
  *#lines(count: number): Generator<string> {
    if (count === 0) return;
    const fd = openSync(join(this.dir, EXPORT_LINES), "r");
    try {
      const buffer = Buffer.allocUnsafe(1 << 20);
      const decoder = new TextDecoder("utf-8", { fatal: true });
      let carry = "";
      let emitted = 0;
      for (;;) {
        const n = readSync(fd, buffer, 0, buffer.length, null);
        const text = carry + (n === 0 ? decoder.decode() : decoder.decode(buffer.subarray(0, n), { stream: true }));
        let from = 0;
        for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", from)) {
          yield text.slice(from, nl);
          from = nl + 1;
          if (++emitted === count) return;
        }
        carry = text.slice(from);
        if (n === 0) {
          if (carry !== "") yield carry; // a last line without its newline: the verifier judges it
          return;
        }
      }
    } finally {
      closeSync(fd);
    }
  }

  verify(): LedgerVerifyReport {
    const verifier = new ChainVerifier(validateEvent);
    for (const line of this.#lines(Number.MAX_SAFE_INTEGER)) verifier.addLine(line);
    const report = verifier.report();
    const problems = report.problems.slice();
    if (report.size !== this.checkpoint.size) problems.push({ seq: Math.min(report.size, this.checkpoint.size), problem: `checkpoint covers ${this.checkpoint.size} entries, the file has ${report.size}` });
    else if (!equalBytes(report.rootHash, this.checkpoint.rootHash)) problems.push({ seq: Math.max(report.size - 1, 0), problem: "root differs from the checkpoint" });
    return { ...report, ok: problems.length === 0, problems, checkpointsChecked: 1 };
  }
}

/** `--ledger-key`: a verifier key, a hex public key (named by the checkpoint's origin), or a file of verifier keys. */
export function ledgerVerifiers(key: string, checkpointNote: string): NoteVerifier[] {
  if (/^[0-9a-f]{64}$/.test(key)) return [{ name: checkpointNote.split("\n")[0] ?? "", publicKeyHex: key }];
  if (existsSync(key)) return parseTrustedKeys(readFileSync(key, "utf8"), key);
  return [parseVerifierKey(key)];
}

const USAGE =
  "usage: npm run pipeline -- [--ledger PATH | --ledger-export DIR [--ledger-key KEY]] [--data DIR] [--areas a,b] [--check] [--trust-new-key] [--now ISO]";

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
  try {
    if (values["ledger-export"]) {
      const dir = values["ledger-export"];
      const note = readFileSync(join(dir, EXPORT_CHECKPOINT), "utf8");
      const keyArg = values["ledger-key"] ?? join(dataDir, "keys", "ledger.vkey");
      if (!values["ledger-key"] && !existsSync(keyArg)) throw new Error(`no key to verify ${dir}/${EXPORT_CHECKPOINT}: pass --ledger-key or publish ${keyArg}`);
      ledger = new ExportLedgerReader(dir, ledgerVerifiers(keyArg, note));
      log(`ledger: export ${dir}, checkpoint verified (${(ledger as ExportLedgerReader).checkpoint.origin})`);
    } else {
      const path = values.ledger ?? defaultLedgerPath();
      if (!existsSync(path)) throw new Error(`no ledger at ${path}: run \`npm run seed\` for the sample ledger, or pass --ledger PATH / --ledger-export DIR`);
      const sqlite = new SqliteLedger(path, { origin: LEDGER_ORIGIN });
      ledger = sqlite;
      close = () => sqlite.close();
      log(`ledger: ${path}`);
    }
  } catch (error) {
    console.error(`pipeline: ${(error as Error).message}`);
    return 1;
  }
  try {
    const report = await runPipeline({
      dataDir,
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
    return report.ok && (migration?.ok ?? true) ? 0 : 1;
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
