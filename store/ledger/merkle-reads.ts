/**
 * Roots, proofs and right edges computed from stored nodes with few reads: the sync functions of
 * core/merkle.ts and core/compact-range.ts ask for perfect subtrees one at a time, and which ones
 * they ask for depends only on the sizes and indices involved, not on the hashes. So the
 * computation runs once with a recording lookup (any hash will do), the nodes it asked for are
 * fetched together — one `subtrees()` call for the stored levels, one `leaves()` call per run of
 * leaves below them — and it runs again with the fetched hashes.
 */
import { rootHash } from "../../core/merkle.ts";
import { subtreeKey, type BackendReads } from "./backend.ts";

/**
 * Perfect subtrees of 2^6 = 64 leaves and up are stored: about n/32 rows for n entries. A node
 * below is folded from at most 63 stored leaf hashes, read in one range (tens of microseconds);
 * storing from 16 leaves (about n/8 rows, before 2026-11-26) cost a batch append four times the rows.
 * Ledgers written then keep their level 4 and 5 rows; nothing reads or counts them.
 */
export const STORED_LEVEL = 6;

/** The hash of the perfect subtree of 2^level leaves at index (throws when it is not stored). */
export type PerfectLookup = (level: number, index: number) => Uint8Array;

const PLACEHOLDER = new Uint8Array(32);

export async function withStoredNodes<T>(
  reads: Pick<BackendReads, "subtrees" | "leaves">,
  compute: (perfect: PerfectLookup) => T,
): Promise<T> {
  const wanted = new Map<string, { level: number; idx: number }>();
  compute((level, idx) => {
    wanted.set(subtreeKey(level, idx), { level, idx });
    return PLACEHOLDER;
  });
  const stored = [...wanted.values()].filter((k) => k.level >= STORED_LEVEL);
  const nodes = stored.length > 0 ? await reads.subtrees(stored) : new Map<string, Uint8Array>();
  for (const [start, end] of leafRuns([...wanted.values()].filter((k) => k.level < STORED_LEVEL))) {
    const leaves = await reads.leaves(start, end);
    if (leaves.length !== end - start) continue; // a leaf is missing: the run's subtrees stay unknown
    for (const k of wanted.values()) {
      const width = 2 ** k.level;
      const from = k.idx * width;
      if (k.level >= STORED_LEVEL || from < start || from + width > end) continue;
      nodes.set(subtreeKey(k.level, k.idx), rootHash(leaves.slice(from - start, from - start + width)));
    }
  }
  return compute((level, idx) => {
    const hash = nodes.get(subtreeKey(level, idx));
    if (hash) return hash;
    throw new Error(
      level >= STORED_LEVEL
        ? `ledger is missing the stored subtree (${level}, ${idx})`
        : `ledger is missing leaves of subtree (${level}, ${idx})`,
    );
  });
}

/** The leaf ranges [start, end) the low subtrees cover, overlapping and touching ones merged. */
function leafRuns(keys: readonly { level: number; idx: number }[]): [number, number][] {
  const spans = keys
    .map((k) => [k.idx * 2 ** k.level, (k.idx + 1) * 2 ** k.level] as [number, number])
    .sort((a, b) => a[0] - b[0]);
  const runs: [number, number][] = [];
  for (const span of spans) {
    const last = runs[runs.length - 1];
    if (last && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else runs.push([span[0], span[1]]);
  }
  return runs;
}
