/**
 * Runs a GitHub Actions job's own steps on this machine, in order, as the runner would: each `run:`
 * step in bash (`-eo pipefail`, the runner's default shell options) in the checkout, with the job's
 * and the step's `env:` evaluated, `GITHUB_ENV` lines carried to the steps after, `if:` conditions
 * honoured, and `GITHUB_STEP_SUMMARY` collected. Only what GitHub itself provides has a stand-in:
 * a `uses:` step runs the caller's function for that action (checkout, setup-node, the Pages upload),
 * and an action without one fails the run, so a new action in the workflow cannot pass unnoticed.
 *
 * Expressions (`${{ … }}`) are evaluated for the forms the workflows use — `secrets.X`, `vars.X`,
 * `inputs.x` / `inputs['x']`, `env.X`, string literals, `||`, `&&`, `!`, `==`, `!=`, parentheses and
 * `format('{0}', …)`; any other form throws, naming it.
 */
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";

export interface WorkflowStep {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  with?: Record<string, string>;
  env?: Record<string, string>;
  if?: string;
  shell?: string;
}

interface Job {
  env?: Record<string, string>;
  steps: WorkflowStep[];
  if?: string;
}

export interface Workflow {
  jobs: Record<string, Job>;
}

export function readWorkflow(file: string): Workflow {
  return parse(readFileSync(file, "utf8")) as Workflow;
}

/** The contexts an expression reads. */
export interface Contexts {
  secrets: Record<string, string>;
  vars: Record<string, string>;
  inputs: Record<string, string | boolean>;
  env: Record<string, string>;
}

/** What a stand-in for an action gets: the step's evaluated `with:` and the job's state. */
export interface ActionCall {
  with: Record<string, string>;
  env: Record<string, string>;
  cwd: string;
}

export interface StepResult {
  name: string;
  status: "ran" | "skipped" | "stand-in";
  output: string;
  /** Wall time of the step (reported, never asserted). */
  ms: number;
}

export interface JobRun {
  steps: StepResult[];
  /** Everything the steps wrote to GITHUB_STEP_SUMMARY. */
  summary: string;
  /** The environment after the last step (with GITHUB_ENV's additions). */
  env: Record<string, string>;
}

export interface RunJobOptions {
  workflow: Workflow;
  job: string;
  /** The checkout the steps run in. */
  cwd: string;
  contexts: Omit<Contexts, "env">;
  /** The runner's environment (PATH, HOME, RUNNER_TEMP, GITHUB_* …), under the job's `env:`. */
  runnerEnv: Record<string, string>;
  /** Stand-ins for `uses:` steps, by action name without its version (`actions/checkout`). */
  actions: Record<string, (call: ActionCall) => void | Promise<void>>;
  /** A step's time limit; past it the run fails (a hang detector, not a measurement). */
  stepTimeoutMs?: number;
}

export class WorkflowStepError extends Error {
  readonly step: string;
  readonly output: string;
  constructor(step: string, output: string, message: string) {
    super(message);
    this.step = step;
    this.output = output;
  }
}

/** Runs one job's steps in order; throws at the first step that fails, with its output. */
export async function runJob(options: RunJobOptions): Promise<JobRun> {
  const job = options.workflow.jobs[options.job];
  if (!job) throw new Error(`the workflow has no job "${options.job}"`);
  const files = join(
    options.runnerEnv.RUNNER_TEMP ?? options.cwd,
    `.workflow-${options.job}-${Date.now().toString(36)}`,
  );
  mkdirSync(files, { recursive: true });
  const envFile = join(files, "env");
  const summaryFile = join(files, "summary");
  writeFileSync(summaryFile, "");
  let env: Record<string, string> = { ...options.runnerEnv };
  const jobContexts = (): Contexts => ({ ...options.contexts, env });
  for (const [k, v] of Object.entries(job.env ?? {})) env[k] = stringOf(evaluateTemplate(String(v), jobContexts()));
  const results: JobRun["steps"] = [];
  for (const step of job.steps) {
    const name = step.name ?? step.uses ?? firstLine(step.run ?? "");
    if (step.if !== undefined && !truthy(evaluateExpression(unwrap(step.if), jobContexts()))) {
      results.push({ name, status: "skipped", output: "", ms: 0 });
      continue;
    }
    const started = performance.now();
    const stepEnv = { ...env };
    for (const [k, v] of Object.entries(step.env ?? {}))
      stepEnv[k] = stringOf(evaluateTemplate(String(v), { ...options.contexts, env }));
    if (step.uses) {
      const action = step.uses.replace(/@.*$/, "");
      const standIn = options.actions[action];
      if (!standIn) throw new WorkflowStepError(name, "", `no stand-in for the action ${step.uses}`);
      const withArgs = Object.fromEntries(
        Object.entries(step.with ?? {}).map(([k, v]) => [
          k,
          stringOf(evaluateTemplate(String(v), { ...options.contexts, env })),
        ]),
      );
      await standIn({ with: withArgs, env: stepEnv, cwd: options.cwd });
      results.push({ name, status: "stand-in", output: "", ms: performance.now() - started });
      continue;
    }
    if (step.shell !== undefined && step.shell !== "bash")
      throw new WorkflowStepError(name, "", `shell ${step.shell} is not run here`);
    writeFileSync(envFile, "");
    const script = evaluateTemplate(step.run ?? "", { ...options.contexts, env: stepEnv });
    const output = await runBash(
      String(script),
      options.cwd,
      { ...stepEnv, GITHUB_ENV: envFile, GITHUB_STEP_SUMMARY: summaryFile },
      options.stepTimeoutMs ?? 300_000,
      name,
    );
    results.push({ name, status: "ran", output, ms: performance.now() - started });
    env = { ...env, ...readEnvFile(envFile) };
  }
  return { steps: results, summary: readFileSync(summaryFile, "utf8"), env };
}

function runBash(
  script: string,
  cwd: string,
  env: Record<string, string>,
  timeoutMs: number,
  name: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", script], {
      cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", (error) => reject(new WorkflowStepError(name, output, error.message)));
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else
        reject(new WorkflowStepError(name, output, `step "${name}" failed (${signal ?? `exit ${code}`}):\n${output}`));
    });
  });
}

/** GITHUB_ENV's `KEY=value` lines (and `KEY<<DELIM` blocks). */
function readEnvFile(file: string): Record<string, string> {
  if (!existsSync(file)) return {};
  const out: Record<string, string> = {};
  const lines = readFileSync(file, "utf8").split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const block = /^([A-Za-z_][A-Za-z0-9_]*)<<(.+)$/.exec(line);
    if (block) {
      const value: string[] = [];
      for (i++; i < lines.length && lines[i] !== block[2]; i++) value.push(lines[i]!);
      out[block[1]!] = value.join("\n");
      continue;
    }
    const eq = line.indexOf("=");
    if (eq > 0) out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}

/** Appends a line to a file the way a step's `>> "$GITHUB_ENV"` does (for stand-ins that set variables). */
export function appendEnv(file: string, key: string, value: string): void {
  appendFileSync(file, `${key}=${value}\n`);
}

function firstLine(text: string): string {
  return text.trim().split("\n")[0] ?? "";
}

// ---------------------------------------------------------------------------------------------
// expressions

type Value = string | boolean | number | null;

function unwrap(condition: string): string {
  const m = /^\s*\$\{\{([\s\S]*)\}\}\s*$/.exec(condition);
  return m ? m[1]! : condition;
}

/** A string with `${{ … }}` parts: a lone expression keeps its value's type, else each part is spliced in as text. */
export function evaluateTemplate(text: string, contexts: Contexts): Value {
  const lone = /^\$\{\{([\s\S]*?)\}\}$/.exec(text.trim());
  if (lone && text.trim() === text) return evaluateExpression(lone[1]!, contexts);
  return text.replace(/\$\{\{([\s\S]*?)\}\}/g, (_, expr: string) => stringOf(evaluateExpression(expr, contexts)));
}

function stringOf(value: Value): string {
  if (value === null) return "";
  return String(value);
}

function truthy(value: Value): boolean {
  return value !== null && value !== false && value !== "" && value !== 0;
}

export function evaluateExpression(source: string, contexts: Contexts): Value {
  const tokens = tokenize(source);
  let at = 0;
  const peek = () => tokens[at];
  const take = (expected?: string) => {
    const token = tokens[at++];
    if (token === undefined || (expected !== undefined && token !== expected))
      throw new Error(`expression "${source.trim()}": expected ${expected ?? "more"}`);
    return token;
  };
  /** A left-to-right chain of `op` over `operand`: `||` keeps the first truthy value, `&&` the first falsy one. */
  const chain = (op: "||" | "&&", operand: () => Value) => (): Value => {
    let left = operand();
    while (peek() === op) {
      take();
      const right = operand();
      left = truthy(left) === (op === "||") ? left : right;
    }
    return left;
  };
  const and = (): Value => chain("&&", compare)();
  const or = chain("||", and);
  const compare = (): Value => {
    const left = unary();
    const op = peek();
    if (op === "==" || op === "!=") {
      take();
      const right = unary();
      const equal = String(left ?? "").toLowerCase() === String(right ?? "").toLowerCase();
      return op === "==" ? equal : !equal;
    }
    return left;
  };
  const unary = (): Value => {
    if (peek() === "!") {
      take();
      return !truthy(unary());
    }
    return primary();
  };
  const primary = (): Value => {
    const token = take();
    if (token === "(") {
      const value = or();
      take(")");
      return value;
    }
    if (token.startsWith("'")) return token.slice(1, -1).replace(/''/g, "'");
    if (token === "true" || token === "false") return token === "true";
    if (token === "format") {
      take("(");
      const args: Value[] = [or()];
      while (peek() === ",") {
        take();
        args.push(or());
      }
      take(")");
      return String(args[0]).replace(/\{(\d+)\}/g, (_, i: string) => stringOf(args[Number(i) + 1] ?? null));
    }
    if (token === "secrets" || token === "vars" || token === "inputs" || token === "env") {
      let key: string;
      if (peek() === ".") {
        take();
        key = take();
      } else {
        take("[");
        key = take().slice(1, -1);
        take("]");
      }
      const value = (contexts[token] as Record<string, string | boolean>)[key];
      return value === undefined ? (token === "inputs" ? null : "") : value;
    }
    throw new Error(`expression "${source.trim()}": "${token}" is not evaluated here`);
  };
  const value = or();
  if (at !== tokens.length) throw new Error(`expression "${source.trim()}": unexpected "${tokens[at]}"`);
  return value;
}

function tokenize(source: string): string[] {
  const tokens: string[] = [];
  const pattern = /\s*('(?:[^']|'')*'|\|\||&&|==|!=|[!().,[\]]|[A-Za-z_][A-Za-z0-9_-]*)/y;
  let at = 0;
  while (at < source.length) {
    if (/^\s*$/.test(source.slice(at))) break;
    pattern.lastIndex = at;
    const m = pattern.exec(source);
    if (!m) throw new Error(`expression "${source.trim()}": cannot read from "${source.slice(at)}"`);
    tokens.push(m[1]!);
    at = pattern.lastIndex;
  }
  return tokens;
}
