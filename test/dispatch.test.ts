/**
 * `npm run dispatch` against a real HTTP server on 127.0.0.1 that plays the few GitHub REST
 * endpoints the tool uses: it checks method, path, query, the token and the JSON body, answers with
 * GitHub-shaped JSON, and moves each run queued → in_progress → completed as it is polled. The
 * command itself (`npm run -s dispatch`, a child process) documents --repo in --help and names its
 * target first, with or without a token; without --repo it names the git remote it read, before any request.
 */
import { spawnSync } from "node:child_process";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { dispatchWorkflow, main } from "../pipeline/dispatch.ts";

const TOKEN = "ghp_testtoken0123456789";
const OWNER = "integrity";
const REPO = "platform";
const WORKFLOW = "regenerate.yml";

interface FakeRun {
  id: number;
  name: string;
  display_title: string;
  event: string;
  status: "queued" | "in_progress" | "completed";
  conclusion: string | null;
  head_branch: string;
  created_at: string;
  html_url: string;
  run_number: number;
  path: string;
  /** GETs left before the run moves on. */
  polls: number;
}

interface Mode {
  /** Server understands return_run_details (GitHub since 2026-02) or refuses it (older GHES). */
  runDetails: "supported" | "refused" | "ignored";
  conclusion: string;
  /** Listing calls before a dispatched run becomes visible. */
  visibleAfter: number;
  /** Someone else dispatches at the same moment. */
  concurrentRun: boolean;
  /** The workflow's run-name shows the dispatch id (false: an older workflow file). */
  titleCarriesId: boolean;
}

class FakeGitHub {
  readonly requests: string[] = [];
  readonly problems: string[] = [];
  readonly dispatches: Record<string, unknown>[] = [];
  runs: FakeRun[] = [];
  #nextId = 9000;
  #pending: { run: FakeRun; after: number }[] = [];
  #server: Server;
  mode: Mode;

  constructor(mode: Partial<Mode> = {}) {
    this.mode = {
      runDetails: "supported",
      conclusion: "success",
      visibleAfter: 0,
      concurrentRun: false,
      titleCarriesId: true,
      ...mode,
    };
    // An older run of the same workflow, which must never be picked.
    this.runs.push(this.#run("data: regenerate", "completed", "success"));
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch((error: unknown) => {
        this.problems.push(String(error));
        res.writeHead(500).end();
      });
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  #run(title: string, status: FakeRun["status"] = "queued", conclusion: string | null = null): FakeRun {
    const id = this.#nextId++;
    return {
      id,
      name: "Regenerate data",
      display_title: title,
      event: "workflow_dispatch",
      status,
      conclusion,
      head_branch: "main",
      created_at: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
      html_url: `https://github.com/${OWNER}/${REPO}/actions/runs/${id}`,
      run_number: id - 8999,
      path: `.github/workflows/${WORKFLOW}`,
      polls: 1,
    };
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://x");
    this.requests.push(`${req.method} ${url.pathname}${url.search}`);
    const auth = req.headers.authorization ?? "";
    if (!/^(token|bearer) /i.test(auth) || auth.slice(auth.indexOf(" ") + 1) !== TOKEN) {
      return json(res, 401, { message: "Bad credentials", documentation_url: "https://docs.github.com/rest" });
    }
    const body = await readBody(req);
    const base = `/repos/${OWNER}/${REPO}/actions`;

    if (req.method === "POST" && url.pathname === `${base}/workflows/${WORKFLOW}/dispatches`) {
      if (req.headers["content-type"]?.startsWith("application/json") !== true)
        this.problems.push("dispatch body is not JSON");
      const payload = JSON.parse(body) as {
        ref?: unknown;
        inputs?: Record<string, unknown>;
        return_run_details?: unknown;
      };
      if (payload.return_run_details !== undefined && this.mode.runDetails === "refused") {
        return json(res, 422, {
          message: 'Invalid request.\n\n"return_run_details" is not a permitted key.',
          documentation_url: "https://docs.github.com/rest/actions/workflows#create-a-workflow-dispatch-event",
          status: "422",
        });
      }
      if (payload.ref !== "main") return json(res, 422, { message: `No ref found for: ${String(payload.ref)}` });
      const allowed = new Set(["areas", "now", "dry-run", "dispatch-id"]);
      for (const key of Object.keys(payload.inputs ?? {}))
        if (!allowed.has(key)) return json(res, 422, { message: `Unexpected inputs provided: ["${key}"]` });
      this.dispatches.push(payload);
      const id = String(payload.inputs?.["dispatch-id"] ?? "");
      const run = this.#run(`data: regenerate${id && this.mode.titleCarriesId ? ` [${id}]` : ""}`);
      if (this.mode.concurrentRun)
        this.#pending.push({ run: this.#run("data: regenerate [someone-elses-dispatch]"), after: 0 });
      this.#pending.push({ run, after: this.mode.visibleAfter });
      if (payload.return_run_details === true && this.mode.runDetails === "supported") {
        this.#reveal(true);
        return json(res, 200, {
          workflow_run_id: run.id,
          run_url: `https://api.github.com/repos/${OWNER}/${REPO}/actions/runs/${run.id}`,
          html_url: run.html_url,
        });
      }
      res.writeHead(204).end();
      return;
    }

    if (req.method === "GET" && url.pathname === `${base}/workflows/${WORKFLOW}/runs`) {
      if (url.searchParams.get("event") !== "workflow_dispatch")
        this.problems.push(`runs listed without event filter: ${url.search}`);
      if (url.searchParams.get("branch") !== "main")
        this.problems.push(`runs listed without branch filter: ${url.search}`);
      const created = url.searchParams.get("created");
      if (!created || !/^>=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(created))
        this.problems.push(`bad created filter ${String(created)}`);
      this.#reveal(false);
      const runs = this.runs.filter((r) => r.event === "workflow_dispatch" && r.head_branch === "main").reverse();
      return json(res, 200, { total_count: runs.length, workflow_runs: runs.map(publicRun) });
    }

    const m = new RegExp(`^${base}/runs/(\\d+)$`).exec(url.pathname);
    if (req.method === "GET" && m) {
      this.#reveal(true);
      const run = this.runs.find((r) => r.id === Number(m[1]));
      if (!run) return json(res, 404, { message: "Not Found" });
      const view = publicRun(run);
      // Each poll moves the run one state on: queued → in_progress → completed.
      if (--run.polls <= 0 && run.status !== "completed") {
        run.status = run.status === "queued" ? "in_progress" : "completed";
        if (run.status === "completed") run.conclusion = this.mode.conclusion;
        run.polls = 1;
      }
      return json(res, 200, view);
    }
    return json(res, 404, { message: "Not Found", documentation_url: "https://docs.github.com/rest" });
  }

  /** Dispatched runs appear in listings after `visibleAfter` listing calls. */
  #reveal(all: boolean): void {
    this.#pending = this.#pending.filter((p) => {
      if (all || p.after <= 0) {
        this.runs.push(p.run);
        return false;
      }
      p.after -= 1;
      return true;
    });
  }
}

function publicRun(r: FakeRun): Record<string, unknown> {
  const { polls: _polls, ...rest } = r;
  return { ...rest, workflow_id: 161335, repository: { full_name: `${OWNER}/${REPO}` } };
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify(value));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (text += chunk));
    req.on("end", () => resolve(text));
    req.on("error", reject);
  });
}

let server: FakeGitHub | undefined;
afterEach(async () => {
  expect(server?.problems ?? []).toEqual([]);
  await server?.close();
  server = undefined;
});

async function start(mode: Partial<Mode> = {}): Promise<string> {
  server = new FakeGitHub(mode);
  return server.listen();
}

describe("npm run dispatch", () => {
  it("dispatches with the inputs, gets the run id from the response and waits for success", async () => {
    const baseUrl = await start();
    const lines: string[] = [];
    const code = await main(
      [
        "--ref",
        "main",
        "--areas",
        "economy,academics",
        "--now",
        "2026-03-01T00:00:00Z",
        "--wait",
        "--repo",
        `${OWNER}/${REPO}`,
        "--interval",
        "0.01",
      ],
      { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: baseUrl },
      (line) => lines.push(line),
    );
    expect(code).toBe(0);
    const dispatched = server!.dispatches[0]!;
    expect(dispatched.ref).toBe("main");
    expect(dispatched.return_run_details).toBe(true);
    expect(dispatched.inputs).toMatchObject({
      areas: "economy,academics",
      now: "2026-03-01T00:00:00Z",
      "dry-run": "false",
    });
    const run = server!.runs[server!.runs.length - 1]!;
    expect(lines).toContain(`run: ${run.html_url}`);
    expect(lines.filter((l) => l.startsWith("status: "))).toEqual([
      "status: queued",
      "status: in_progress",
      "status: completed (success)",
    ]);
  });

  it("exits non-zero when the run does not succeed", async () => {
    const baseUrl = await start({ conclusion: "failure" });
    const lines: string[] = [];
    const code = await main(
      ["--wait", "--dry-run", "--repo", `${OWNER}/${REPO}`, "--interval", "0.01"],
      { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: baseUrl },
      (l) => lines.push(l),
    );
    expect(code).toBe(1);
    expect(server!.dispatches[0]!.inputs).toMatchObject({ areas: "all", "dry-run": "true" });
    expect(lines[lines.length - 1]).toBe("status: completed (failure)");
  });

  it("on a server without run details, finds its own run by the dispatch id among concurrent ones", async () => {
    const baseUrl = await start({ runDetails: "refused", visibleAfter: 2, concurrentRun: true });
    const result = await dispatchWorkflow({
      owner: OWNER,
      repo: REPO,
      workflow: WORKFLOW,
      ref: "main",
      token: TOKEN,
      baseUrl,
      interval: 0.01,
      timeout: 30,
      dispatchId: "3f1c7d2e-0000-4000-8000-000000000001",
      log: () => {},
    });
    expect(result.matchedBy).toBe("dispatch-id");
    expect(result.run.display_title).toBe("data: regenerate [3f1c7d2e-0000-4000-8000-000000000001]");
    // Refused once with return_run_details, then sent again without it.
    expect(server!.requests.filter((r) => r.startsWith("POST"))).toHaveLength(2);
    expect(server!.dispatches).toHaveLength(1);
    expect(server!.dispatches[0]!.return_run_details).toBeUndefined();
  });

  it("falls back to the one new run when the run title carries no id (204, older workflow file)", async () => {
    const baseUrl = await start({ runDetails: "ignored", visibleAfter: 1, titleCarriesId: false });
    const lines: string[] = [];
    const result = await dispatchWorkflow({
      owner: OWNER,
      repo: REPO,
      workflow: WORKFLOW,
      ref: "main",
      token: TOKEN,
      baseUrl,
      interval: 0.01,
      timeout: 30,
      log: (l) => lines.push(l),
    });
    expect(result.matchedBy).toBe("time");
    expect(result.run.id).toBe(server!.runs[server!.runs.length - 1]!.id);
    expect(lines.some((l) => l.startsWith("warning:"))).toBe(true);
  });

  it("refuses without a token and reports a bad token", async () => {
    const baseUrl = await start();
    expect(await main(["--repo", `${OWNER}/${REPO}`], { GITHUB_API_URL: baseUrl }, () => {})).toBe(1);
    expect(server!.requests).toEqual([]);
    expect(
      await main(["--repo", `${OWNER}/${REPO}`], { GITHUB_TOKEN: "wrong", GITHUB_API_URL: baseUrl }, () => {}),
    ).toBe(1);
    expect(server!.dispatches).toEqual([]);
  });

  it("names the repository and the workflow first, and the git remote it read, before sending anything", async () => {
    const baseUrl = await start();
    const checkout = mkdtempSync(join(tmpdir(), "dispatch-remote-"));
    try {
      const git = (...args: string[]) => spawnSync("git", args, { cwd: checkout, encoding: "utf8" });
      expect(git("init", "-q").status).toBe(0);
      expect(git("remote", "add", "origin", `git@github.com:${OWNER}/${REPO}.git`).status).toBe(0);
      const lines: { line: string; requestsBefore: number }[] = [];
      const code = await main(
        [],
        { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: baseUrl },
        (line) => lines.push({ line, requestsBefore: server!.requests.length }),
        checkout,
      );
      expect(code).toBe(0);
      expect(lines[0]).toEqual({
        line: `target: ${OWNER}/${REPO}, workflow regenerate.yml on main (repository from the git remote "origin" (git@github.com:${OWNER}/${REPO}.git); pass --repo owner/name to choose another)`,
        requestsBefore: 0,
      });
      expect(server!.dispatches).toHaveLength(1);
      // --repo wins over the remote, and says so.
      const named: string[] = [];
      expect(
        await main(["--repo", "other-owner/other-repo"], { GITHUB_API_URL: baseUrl }, (l) => named.push(l), checkout),
      ).toBe(1);
      expect(named[0]).toBe("target: other-owner/other-repo, workflow regenerate.yml on main (repository from --repo)");
    } finally {
      rmSync(checkout, { recursive: true, force: true });
    }
  });

  it("as a command: --help documents --repo (exit 0); --repo is named first also when no token is set", () => {
    const env = { ...process.env };
    delete env.GITHUB_TOKEN;
    delete env.GITHUB_REPOSITORY;
    const root = new URL("..", import.meta.url).pathname;
    const help = spawnSync("npm", ["run", "-s", "dispatch", "--", "--help"], { cwd: root, env, encoding: "utf8" });
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^\s+--repo owner\/name\s+the repository to run it in/m);
    expect(help.stdout).toContain("docs/maintainer-setup.md");
    const noToken = spawnSync("npm", ["run", "-s", "dispatch", "--", "--repo", "acme/open-data"], {
      cwd: root,
      env,
      encoding: "utf8",
    });
    expect(noToken.status).toBe(1);
    expect(noToken.stdout.split("\n")[0]).toBe(
      "target: acme/open-data, workflow regenerate.yml on main (repository from --repo)",
    );
    expect(noToken.stderr).toMatch(/set GITHUB_TOKEN to a token that may run workflows in acme\/open-data/);
  }, 60_000);

  it("sends only inputs that regenerate.yml declares", () => {
    const workflow = parseYaml(
      readFileSync(new URL("../.github/workflows/regenerate.yml", import.meta.url), "utf8"),
    ) as {
      on: {
        workflow_dispatch: { inputs: Record<string, { type: string; default?: unknown }> };
        schedule: { cron: string }[];
      };
      "run-name": string;
    };
    const inputs = workflow.on.workflow_dispatch.inputs;
    expect(Object.keys(inputs).sort()).toEqual(["areas", "dispatch-id", "dry-run", "now"]);
    expect(inputs.areas).toMatchObject({ type: "string", default: "all" });
    expect(inputs["dry-run"]).toMatchObject({ type: "boolean", default: false });
    expect(workflow.on.schedule[0]!.cron).toBe("17 */6 * * *");
    expect(workflow["run-name"]).toContain("inputs['dispatch-id']");
  });
});
