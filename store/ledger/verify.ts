/**
 * `Ledger.verify()`: every stored row, subtree and checkpoint recomputed from the entries' content
 * (core/ledger/verify.ts checks the chain and the tree), read a page at a time.
 */
import { verifyCheckpoint, type NoteVerifier } from "../../core/checkpoint.ts";
import { formatDigest } from "../../core/digest.ts";
import type { LedgerEntry } from "../../core/ledger/entry.ts";
import { validateEvent } from "../../core/events/registry.ts";
import type { LedgerVerifyReport } from "../../core/ledger/store.ts";
import { ChainVerifier } from "../../core/ledger/verify.ts";
import { equalBytes } from "../../core/merkle.ts";
import { subtreeKey, type BackendReads, type SubtreeRow } from "./backend.ts";
import { STORED_LEVEL } from "./merkle-reads.ts";
import { rowPages } from "./paged-reads.ts";
import { rowToEntry } from "./seal.ts";

/** Verifies the ledger in `reads` for `origin`, its checkpoints with `verifiers`, reading `page` rows at a time. */
export async function verifyLedger(
  reads: BackendReads,
  origin: string,
  verifiers: NoteVerifier[],
  page: number,
): Promise<LedgerVerifyReport> {
  const verifier = new ChainVerifier(validateEvent);
  // Every stored subtree must equal the one recomputed from the entries' content (compared after the scan, in batches).
  const expected: SubtreeRow[] = [];
  verifier.onSubtree = (level, idx, hash) => {
    if (level >= STORED_LEVEL) expected.push({ level, idx, hash });
  };

  const checkpoints = (await reads.checkpoints()).map((c) => ({ ...c, root: null as Uint8Array | null }));
  let next = 0;
  const captureRoots = () => {
    while (next < checkpoints.length && checkpoints[next]!.size === verifier.size && verifier.brokenAt === null) {
      checkpoints[next]!.root = verifier.report().rootHash;
      next += 1;
    }
  };
  captureRoots();
  for await (const r of rowPages(reads, 0, Number.MAX_SAFE_INTEGER, page)) {
    let entry: LedgerEntry;
    try {
      entry = rowToEntry(r);
    } catch {
      verifier.addUnreadable("stored payload is not valid JSON", { seq: r.seq, hash: r.hash, leafHash: r.leaf });
      continue;
    }
    verifier.add(entry, { payloadText: r.payload, leafHash: r.leaf });
    captureRoots();
  }
  for (let i = 0; i < expected.length; i += page) {
    const batch = expected.slice(i, i + page);
    const stored = await reads.subtrees(batch);
    for (const { level, idx, hash } of batch) {
      const found = stored.get(subtreeKey(level, idx));
      const last = (idx + 1) * 2 ** level - 1;
      if (!found) verifier.flag(last, `stored subtree (${level}, ${idx}) is missing`);
      else if (!equalBytes(found, hash))
        verifier.flag(last, `stored subtree (${level}, ${idx}) does not match entries ${idx * 2 ** level}..${last}`);
    }
  }
  const report = verifier.report();
  const problems = report.problems;
  // Past a gap nothing that needs the tree is checked: the problem at the gap says so, once.
  const whole = (size: number) => report.brokenAt === undefined || size <= report.brokenAt;

  const storedSubtrees = await reads.subtreeCount(STORED_LEVEL);
  if (whole(Infinity) && storedSubtrees !== expected.length) {
    problems.push({ seq: report.size, problem: `${storedSubtrees} stored subtrees, expected ${expected.length}` });
  }
  const checked = checkpoints.filter((c) => whole(c.size));
  for (const c of checked) {
    const problem = checkpointProblem(c.note, c.size, c.root, origin, verifiers);
    if (problem) problems.push({ seq: Math.max(c.size - 1, 0), problem: `checkpoint at size ${c.size}: ${problem}` });
  }
  problems.sort((a, b) => a.seq - b.seq);
  return { ...report, ok: problems.length === 0, problems, checkpointsChecked: checked.length };
}

function checkpointProblem(
  note: string,
  size: number,
  root: Uint8Array | null,
  origin: string,
  verifiers: NoteVerifier[],
): string | null {
  if (!root) return "the ledger is shorter than this checkpoint";
  if (verifiers.length === 0) return "no key to verify it with";
  try {
    const cp = verifyCheckpoint(note, verifiers);
    if (cp.origin !== origin) return `origin is "${cp.origin}", expected "${origin}"`;
    if (cp.size !== size) return `signed size ${cp.size} differs from its row`;
    if (!equalBytes(cp.rootHash, root))
      return `signed root ${formatDigest(cp.rootHash)} differs from the recomputed ${formatDigest(root)}`;
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}
