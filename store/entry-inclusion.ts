/**
 * Proof that an entry is in the ledger: its RFC 9162 inclusion proof against a signed checkpoint
 * that covers it — the newest stored checkpoint when it does, else a new one signed now. What a
 * client holds after a write (the AVM's grant, a consensus seal) to check later, offline, that the
 * ledger recorded it.
 */
import { parseCheckpoint } from "../core/checkpoint.ts";
import type { LedgerEntry } from "../core/ledger/entry.ts";
import type { LedgerStore } from "../core/ledger/store.ts";

/** The checkpoint that covers entry `seq`: the newest stored one if it does, else a new one. */
export function checkpointCovering(ledger: LedgerStore, seq: number): { note: string; size: number } {
  const latest = ledger.latestCheckpoint();
  if (latest !== null) {
    const size = parseCheckpoint(latest.slice(0, latest.indexOf("\n\n") + 1)).size;
    if (size > seq) return { note: latest, size };
  }
  const note = ledger.checkpoint();
  return { note, size: parseCheckpoint(note.slice(0, note.indexOf("\n\n") + 1)).size };
}

export interface EntryInclusion {
  entry: LedgerEntry;
  /** The size of the tree the proof and the checkpoint are about. */
  treeSize: number;
  /** Sibling hashes, leaf side first. */
  proof: Uint8Array[];
  /** The signed checkpoint (C2SP signed note) of that tree. */
  checkpoint: string;
}

/** Entry `seq` with its inclusion proof and a signed checkpoint covering it; null past the tail. */
export function entryInclusion(ledger: LedgerStore, seq: number): EntryInclusion | null {
  if (!Number.isSafeInteger(seq) || seq < 0 || seq >= ledger.size()) return null;
  const { note, size } = checkpointCovering(ledger, seq);
  const entry = ledger.entries(seq, seq + 1).next().value as LedgerEntry;
  return { entry, treeSize: size, proof: ledger.inclusionProof(seq, size), checkpoint: note };
}
