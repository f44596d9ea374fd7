/**
 * Proof that an entry is in the ledger: its RFC 9162 inclusion proof against the newest signed
 * checkpoint, when that covers it. What a client holds after a write (the AVM's grant, a consensus
 * seal) to check later, offline, that the ledger recorded it.
 *
 * A proof is a read and never writes: checkpoints are signed by the write path (every write that
 * appends, with the ledger key: store/ledger/ledger.ts) and, for entries a writer without the key
 * appended, by the server's schedule (`coverTail`). An entry the newest checkpoint does not cover
 * yet is `pending` (docs/ledger-reads.md).
 */
import { parseCheckpoint } from "../../core/checkpoint.ts";
import type { LedgerEntry } from "../../core/ledger/entry.ts";
import type { LedgerReader, LedgerStore } from "../../core/ledger/store.ts";

/** How often the server signs a checkpoint when entries are not covered yet; what `pending` answers retry after. */
export const CHECKPOINT_INTERVAL_S = 5;

/** The newest stored checkpoint and the size of the tree it signs, or null when none was made. */
export async function latestCheckpoint(
  ledger: Pick<LedgerReader, "latestCheckpoint">,
): Promise<{ note: string; size: number } | null> {
  const note = await ledger.latestCheckpoint();
  return note === null ? null : { note, size: parseCheckpoint(note.slice(0, note.indexOf("\n\n") + 1)).size };
}

/** The schedule's step: signs a checkpoint of the tail when the newest one does not cover every entry; says whether it signed. */
export async function coverTail(ledger: LedgerStore): Promise<boolean> {
  const size = await ledger.size();
  if (((await latestCheckpoint(ledger))?.size ?? 0) >= size) return false;
  await ledger.checkpoint();
  return true;
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

export type InclusionAnswer =
  | ({ status: "proved" } & EntryInclusion)
  /** No signed checkpoint covers the entry yet: `checkpointSize` is the newest one's (0: none). */
  | { status: "pending"; entry: LedgerEntry; checkpointSize: number };

/**
 * Entry `seq` with its inclusion proof against the newest checkpoint, or pending; null past the tail.
 * A witnessed checkpoint (cosigned, store/witnessed-checkpoint.ts) that covers the entry is preferred:
 * the proof is then against it and carries its cosignatures. Reads only.
 */
export async function entryInclusion(
  ledger: LedgerReader,
  seq: number,
  witnessed?: { note: string; size: number } | null,
): Promise<InclusionAnswer | null> {
  if (!Number.isSafeInteger(seq) || seq < 0 || seq >= (await ledger.size())) return null;
  const entry = await firstEntry(ledger, seq);
  if (!entry) return null;
  if (witnessed && witnessed.size > seq) {
    return {
      status: "proved",
      entry,
      treeSize: witnessed.size,
      proof: await ledger.inclusionProof(seq, witnessed.size),
      checkpoint: witnessed.note,
    };
  }
  const latest = await latestCheckpoint(ledger);
  if (!latest || latest.size <= seq) return { status: "pending", entry, checkpointSize: latest?.size ?? 0 };
  return {
    status: "proved",
    entry,
    treeSize: latest.size,
    proof: await ledger.inclusionProof(seq, latest.size),
    checkpoint: latest.note,
  };
}

/** Entry `seq`, or undefined. */
async function firstEntry(ledger: LedgerReader, seq: number): Promise<LedgerEntry | undefined> {
  for await (const entry of ledger.entries(seq, seq + 1)) return entry;
  return undefined;
}
