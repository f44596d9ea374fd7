/**
 * The GitHub API as the pulse reads it (octokit, token from GITHUB_TOKEN): only the calls the scan
 * and the GitHub signals need, each returning plain data. Nothing here decides a score.
 */
import { Octokit, RequestError } from "octokit";

export interface TreeEntry {
  path: string;
  type: string;
  size?: number;
}
export interface WorkflowRun {
  status: string | null;
  conclusion: string | null;
  created_at: string;
}
export interface MergedPull {
  number: number;
  merged_at: string;
  head_sha: string;
}
export interface CheckRun {
  name: string;
  status: string;
  conclusion: string | null;
  completed_at: string | null;
}
export interface CommitStatus {
  context: string;
  state: string;
  updated_at: string;
}

/** `owner/name`, as GITHUB_REPOSITORY spells it. */
export const REPO_SLUG = /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\/[A-Za-z0-9._-]+$/;

/** The HTTP status of an API error, or null for anything else (network, bug). */
export function httpStatus(error: unknown): number | null {
  return error instanceof RequestError ? error.status : null;
}

export class GitHubClient {
  readonly slug: string;
  readonly #owner: string;
  readonly #repo: string;
  readonly #octokit: Octokit;

  constructor(slug: string, token: string | undefined) {
    if (!REPO_SLUG.test(slug)) throw new Error(`"${slug}" is not a GitHub repository owner/name`);
    const [owner, repo] = slug.split("/") as [string, string];
    this.slug = slug;
    this.#owner = owner;
    this.#repo = repo;
    this.#octokit = new Octokit({ ...(token ? { auth: token } : {}), userAgent: "integrity-platform-pulse" });
  }

  get #where() {
    return { owner: this.#owner, repo: this.#repo };
  }

  async defaultBranch(): Promise<string> {
    const { data } = await this.#octokit.rest.repos.get(this.#where);
    return data.default_branch;
  }

  async tree(ref: string): Promise<{ entries: TreeEntry[]; truncated: boolean }> {
    const { data } = await this.#octokit.rest.git.getTree({ ...this.#where, tree_sha: ref, recursive: "1" });
    return {
      entries: data.tree.flatMap((e) =>
        e.path && e.type ? [{ path: e.path, type: e.type, ...(e.size === undefined ? {} : { size: e.size }) }] : [],
      ),
      truncated: data.truncated,
    };
  }

  /** Completed workflow runs on `branch` created in [since, until]. */
  async workflowRuns(branch: string, since: Date, until: Date): Promise<WorkflowRun[]> {
    const runs = await this.#octokit.paginate(this.#octokit.rest.actions.listWorkflowRunsForRepo, {
      ...this.#where,
      branch,
      status: "completed",
      // GitHub's date-range syntax takes whole seconds.
      created: `${since.toISOString().replace(/\.\d{3}Z$/, "Z")}..${until.toISOString().replace(/\.\d{3}Z$/, "Z")}`,
      per_page: 100,
    });
    return runs.map((r) => ({ status: r.status ?? null, conclusion: r.conclusion ?? null, created_at: r.created_at }));
  }

  /** Pull requests into `base` merged in [since, until], newest first, at most `max`. */
  async mergedPulls(base: string, since: Date, until: Date, max: number): Promise<MergedPull[]> {
    const out: MergedPull[] = [];
    const pages = this.#octokit.paginate.iterator(this.#octokit.rest.pulls.list, {
      ...this.#where,
      base,
      state: "closed",
      sort: "updated",
      direction: "desc",
      per_page: 100,
    });
    for await (const { data } of pages) {
      for (const pr of data) {
        // Sorted by update time: once updates are older than the window, so are the merges.
        if (Date.parse(pr.updated_at) < since.getTime()) return out;
        if (!pr.merged_at) continue;
        const merged = Date.parse(pr.merged_at);
        if (merged < since.getTime() || merged > until.getTime()) continue;
        out.push({ number: pr.number, merged_at: pr.merged_at, head_sha: pr.head.sha });
        if (out.length >= max) return out;
      }
    }
    return out;
  }

  async checkRuns(sha: string): Promise<CheckRun[]> {
    const runs = await this.#octokit.paginate(this.#octokit.rest.checks.listForRef, {
      ...this.#where,
      ref: sha,
      per_page: 100,
    });
    return runs.map((r) => ({
      name: r.name,
      status: r.status,
      conclusion: r.conclusion ?? null,
      completed_at: r.completed_at ?? null,
    }));
  }

  async statuses(sha: string): Promise<CommitStatus[]> {
    const { data } = await this.#octokit.rest.repos.getCombinedStatusForRef({
      ...this.#where,
      ref: sha,
      per_page: 100,
    });
    return data.statuses.map((s) => ({ context: s.context, state: s.state, updated_at: s.updated_at }));
  }

  /** Open issues, pull requests excluded (the issues API lists both). */
  async openIssues(): Promise<number> {
    const items = await this.#octokit.paginate(this.#octokit.rest.issues.listForRepo, {
      ...this.#where,
      state: "open",
      per_page: 100,
    });
    return items.filter((i) => !i.pull_request).length;
  }

  async openCodeScanningAlerts(): Promise<number> {
    const alerts = await this.#octokit.paginate(this.#octokit.rest.codeScanning.listAlertsForRepo, {
      ...this.#where,
      state: "open",
      per_page: 100,
    });
    return alerts.length;
  }

  async openDependabotAlerts(): Promise<number> {
    const alerts = await this.#octokit.paginate(this.#octokit.rest.dependabot.listAlertsForRepo, {
      ...this.#where,
      state: "open",
      per_page: 100,
    });
    return alerts.length;
  }
}
