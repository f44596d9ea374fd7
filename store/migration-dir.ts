/**
 * The migration's verification tree on disk: the files `npm run migration` writes, the pipeline
 * publishes under data/migration/ and the API reads.
 *
 *   snapshot.jsonl      the snapshot's leaves, sorted by address (never rewritten)
 *   corrections.jsonl   leaves appended by the 24-hour review, round by round (only appended)
 *   checkpoint          the newest signed checkpoint over snapshot.jsonl ‖ corrections.jsonl
 *   checkpoints/<size>  every checkpoint ever published, the snapshot's first
 *   consistency.jsonl   one consistency proof per review round: {old_size, new_size, proof}
 *   mismatches.jsonl    the mismatch report: {address, input, line, reason} in line order
 *   summary.json        counts, exact totals, the snapshot instant, the review rounds
 *
 * Every JSONL file ends each line with "\n". Writing a snapshot refuses a folder that already holds
 * one; a review round refuses unless the folder's leaves still match its checkpoint, and writes the
 * new checkpoint last (after its leaves, history and consistency proof).
 */
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { parseCheckpoint, signCheckpoint, type NoteSigner } from "../core/checkpoint.ts";
import { canonicalize } from "../core/canonical.ts";
import { equalBytes } from "../core/merkle.ts";
import { mismatchCounts } from "../core/migration/convert.ts";
import { decimalOfShards, formatDecimal } from "../core/migration/decimal.ts";
import { snapshotExport } from "../core/migration/export-bytes.ts";
import {
  MIGRATION_ORIGIN,
  correctionLeaf,
  proveConsistency,
  signTree,
  type ConsistencyRecord,
  type Correction,
} from "../core/migration/snapshot.ts";
import { LeafTree } from "../core/migration/tree.ts";
import { leafRooterFor } from "./leaf-root-helper.ts";
import { MigrationSummary } from "../core/schemas/migration.ts";
import { DAY_MS } from "../core/time.ts";

export const MIGRATION_FILES = {
  snapshot: "snapshot.jsonl",
  corrections: "corrections.jsonl",
  checkpoint: "checkpoint",
  checkpoints: "checkpoints",
  consistency: "consistency.jsonl",
  mismatches: "mismatches.jsonl",
  summary: "summary.json",
} as const;

function jsonl(lines: readonly string[]): string {
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}

function readLines(path: string): string[] {
  if (!existsSync(path)) return [];
  const text = readFileSync(path, "utf8");
  if (text === "") return [];
  if (!text.endsWith("\n")) throw new Error(`${path}: the last line has no newline (a partial write?)`);
  return text.slice(0, -1).split("\n");
}

/** Writes `text` beside `path` and renames it into place, so a reader sees the old or the new file. */
function replaceFile(path: string, text: string | Buffer): void {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}

function renderSummary(summary: MigrationSummary): string {
  return `${JSON.stringify(MigrationSummary.parse(summary), null, 2)}\n`;
}

/** The checkpoint body of a signed note (not verified: this is the publisher's own folder). */
export function checkpointOfNote(note: string) {
  const split = note.lastIndexOf("\n\n");
  if (split < 0) throw new Error("malformed checkpoint note: no signature block");
  return parseCheckpoint(note.slice(0, split + 1));
}

export interface SnapshotInput {
  /** The v1 export's bytes (JSON lines, UTF-8). */
  exportBytes: Uint8Array;
  /** The snapshot instant (ISO 8601 with milliseconds); the review lasts 24 hours from it. */
  at: string;
  signer: NoteSigner;
}

export interface SnapshotWritten {
  summary: MigrationSummary;
  checkpoint: string;
  rootHash: Uint8Array;
}

/**
 * The files of a new snapshot, in memory: what `writeSnapshot` puts on disk (and `--check`
 * compares). The export is converted, verified line by line and hashed by
 * core/migration/export-bytes.ts (a large tree on two threads: store/leaf-root-helper.ts); a
 * conversion that does not verify throws, and nothing is written.
 */
export function snapshotFiles(input: SnapshotInput): { files: Map<string, string | Buffer>; written: SnapshotWritten } {
  const { at } = input;
  const atMs = Date.parse(at);
  if (!Number.isFinite(atMs)) throw new Error(`snapshot instant "${at}" is not an ISO 8601 instant`);
  const snapshot = snapshotExport(input.exportBytes, leafRooterFor(input.exportBytes.length));
  const checkpoint = signCheckpoint(
    { origin: MIGRATION_ORIGIN, size: snapshot.size, rootHash: snapshot.rootHash },
    input.signer,
  );
  // Every converted line equals its v1 value (checked per line), so the v1 total is the shards' total.
  const total = formatDecimal(decimalOfShards(snapshot.totalShards));
  const summary: MigrationSummary = {
    origin: MIGRATION_ORIGIN,
    snapshot_at: new Date(atMs).toISOString(),
    review_ends: new Date(atMs + DAY_MS).toISOString(),
    input: { lines: snapshot.lines, sha256: `sha256:${createHash("sha256").update(input.exportBytes).digest("hex")}` },
    converted: snapshot.size,
    mismatches: snapshot.mismatches.length,
    mismatches_by_reason: mismatchCounts(snapshot.mismatches),
    total_v1_balance_gic: total,
    total_balance_shards: snapshot.totalShards.toString(),
    verified: true,
    snapshot_size: snapshot.size,
    tree_size: snapshot.size,
    reviews: [],
  };
  const files = new Map<string, string | Buffer>([
    [MIGRATION_FILES.snapshot, snapshot.jsonl],
    [
      MIGRATION_FILES.mismatches,
      jsonl(
        snapshot.mismatches.map((m) =>
          canonicalize({ address: m.address, input: m.input, line: m.line, reason: m.reason }),
        ),
      ),
    ],
    [MIGRATION_FILES.corrections, ""],
    [MIGRATION_FILES.consistency, ""],
    [`${MIGRATION_FILES.checkpoints}/${snapshot.size}`, checkpoint],
    [MIGRATION_FILES.summary, renderSummary(summary)],
    [MIGRATION_FILES.checkpoint, checkpoint],
  ]);
  return { files, written: { summary, checkpoint, rootHash: snapshot.rootHash } };
}

/** Writes a new snapshot folder; refuses one that already holds a snapshot. */
export function writeSnapshot(dir: string, input: SnapshotInput): SnapshotWritten {
  if (existsSync(join(dir, MIGRATION_FILES.checkpoint)) || existsSync(join(dir, MIGRATION_FILES.snapshot))) {
    throw new Error(
      `${dir} already holds a snapshot: a published tree is only appended to (npm run migration -- correct), never rewritten`,
    );
  }
  const { files, written } = snapshotFiles(input);
  mkdirSync(join(dir, MIGRATION_FILES.checkpoints), { recursive: true });
  // The checkpoint last: its presence means the folder is complete.
  for (const [name, text] of files) replaceFile(join(dir, name), text);
  return written;
}

export interface MigrationDir {
  dir: string;
  /** snapshot.jsonl ‖ corrections.jsonl: the tree's leaves in order. */
  leaves: string[];
  snapshotSize: number;
  /** The newest signed checkpoint note. */
  checkpoint: string;
  /** Every published checkpoint, by size, ascending. */
  history: { size: number; note: string }[];
  consistency: ConsistencyRecord[];
  mismatches: string[];
  /** summary.json as written (unverified: nothing in it is trusted by a verifier). */
  summary: MigrationSummary | null;
}

export function readMigrationDir(dir: string): MigrationDir {
  const checkpointPath = join(dir, MIGRATION_FILES.checkpoint);
  if (!existsSync(checkpointPath))
    throw new Error(`${dir}: no ${MIGRATION_FILES.checkpoint} (is this a migration snapshot folder?)`);
  const snapshot = readLines(join(dir, MIGRATION_FILES.snapshot));
  const corrections = readLines(join(dir, MIGRATION_FILES.corrections));
  const historyDir = join(dir, MIGRATION_FILES.checkpoints);
  const history = existsSync(historyDir)
    ? readdirSync(historyDir)
        .filter((name) => /^(0|[1-9][0-9]*)$/.test(name))
        .map((name) => ({ size: Number(name), note: readFileSync(join(historyDir, name), "utf8") }))
        .sort((a, b) => a.size - b.size)
    : [];
  const consistency = readLines(join(dir, MIGRATION_FILES.consistency)).map((line, i) => {
    try {
      return JSON.parse(line) as ConsistencyRecord;
    } catch {
      throw new Error(`${join(dir, MIGRATION_FILES.consistency)}: line ${i + 1} is not JSON`);
    }
  });
  const summaryPath = join(dir, MIGRATION_FILES.summary);
  let summary: MigrationSummary | null = null;
  if (existsSync(summaryPath)) {
    const parsed = MigrationSummary.safeParse(JSON.parse(readFileSync(summaryPath, "utf8")));
    summary = parsed.success ? parsed.data : null;
  }
  return {
    dir,
    leaves: [...snapshot, ...corrections],
    snapshotSize: snapshot.length,
    checkpoint: readFileSync(checkpointPath, "utf8"),
    history,
    consistency,
    mismatches: readLines(join(dir, MIGRATION_FILES.mismatches)),
    summary,
  };
}

export interface ReviewRound {
  /** The instant of the round; must lie in the 24-hour review after the snapshot. */
  at: string;
  corrections: readonly Correction[];
  signer: NoteSigner;
}

/**
 * One review round: the corrections appended as leaves, a new checkpoint signed over the grown
 * tree, the previous checkpoint kept in checkpoints/, and the consistency proof between the two.
 */
export function appendReviewRound(
  dir: string,
  round: ReviewRound,
): { checkpoint: string; consistency: ConsistencyRecord; tree: LeafTree } {
  const state = readMigrationDir(dir);
  if (!state.summary) throw new Error(`${dir}: ${MIGRATION_FILES.summary} is missing or invalid`);
  if (round.corrections.length === 0) throw new Error("a review round needs at least one correction");
  const atMs = Date.parse(round.at);
  const from = Date.parse(state.summary.snapshot_at);
  const until = Date.parse(state.summary.review_ends);
  if (!Number.isFinite(atMs) || atMs < from || atMs >= until) {
    throw new Error(
      `corrections are taken during the 24-hour review only: [${state.summary.snapshot_at}, ${state.summary.review_ends}), not at ${round.at}`,
    );
  }
  const current = checkpointOfNote(state.checkpoint);
  const before = LeafTree.fromTexts(state.leaves);
  if (before.size !== current.size || !equalBytes(before.rootHash(), current.rootHash)) {
    throw new Error(
      `${dir}: the leaves (${before.size}) do not match the checkpoint (${current.size}); refusing to append to a damaged folder`,
    );
  }
  const added = round.corrections.map(correctionLeaf);
  const leaves = [...state.leaves, ...added];
  const { tree, checkpoint } = signTree(leaves, round.signer);
  const consistency = proveConsistency(tree, current.size);

  appendFileSync(join(dir, MIGRATION_FILES.corrections), jsonl(added));
  mkdirSync(join(dir, MIGRATION_FILES.checkpoints), { recursive: true });
  replaceFile(join(dir, MIGRATION_FILES.checkpoints, String(tree.size)), checkpoint);
  appendFileSync(join(dir, MIGRATION_FILES.consistency), `${canonicalize(consistency)}\n`);
  const summary: MigrationSummary = {
    ...state.summary,
    tree_size: tree.size,
    reviews: [
      ...state.summary.reviews,
      { at: new Date(atMs).toISOString(), corrections: added.length, tree_size: tree.size },
    ],
  };
  replaceFile(join(dir, MIGRATION_FILES.summary), renderSummary(summary));
  replaceFile(join(dir, MIGRATION_FILES.checkpoint), checkpoint);
  return { checkpoint, consistency, tree };
}
