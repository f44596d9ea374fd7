/**
 * The GitHub workflows as files: each parses, every `npm run <script>` it calls exists in
 * package.json, nothing force-pushes, and the pulse workflow keeps its schedule, its dispatch
 * inputs and its safety settings.
 */
import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import type { WorkflowStep } from "./support/workflow-runner.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const DIR = join(ROOT, ".github/workflows");
const scripts = Object.keys(
  (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts,
);

type Step = WorkflowStep;
interface Workflow {
  on: Record<string, unknown>;
  permissions?: Record<string, string>;
  concurrency?: { group?: string; "cancel-in-progress"?: boolean } | string;
  jobs: Record<string, { steps: Step[] }>;
}

const files = readdirSync(DIR)
  .filter((f) => /\.ya?ml$/.test(f))
  .sort();
const workflows = new Map(files.map((f) => [f, parse(readFileSync(join(DIR, f), "utf8")) as Workflow]));
const steps = (w: Workflow) => Object.values(w.jobs).flatMap((job) => job.steps);

/** Scripts a run text calls: `npm run [flags] <name>`, and `npm test` / `npm start`. */
function npmScripts(run: string): string[] {
  const found: string[] = [];
  for (const m of run.matchAll(/\bnpm\s+(?:run|run-script)((?:\s+-[\w-]+)*)\s+([\w:.-]+)/g)) found.push(m[2]!);
  for (const m of run.matchAll(/\bnpm\s+(test|start)\b/g)) found.push(m[1]!);
  return found;
}

describe("GitHub workflows", () => {
  it("finds the workflows", () => {
    expect(files).toContain("ci.yml");
    expect(files).toContain("pulse.yml");
  });

  for (const [file, workflow] of workflows) {
    it(`${file}: every npm script it runs exists in package.json`, () => {
      expect(Object.keys(workflow.jobs).length).toBeGreaterThan(0);
      for (const step of steps(workflow)) {
        for (const script of npmScripts(step.run ?? ""))
          expect(scripts, `${file}: step "${step.name ?? step.run}" runs npm script "${script}"`).toContain(script);
      }
    });

    it(`${file}: no step forces anything`, () => {
      for (const step of steps(workflow)) {
        const text = JSON.stringify(step);
        expect(text, `${file}: ${step.name ?? step.run}`).not.toMatch(/--force\b/);
        expect(step.run ?? "", `${file}: ${step.name}`).not.toMatch(/\bgit\s+push\b[^\n]*\s(?:-f|\+\S+)\b/);
      }
    });
  }

  it("recognises npm script calls", () => {
    expect(npmScripts('npm run pulse -- --mode "$M"\nnpm run --silent verify && npm test')).toEqual([
      "pulse",
      "verify",
      "test",
    ]);
  });
});

describe("pulse.yml", () => {
  const pulse = workflows.get("pulse.yml")!;
  const all = steps(pulse);

  it("runs every 6 hours and on dispatch with a mode choice and a dry-run switch", () => {
    expect(pulse.on.schedule).toEqual([{ cron: "0 */6 * * *" }]);
    const inputs = (pulse.on.workflow_dispatch as { inputs: Record<string, Record<string, unknown>> }).inputs;
    expect(inputs.mode).toMatchObject({ type: "choice", options: ["local", "github"], default: "github" });
    expect(inputs["dry-run"]).toMatchObject({ type: "boolean" });
  });

  it("checks out the whole history, uses Node 24, records, verifies, then commits without racing", () => {
    expect(all.find((s) => s.uses?.startsWith("actions/checkout@"))?.with).toMatchObject({ "fetch-depth": 0 });
    expect(all.find((s) => s.uses?.startsWith("actions/setup-node@"))?.with).toMatchObject({ "node-version": 24 });
    expect(pulse.permissions?.contents).toBe("write");
    expect(typeof pulse.concurrency === "object" && pulse.concurrency.group).toBeTruthy();

    const runs = all.filter((s) => s.run).map((s) => s.run!);
    const at = (re: RegExp) => runs.findIndex((r) => re.test(r));
    expect(at(/npm install/)).toBeGreaterThanOrEqual(0);
    expect(at(/npm run pulse -- "\$\{args\[@\]\}"/)).toBeGreaterThan(at(/npm install/));
    expect(at(/npm run pulse -- --verify/)).toBeGreaterThan(at(/npm run pulse -- "\$\{args/));
    expect(at(/git push/)).toBeGreaterThan(at(/npm run pulse -- --verify/));

    const record = all.find((s) => s.run?.includes('npm run pulse -- "${args[@]}"'))!;
    expect(record.env).toMatchObject({
      GITHUB_TOKEN: "${{ secrets.GITHUB_TOKEN }}",
      DATASET_SIGNING_KEY: "${{ secrets.DATASET_SIGNING_KEY }}",
      PULSE_MODE: "${{ inputs.mode || 'github' }}",
    });
    expect(record.run).toMatch(/args\+=\(--dry-run\)/);

    const commit = all.find((s) => s.run?.includes("git push"))!;
    expect(commit.run).toMatch(/git status --porcelain -- data\//);
    expect(commit.run).toMatch(/git commit -m "pulse: \$\{cycle\}"/);
    expect(commit.run).toMatch(/data\/v1\/pulse\/latest\.json/);
    expect(commit.if).toMatch(/inputs\.dry-run/);
  });

  it("runs every shell step with set -euo pipefail", () => {
    for (const step of all.filter((s) => s.run))
      expect(step.run!.trimStart().startsWith("set -euo pipefail"), step.name).toBe(true);
  });
});

describe("regenerate.yml", () => {
  const all = steps(workflows.get("regenerate.yml")!);
  const runs = all.filter((s) => s.run).map((s) => s.run!);
  const at = (re: RegExp) => runs.findIndex((r) => re.test(r));

  it("verifies the pulse history and its static copies before it builds, commits or uploads the site", () => {
    expect(at(/npm run pulse -- --verify/)).toBeGreaterThan(at(/npm run pipeline -- /));
    expect(at(/npm run site:build/)).toBeGreaterThan(at(/npm run pulse -- --verify/));
    expect(at(/git push/)).toBeGreaterThan(at(/npm run site:build/));
    const verify = all.find((s) => s.run?.includes("npm run pulse -- --verify"))!;
    expect(verify.env).toBeUndefined();
  });

  it("builds the site for its public origins, from the repository's variables", () => {
    const build = all.find((s) => s.run?.includes("npm run site:build"))!;
    expect(build.env).toEqual({
      SITE_URL: "${{ vars.SITE_URL }}",
      PUBLIC_API_ORIGIN: "${{ vars.PUBLIC_API_ORIGIN }}",
      PUBLIC_CONTACT: "${{ vars.PUBLIC_CONTACT }}",
    });
  });
});
