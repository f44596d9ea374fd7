/**
 * Copies a ledger from one backend to another (`npm run ledger -- copy --to postgres://…`) through
 * the backend primitives only: the rows, the stored subtrees and the stored checkpoints exactly as
 * they are — nothing is sealed or signed again — in large batches, one transaction each, so an
 * interrupted copy resumes from the target's tail. A target that holds anything but a prefix of the
 * source is refused before anything is written. `proveCopy` then checks the copy through two
 * ledgers: the same size, root and newest checkpoint, and verify() clean on the target.
 */
import { CodedError } from "../core/errors.ts";
import { formatDigest } from "../core/digest.ts";
import { equalBytes } from "../core/merkle.ts";
import {
  subtreeKey,
  type BackendReads,
  type EntryRow,
  type LedgerBackend,
  type StoredCheckpoint,
  type SubtreeRow,
} from "./ledger/backend.ts";
import type { Ledger } from "./ledger/ledger.ts";
import { STORED_LEVEL } from "./ledger/merkle-reads.ts";

/** Entries per copying transaction. */
export const COPY_BATCH = 8192;

export type LedgerCopyCode = "copy-target-diverges" | "copy-source-damaged";

/** The copy was refused (the target is not a prefix of the source) or the source lacks what it must hold. */
export class LedgerCopyError extends CodedError<LedgerCopyCode> {}

export interface CopyResult {
  /** The source's size when the copy began: what was copied up to. */
  size: number;
  /** Entries the target already held (a prefix of the source), not copied again. */
  resumedFrom: number;
  /** The source's checkpoints up to `size`, now all on the target. */
  checkpoints: number;
  /** The newest of them (null: none). */
  latestCheckpoint: string | null;
}

export interface CopyOptions {
  batch?: number;
  /** Called after each committed batch with the entries now on the target. */
  progress?: (copied: number, total: number) => void;
}

/** The stored subtrees (level >= STORED_LEVEL) that entries from..to-1 complete. */
export function subtreesCompleted(from: number, to: number): { level: number; idx: number }[] {
  const keys: { level: number; idx: number }[] = [];
  for (let level = STORED_LEVEL; 2 ** level <= to; level++) {
    const width = 2 ** level;
    for (let idx = Math.floor(from / width); idx < Math.floor(to / width); idx++) keys.push({ level, idx });
  }
  return keys;
}

async function rowsBetween(reads: BackendReads, from: number, to: number): Promise<EntryRow[]> {
  const rows: EntryRow[] = [];
  while (from + rows.length < to) {
    const page = await reads.rows(from + rows.length, to, to - from - rows.length);
    if (page.length === 0) break;
    rows.push(...page);
  }
  if (rows.length !== to - from || rows.some((r, i) => r.seq !== from + i)) {
    throw new LedgerCopyError(
      "copy-source-damaged",
      `the source lacks entries between ${from} and ${to - 1}; run \`npm run ledger -- verify\` on it`,
    );
  }
  return rows;
}

async function subtreesOf(source: BackendReads, from: number, to: number): Promise<SubtreeRow[]> {
  const keys = subtreesCompleted(from, to);
  const found = await source.subtrees(keys);
  return keys.map(({ level, idx }) => {
    const hash = found.get(subtreeKey(level, idx));
    if (!hash)
      throw new LedgerCopyError(
        "copy-source-damaged",
        `the source lacks its stored subtree (${level}, ${idx}); run \`npm run ledger -- verify\` on it`,
      );
    return { level, idx, hash };
  });
}

/** Refuses a target that is not a prefix of the source: longer, another chain, or a checkpoint the source does not hold. */
async function checkPrefix(
  source: BackendReads,
  target: BackendReads,
  size: number,
  checkpoints: Map<number, StoredCheckpoint>,
): Promise<number> {
  const last = await target.last();
  const have = last ? last.seq + 1 : 0;
  const refuse = (why: string) => {
    throw new LedgerCopyError(
      "copy-target-diverges",
      `the target is not a prefix of the source: ${why}; copy into an empty database`,
    );
  };
  if (have > size) refuse(`it holds ${have} entries, the source ${size}`);
  if (last) {
    const [mine] = await source.rows(last.seq, last.seq + 1, 1);
    if (mine?.hash !== last.hash)
      refuse(`its entry ${last.seq} is ${last.hash}, the source's ${mine?.hash ?? "missing"}`);
  }
  for (const c of await target.checkpoints()) {
    if (checkpoints.get(c.size)?.note !== c.note) refuse(`its checkpoint at size ${c.size} is not the source's`);
  }
  return have;
}

/**
 * Copies `source` into `target` (both opened with the same origin) up to the source's size when the
 * copy begins. Each batch is one transaction that first checks the target's tail is still where the
 * copy left it.
 */
export async function copyLedger(
  source: LedgerBackend,
  target: LedgerBackend,
  options: CopyOptions = {},
): Promise<CopyResult> {
  const batch = options.batch ?? COPY_BATCH;
  const tail = await source.last();
  const size = tail ? tail.seq + 1 : 0;
  const stored = (await source.checkpoints()).filter((c) => c.size <= size);
  const bySize = new Map(stored.map((c) => [c.size, c]));
  const have = await checkPrefix(source, target, size, bySize);

  const checkpointsIn = (from: number, to: number) => stored.filter((c) => c.size > from && c.size <= to);
  // The checkpoints of the prefix the target already holds (a size-0 one included), if any are missing.
  await target.withWriteLock(async (tx) => {
    for (const c of stored.filter((c) => c.size <= have))
      await tx.insertCheckpointIfAbsent(c.size, c.note, c.createdAt);
  });
  let prevHash = have > 0 ? (await source.rows(have - 1, have, 1))[0]!.hash : null;
  for (let from = have; from < size;) {
    const to = Math.min(from + batch, size);
    const rows = await rowsBetween(source, from, to);
    const subtrees = await subtreesOf(source, from, to);
    await target.withWriteLock(async (tx) => {
      const last = await tx.last();
      if ((last ? last.seq + 1 : 0) !== from || (last?.hash ?? null) !== prevHash) {
        throw new LedgerCopyError(
          "copy-target-diverges",
          `another writer changed the target during the copy (its tail is no longer entry ${from - 1})`,
        );
      }
      await tx.insertRows(rows);
      await tx.insertSubtrees(subtrees);
      for (const c of checkpointsIn(from, to)) await tx.insertCheckpointIfAbsent(c.size, c.note, c.createdAt);
    });
    prevHash = rows[rows.length - 1]!.hash;
    from = to;
    options.progress?.(to, size);
  }
  return { size, resumedFrom: have, checkpoints: stored.length, latestCheckpoint: stored.at(-1)?.note ?? null };
}

export interface CopyProof {
  ok: boolean;
  /** One line per fact checked, each saying what was compared and whether it held. */
  facts: string[];
}

/** Proves a copy: the target's size, root, newest checkpoint (byte for byte) and checkpoint count equal the source's at the copied size, and verify() is clean on the target. */
export async function proveCopy(source: Ledger, target: Ledger, copied: CopyResult): Promise<CopyProof> {
  const facts: string[] = [];
  let ok = true;
  const check = (holds: boolean, fact: string) => {
    ok &&= holds;
    facts.push(`${holds ? "same" : "DIFFERENT"} ${fact}`);
  };
  const size = await target.size();
  check(size === copied.size, `size: source ${copied.size}, target ${size}`);
  const [sourceRoot, targetRoot] = [await source.rootHash(copied.size), await target.rootHash()];
  check(
    equalBytes(sourceRoot, targetRoot),
    `root hash: source ${formatDigest(sourceRoot)}, target ${formatDigest(targetRoot)}`,
  );
  const note = await target.latestCheckpoint();
  const shown = (n: string | null) =>
    n === null ? "none" : `${JSON.stringify(n.split("\n").slice(0, 2).join(" "))}, ${Buffer.byteLength(n)} bytes`;
  check(
    note === copied.latestCheckpoint,
    `latest checkpoint note, byte for byte: source ${shown(copied.latestCheckpoint)}, target ${shown(note)}`,
  );
  const report = await target.verify();
  check(
    report.checkpointsChecked === copied.checkpoints,
    `checkpoints: source ${copied.checkpoints}, target ${report.checkpointsChecked}`,
  );
  facts.push(
    report.ok
      ? `verify() on the target: clean (${report.size} entries, ${report.checkpointsChecked} checkpoints)`
      : `verify() on the target FAILED:`,
  );
  for (const p of report.problems) facts.push(`  seq ${p.seq}: ${p.problem}`);
  return { ok: ok && report.ok, facts };
}
