/**
 * The ledger's JSONL form: `ledger.jsonl` (one entry per line, each line the entry's JCS — exactly
 * its Merkle leaf data) and `checkpoint` (the signed C2SP checkpoint for those lines). `exportLedger`
 * writes it; `ExportLedgerReader` is its one reader, a LedgerReader that verifies as it streams, and
 * `verifyExport` (what a downloader runs offline: no database, only the files and a public key)
 * checks a whole copy through it. Not to be confused with the API's filtered audit-trail export.
 */
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { canonicalize } from "../core/canonical.ts";
import { verifyCheckpoint, type Checkpoint, type NoteVerifier } from "../core/checkpoint.ts";
import { formatDigest } from "../core/digest.ts";
import { entryShapeProblem, sealEntry, type LedgerEntry } from "../core/ledger/entry.ts";
import { validateEvent } from "../core/events/registry.ts";
import type { LedgerReader, LedgerStore, LedgerVerifyReport, StoredEntry } from "../core/ledger/store.ts";
import { ChainVerifier, type VerifyProblem, type VerifyReport } from "../core/ledger/verify.ts";
import { equalBytes } from "../core/merkle.ts";

export const EXPORT_LINES = "ledger.jsonl";
export const EXPORT_CHECKPOINT = "checkpoint";

/** Writes a checkpointed export of the whole ledger into dir (files replaced atomically). */
export async function exportLedger(ledger: LedgerStore, dir: string): Promise<{ size: number; checkpoint: string }> {
  mkdirSync(dir, { recursive: true });
  const checkpoint = await ledger.checkpoint();
  const size = Number(checkpoint.split("\n")[1]);
  const linesTmp = join(dir, `.${EXPORT_LINES}.tmp`);
  const fd = openSync(linesTmp, "w");
  try {
    let buffer = "";
    for await (const entry of ledger.entries(0, size)) {
      buffer += `${sealEntry(entry).text}\n`;
      if (buffer.length > 1 << 20) {
        writeSync(fd, buffer);
        buffer = "";
      }
    }
    writeSync(fd, buffer);
  } finally {
    closeSync(fd);
  }
  renameSync(linesTmp, join(dir, EXPORT_LINES));
  const cpTmp = join(dir, `.${EXPORT_CHECKPOINT}.tmp`);
  writeFileSync(cpTmp, checkpoint);
  renameSync(cpTmp, join(dir, EXPORT_CHECKPOINT));
  return { size, checkpoint };
}

/**
 * A LedgerReader over an export, verified offline.
 *
 * Opening reads only the signed checkpoint, which must verify with a trusted key: `size()` and
 * `rootHash()` come from it, so a run with nothing new never touches the JSONL. `entries()` streams
 * the file in 1 MiB chunks (memory: one chunk, one line and the O(log n) right edge of the tree —
 * never the whole export) and verifies as it goes — each line's shape, hash, canonical form, event
 * schema, the prev chain — and at the end of the checkpointed entries the recomputed root must equal
 * the signed one, else it throws. Lines after the checkpointed size are not read. Proofs are not
 * available from an export; `rootHash(n)` only for the checkpointed size.
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

  async size(): Promise<number> {
    return this.checkpoint.size;
  }

  async rootHash(treeSize?: number): Promise<Uint8Array> {
    if (treeSize !== undefined && treeSize !== this.checkpoint.size) {
      throw new RangeError(`an export only knows the root of its checkpointed size ${this.checkpoint.size}`);
    }
    return this.checkpoint.rootHash;
  }

  async inclusionProof(): Promise<Uint8Array[]> {
    throw new Error("inclusion proofs are not available from a ledger export");
  }

  async consistencyProof(): Promise<Uint8Array[]> {
    throw new Error("consistency proofs are not available from a ledger export");
  }

  async latestCheckpoint(): Promise<string> {
    return this.#note;
  }

  /** Streams entries start <= seq < end; the chain is verified from seq 0, whatever start is. */
  async *entries(start = 0, end?: number): AsyncIterableIterator<LedgerEntry> {
    for (const { entry } of this.#read(start, end, false)) yield entry;
  }

  /** As entries(), with each payload's JCS text (the line is verified to be the entry's JCS). */
  async *storedEntries(start = 0, end?: number): AsyncIterableIterator<StoredEntry> {
    yield* this.#read(start, end, true);
  }

  *#read(start: number, end: number | undefined, withText: boolean): IterableIterator<StoredEntry> {
    const stop = Math.min(end ?? this.checkpoint.size, this.checkpoint.size);
    const verifier = new ChainVerifier(validateEvent, 1);
    // Problems are collected and reported once at the end (report() recomputes the root, so it is
    // not called per entry); a caller writes nothing until the pass has ended without an error.
    const file = join(this.dir, EXPORT_LINES);
    let line = 0;
    for (const text of readLines(file, stop)) {
      line += 1;
      let entry: unknown;
      try {
        entry = JSON.parse(text);
      } catch {
        throw new Error(`${file}: line ${line} is not valid JSON`);
      }
      const shape = entryShapeProblem(entry);
      if (shape) throw new Error(`${file}: line ${line}: ${shape}`);
      verifier.add(entry as LedgerEntry, { text });
      if (line > start) {
        const e = entry as LedgerEntry;
        yield { entry: e, payloadText: withText ? canonicalize(e.payload) : "" };
      }
    }
    const report = verifier.report();
    const problem = report.problems[0];
    if (problem) throw new Error(`${file}: seq ${problem.seq}: ${problem.problem}`);
    if (line < stop) throw new Error(`${file}: ${line} lines, the checkpoint covers ${this.checkpoint.size}`);
    if (stop === this.checkpoint.size && !equalBytes(report.rootHash, this.checkpoint.rootHash)) {
      throw new Error(
        `${file}: the entries hash to root ${formatDigest(report.rootHash)}, the checkpoint signs ${formatDigest(this.checkpoint.rootHash)}`,
      );
    }
  }

  /** Every line of the file (also those past the checkpoint), and the file against the checkpoint. */
  async verify(): Promise<LedgerVerifyReport> {
    return { ...verifyLines(join(this.dir, EXPORT_LINES), this.checkpoint), checkpointsChecked: 1 };
  }
}

export interface ExportReport extends VerifyReport {
  checkpointSize: number | null;
}

/**
 * Verifies an export offline: every line, the chain, and the signed checkpoint over the whole file.
 * A checkpoint that does not verify is one more problem; the lines are checked all the same.
 */
export async function verifyExport(dir: string, verifiers: NoteVerifier[]): Promise<ExportReport> {
  let reader: ExportLedgerReader | null = null;
  let refused: VerifyProblem | null = null;
  try {
    reader = new ExportLedgerReader(dir, verifiers);
  } catch (error) {
    refused = { seq: 0, problem: `checkpoint: ${(error as Error).message}` };
  }
  if (reader) return { ...(await reader.verify()), checkpointSize: reader.checkpoint.size };
  const report = verifyLines(join(dir, EXPORT_LINES), null);
  const problems = [...report.problems, { ...refused!, seq: report.size }];
  return { ...report, ok: false, problems, checkpointSize: null };
}

/** Verifies every line of an export file, and the whole file against its checkpoint when there is one. */
function verifyLines(file: string, checkpoint: Checkpoint | null): VerifyReport {
  const verifier = new ChainVerifier(validateEvent);
  let unreadable: VerifyProblem | null = null;
  try {
    for (const line of readLines(file, Number.MAX_SAFE_INTEGER)) verifier.addLine(line);
  } catch (error) {
    unreadable = { seq: verifier.size, problem: `${file} cannot be read past here: ${(error as Error).message}` };
  }
  const report = verifier.report();
  const problems = report.problems.slice();
  if (unreadable) problems.push(unreadable);
  if (!checkpoint) return { ...report, ok: problems.length === 0, problems };
  if (checkpoint.size !== report.size) {
    problems.push({
      seq: Math.min(checkpoint.size, report.size),
      problem: `checkpoint covers ${checkpoint.size} entries, the file has ${report.size}`,
    });
  } else if (report.brokenAt === undefined && !equalBytes(checkpoint.rootHash, report.rootHash)) {
    problems.push({
      seq: Math.max(report.size - 1, 0),
      problem: `the entries hash to root ${formatDigest(report.rootHash)}, the checkpoint signs ${formatDigest(checkpoint.rootHash)}`,
    });
  }
  return { ...report, ok: problems.length === 0, problems };
}

/** The first `count` lines of a file, read in 1 MiB chunks. */
function* readLines(file: string, count: number): Generator<string> {
  if (count === 0) return;
  const fd = openSync(file, "r");
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
