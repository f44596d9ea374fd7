/**
 * The published form of the ledger: `ledger.jsonl` (one entry per line, each line the entry's JCS —
 * exactly its Merkle leaf data) and `checkpoint` (the signed C2SP checkpoint for those lines).
 * `verifyExport` is what a downloader runs offline: no database, only the files and a public key.
 */
import { closeSync, createReadStream, mkdirSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { verifyCheckpoint, type NoteVerifier } from "../core/checkpoint.ts";
import { formatDigest } from "../core/digest.ts";
import { sealEntry } from "../core/ledger/entry.ts";
import { validateEvent } from "../core/ledger/events.ts";
import type { LedgerStore } from "../core/ledger/store.ts";
import { ChainVerifier, type VerifyReport } from "../core/ledger/verify.ts";
import { equalBytes } from "../core/merkle.ts";

export const EXPORT_LINES = "ledger.jsonl";
export const EXPORT_CHECKPOINT = "checkpoint";

/** Writes a checkpointed export of the whole ledger into dir (files replaced atomically). */
export function exportLedger(ledger: LedgerStore, dir: string): { size: number; checkpoint: string } {
  mkdirSync(dir, { recursive: true });
  const checkpoint = ledger.checkpoint();
  const size = Number(checkpoint.split("\n")[1]);
  const linesTmp = join(dir, `.${EXPORT_LINES}.tmp`);
  const fd = openSync(linesTmp, "w");
  try {
    let buffer = "";
    for (const entry of ledger.entries(0, size)) {
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

export interface ExportReport extends VerifyReport {
  checkpointSize: number | null;
}

/** Verifies an export offline: every line, the chain, and the signed checkpoint over the whole file. */
export async function verifyExport(dir: string, verifiers: NoteVerifier[]): Promise<ExportReport> {
  const verifier = new ChainVerifier(validateEvent);
  const lines = createInterface({ input: createReadStream(join(dir, EXPORT_LINES), "utf8"), crlfDelay: Infinity });
  for await (const line of lines) verifier.addLine(line);
  const report = verifier.report();
  const problems = report.problems.slice();
  let checkpointSize: number | null = null;
  try {
    const cp = verifyCheckpoint(readFileSync(join(dir, EXPORT_CHECKPOINT), "utf8"), verifiers);
    checkpointSize = cp.size;
    if (cp.size !== report.size) {
      problems.push({ seq: Math.min(cp.size, report.size), problem: `checkpoint covers ${cp.size} entries, the file has ${report.size}` });
    } else if (!equalBytes(cp.rootHash, report.rootHash)) {
      problems.push({
        seq: Math.max(report.size - 1, 0),
        problem: `the entries hash to root ${formatDigest(report.rootHash)}, the checkpoint signs ${formatDigest(cp.rootHash)}`,
      });
    }
  } catch (error) {
    problems.push({ seq: report.size, problem: `checkpoint: ${(error as Error).message}` });
  }
  return { ...report, ok: problems.length === 0, problems, checkpointSize };
}
