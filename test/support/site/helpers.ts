/**
 * Test fixtures of the portal: a valid, deterministic pulse history of any length (sealed with
 * sealPulse, chained with prev, one line per record via historyLine), the /v1/pulse static files
 * that go with it, and a helper that runs a real `astro build` of the site into a given folder.
 *
 * The scores are generated, deterministic test data (never published): a slow wave with periodic
 * dips, so the sparkline has something to show.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { chromium, type BrowserContext } from "playwright-core";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { cycleLabel } from "../../../core/cycle.ts";
import { sealPulse, type PulseRecord } from "../../../core/pulse/history.ts";
import { expectedStaticFiles } from "../../../core/pulse/static-files.ts";
import { historyText, signHistory } from "../api/helpers.ts";

export { historyText };

export const SITE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "site");
export const REPO_ROOT = resolve(SITE_ROOT, "..");
/** The repository's own data directory (what `npm run site:build` publishes). */
export const REPO_DATA_DIR = join(REPO_ROOT, "data");

const START_MS = Date.parse("2025-07-04T06:00:00.000Z");
const STEP_MS = 3600_000 + 1234; // about hourly, with some milliseconds

/** A UUIDv4-shaped id from a counter (valid for the schema, unique per index). */
function idOf(i: number): string {
  return `00000000-0000-4000-8000-${i.toString(16).padStart(12, "0")}`;
}

function clamp01(v: number): number {
  return Math.min(1, Math.max(0, Math.round(v * 10_000) / 10_000));
}

/** `count` chained, sealed records, oldest first. Record i is generated `i` steps after the start. */
export function makeHistory(count: number): PulseRecord[] {
  const records: PulseRecord[] = [];
  let prev: string | null = null;
  for (let i = 0; i < count; i++) {
    const at = new Date(START_MS + i * STEP_MS);
    const dip = i % 997 === 500 ? 0.2 : i % 211 === 100 ? 0.06 : 0;
    const gi = clamp01(0.965 + 0.025 * Math.sin(i / 90) + 0.006 * Math.cos(i / 7) - dip);
    const mii = clamp01(0.955 + 0.03 * Math.cos(i / 130) + 0.005 * Math.sin(i / 11) - dip / 2);
    const record: PulseRecord = sealPulse({
      id: idOf(i + 1),
      cycle: cycleLabel(at),
      branch: i % 50 === 7 ? "release" : "main",
      giScore: gi,
      miiScore: mii,
      stats: {
        totalFiles: 400 + Math.floor(i / 10),
        totalLines: 50_000 + i * 13,
        appsCount: 12 + Math.floor(i / 2000),
        packagesCount: 34 + Math.floor(i / 1000),
        workflowsCount: 5 + Math.floor(i / 5000),
      },
      generatedAt: at.toISOString(),
      prev,
    });
    records.push(record);
    prev = record.hash;
  }
  return records;
}

/** Writes `<dataDir>/pulse/history.jsonl` and, unless told not to, the `<dataDir>/v1/pulse/*` files. */
export function writeDataDir(dataDir: string, records: readonly PulseRecord[], options: { v1?: boolean } = {}): void {
  mkdirSync(join(dataDir, "pulse"), { recursive: true });
  writeFileSync(join(dataDir, "pulse", "history.jsonl"), historyText(records));
  // Signed as the indexer publishes it: the site publishes only what the checkpoint covers.
  signHistory(dataDir, historyText(records));
  if (options.v1 === false) return;
  // Byte for byte what the indexer writes (and the build publishes): core/pulse/static-files.ts.
  for (const [path, bytes] of expectedStaticFiles(records)) {
    mkdirSync(dirname(join(dataDir, path)), { recursive: true });
    writeFileSync(join(dataDir, path), bytes);
  }
}

export interface BuildResult {
  code: number | null;
  output: string;
}

/**
 * Runs `astro build --root site --outDir <outDir>` with DATA_DIR set, on the Node running the tests
 * (the project's Node 24). Resolves with the exit code and the combined output.
 *
 * Each build runs in its own working directory under `site/.astro/builds/` (git-ignored): with an
 * `outDir` outside the working directory, Astro writes its temporary prerender chunks to
 * `<cwd>/.astro/.prerender/`. That folder must sit inside the repository (the chunks import
 * packages from node_modules), and must not be shared, or two builds running at once (test
 * files run in parallel) would overwrite each other's chunks. It is removed afterwards.
 */
export function buildSite(dataDir: string, outDir: string, env: Record<string, string> = {}): Promise<BuildResult> {
  const run = process.env[TEST_RUN_VAR];
  if (run && resolve(dataDir) === REPO_DATA_DIR && Object.keys(env).length === 0) return sharedBuild(run, outDir);
  return astroBuild(dataDir, outDir, env);
}

/** Set by the suite's global setup (test/global-setup.ts): one id per `vitest run`. */
export const TEST_RUN_VAR = "INTEGRITY_TEST_RUN";
/** Where the one build of the repository's data of a test run is kept, per run id. */
export const SHARED_BUILDS = join(SITE_ROOT, ".astro", "shared-builds");

/**
 * Made once per run, in a folder of its own under SHARED_BUILDS: the first test file to ask runs
 * `make` (under a lock: the folder created atomically) and records its result; the others wait for
 * that result. Each caller then copies what it needs out of the folder, and may change its copy.
 */
async function oncePerRun<T>(
  run: string,
  name: string,
  make: (dir: string) => Promise<T>,
): Promise<{ dir: string; made: T }> {
  const dir = join(SHARED_BUILDS, run, name);
  const result = join(dir, "result.json");
  mkdirSync(join(SHARED_BUILDS, run), { recursive: true });
  let owner = false;
  try {
    mkdirSync(dir);
    owner = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  if (owner) {
    // A failure is recorded too, so that the files waiting for it fail with it instead of waiting.
    const outcome = await make(dir).then(
      (made) => ({ made }),
      (error: unknown) => ({ failed: (error as Error).message ?? String(error) }),
    );
    writeFileSync(`${result}.tmp`, JSON.stringify(outcome));
    cpSync(`${result}.tmp`, result);
  } else {
    // Another test file is making it: wait for its result (it takes seconds; give it minutes).
    for (let waited = 0; !existsSync(result); waited += 250) {
      if (waited > 300_000) throw new Error(`${dir}, made once per test run, did not finish`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  const outcome = JSON.parse(readFileSync(result, "utf8")) as { made: T } | { failed: string };
  if ("failed" in outcome) throw new Error(`${dir}, made once per test run, failed: ${outcome.failed}`);
  return { dir, made: outcome.made };
}

/**
 * The build of the repository's own data/ with the default environment is the same for every test
 * file of a run, so it is made once per run and copied. Builds of other data, or with another
 * environment, are their own.
 */
async function sharedBuild(run: string, outDir: string): Promise<BuildResult> {
  const { dir, made } = await oncePerRun(run, "site", (into) => astroBuild(REPO_DATA_DIR, join(into, "dist"), {}));
  if (made.code === 0) cpSync(join(dir, "dist"), outDir, { recursive: true });
  return made;
}

/**
 * The environment of a test build: this process's, without what would make it a production build
 * (site/src/lib/public-origins.ts): in CI (GITHUB_ACTIONS) a build without SITE_URL fails, and a
 * developer's SITE_URL or PUBLIC_* would change the pages. A test that wants them passes them.
 */
function developmentEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of [
    "GITHUB_ACTIONS",
    "GITHUB_SERVER_URL",
    "GITHUB_REPOSITORY",
    "SITE_URL",
    "PUBLIC_API_ORIGIN",
    "PUBLIC_CONTACT",
  ])
    delete env[name];
  return env;
}

function astroBuild(dataDir: string, outDir: string, env: Record<string, string>): Promise<BuildResult> {
  mkdirSync(join(SITE_ROOT, ".astro", "builds"), { recursive: true });
  const cwd = mkdtempSync(join(SITE_ROOT, ".astro", "builds", "build-"));
  return new Promise<BuildResult>((resolvePromise, reject) => {
    const child = spawn(
      process.execPath,
      [
        join(REPO_ROOT, "node_modules", "astro", "bin", "astro.mjs"),
        "build",
        "--root",
        SITE_ROOT,
        "--outDir",
        resolve(outDir),
      ],
      {
        cwd,
        env: {
          ...developmentEnv(),
          DATA_DIR: dataDir,
          ASTRO_TELEMETRY_DISABLED: "1",
          NO_COLOR: "1",
          FORCE_COLOR: "0",
          ...env,
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolvePromise({ code, output }));
  }).finally(() => rmSync(cwd, { recursive: true, force: true }));
}

/** Debian's chromium through playwright-core, with the flags this closed network needs; no download. */
export async function launchChromium(
  profileDir: string,
  viewport = { width: 375, height: 800 },
): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profileDir, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    viewport,
  });
}

/**
 * Starts the embedded default (`npm start`, as `node api/start.ts`) on a free port, serving the
 * site built in `siteDir` and the data in `dataDir`; resolves its URL once it says it is serving.
 */
export function startPortal(options: {
  stateDir: string;
  dataDir: string;
  siteDir: string;
  env?: Record<string, string>;
}): Promise<{ child: ChildProcess; url: string }> {
  const env = {
    ...process.env,
    PORT: "0",
    HOST: "127.0.0.1",
    STATE_DIR: options.stateDir,
    DATA_DIR: options.dataDir,
    SITE_DIST: options.siteDir,
    ...options.env,
  };
  const child = spawn(process.execPath, [join(REPO_ROOT, "api", "start.ts"), "--no-build", "--no-pipeline"], {
    cwd: REPO_ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /serving (http:\/\/\S+)/.exec(output);
      if (match) resolve({ child, url: match[1]! });
    });
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("exit", (code) => reject(new Error(`npm start exited (${code}) before serving:\n${output}`)));
  });
}

/**
 * Seeds the SAMPLE ledger into `<stateDir>/ledger.sqlite` as `npm start` does on an empty ledger
 * (`npm run seed -- --sample`, up to the newest pulse of `dataDir`): the ledger the committed
 * datasets were generated from, so the API's ledger routes answer for what the pages link to.
 */
export async function seedSampleLedger(stateDir: string, dataDir: string): Promise<void> {
  const run = process.env[TEST_RUN_VAR];
  if (!run || resolve(dataDir) !== REPO_DATA_DIR) return seedInto(stateDir, dataDir);
  // The sample ledger of the repository's data is the same for every test file of a run: seeded once, copied.
  const { dir } = await oncePerRun(run, "sample-ledger", async (into) => {
    await seedInto(join(into, "state"), dataDir);
    return null;
  });
  cpSync(join(dir, "state"), stateDir, { recursive: true });
}

function seedInto(stateDir: string, dataDir: string): Promise<void> {
  const env: NodeJS.ProcessEnv = { ...process.env, STATE_DIR: stateDir };
  delete env.LEDGER_DB;
  const child = spawn(
    process.execPath,
    [join(REPO_ROOT, "pipeline", "seed", "cli.ts"), "--sample", "--data", dataDir],
    { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) =>
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`seeding the sample ledger failed (${code}):\n${output}`)),
    ),
  );
}

/** Stops a portal started by startPortal and waits for it to exit. */
export async function stopPortal(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

/** The manual's source folder: every docs/*.md is a page at /manual/<name>/ (index.md at /manual/). */
export const DOCS_DIR = join(REPO_ROOT, "docs");

/** The manual's pages by file name without `.md`, sorted. */
export function docsPages(): string[] {
  return readdirSync(DOCS_DIR)
    .filter((f) => f.endsWith(".md"))
    .map((f) => f.slice(0, -3))
    .sort();
}

/**
 * The link targets of a Markdown text, in order: `[text](target)` outside fenced code blocks and
 * code spans (a command's `[--flag](…)` in code is not a link).
 */
export function markdownLinks(markdown: string): string[] {
  const prose = markdown
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "")
    .replace(/^ {4}.*$/gm, "")
    .replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
}
