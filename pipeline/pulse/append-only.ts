/**
 * The append-only rule of data/pulse/history.jsonl, and its CI guard
 * (`npm run pulse -- --check-append-only [--base REV]`): the file as it was at REV (default
 * HEAD~1) must be a byte prefix of the file now, ending at a line boundary. A file missing at REV is
 * fine (nothing to keep); a file missing now, when REV had lines, is not.
 */
import { readFileSync } from "node:fs";
import { relative, sep } from "node:path";
import { GitError, git, gitBytes } from "./git.ts";

/**
 * Null when `after` only appends whole lines to `before`; otherwise what changed, naming the first
 * changed line (1-based).
 */
export function appendOnlyProblem(before: Uint8Array, after: Uint8Array | null): string | null {
  if (before.length === 0) return null;
  const newlines = (bytes: Uint8Array, end: number) =>
    bytes.subarray(0, end).reduce((n, byte) => n + (byte === 0x0a ? 1 : 0), 0);
  if (after === null) return `line 1: the file was removed (it had ${newlines(before, before.length)} line(s))`;
  // The first byte where the two differ; everything before it is kept.
  const common = Math.min(before.length, after.length);
  let at = 0;
  while (at < common && before[at] === after[at]) at++;
  if (at === before.length) {
    if (before[before.length - 1] === 0x0a) return null;
    return `line ${newlines(before, at) + 1}: changed (the earlier file did not end with a newline, so text was added to its last line)`;
  }
  const line = newlines(before, at) + 1;
  if (at === after.length)
    return at === 0 || before[at - 1] === 0x0a ? `line ${line}: removed` : `line ${line}: changed (cut short)`;
  return `line ${line}: changed`;
}

/** The bytes of `path` (repository-relative) at `rev`, or null when the file does not exist there. */
export async function fileAtRevision(repo: string, rev: string, path: string): Promise<Buffer | null> {
  try {
    return await gitBytes(repo, ["show", `${rev}:${path}`]);
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    // Tell "no such file at rev" (fine) from "no such rev" (an error the caller must see).
    await git(repo, ["rev-parse", "--verify", "--quiet", `${rev}^{commit}`]).catch(() => {
      throw new Error(`unknown revision ${rev} in ${repo} (a shallow clone? fetch with fetch-depth 0)`);
    });
    return null;
  }
}

export interface AppendOnlyResult {
  ok: boolean;
  message: string;
}

/** Compares the history file in the work tree of `repo` with its version at `base`. */
export async function checkAppendOnly(repo: string, historyFile: string, base: string): Promise<AppendOnlyResult> {
  const rel = relative(repo, historyFile).split(sep).join("/");
  if (rel.startsWith("..")) throw new Error(`${historyFile} is outside the repository ${repo}`);
  const before = await fileAtRevision(repo, base, rel);
  if (before === null) return { ok: true, message: `${rel}: not present at ${base}, nothing to keep` };
  let now: Buffer | null = null;
  try {
    now = readFileSync(historyFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const problem = appendOnlyProblem(before, now);
  if (problem) return { ok: false, message: `${rel} ${problem} since ${base}: the history is append-only` };
  const added = now!.subarray(before.length).toString("utf8").split("\n").length - 1;
  return { ok: true, message: `${rel}: ${added} line(s) appended since ${base}, earlier lines unchanged` };
}
