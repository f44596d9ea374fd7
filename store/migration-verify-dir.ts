/**
 * Verifies a migration folder offline, step by step (core/migration/verify.ts does each check):
 *
 *   checkpoint   DIR/checkpoint verifies with a trusted key and names the migration log
 *   history      every checkpoint in DIR/checkpoints/ verifies, the newest is DIR/checkpoint, and
 *                each review round's consistency proof links one to the next
 *   leaves       (whole folder) the leaves hash to the checkpoint's root; the snapshot part is
 *                sorted by address, one leaf each, every leaf canonical
 *   leaf, inclusion  (--address) the address's last leaf, and its inclusion proof — computed from
 *                the folder, or the one given — against the checkpoint
 *   manifest     when DIR/datapackage.json is there (data/migration/): its signature verifies and
 *                every listed file has its recorded size and hash
 *
 * Nothing in the folder is trusted but what these checks establish: the keys are the caller's.
 * It lives in store/ because both `npm run migration -- verify` (pipeline) and the portal's build
 * (site) run it, and neither may import the other's layer.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Checkpoint, NoteVerifier } from "../core/checkpoint.ts";
import { compareAddresses } from "../core/money/address.ts";
import { equalBytes } from "../core/merkle.ts";
import {
  indexLeaves,
  leafAddress,
  parseLeaf,
  proveLeaf,
  type LeafProof,
  type SnapshotLeaf,
} from "../core/migration/snapshot.ts";
import { LeafTree } from "../core/migration/tree.ts";
import {
  MigrationVerifyError,
  verifyCheckpointConsistency,
  verifyLeafProof,
  verifyMigrationCheckpoint,
} from "../core/migration/verify.ts";
import { openManifestSignature, SIGNATURE_FILE } from "../core/datapackage/index.ts";
import { readMigrationDir } from "./migration-dir.ts";
import { CodedError } from "../core/errors.ts";

export const MIGRATION_MANIFEST = "datapackage.json";
export const MIGRATION_AREA = "migration";

export type DirVerifyCode =
  | MigrationVerifyError["code"]
  | "address-not-found"
  | "leaves-mismatch"
  | "history-broken"
  | "manifest-invalid"
  | "unreadable";

export interface VerifyStep {
  name: "checkpoint" | "history" | "leaves" | "leaf" | "inclusion" | "manifest";
  ok: boolean;
  detail: string;
}

export interface DirVerifyReport {
  ok: boolean;
  code?: DirVerifyCode;
  steps: VerifyStep[];
  leaf?: SnapshotLeaf;
}

class StepFailure extends CodedError<DirVerifyCode> {}

export function verifyMigrationDir(
  dir: string,
  trusted: NoteVerifier[],
  options: { address?: string; proof?: LeafProof } = {},
): DirVerifyReport {
  const steps: VerifyStep[] = [];
  let current: VerifyStep["name"] = "checkpoint";
  const pass = (detail: string) => steps.push({ name: current, ok: true, detail });
  try {
    let state;
    try {
      state = readMigrationDir(dir);
    } catch (error) {
      throw new StepFailure("unreadable", (error as Error).message);
    }

    const checkpoint = verifyMigrationCheckpoint(state.checkpoint, trusted);
    pass(`${checkpoint.origin}, ${checkpoint.size} leaves`);

    current = "history";
    pass(verifyHistory(state.history, state.checkpoint, state.consistency, trusted));

    if (options.address === undefined) {
      current = "leaves";
      pass(verifyLeaves(state.leaves, state.snapshotSize, checkpoint));
    } else {
      current = "leaf";
      const address = options.address;
      let proof = options.proof;
      if (proof === undefined) {
        if (state.leaves.length !== checkpoint.size)
          throw new StepFailure(
            "tree-size-mismatch",
            `the folder holds ${state.leaves.length} leaves, the checkpoint signs ${checkpoint.size}`,
          );
        const index = indexLeaves(state.leaves).get(address);
        if (index === undefined)
          throw new StepFailure("address-not-found", `${address} has no leaf (see mismatches.jsonl)`);
        proof = proveLeaf(LeafTree.fromTexts(state.leaves), state.leaves, index);
      }
      pass(`index ${proof.index}: ${proof.leaf}`);
      current = "inclusion";
      const leaf = verifyLeafProof(address, proof, checkpoint);
      pass(`${proof.proof.length} hashes lead to the checkpoint's root`);
      if (existsSync(join(dir, MIGRATION_MANIFEST))) {
        current = "manifest";
        pass(verifyManifest(dir, trusted));
      }
      return { ok: true, steps, leaf };
    }
    if (existsSync(join(dir, MIGRATION_MANIFEST))) {
      current = "manifest";
      pass(verifyManifest(dir, trusted));
    }
    return { ok: true, steps };
  } catch (error) {
    const code: DirVerifyCode =
      error instanceof MigrationVerifyError || error instanceof StepFailure ? error.code : "unreadable";
    steps.push({ name: current, ok: false, detail: (error as Error).message });
    return { ok: false, code, steps };
  }
}

function verifyHistory(
  history: { size: number; note: string }[],
  latest: string,
  consistency: { old_size: number; new_size: number; proof: string[] }[],
  trusted: NoteVerifier[],
): string {
  if (history.length === 0) return "no earlier checkpoints published";
  const checkpoints: Checkpoint[] = history.map(({ size, note }) => {
    const c = verifyMigrationCheckpoint(note, trusted);
    if (c.size !== size)
      throw new StepFailure("history-broken", `checkpoints/${size} signs a tree of ${c.size} leaves`);
    return c;
  });
  if (history.at(-1)!.note !== latest)
    throw new StepFailure(
      "history-broken",
      `the newest of checkpoints/ (${history.at(-1)!.size}) is not the current checkpoint`,
    );
  if (consistency.length !== checkpoints.length - 1)
    throw new StepFailure(
      "history-broken",
      `${checkpoints.length} checkpoints need ${checkpoints.length - 1} consistency proofs, found ${consistency.length}`,
    );
  for (let i = 1; i < checkpoints.length; i++)
    verifyCheckpointConsistency(checkpoints[i - 1]!, checkpoints[i]!, consistency[i - 1]!);
  return checkpoints.length === 1
    ? "one checkpoint, no review round"
    : `${checkpoints.length} checkpoints (${checkpoints.map((c) => c.size).join(" → ")}), each consistent with the one before`;
}

function verifyLeaves(leaves: string[], snapshotSize: number, checkpoint: Checkpoint): string {
  if (leaves.length !== checkpoint.size)
    throw new StepFailure(
      "tree-size-mismatch",
      `the folder holds ${leaves.length} leaves, the checkpoint signs ${checkpoint.size}`,
    );
  const tree = LeafTree.fromTexts(leaves);
  if (!equalBytes(tree.rootHash(), checkpoint.rootHash))
    throw new StepFailure("leaves-mismatch", "the leaves do not hash to the checkpoint's root");
  let previous: string | null = null;
  leaves.forEach((text, i) => {
    const leaf = parseLeaf(text);
    if (!leaf)
      throw new StepFailure("leaf-malformed", `leaf ${i} is not a snapshot or correction leaf in canonical form`);
    if (i >= snapshotSize) return;
    if (leaf.v1_balance_gic === undefined)
      throw new StepFailure("leaf-malformed", `snapshot leaf ${i} carries no v1_balance_gic`);
    const address = leafAddress(text)!;
    if (previous !== null && compareAddresses(previous, address) >= 0)
      throw new StepFailure(
        "leaves-mismatch",
        `snapshot leaf ${i} (${address}) is not after ${previous}: not sorted, or twice`,
      );
    previous = address;
  });
  return `${leaves.length} leaves (${snapshotSize} snapshot, ${leaves.length - snapshotSize} corrections) hash to the root; the snapshot is sorted, one leaf per address`;
}

function verifyManifest(dir: string, trusted: NoteVerifier[]): string {
  const bytes = readFileSync(join(dir, MIGRATION_MANIFEST));
  const sigPath = join(dir, SIGNATURE_FILE);
  if (!existsSync(sigPath)) throw new StepFailure("manifest-invalid", `${SIGNATURE_FILE} is missing`);
  try {
    openManifestSignature(MIGRATION_AREA, bytes, readFileSync(sigPath, "utf8"), trusted);
  } catch (error) {
    throw new StepFailure("manifest-invalid", `${MIGRATION_MANIFEST}: ${(error as Error).message}`);
  }
  const manifest = JSON.parse(bytes.toString("utf8")) as {
    resources?: { path: string; bytes: number; hash: string }[];
  };
  for (const r of manifest.resources ?? []) {
    if (typeof r.path !== "string" || !/^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)*$/.test(r.path))
      throw new StepFailure(
        "manifest-invalid",
        `resource path ${JSON.stringify(r.path)} is not a relative path inside the folder`,
      );
    const path = join(dir, r.path);
    if (!existsSync(path)) throw new StepFailure("manifest-invalid", `${r.path} is listed but missing`);
    const file = readFileSync(path);
    const hash = `sha256:${createHash("sha256").update(file).digest("hex")}`;
    if (file.length !== r.bytes || hash !== r.hash)
      throw new StepFailure("manifest-invalid", `${r.path} does not match the signed manifest`);
  }
  return `signed manifest verifies; ${manifest.resources?.length ?? 0} files match it`;
}
