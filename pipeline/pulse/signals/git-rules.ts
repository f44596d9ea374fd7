/**
 * The MII signals measured from `git log` of the scanned repository. The window: non-merge commits
 * reachable from HEAD, committed in the `windowDays` before `now` (and not after it), at most the
 * `windowMaxCommits` newest. Each signal is the share of those commits that follow one rule; null
 * when the window holds no commit.
 *
 * - mii.history_append_only: the commit leaves the history file (`rules.historyFile`) as it was or
 *   only appends whole lines to it (appendOnlyProblem against the commit's parent). Commits not
 *   touching the file follow the rule.
 * - mii.generated_untouched: generated files are not edited by hand. For each `rules.generated`
 *   entry whose `outputs` prefix the commit changes, it must also change one of that entry's
 *   `inputs` prefixes (the generator ran on a changed input: data/schemas/ comes from core/schemas/,
 *   data/v1/ from the pulse history and the pulse code) — or its subject starts with one of
 *   `generatedMessagePrefixes` (`pulse:`, `data:`: a generator's own commit).
 */
import type { GeneratedRule, PulseConfig } from "../config.ts";
import { appendOnlyProblem, fileAtRevision } from "../append-only.ts";
import { GitError, git, gitBytes } from "../git.ts";
import { measured, share, unmeasured, type Signal } from "./types.ts";
import { DAY_MS } from "../../../core/time.ts";

export interface CommitInfo {
  sha: string;
  parent: string | null;
  committedAt: string;
  subject: string;
  /** Repository-relative paths the commit adds, changes or deletes. */
  files: string[];
}

/** The window's commits, newest first; [] for a repository without commits. */
export async function windowCommits(
  repo: string,
  now: Date,
  thresholds: PulseConfig["thresholds"],
): Promise<CommitInfo[]> {
  const since = new Date(now.getTime() - thresholds.windowDays * DAY_MS);
  let log: string;
  try {
    log = await git(repo, [
      "log",
      "--no-merges",
      `--max-count=${thresholds.windowMaxCommits}`,
      `--since=${since.toISOString()}`,
      `--until=${now.toISOString()}`,
      "--format=%H%x1f%P%x1f%cI%x1f%s%x1e",
    ]);
  } catch (error) {
    if (
      error instanceof GitError &&
      /does not have any commits|unknown revision|bad default revision/.test(error.stderr)
    )
      return [];
    throw error;
  }
  const commits: CommitInfo[] = [];
  for (const record of log.split("\x1e")) {
    const text = record.replace(/^\n/, "");
    if (text === "") continue;
    const [sha, parents, committedAt, subject] = text.split("\x1f") as [string, string, string, string];
    const names = await gitBytes(repo, ["diff-tree", "--no-commit-id", "--name-only", "-r", "-z", "--root", sha]);
    commits.push({
      sha,
      parent: parents.trim() === "" ? null : parents.trim().split(" ")[0]!,
      committedAt,
      subject: subject ?? "",
      files: names
        .toString("utf8")
        .split("\0")
        .filter((f) => f !== ""),
    });
  }
  return commits;
}

function windowText(commits: readonly CommitInfo[]): string {
  return commits.length === 1 ? "1 commit" : `${commits.length} commits`;
}

export async function historyAppendOnly(
  repo: string,
  commits: readonly CommitInfo[],
  historyFile: string,
): Promise<Signal> {
  if (commits.length === 0) return unmeasured("no commit in the window");
  let following = 0;
  let touching = 0;
  const broken: string[] = [];
  for (const c of commits) {
    if (!c.files.includes(historyFile)) {
      following++;
      continue;
    }
    touching++;
    const before = c.parent === null ? null : await fileAtRevision(repo, c.parent, historyFile);
    const after = await fileAtRevision(repo, c.sha, historyFile);
    const problem = appendOnlyProblem(before ?? new Uint8Array(0), after);
    if (problem === null) following++;
    else broken.push(`${c.sha.slice(0, 12)} ${problem}`);
  }
  const note = broken.length > 0 ? `; not append-only: ${broken.join(", ")}` : "";
  return measured(
    share(following, commits.length)!,
    `${following} of ${windowText(commits)} keep ${historyFile} append-only (${touching} touch it)${note}`,
  );
}

/** Null when the commit follows the generated-files rule, else the output prefix it edited alone. */
export function generatedEditedByHand(
  commit: CommitInfo,
  rules: readonly GeneratedRule[],
  prefixes: readonly string[],
): string | null {
  if (prefixes.some((p) => commit.subject.startsWith(p))) return null;
  for (const rule of rules) {
    const touchesOutput = commit.files.some((f) => f.startsWith(rule.outputs));
    if (touchesOutput && !commit.files.some((f) => rule.inputs.some((input) => f.startsWith(input))))
      return rule.outputs;
  }
  return null;
}

export function generatedUntouched(commits: readonly CommitInfo[], rules: PulseConfig["rules"]): Signal {
  if (commits.length === 0) return unmeasured("no commit in the window");
  const broken = commits.flatMap((c) => {
    const output = generatedEditedByHand(c, rules.generated, rules.generatedMessagePrefixes);
    return output === null ? [] : [`${c.sha.slice(0, 12)} edits ${output}`];
  });
  const following = commits.length - broken.length;
  const note = broken.length > 0 ? `; by hand: ${broken.join(", ")}` : "";
  return measured(
    share(following, commits.length)!,
    `${following} of ${windowText(commits)} leave generated files to their generators${note}`,
  );
}
