/**
 * The published migration tree (store/migration-dir.ts), opened for lookups: its leaves checked
 * against the signed checkpoint under the trusted dataset keys, the snapshot's balances, and the
 * index that proves an address's last leaf. A folder without a checkpoint (or no folder) holds no
 * snapshot yet; a folder with a checkpoint must verify, or it is not opened at all (fail closed).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { NoteVerifier } from "../core/checkpoint.ts";
import { equalBytes } from "../core/merkle.ts";
import { indexLeaves, proveLeaf, snapshotBalances, type LeafProof } from "../core/migration/snapshot.ts";
import { LeafTree } from "../core/migration/tree.ts";
import { verifyMigrationCheckpoint } from "../core/migration/verify.ts";
import type { MigrationSummary } from "../core/schemas/migration.ts";
import { MIGRATION_FILES, readMigrationDir } from "./migration-dir.ts";

export interface PublishedSnapshot {
  summary: MigrationSummary;
  /** Each address's balance in the snapshot, after the review's corrections. */
  balances: Map<string, bigint>;
  leaves: string[];
  index: Map<string, number>;
  tree: LeafTree;
}

/**
 * Opens the published folder: null when it holds no checkpoint; throws for a checkpoint no trusted
 * key signed (MigrationVerifyError), leaves that do not match it, or a missing summary.
 */
export function openPublishedSnapshot(migrationDir: string, trusted: NoteVerifier[]): PublishedSnapshot | null {
  if (!existsSync(join(migrationDir, MIGRATION_FILES.checkpoint))) return null;
  const dir = readMigrationDir(migrationDir);
  const checkpoint = verifyMigrationCheckpoint(dir.checkpoint, trusted);
  const tree = LeafTree.fromTexts(dir.leaves);
  if (tree.size !== checkpoint.size || !equalBytes(tree.rootHash(), checkpoint.rootHash)) {
    throw new Error(`${migrationDir}: the leaves do not match the signed checkpoint`);
  }
  if (!dir.summary) throw new Error(`${migrationDir}: summary.json is missing or invalid (the snapshot instant)`);
  return {
    summary: dir.summary,
    balances: snapshotBalances(dir.leaves),
    leaves: dir.leaves,
    index: indexLeaves(dir.leaves),
    tree,
  };
}

/** The address's last leaf in the tree with its inclusion proof against the newest checkpoint, or null. */
export function proveAddress(published: PublishedSnapshot, address: string): LeafProof | null {
  const index = published.index.get(address);
  return index === undefined ? null : proveLeaf(published.tree, published.leaves, index);
}
