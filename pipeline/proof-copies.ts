/**
 * Static copies of the sealed deliberation proofs: `data/consensus/proofs/<delib_id>.json`, one per
 * proof sealed within the published ledger checkpoint. Each is the proof file the API answers at
 * `GET /v1/consensus/proofs/{delib_id}` and `npm run consensus -- export-proof` writes
 * (store/consensus-registry.ts): the JCS of the proof document with its anchor — the sealing entry,
 * its inclusion proof and a signed checkpoint — and one LF, so `npm run consensus -- verify-proof`
 * checks a downloaded copy offline. The site build copies them to the API's path (docs/cdn.md).
 *
 * The anchor is the published checkpoint (`data/ledger/checkpoint`, pipeline/ledger-publication.ts),
 * which must be published first. A copy is never rewritten: a later checkpoint also covers the seal,
 * but a copy that is exactly what the ledger gives with the checkpoint it carries (signed by a key in
 * `keys/ledger.vkey`) is kept, so a CDN may cache it forever. `check` writes nothing and names every
 * copy that is missing, differs, or is no sealed proof of the ledger.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { canonicalize } from "../core/canonical.ts";
import { verifyCheckpoint, type Checkpoint, type NoteVerifier } from "../core/checkpoint.ts";
import type { ConsensusState } from "../core/consensus/model.ts";
import { consensusProjection } from "../core/consensus/state.ts";
import { proofAnchor, proofDocument } from "../core/consensus/views.ts";
import { PROOF_COPIES_DIR } from "../core/consensus/verify-proof.ts";
import { sealEntry, type LedgerEntry } from "../core/ledger/entry.ts";
import type { LedgerReader } from "../core/ledger/store.ts";
import { inclusionProofWith, rangeHasher, type RangeHasher } from "../core/merkle.ts";
import { LEDGER_CHECKPOINT, LEDGER_VKEY } from "./ledger-publication.ts";
import { parseTrustedKeys } from "./sign.ts";

/** The copies' folder under the data directory. */
export { PROOF_COPIES_DIR };
export const proofCopyName = (delibId: string) => `${delibId}.json`;

export interface ProofCopiesOptions {
  dataDir: string;
  ledger: LedgerReader;
  check: boolean;
  log: (line: string) => void;
}

export interface ProofCopiesReport {
  ok: boolean;
  /** Copies written (never under `check`). */
  written: number;
  /** Copies already current, each anchored to the checkpoint it carries. */
  kept: number;
  /** Files removed that are no sealed proof of the ledger (never under `check`). */
  removed: number;
  /** Under `check`: each copy that is missing, differs, or should not be there. */
  differences: string[];
}

/** The ledger up to the published size, read once: the consensus state, the sealing entries, the tree. */
interface LedgerView {
  state: ConsensusState;
  entries: Map<number, LedgerEntry>;
  tree: RangeHasher;
  size: number;
}

async function readLedger(ledger: LedgerReader, size: number): Promise<LedgerView> {
  const has = await ledger.size();
  if (has < size) throw new Error(`the published checkpoint covers ${size} entries, the ledger has ${has}`);
  const state = consensusProjection.initial();
  const leaves: Uint8Array[] = [];
  const entries = new Map<number, LedgerEntry>();
  // One pass for every reader: an export gives no inclusion proofs, so the tree is built from the leaves.
  for await (const entry of ledger.entries(0, size)) {
    consensusProjection.apply(state, entry);
    leaves.push(sealEntry(entry).leafHash);
    if (entry.type === "delibproof.sealed") entries.set(entry.seq, entry);
  }
  return { state, entries, tree: rangeHasher(leaves), size };
}

/** The proof file of `delibId` anchored to `note` (a checkpoint of `treeSize` entries). */
function proofFile(view: LedgerView, delibId: string, seq: number, note: string, treeSize: number): string {
  const anchor = proofAnchor(view.entries.get(seq)!, treeSize, inclusionProofWith(view.tree, seq, treeSize), note);
  return `${canonicalize(proofDocument(view.state, delibId, anchor))}\n`;
}

/** Whether `text` is the proof file the ledger gives with the checkpoint it carries (signed by a trusted key). */
function currentCopy(view: LedgerView, delibId: string, seq: number, text: string, trusted: NoteVerifier[]): boolean {
  let note: unknown;
  try {
    note = (JSON.parse(text) as { anchor?: { checkpoint?: unknown } }).anchor?.checkpoint;
  } catch {
    return false;
  }
  if (typeof note !== "string") return false;
  let checkpoint: Checkpoint;
  try {
    checkpoint = verifyCheckpoint(note, trusted);
  } catch {
    return false;
  }
  if (checkpoint.size <= seq || checkpoint.size > view.size) return false;
  return text === proofFile(view, delibId, seq, note, checkpoint.size);
}

/** Writes (or under `check`, compares) the copy of every sealed proof within the published checkpoint. */
export async function publishProofCopies(o: ProofCopiesOptions): Promise<ProofCopiesReport> {
  const report: ProofCopiesReport = { ok: true, written: 0, kept: 0, removed: 0, differences: [] };
  const cpPath = join(o.dataDir, LEDGER_CHECKPOINT);
  const vkeyPath = join(o.dataDir, LEDGER_VKEY);
  const dir = join(o.dataDir, PROOF_COPIES_DIR);
  if (!existsSync(cpPath) || !existsSync(vkeyPath)) {
    const missing = `${existsSync(cpPath) ? vkeyPath : cpPath} is missing: no published checkpoint to anchor the proof copies to`;
    if (!o.check) throw new Error(missing);
    return { ...report, ok: false, differences: [missing] };
  }
  const trusted = parseTrustedKeys(readFileSync(vkeyPath, "utf8"), vkeyPath);
  const note = readFileSync(cpPath, "utf8");
  const published = verifyCheckpoint(note, trusted);
  const view = await readLedger(o.ledger, published.size);

  const expected = new Set<string>();
  for (const [delibId, proof] of view.state.proofs) {
    const seq = proof.seal?.ledger_seq;
    if (seq === undefined || seq >= published.size) continue;
    const name = proofCopyName(delibId);
    expected.add(name);
    const path = join(dir, name);
    const text = existsSync(path) ? readFileSync(path, "utf8") : null;
    if (text !== null && currentCopy(view, delibId, seq, text, trusted)) {
      report.kept += 1;
      continue;
    }
    if (o.check) {
      report.differences.push(`${path}: ${text === null ? "missing" : "differs from the proof file the ledger gives"}`);
      continue;
    }
    mkdirSync(dir, { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, proofFile(view, delibId, seq, note, published.size));
    renameSync(tmp, path);
    report.written += 1;
  }
  const present = existsSync(dir) ? readdirSync(dir).sort() : [];
  for (const name of present.filter((n) => !expected.has(n))) {
    if (o.check) report.differences.push(`${join(dir, name)}: not a proof sealed within ${cpPath}`);
    else (rmSync(join(dir, name), { force: true, recursive: true }), (report.removed += 1));
  }
  report.ok = report.differences.length === 0;
  return report;
}
