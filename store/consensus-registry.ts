/**
 * The consensus registry over a published export and a real ledger: fold an export, and write a
 * sealed proof's file — the proof document with its anchor (the sealing entry, its inclusion proof,
 * a signed checkpoint that covers it). A live ledger's registry is `ledger.state(consensusProjection)`,
 * caught up to the tail like every projection (store/ledger/projection-follower.ts).
 */
import { createReadStream } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { canonicalize } from "../core/canonical.ts";
import { consensusProjection } from "../core/consensus/state.ts";
import type { ConsensusState } from "../core/consensus/model.ts";
import { proofAnchor, proofDocument } from "../core/consensus/views.ts";
import type { LedgerEntry } from "../core/ledger/entry.ts";
import type { LedgerReader } from "../core/ledger/store.ts";
import { entryInclusion } from "./ledger/entry-inclusion.ts";
import { EXPORT_LINES } from "./ledger-jsonl.ts";

/** Folds the entries of an export's `ledger.jsonl` (verify the export first: store/ledger-jsonl.ts). */
export async function foldExport(dir: string): Promise<ConsensusState> {
  const state = consensusProjection.initial();
  const lines = createInterface({ input: createReadStream(join(dir, EXPORT_LINES), "utf8"), crlfDelay: Infinity });
  for await (const line of lines) if (line !== "") consensusProjection.apply(state, JSON.parse(line) as LedgerEntry);
  return state;
}

/**
 * The proof file of a sealed proof: the JCS of its proof document and one LF. Null when the ledger
 * has no such proof, it is not sealed yet, or no signed checkpoint covers its seal yet. Reads only.
 */
export async function sealedProofFile(
  ledger: LedgerReader,
  state: ConsensusState,
  delibId: string,
): Promise<string | null> {
  const seal = state.proofs.get(delibId)?.seal;
  if (!seal) return null;
  const anchor = await entryInclusion(ledger, seal.ledger_seq);
  if (anchor?.status !== "proved") return null;
  const doc = proofDocument(
    state,
    delibId,
    proofAnchor(anchor.entry, anchor.treeSize, anchor.proof, anchor.checkpoint),
  );
  return `${canonicalize(doc)}\n`;
}
