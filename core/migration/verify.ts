/**
 * Offline verification of the migration's verification tree, as named steps, each failing with one
 * error class and a code:
 *
 *   1. checkpoint   the signed note verifies with a trusted key (the caller's, never one shipped
 *                   beside the data), and its body is a checkpoint of MIGRATION_ORIGIN;
 *   2. leaf         the leaf is a snapshot or correction leaf, canonical, for the asked address;
 *   3. inclusion    the proof leads from the leaf's hash at its index to the checkpoint's root, at
 *                   the checkpoint's size;
 *   4. consistency  (review rounds) each later checkpoint extends the earlier one.
 */
import { verifyCheckpoint, type Checkpoint, type NoteVerifier } from "../checkpoint.ts";
import { leafHashOfText, verifyConsistency, verifyInclusion } from "../merkle.ts";
import { MIGRATION_ORIGIN, parseLeaf, type ConsistencyRecord, type LeafProof, type SnapshotLeaf } from "./snapshot.ts";
import { CodedError } from "../errors.ts";

export type MigrationVerifyCode =
  | "checkpoint-untrusted"
  | "wrong-origin"
  | "proof-malformed"
  | "leaf-malformed"
  | "wrong-address"
  | "tree-size-mismatch"
  | "inclusion-failed"
  | "consistency-failed";

export class MigrationVerifyError extends CodedError<MigrationVerifyCode> {}

const BASE64_HASH = /^[A-Za-z0-9+/]{43}=$/;

function decodeHashes(list: unknown, what: string): Uint8Array[] {
  if (!Array.isArray(list) || list.length > 64)
    throw new MigrationVerifyError("proof-malformed", `${what} is not a list of at most 64 hashes`);
  return list.map((h, i) => {
    if (typeof h !== "string" || !BASE64_HASH.test(h))
      throw new MigrationVerifyError("proof-malformed", `${what}[${i}] is not a base64 SHA-256 hash`);
    const bytes = new Uint8Array(Buffer.from(h, "base64"));
    if (Buffer.from(bytes).toString("base64") !== h)
      throw new MigrationVerifyError("proof-malformed", `${what}[${i}] is not in canonical base64`);
    return bytes;
  });
}

/** Step 1: the checkpoint, opened with the trusted keys only. */
export function verifyMigrationCheckpoint(note: string, trusted: NoteVerifier[]): Checkpoint {
  let checkpoint: Checkpoint;
  try {
    checkpoint = verifyCheckpoint(note, trusted);
  } catch (error) {
    throw new MigrationVerifyError("checkpoint-untrusted", `checkpoint: ${(error as Error).message}`);
  }
  if (checkpoint.origin !== MIGRATION_ORIGIN) {
    throw new MigrationVerifyError(
      "wrong-origin",
      `checkpoint: origin is "${checkpoint.origin}", expected "${MIGRATION_ORIGIN}"`,
    );
  }
  return checkpoint;
}

/** Steps 2 and 3: the proof of `address` against a verified checkpoint. Returns the leaf. */
export function verifyLeafProof(address: string, proof: LeafProof, checkpoint: Checkpoint): SnapshotLeaf {
  if (typeof proof !== "object" || proof === null)
    throw new MigrationVerifyError("proof-malformed", "the proof is not an object");
  const { index, tree_size, leaf } = proof;
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(tree_size) || typeof leaf !== "string") {
    throw new MigrationVerifyError(
      "proof-malformed",
      "the proof needs an integer index and tree_size and a leaf string",
    );
  }
  const hashes = decodeHashes(proof.proof, "proof");
  const parsed = parseLeaf(leaf);
  if (!parsed)
    throw new MigrationVerifyError(
      "leaf-malformed",
      "the leaf is not a snapshot or correction leaf in canonical (JCS) form",
    );
  if (parsed.address !== address)
    throw new MigrationVerifyError("wrong-address", `the leaf is for "${parsed.address}", not "${address}"`);
  if (tree_size !== checkpoint.size) {
    throw new MigrationVerifyError(
      "tree-size-mismatch",
      `the proof is for a tree of ${tree_size} leaves, the checkpoint signs ${checkpoint.size}`,
    );
  }
  if (!verifyInclusion(leafHashOfText(leaf), index, tree_size, hashes, checkpoint.rootHash)) {
    throw new MigrationVerifyError(
      "inclusion-failed",
      `the leaf at index ${index} does not lead to the checkpoint's root`,
    );
  }
  return parsed;
}

/** Step 4: a later verified checkpoint extends an earlier one. */
export function verifyCheckpointConsistency(older: Checkpoint, newer: Checkpoint, record: ConsistencyRecord): void {
  if (record.old_size !== older.size || record.new_size !== newer.size) {
    throw new MigrationVerifyError(
      "consistency-failed",
      `the consistency proof is for ${record.old_size} → ${record.new_size}, the checkpoints are ${older.size} → ${newer.size}`,
    );
  }
  const hashes = decodeHashes(record.proof, "consistency proof");
  if (!verifyConsistency(older.size, newer.size, older.rootHash, newer.rootHash, hashes)) {
    throw new MigrationVerifyError(
      "consistency-failed",
      `checkpoint ${newer.size} does not extend checkpoint ${older.size}`,
    );
  }
}
