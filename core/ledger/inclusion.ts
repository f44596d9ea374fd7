/**
 * Checking that an entry is in the ledger, offline, from what a client holds: the entry's payload
 * (it knows what it wrote — for an authority grant, the authority_context) and the answer of
 * `GET /ledger/entries/{seq}/inclusion` — the entry's envelope (seq, type, ts, prev, hash, without
 * the payload), the RFC 9162 audit path and a signed checkpoint of a tree that contains it.
 *
 * The entry is rebuilt from payload + envelope and sealed (core/ledger/entry.ts): its hash must be
 * the envelope's, its Merkle leaf must lead through the audit path to the root the checkpoint
 * signs, under a trusted key. Pure; never throws for a bad answer.
 */
import { verifyCheckpoint, type NoteVerifier } from "../checkpoint.ts";
import { verifyInclusion } from "../merkle.ts";
import { sealEntry, type JsonObject } from "./entry.ts";

/** An entry without its payload: what the public inclusion route tells about it. */
export interface EntryEnvelope {
  seq: number;
  type: string;
  ts: string;
  prev: string | null;
  hash: string;
}

export interface InclusionAnswer {
  entry: EntryEnvelope;
  tree_size: number;
  /** Sibling hashes, leaf side first, base64. */
  proof: readonly string[];
  /** C2SP signed note of the tree of `tree_size` entries. */
  checkpoint: string;
}

export type InclusionCheck = { ok: true; origin: string; treeSize: number } | { ok: false; problem: string };

export function verifyEntryInclusion(
  payload: JsonObject,
  answer: InclusionAnswer,
  verifiers: NoteVerifier[],
): InclusionCheck {
  let checkpoint;
  try {
    checkpoint = verifyCheckpoint(answer.checkpoint, verifiers);
  } catch (error) {
    return { ok: false, problem: `the checkpoint does not verify: ${(error as Error).message}` };
  }
  if (checkpoint.size !== answer.tree_size)
    return {
      ok: false,
      problem: `the checkpoint signs a tree of ${checkpoint.size} entries, the proof is for ${answer.tree_size}`,
    };
  const { seq, type, ts, prev, hash } = answer.entry;
  let sealed;
  try {
    sealed = sealEntry({ seq, type, payload, ts, prev });
  } catch (error) {
    return { ok: false, problem: `the entry cannot be rebuilt: ${(error as Error).message}` };
  }
  if (sealed.entry.hash !== hash)
    return { ok: false, problem: `the payload does not give entry ${seq}'s hash: it is not the entry's payload` };
  const proof = answer.proof.map((p) => new Uint8Array(Buffer.from(p, "base64")));
  if (!verifyInclusion(sealed.leafHash, seq, answer.tree_size, proof, checkpoint.rootHash))
    return { ok: false, problem: `the audit path does not lead from entry ${seq} to the signed root` };
  return { ok: true, origin: checkpoint.origin, treeSize: checkpoint.size };
}
