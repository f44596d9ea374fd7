/**
 * `npm start`, the embedded default: everything on one machine, no account anywhere. In order: the
 * state folder and development keys; a pulse history when there is none (backfilled, then the
 * present); the SAMPLE ledger and the pipeline; the site build; then site and API served from one
 * process until SIGINT / SIGTERM. The pulse, seed and pipeline run as child processes, as the API
 * never imports the pipeline. Steps, flags and environment: README "Two commands".
 *
 * `--serve-only` (`npm run serve`): one instance of a deployment — the API (and site/dist when it
 * is built) over the existing state, nothing prepared: no key generated (N instances must share
 * one set, so a missing key is an error), no pulse, seed, pipeline or build. INSTANCE_ID names the
 * instance in the `Instance-Id` header and the log. docs/deployment.md.
 */
import { portOf, publicSiteUrl } from "./server/site-url.ts";
import { spawnSync } from "node:child_process";
import { flushCompileCache } from "node:module";
import { existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { DATASET_KEY, LEDGER_KEY, loadSigningKey, TOKEN_KEY, type KeySpec, type SigningKey } from "../store/keys.ts";
import { CHECKPOINT_INTERVAL_S, coverTail } from "../store/ledger/entry-inclusion.ts";
import { openLedger, stateDir } from "../store/open-ledger.ts";
import type { LedgerStore } from "../core/ledger/store.ts";
import { openLimits } from "../store/open-limits.ts";
import { resolveStoreLocation, type StoreLocation } from "../store/store-location.ts";
import { serverClock } from "./server/clock.ts";
import { VALID_INSTANCE_ID } from "./middleware/request-log.ts";
import { originsFromEnv } from "./middleware/cors.ts";
import { publicOriginsFromEnv } from "./middleware/host.ts";
import { historyPath } from "./sources/pulse-history.ts";
import { SIMULATION_PATH } from "./simulation/session.ts";
import { startServer, type RunningServer } from "./server/server.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SITE_DIST = join(ROOT, "site", "dist");

const say = (message: string) => console.log(message);

/** Runs `npm run <script>` in the repository with inherited stdio; throws on failure. */
function npmRun(script: string, env: NodeJS.ProcessEnv, extra: readonly string[] = []): void {
  const npmCli = env.npm_execpath;
  const runArgs = ["run", script, ...(extra.length > 0 ? ["--", ...extra] : [])];
  const [command, args] =
    npmCli && /\.c?js$/.test(npmCli) ? [process.execPath, [npmCli, ...runArgs]] : ["npm", runArgs];
  say(`running npm ${runArgs.join(" ")} …`);
  const result = spawnSync(command, args, { cwd: ROOT, env, stdio: "inherit" });
  if (result.error) throw new Error(`npm run ${script} could not start: ${result.error.message}`);
  if (result.status !== 0)
    throw new Error(`npm run ${script} failed (${result.signal ?? `exit code ${result.status}`})`);
}

function describeKey(spec: KeySpec, key: SigningKey, dir: string): string {
  const where = {
    env: `from ${spec.envVar}`,
    file: `from the file named by ${spec.envVar}_FILE`,
    state: `existing development key in ${join(dir, "keys", spec.fileName)}`,
    generated: `generated a new development key in ${join(dir, "keys", spec.fileName)}`,
  }[key.source];
  return `key ${spec.name}: ${where} (public key ${key.publicKeyHex.slice(0, 16)}…)`;
}

/** Step 1: the state folder and the signing keys. */
function prepareState(env: NodeJS.ProcessEnv): string {
  const dir = resolve(stateDir(env));
  const existed = existsSync(dir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  say(`state: ${existed ? "using" : "created"} ${dir}`);
  for (const spec of [LEDGER_KEY, DATASET_KEY, TOKEN_KEY]) say(describeKey(spec, loadSigningKey(spec, dir, env), dir));
  return dir;
}

/**
 * Step 1 of `--serve-only`: the keys an instance serves with must exist already — in the
 * environment, a file it names, or the state folder. An instance that generated its own would
 * sign checkpoints and check tokens with keys no other instance has.
 */
function checkServingKeys(env: NodeJS.ProcessEnv): void {
  const dir = resolve(stateDir(env));
  for (const spec of [LEDGER_KEY, TOKEN_KEY]) {
    const present = env[spec.envVar] || env[`${spec.envVar}_FILE`] || existsSync(join(dir, "keys", spec.fileName));
    if (!present)
      throw new Error(
        `--serve-only: no ${spec.name} key; set ${spec.envVar} or ${spec.envVar}_FILE (the same on every instance), or run npm start once to make ${join(dir, "keys", spec.fileName)}`,
      );
    say(describeKey(spec, loadSigningKey(spec, dir, env), dir));
  }
}

/** INSTANCE_ID, checked: it goes into a response header and every log line. */
function instanceIdOf(env: NodeJS.ProcessEnv): string | undefined {
  const id = env.INSTANCE_ID;
  if (id === undefined || id === "") return undefined;
  if (!VALID_INSTANCE_ID.test(id))
    throw new Error(`INSTANCE_ID must be 1–64 of [A-Za-z0-9._:-], got ${JSON.stringify(id)}`);
  return id;
}

/** Commits measured when a start finds no pulse history (the timeline wants at least 30 points). */
const BACKFILL_LIMIT = 40;

/** Step 2: a pulse history to serve. */
function ensurePulseHistory(dataDir: string, env: NodeJS.ProcessEnv): void {
  const path = historyPath(dataDir);
  if (existsSync(path) && statSync(path).size > 0) {
    say(`pulse: history present at ${path}`);
    return;
  }
  say(`pulse: no history at ${path}; measuring past commits, then the present`);
  npmRun("pulse", env, ["--backfill", "--limit", String(BACKFILL_LIMIT), "--data", dataDir]);
  npmRun("pulse", env, ["--data", dataDir]);
  if (!existsSync(path) || statSync(path).size === 0)
    say(`pulse: the indexer wrote no history at ${path}; the badge will say "no data"`);
}

/**
 * Step 2b: the sample ledger and the datasets. An empty ledger is seeded with the seed and size in
 * data/sources/sample.json up to its present (pipeline/seed/sample-options.ts, `npm run seed -- --sample`) — the options the committed sample datasets were
 * generated from — so the pipeline then finds its inputs unchanged on a fresh clone and rewrites
 * (and re-signs) nothing.
 */
async function ensureDatasets(dataDir: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  if (args.includes("--no-pipeline")) {
    say("datasets: --no-pipeline given; serving data/ as it is");
    return;
  }
  const { ledger } = await openLedger({ env });
  const size = await ledger.size();
  await ledger.close();
  if (size === 0) {
    say("ledger: empty; seeding the SAMPLE ledger (data/sources/sample.json, up to the newest pulse)");
    npmRun("seed", env, ["--sample", "--data", dataDir]);
  } else {
    say(`ledger: ${size} entries`);
  }
  npmRun("pipeline", env, ["--data", dataDir]);
}

/** Step 3: the built site to serve, or undefined to serve the API alone. */
function prepareSite(args: readonly string[], env: NodeJS.ProcessEnv): string | undefined {
  // SITE_DIST serves a site built elsewhere (the portal tests build theirs into a temp folder).
  const dist = env.SITE_DIST ? resolve(env.SITE_DIST) : SITE_DIST;
  const index = join(dist, "index.html");
  if (args.includes("--no-build") || env.SKIP_SITE_BUILD === "1") {
    if (existsSync(index)) {
      say(`site: build skipped; serving the existing ${dist}`);
      return dist;
    }
    say("site: build skipped and site/dist/index.html is missing; the site is not built, serving the API only");
    return undefined;
  }
  const siteDir = join(ROOT, "site");
  const hasConfig =
    existsSync(siteDir) && readdirSync(siteDir).some((name) => /^astro\.config\.[cm]?[jt]s$/.test(name));
  if (!hasConfig) {
    say("site: no site/astro.config.*; the site is not built, serving the API only");
    return undefined;
  }
  const siteUrl = publicSiteUrl(env);
  say(
    `site: canonical origin ${siteUrl}${env.SITE_URL ? " (SITE_URL)" : " (the served origin; set SITE_URL for the public one)"}`,
  );
  // One server for the site and its API: the pages call the origin they are served from, unless PUBLIC_API_ORIGIN names another.
  npmRun("site:build", { ...env, SITE_URL: siteUrl, PUBLIC_API_ORIGIN: env.PUBLIC_API_ORIGIN || siteUrl });
  if (!existsSync(join(SITE_DIST, "index.html")))
    throw new Error("npm run site:build finished but site/dist/index.html is missing");
  return SITE_DIST;
}

/** Step 4: one server for the site and the API, with the ledger (durable writes) and the token key. */
async function serveAll(
  dataDir: string,
  siteDir: string | undefined,
  env: NodeJS.ProcessEnv,
  location: StoreLocation,
): Promise<RunningServer> {
  const trustedOrigins = originsFromEnv(env);
  const now = serverClock(env);
  say(
    `stores: ${location.driver.names === "url" ? `ledger, access ledger and limits in ${location.driver.title} ${location.shown}` : `ledger ${location.ledger}, access ledger ${location.access}, limits in this process`}`,
  );
  const { ledger } = await openLedger({ env, now, durability: "full", location });
  const tokenKey = loadSigningKey(TOKEN_KEY, stateDir(env), env);
  const instanceId = instanceIdOf(env);
  // Quotas and connection caps: in this process, or shared by every instance when DATABASE_URL names PostgreSQL.
  const port = portOf(env);
  const limits = await openLimits(location, env, port);
  say(`limits: ${limits.kind === "memory" ? "counted in this process" : "shared in PostgreSQL (DATABASE_URL)"}`);
  if (env.NOW) say(`clock: starts at ${now().toISOString()} (NOW) and advances from there`);
  const server = await startServer({
    host: env.HOST ?? "127.0.0.1",
    port,
    dataDir,
    trustedOrigins,
    // The served origin by its configured name too (HOST may be a name), besides PUBLIC_ORIGINS and SITE_URL.
    publicOrigins: [...publicOriginsFromEnv(env), publicSiteUrl({ ...env, SITE_URL: "" })],
    now,
    ledger,
    tokenPublicKeyHex: tokenKey.publicKeyHex,
    tokenSecretKeyHex: tokenKey.secretKeyHex,
    limits,
    keysFile: location.access,
    ...(siteDir ? { siteDir } : {}),
    ...(instanceId !== undefined ? { instanceId } : {}),
  }).catch(async (error: unknown) => {
    await limits.close();
    throw error;
  });
  scheduleCheckpoints(ledger);
  // One write, so a reader that sees the serving line also sees the URLs.
  say(
    [
      `serving ${server.url}`,
      ...(instanceId !== undefined ? [`  instance  ${instanceId}  (Instance-Id header, "instance" in the log)`] : []),
      `  badge     ${server.url}/v1/pulse/badge  (?metric=gi|mii, ?format=svg)`,
      `  history   ${server.url}/v1/pulse/history  (?limit=N&before=<id>)`,
      `  timeline  ${siteDir ? `${server.url}/pulse/timeline` : "(site not built)"}`,
      `  health    ${server.url}/health`,
      `  simulation ${server.url.replace(/^http/, "ws")}${SIMULATION_PATH}  (WebSocket; described in ${server.url}/asyncapi.json)`,
      `  API docs  ${siteDir ? `${server.url}/docs/` : "(site not built)"}  (OpenAPI 3.1: ${server.url}/openapi.json)`,
    ].join("\n"),
  );
  return { ...server, close: (graceMs) => server.close(graceMs).finally(() => limits.close()) };
}

/**
 * Every CHECKPOINT_INTERVAL_S the server signs a checkpoint when entries are not covered (appended
 * by a writer without the ledger key); its own writes sign theirs at commit. Proof reads never sign
 * (docs/ledger-reads.md). A failure is left to the next tick: /health reports a store that fails.
 */
function scheduleCheckpoints(ledger: LedgerStore): void {
  setInterval(() => {
    coverTail(ledger).catch(() => {
      // the store's write health records it (ledger.writeHealth())
    });
  }, CHECKPOINT_INTERVAL_S * 1000).unref();
}

/** Step 5: close gracefully on SIGINT / SIGTERM and exit 0. */
function closeOnSignals(server: RunningServer): void {
  let closing = false;
  const stop = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    say(`${signal}: closing the server`);
    server.close().then(
      () => {
        // process.exit skips the write of Node's compile cache (NODE_COMPILE_CACHE): write it first.
        flushCompileCache();
        process.exit(0);
      },
      (error: unknown) => {
        console.error(`close failed: ${(error as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

async function main(args: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  const dataDir = resolve(env.DATA_DIR ?? join(ROOT, "data"));
  instanceIdOf(env);
  // Where every store is, resolved once (a DATABASE_URL that does not parse stops here, named) and
  // handed to the ledger, the access ledger and the limits alike.
  const location = resolveStoreLocation(env);
  if (args.includes("--serve-only")) {
    say("serve-only: serving the existing state; no keys made, no pulse, seed, pipeline or site build");
    checkServingKeys(env);
    closeOnSignals(await serveAll(dataDir, prepareSite([...args, "--no-build"], env), env, location));
    return;
  }
  prepareState(env);
  ensurePulseHistory(dataDir, env);
  await ensureDatasets(dataDir, args, env);
  const siteDir = prepareSite(args, env);
  closeOnSignals(await serveAll(dataDir, siteDir, env, location));
}

main(process.argv.slice(2), process.env).catch((error: unknown) => {
  console.error(`npm start failed: ${(error as Error).message}`);
  process.exit(1);
});
