/**
 * The GitHub-mode signals (octokit; local mode leaves them unmeasured):
 *
 * - gi.ci_success: of the completed workflow runs on the default branch created in the window, the
 *   share that concluded `success` (cancelled and skipped runs are left out: they did not judge).
 * - gi.security_alerts: 1 − open/`securityAlertsAtZero` (floored at 0) over the open code-scanning
 *   and Dependabot alerts. A 403/404 from one source (feature off, or the token may not read it)
 *   leaves that source out and says so; when neither answers, the signal is unmeasured.
 * - mii.ci_green_before_merge: of the pull requests merged into the default branch in the window
 *   (at most `maxPullRequests`), the share whose head commit had CI green before the merge: at least
 *   one check run or status, every check run completed with success/neutral/skipped, every status
 *   success, all finished no later than the merge.
 *
 * Extension keys of the record: `openIssues` (open issues, pull requests excluded) and
 * `openSecurityAlerts` (the counted alerts), each only when measured.
 */
import type { Thresholds } from "../config.ts";
import { httpStatus, type CheckRun, type CommitStatus, type GitHubClient, type WorkflowRun } from "../github.ts";
import { measured, share, unmeasured, type Signal } from "./types.ts";
import { DAY_MS } from "../../../core/time.ts";

const NOT_A_VERDICT = new Set(["cancelled", "skipped", "stale"]);
const GREEN_CHECK = new Set(["success", "neutral", "skipped"]);

export function ciSuccess(runs: readonly WorkflowRun[], branch: string): Signal {
  const judged = runs.filter(
    (r) => r.status === "completed" && r.conclusion !== null && !NOT_A_VERDICT.has(r.conclusion),
  );
  const ok = judged.filter((r) => r.conclusion === "success").length;
  const value = share(ok, judged.length);
  if (value === null) return unmeasured(`no completed workflow run on ${branch} in the window`);
  return measured(value, `${ok} of ${judged.length} completed workflow runs on ${branch} succeeded`);
}

/** Whether CI on a pull request's head commit was green before `mergedAt`. */
export function greenBeforeMerge(
  mergedAt: string,
  checks: readonly CheckRun[],
  statuses: readonly CommitStatus[],
): boolean {
  if (checks.length === 0 && statuses.length === 0) return false; // no CI ran: not green
  const merged = Date.parse(mergedAt);
  const checksGreen = checks.every(
    (c) =>
      c.status === "completed" &&
      c.conclusion !== null &&
      GREEN_CHECK.has(c.conclusion) &&
      c.completed_at !== null &&
      Date.parse(c.completed_at) <= merged,
  );
  const statusesGreen = statuses.every((s) => s.state === "success" && Date.parse(s.updated_at) <= merged);
  return checksGreen && statusesGreen;
}

export function securityAlerts(
  counts: { codeScanning: number | null; dependabot: number | null },
  atZero: number,
  notes: string[],
): Signal {
  const answered = [counts.codeScanning, counts.dependabot].filter((c): c is number => c !== null);
  if (answered.length === 0) return unmeasured(`no alert source answered (${notes.join("; ")})`);
  const open = answered.reduce((a, b) => a + b, 0);
  const counted = [
    counts.codeScanning !== null ? "code scanning" : null,
    counts.dependabot !== null ? "Dependabot" : null,
  ]
    .filter(Boolean)
    .join(" + ");
  const skipped = notes.length > 0 ? `; ${notes.join("; ")}` : "";
  return measured(
    Math.max(0, 1 - open / atZero),
    `${open} open security alert(s) (${counted}), 0 at ${atZero}${skipped}`,
  );
}

export interface GitHubMeasurement {
  signals: Record<"gi.ci_success" | "gi.security_alerts" | "mii.ci_green_before_merge", Signal>;
  openIssues: number | null;
  openSecurityAlerts: number | null;
  notes: string[];
}

/**
 * A 403/404 means "not available to this token / not enabled" (410: the feature is switched off,
 * as issues can be): unmeasured, not a failure. Anything else fails the run.
 */
async function optional<T>(what: string, read: () => Promise<T>, notes: string[]): Promise<T | null> {
  try {
    return await read();
  } catch (error) {
    const status = httpStatus(error);
    if (status === 403 || status === 404 || status === 410) {
      notes.push(`${what}: HTTP ${status}, not measured`);
      return null;
    }
    throw error;
  }
}

export async function measureGitHub(
  client: GitHubClient,
  now: Date,
  thresholds: Thresholds,
): Promise<GitHubMeasurement> {
  const since = new Date(now.getTime() - thresholds.windowDays * DAY_MS);
  const notes: string[] = [];
  const branch = await client.defaultBranch();

  const runs = await optional("workflow runs", () => client.workflowRuns(branch, since, now), notes);
  const ci = runs === null ? unmeasured(notes.at(-1)!) : ciSuccess(runs, branch);

  const alertNotes: string[] = [];
  const codeScanning = await optional("code scanning alerts", () => client.openCodeScanningAlerts(), alertNotes);
  const dependabot = await optional("Dependabot alerts", () => client.openDependabotAlerts(), alertNotes);
  const security = securityAlerts({ codeScanning, dependabot }, thresholds.securityAlertsAtZero, alertNotes);
  notes.push(...alertNotes);

  // Pull requests and the CI of their head commits, read together: one permission missing leaves
  // the whole signal unmeasured rather than half-counted.
  const verdicts = await optional(
    "pull requests and their checks",
    async () => {
      const pulls = await client.mergedPulls(branch, since, now, thresholds.maxPullRequests);
      const out: { number: number; green: boolean }[] = [];
      for (const pr of pulls) {
        const [checks, statuses] = await Promise.all([client.checkRuns(pr.head_sha), client.statuses(pr.head_sha)]);
        out.push({ number: pr.number, green: greenBeforeMerge(pr.merged_at, checks, statuses) });
      }
      return out;
    },
    notes,
  );
  let green: Signal;
  if (verdicts === null) green = unmeasured(notes.at(-1)!);
  else if (verdicts.length === 0) green = unmeasured(`no pull request merged into ${branch} in the window`);
  else {
    const ok = verdicts.filter((v) => v.green).length;
    const red = verdicts.filter((v) => !v.green).map((v) => `#${v.number}`);
    const note = red.length > 0 ? `; not green: ${red.join(", ")}` : "";
    green = measured(
      share(ok, verdicts.length)!,
      `${ok} of ${verdicts.length} pull requests merged into ${branch} had CI green before the merge${note}`,
    );
  }

  const openIssues = await optional("open issues", () => client.openIssues(), notes);
  return {
    signals: { "gi.ci_success": ci, "gi.security_alerts": security, "mii.ci_green_before_merge": green },
    openIssues,
    openSecurityAlerts: security.value === null ? null : (codeScanning ?? 0) + (dependabot ?? 0),
    notes,
  };
}
