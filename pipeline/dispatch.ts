/**
 * `npm run dispatch -- [--ref main] [--areas a,b] [--now ISO] [--dry-run] [--wait]
 *  [--repo owner/name] [--workflow regenerate.yml] [--interval SECONDS] [--timeout SECONDS]`:
 * triggers `.github/workflows/regenerate.yml` through the REST API (octokit; `GITHUB_TOKEN`,
 * `GITHUB_API_URL`), finds the run it started and, with `--wait`, follows it: exit 0 only when it
 * succeeds. The run is found by `return_run_details` where the server has it, else by the random
 * `dispatch-id` the workflow puts in its run name, else — for an older workflow file — as the one
 * new run that stays the only one for three polls. Polling is bounded by `--interval` and `--timeout`.
 * Its first line names the target — repository, workflow, ref — and where the repository came from
 * (`--repo`, `GITHUB_REPOSITORY`, or the git remote `origin` and its URL), before anything is sent
 * and before the token is looked at. `--help` prints the usage. The maintainer's setup it relies on
 * is docs/maintainer-setup.md.
 */
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { Octokit } from "octokit";

export interface DispatchOptions {
  owner: string;
  repo: string;
  workflow: string;
  ref: string;
  areas?: string;
  now?: string;
  dryRun?: boolean;
  wait?: boolean;
  /** Seconds between polls. */
  interval?: number;
  /** Seconds to wait in all. */
  timeout?: number;
  token: string;
  baseUrl?: string;
  log?: (line: string) => void;
  /** Dispatch id for the run name; random by default. */
  dispatchId?: string;
}

export interface WorkflowRun {
  id: number;
  html_url: string;
  status: string | null;
  conclusion: string | null;
  display_title?: string;
  created_at: string;
  head_branch: string | null;
  event: string;
}

export interface DispatchResult {
  run: WorkflowRun;
  /** How the run was identified. */
  matchedBy: "run-details" | "dispatch-id" | "time";
  /** The final state when waiting. */
  completed?: WorkflowRun;
  ok: boolean;
}

/** The `[<dispatch id>]` that regenerate.yml's run-name appends. */
const DISPATCH_ID_IN_TITLE = /\[[^\]]+\]$/;

const sleep = (seconds: number) => new Promise<void>((resolve) => setTimeout(resolve, seconds * 1000));

export async function dispatchWorkflow(options: DispatchOptions): Promise<DispatchResult> {
  const log = options.log ?? console.log;
  const interval = options.interval ?? 5;
  const deadline = Date.now() + (options.timeout ?? 3600) * 1000;
  const octokit = new Octokit({
    auth: options.token,
    baseUrl: options.baseUrl ?? "https://api.github.com",
    userAgent: "integrity-platform-dispatch",
    retry: { enabled: false },
    throttle: { enabled: false },
  });
  const { owner, repo, workflow: workflow_id, ref } = options;
  const dispatchId = options.dispatchId ?? randomUUID();
  const inputs: Record<string, string> = {
    areas: options.areas ?? "all",
    "dry-run": options.dryRun ? "true" : "false",
    "dispatch-id": dispatchId,
    ...(options.now ? { now: options.now } : {}),
  };

  const listRuns = async (since: string | null) =>
    (
      await octokit.rest.actions.listWorkflowRuns({
        owner,
        repo,
        workflow_id,
        event: "workflow_dispatch",
        branch: ref,
        per_page: 50,
        ...(since ? { created: `>=${since}` } : {}),
      })
    ).data.workflow_runs as WorkflowRun[];

  const since = new Date(Date.now() - 120_000).toISOString().replace(/\.\d{3}Z$/, "Z");
  const before = new Set((await listRuns(since)).map((r) => r.id));

  // 1. dispatch, asking for the run's id
  let runId: number | undefined;
  try {
    const response = await octokit.request("POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches", {
      owner,
      repo,
      workflow_id,
      ref,
      inputs,
      return_run_details: true,
    });
    runId = (response.data as { workflow_run_id?: number } | undefined)?.workflow_run_id;
  } catch (error) {
    // A server without return_run_details refuses the key with 400/422 and no code to tell it from
    // other refusals: ask again without it, which either dispatches or fails with the real reason.
    const status = (error as { status?: number }).status;
    if (status === 400 || status === 422)
      await octokit.rest.actions.createWorkflowDispatch({ owner, repo, workflow_id, ref, inputs });
    else throw error;
  }
  log(
    `dispatched ${workflow_id} on ${owner}/${repo}@${ref} (dispatch id ${dispatchId}; inputs ${JSON.stringify(inputs)})`,
  );

  let run: WorkflowRun | undefined;
  let matchedBy: DispatchResult["matchedBy"];
  if (runId !== undefined) {
    run = (await octokit.rest.actions.getWorkflowRun({ owner, repo, run_id: runId })).data as WorkflowRun;
    matchedBy = "run-details";
  } else {
    // 2./3. find it among the runs
    const findDeadline = Math.min(deadline, Date.now() + 120_000);
    let candidate: number | undefined;
    let seen = 0;
    matchedBy = "dispatch-id";
    for (;;) {
      const runs = await listRuns(since);
      run = runs.find((r) => (r.display_title ?? "").endsWith(`[${dispatchId}]`));
      if (run) break;
      // Runs started since we listed, whose title carries no dispatch id (another dispatcher's id
      // rules its run out); one such run, still the only one after three polls, is taken as ours.
      const fresh = runs.filter((r) => !before.has(r.id) && !DISPATCH_ID_IN_TITLE.test(r.display_title ?? ""));
      const only = fresh.length === 1 ? fresh[0]!.id : undefined;
      seen = only !== undefined && only === candidate ? seen + 1 : only !== undefined ? 1 : 0;
      candidate = only;
      if (seen >= 3) {
        run = fresh[0]!;
        matchedBy = "time";
        log(
          `warning: the run's title does not carry the dispatch id (older workflow file on ${ref}?); matched as the only new run`,
        );
        break;
      }
      if (Date.now() >= findDeadline)
        throw new Error(`no run of ${workflow_id} for dispatch ${dispatchId} appeared; look at the Actions tab`);
      await sleep(interval);
    }
  }
  log(`run: ${run.html_url}`);
  if (!options.wait) return { run, matchedBy, ok: true };

  let last = "";
  let current = run;
  for (;;) {
    const state =
      current.status === "completed"
        ? `completed (${current.conclusion ?? "no conclusion"})`
        : (current.status ?? "unknown");
    if (state !== last) {
      log(`status: ${state}`);
      last = state;
    }
    if (current.status === "completed")
      return { run, matchedBy, completed: current, ok: current.conclusion === "success" };
    if (Date.now() >= deadline)
      throw new Error(`gave up waiting after ${options.timeout ?? 3600} s; the run is ${state}: ${run.html_url}`);
    await sleep(interval);
    current = (await octokit.rest.actions.getWorkflowRun({ owner, repo, run_id: run.id })).data as WorkflowRun;
  }
}

/** The remote the repository is taken from when neither --repo nor GITHUB_REPOSITORY names it. */
export const DEFAULT_REMOTE = "origin";

/** owner/name of the `origin` remote (https or ssh form) and the remote's URL, or undefined. */
export function repoFromGit(cwd = process.cwd()): { repo: string; url: string } | undefined {
  try {
    const url = execFileSync("git", ["remote", "get-url", DEFAULT_REMOTE], {
      cwd,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    const m = /[:/]([^/:]+)\/([^/]+?)(?:\.git)?\/?$/.exec(url);
    return m ? { repo: `${m[1]}/${m[2]}`, url } : undefined;
  } catch {
    return undefined;
  }
}

const USAGE =
  "usage: npm run dispatch -- [--repo owner/name] [--ref main] [--areas a,b] [--now ISO] [--dry-run] [--wait] [--workflow regenerate.yml] [--interval S] [--timeout S]";

export const HELP = [
  "Runs the regeneration workflow on GitHub (workflow_dispatch) and, with --wait, follows the run.",
  USAGE,
  "",
  "  --repo owner/name   the repository to run it in. Without it: GITHUB_REPOSITORY, else the git",
  `                      remote "${DEFAULT_REMOTE}" of this checkout. The first line printed names the`,
  "                      repository, the workflow and where the repository came from, before anything is sent.",
  "  --workflow FILE     the workflow file (default regenerate.yml)",
  "  --ref REF           the branch or tag to run it on (default main)",
  "  --areas a,b         the areas to regenerate (default all)",
  "  --now ISO           the time the pipeline takes as now (default: the run's start)",
  "  --dry-run           regenerate and check, publish nothing",
  "  --wait              follow the run; exit 0 only if it succeeds",
  "  --interval S        seconds between polls (default 5)",
  "  --timeout S         seconds to wait in all (default 3600)",
  "  --help              this text",
  "",
  "Environment: GITHUB_TOKEN, a token that may run workflows in that repository (fine-grained:",
  '"Actions" read and write on it; classic: the "repo" scope); GITHUB_API_URL for',
  "GitHub Enterprise Server (default https://api.github.com).",
  "The repository's setup (secrets, variables, Pages) is docs/maintainer-setup.md.",
].join("\n");

export async function main(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  log: (line: string) => void = console.log,
  cwd: string = process.cwd(),
): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        ref: { type: "string" },
        areas: { type: "string" },
        now: { type: "string" },
        "dry-run": { type: "boolean" },
        wait: { type: "boolean" },
        repo: { type: "string" },
        workflow: { type: "string" },
        interval: { type: "string" },
        timeout: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    log(HELP);
    return 0;
  }
  const token = env.GITHUB_TOKEN;
  const fromGit = values.repo === undefined && !env.GITHUB_REPOSITORY ? repoFromGit(cwd) : undefined;
  const repoArg = values.repo ?? (env.GITHUB_REPOSITORY || undefined) ?? fromGit?.repo;
  const whence =
    values.repo !== undefined
      ? "from --repo"
      : env.GITHUB_REPOSITORY
        ? "from GITHUB_REPOSITORY"
        : fromGit
          ? `from the git remote "${DEFAULT_REMOTE}" (${fromGit.url}); pass --repo owner/name to choose another`
          : "";
  const workflow = values.workflow ?? "regenerate.yml";
  const ref = values.ref ?? "main";
  const seconds = (v: string | undefined, name: string, max: number): number | undefined => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0 || n > max)
      throw new Error(`--${name} must be a number of seconds in (0, ${max}]`);
    return n;
  };
  try {
    if (!repoArg)
      throw new Error(
        `no repository: pass --repo owner/name (or set GITHUB_REPOSITORY; this checkout has no git remote "${DEFAULT_REMOTE}")`,
      );
    if (!/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repoArg)) throw new Error(`--repo "${repoArg}" is not owner/name`);
    // What it will do, first, before the token is looked at or anything is sent.
    log(`target: ${repoArg}, workflow ${workflow} on ${ref} (repository ${whence})`);
    if (!token)
      throw new Error(
        `set GITHUB_TOKEN to a token that may run workflows in ${repoArg} (fine-grained: Actions read and write; see docs/maintainer-setup.md)`,
      );
    if (values.now !== undefined && !Number.isFinite(Date.parse(values.now)))
      throw new Error(`--now "${values.now}" is not an ISO 8601 time`);
    const [owner, repo] = repoArg.split("/") as [string, string];
    const interval = seconds(values.interval, "interval", 600);
    const timeout = seconds(values.timeout, "timeout", 6 * 3600);
    const result = await dispatchWorkflow({
      owner,
      repo,
      workflow,
      ref,
      ...(values.areas ? { areas: values.areas } : {}),
      ...(values.now ? { now: values.now } : {}),
      dryRun: values["dry-run"] ?? false,
      wait: values.wait ?? false,
      ...(interval !== undefined ? { interval } : {}),
      ...(timeout !== undefined ? { timeout } : {}),
      token,
      ...(env.GITHUB_API_URL ? { baseUrl: env.GITHUB_API_URL } : {}),
      log,
    });
    if (result.completed && !result.ok)
      console.error(`dispatch: the run concluded ${result.completed.conclusion}: ${result.run.html_url}`);
    return result.ok ? 0 : 1;
  } catch (error) {
    console.error(`dispatch: ${(error as Error).message}`);
    return 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
