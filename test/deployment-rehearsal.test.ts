/**
 * The deployment people get, rehearsed end to end on loopback:
 *
 * 1. The API runs elsewhere: the tables' owner runs `npm run ledger -- setup` for the application
 *    role, and two instances running as that role on PostgreSQL behind HAProxy take writes (an
 *    operator's first writes, then `POST /avm/verify` attempts the instances log themselves).
 * 2. The scheduled regeneration runs `.github/workflows/regenerate.yml`'s own steps, read from the
 *    file and run in order (test/support/workflow-runner.ts) in a new repository made from this
 *    checkout, with stand-ins only for what GitHub provides (the checkout, Node, the Pages upload)
 *    and the repository's secrets and variables as a maintainer sets them (docs/maintainer-setup.md):
 *    the live ledger through a read-only database role (exactly the documented grants), the signing
 *    keys, the site's and the API's public origins; the ledger key listed in the vkey file and the
 *    witness policy. The published checkpoint goes through the witness step. Its push goes to a
 *    bare repository standing for GitHub.
 * 3. The uploaded artifact is served by Debian's nginx with the configuration `npm run cdn` prints,
 *    on another origin than the API's.
 * 4. A downloader, in an empty folder, runs the verifier from the tarball the CDN serves (`npx`),
 *    checks an area and an entry the API wrote, and checks a subset of files they downloaded.
 * 5. The regeneration runs again after more writes: the new checkpoint extends the published one.
 *
 * Every wait carries a generous limit as a hang detector; no time is asserted.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import {
  appendFileSync,
  cpSync,
  writeFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import pg from "pg";
import type { BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifierKey } from "../core/checkpoint.ts";
import { sha256Hex } from "../core/digest.ts";
import { publicKeyFromSecret } from "../core/signature.ts";
import { AvmFixture, TEST_TOKEN_SECRET, type Companion, type Holder } from "./support/api/avm.ts";
import { postJson, startApiCluster, type ApiCluster } from "./support/cluster.ts";
import { freePort, freshDatabase } from "./support/postgres.ts";
import { npxAsDownloader } from "./support/integrity-verify.ts";
import { launchChromium, REPO_ROOT } from "./support/site/helpers.ts";
import { readWorkflow, runJob, type JobRun } from "./support/workflow-runner.ts";

const LEDGER_SECRET = sha256Hex("avm test ledger key");
const DATASET_SECRET = sha256Hex("deployment rehearsal dataset key");
const CONTACT = "data-access@example.org";
const LEDGER_NAME = "integrity-platform.example/ledger";
const DATASET_NAME = "integrity-platform.example/datasets";

const work = join(tmpdir(), `deployment-rehearsal-${process.pid}-${Date.now().toString(36)}`);
const repo = join(work, "repo");
const origin = join(work, "origin.git");
const artifact = join(work, "artifact");
const keyedArtifact = join(work, "keyed-artifact");

let fx: AvmFixture;
let api: ApiCluster;
let holder: Holder;
let companion: Companion;
let readerUrl: string;
let firstRun: JobRun;
let nginx: ChildProcess | undefined;
let browser: BrowserContext | undefined;
/** The CDN's origin (nginx serving the uploaded artifact). */
let cdn: string;
/** The seq of an entry the API instances wrote. */
let apiEntry: number;

/** Runs a command in the new repository; its output, or a thrown error with it. */
function sh(command: string, args: string[], cwd = repo, env: NodeJS.ProcessEnv = process.env): string {
  const result = spawnSync(command, args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed:\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

/**
 * A repository as a maintainer has it: this checkout's files (tracked, and new ones not ignored),
 * committed, with a bare repository as its `origin`; and the maintainer's setup commit publishing
 * the keys the secrets hold (data/keys/*.vkey).
 */
function makeRepository(): void {
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: REPO_ROOT,
    encoding: "utf8",
  })
    .split("\0")
    .filter((f) => f !== "" && existsSync(join(REPO_ROOT, f)));
  for (const file of files) {
    mkdirSync(dirname(join(repo, file)), { recursive: true });
    cpSync(join(REPO_ROOT, file), join(repo, file));
  }
  // The install step runs for real; linking the installed packages first makes it a quick check.
  execFileSync("cp", ["-al", join(REPO_ROOT, "node_modules"), join(repo, "node_modules")]);
  const git = (...args: string[]) =>
    sh("git", ["-c", "user.name=maintainer", "-c", "user.email=maintainer@example.org", ...args]);
  git("init", "--quiet", "-b", "main");
  git("add", "--all");
  git("commit", "--quiet", "-m", "the repository as cloned");
  // Listed beside the keys that signed what is already published (the pulse history keeps them).
  appendFileSync(
    join(repo, "data", "keys", "ledger.vkey"),
    `${verifierKey(LEDGER_NAME, publicKeyFromSecret("ed25519", LEDGER_SECRET))}\n`,
  );
  appendFileSync(
    join(repo, "data", "keys", "datasets.vkey"),
    `${verifierKey(DATASET_NAME, publicKeyFromSecret("ed25519", DATASET_SECRET))}\n`,
  );
  // The witness policy names the log by the same key (docs/maintainer-setup.md).
  appendFileSync(
    join(repo, "data", "keys", "ledger.policy"),
    `log ${verifierKey(LEDGER_NAME, publicKeyFromSecret("ed25519", LEDGER_SECRET))}\n`,
  );
  git("commit", "--quiet", "-am", "publish this deployment's keys");
  sh("git", ["clone", "--quiet", "--bare", repo, origin], work);
  git("remote", "add", "origin", origin);
}

/** A URL of the same database as another role (the test cluster trusts loopback). */
function as(url: string, role: string): string {
  const u = new URL(url);
  u.username = role;
  return u.href;
}

/**
 * The database as docs/postgresql.md sets it up: an owner (no superuser) runs `npm run ledger --
 * setup` for the role the API instances run as, and grants the regeneration's read-only role exactly
 * what docs/maintainer-setup.md gives. The URLs of the application role and the read-only role.
 */
async function setUpDatabase(adminUrl: string): Promise<{ app: string; reader: string }> {
  const roles = { owner: `owner_${process.pid}`, app: `api_${process.pid}`, reader: `ledger_reader_${process.pid}` };
  const database = new URL(adminUrl).pathname.slice(1);
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    for (const role of Object.values(roles)) await admin.query(`CREATE ROLE ${role} LOGIN`);
    await admin.query(`ALTER DATABASE ${database} OWNER TO ${roles.owner}`);
    await admin.query(`ALTER SCHEMA public OWNER TO ${roles.owner}`);
    await admin.query(`ALTER ROLE ${roles.reader} SET default_transaction_read_only = on`);
  } finally {
    await admin.end();
  }
  sh(process.execPath, [join(REPO_ROOT, "cli", "ledger-cli.ts"), "setup", "--app-role", roles.app], REPO_ROOT, {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATABASE_URL: as(adminUrl, roles.owner),
  });
  const owner = new pg.Client({ connectionString: as(adminUrl, roles.owner) });
  await owner.connect();
  try {
    await owner.query(`GRANT CONNECT ON DATABASE ${database} TO ${roles.reader}`);
    await owner.query(`GRANT USAGE ON SCHEMA public TO ${roles.reader}`);
    await owner.query(
      `GRANT SELECT ON ledger_meta, ledger_entries, ledger_subtrees, ledger_checkpoints TO ${roles.reader}`,
    );
  } finally {
    await owner.end();
  }
  return { app: as(adminUrl, roles.app), reader: as(adminUrl, roles.reader) };
}

/** Verifies through the balancer: the attempt (and the grant) the instances write to the live ledger. */
async function verifyThroughApi(k: number): Promise<number> {
  const body = fx.body(holder, companion, ["api.read"], { issuedAt: fx.nowMs - 86_400_000 - k });
  const answer = await postJson(`${api.url}/avm/verify`, body);
  expect(answer.status, answer.text).toBe(200);
  return Number(answer.headers.get("ledger-seq"));
}

/** The scheduled regeneration, the workflow's own steps in order. */
function regenerate(): Promise<JobRun> {
  const runnerTemp = join(work, "runner-temp");
  mkdirSync(runnerTemp, { recursive: true });
  return runJob({
    workflow: readWorkflow(join(repo, ".github", "workflows", "regenerate.yml")),
    job: "regenerate",
    cwd: repo,
    contexts: {
      secrets: {
        DATASET_SIGNING_KEY: DATASET_SECRET,
        LEDGER_SIGNING_KEY: LEDGER_SECRET,
        LEDGER_DATABASE_URL: readerUrl,
      },
      // The repository variables a maintainer sets (docs/maintainer-setup.md).
      vars: { SITE_URL: cdn, PUBLIC_API_ORIGIN: api.url, PUBLIC_CONTACT: CONTACT },
      inputs: { areas: "all", now: "", "dry-run": false, "dispatch-id": "" },
    },
    runnerEnv: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      CI: "true",
      GITHUB_ACTIONS: "true",
      GITHUB_REF_NAME: "main",
      GITHUB_WORKSPACE: repo,
      RUNNER_TEMP: runnerTemp,
      STATE_DIR: join(runnerTemp, "state"),
      ...(process.env.NODE_COMPILE_CACHE ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE } : {}),
    },
    actions: {
      // The checkout is the repository made above; Node is the one the tests run on.
      "actions/checkout": () => {},
      "actions/setup-node": () => {},
      "actions/upload-artifact": (call) => {
        rmSync(keyedArtifact, { recursive: true, force: true });
        cpSync(call.with.path!, keyedArtifact, { recursive: true });
      },
      "actions/upload-pages-artifact": (call) => {
        rmSync(artifact, { recursive: true, force: true });
        cpSync(join(call.cwd, call.with.path ?? "_site"), artifact, { recursive: true });
      },
    },
  });
}

/**
 * The deploy job's stand-in: the uploaded artifact served by Debian's nginx with the configuration
 * `npm run cdn -- nginx` prints, run as it is.
 */
async function serveArtifact(port: number): Promise<ChildProcess> {
  const prefix = join(work, "nginx");
  mkdirSync(prefix, { recursive: true });
  const conf = join(prefix, "nginx.conf");
  writeFileSync(
    conf,
    sh("npm", ["run", "-s", "cdn", "--", "nginx", "--root", artifact, "--listen", `127.0.0.1:${port}`]),
  );
  const child = spawn("/usr/sbin/nginx", ["-p", prefix, "-c", conf], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode}): ${stderr}`);
    if (
      await fetch(`${cdn}/`).then(
        () => true,
        () => false,
      )
    )
      return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nginx did not answer at ${cdn}: ${stderr}`);
}

beforeAll(async () => {
  mkdirSync(work, { recursive: true });
  makeRepository();
  // The API elsewhere: the owner's setup of a new PostgreSQL database, an operator's first writes,
  // then two instances running as the application role (never the tables' owner).
  const roles = await setUpDatabase(await freshDatabase("rehearsal"));
  readerUrl = roles.reader;
  const database = roles.app;
  fx = await AvmFixture.open(Date.now(), database);
  holder = await fx.identity("rehearsal");
  companion = await fx.companion("athena");
  // The CDN's origin is known before anything is built: the site names it, the API trusts it.
  const cdnPort = await freePort();
  cdn = `http://127.0.0.1:${cdnPort}`;
  api = await startApiCluster({
    instances: 2,
    store: () => ({
      DATABASE_URL: database,
      LEDGER_SIGNING_KEY: LEDGER_SECRET,
      TOKEN_SIGNING_KEY: TEST_TOKEN_SECRET,
      SITE_URL: cdn,
    }),
  });
  apiEntry = await verifyThroughApi(0);
  firstRun = await regenerate();
  nginx = await serveArtifact(cdnPort);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  nginx?.kill("SIGTERM");
  await api?.stop();
  await fx?.close();
  rmSync(work, { recursive: true, force: true });
});

describe("the scheduled regeneration follows the live ledger", () => {
  it("says which ledger it used, in its log and its summary", () => {
    const locate = firstRun.steps.find((s) => s.name === "Locate the ledger");
    expect(locate?.output).toMatch(/ledger: the live ledger \(LEDGER_DATABASE_URL\)/);
    expect(firstRun.summary).toMatch(/Regenerated from the live ledger/);
    const regen = firstRun.steps.find((s) => s.name === "Regenerate");
    expect(regen?.output).toMatch(/read as of its checkpoint of size \d+ \(verified/);
  });

  it("publishes datasets and tiles covering what the API appended, and pushes them", async () => {
    const size = await fx.ledger.size();
    const published = readFileSync(join(repo, "data", "ledger", "checkpoint"), "utf8").split("\n");
    expect(Number(published[1])).toBe(size);
    const pushed = sh("git", ["--git-dir", origin, "log", "-1", "--format=%s", "main"], work);
    expect(pushed).toMatch(/^data: regenerate /);
    const manifest = JSON.parse(readFileSync(join(artifact, "government", "datapackage.json"), "utf8")) as {
      sample?: boolean;
    };
    expect(manifest.sample).toBeUndefined();
    expect(existsSync(join(artifact, "ledger", "checkpoint"))).toBe(true);
    // Keyed files leave as the private artifact only: not in data/, not on the CDN.
    expect(existsSync(join(keyedArtifact, "government", "compliance-report.json"))).toBe(true);
    expect(existsSync(join(repo, "data", "areas", "government", "compliance-report.json"))).toBe(false);
    expect(existsSync(join(artifact, "government", "compliance-report.json"))).toBe(false);
    expect(readFileSync(join(artifact, "ledger", "checkpoint"), "utf8")).toBe(published.join("\n"));
  });

  it("runs again after more writes: the new checkpoint extends the published one", async () => {
    const before = Number(readFileSync(join(repo, "data", "ledger", "checkpoint"), "utf8").split("\n")[1]);
    await verifyThroughApi(1);
    const again = await regenerate();
    expect(again.steps.find((s) => s.name === "Locate the ledger")?.output).not.toMatch(
      /replacing the published sample/,
    );
    const after = Number(readFileSync(join(repo, "data", "ledger", "checkpoint"), "utf8").split("\n")[1]);
    expect(after).toBe(await fx.ledger.size());
    expect(after).toBeGreaterThan(before);
    expect(relative(repo, artifact)).not.toBe("");
  });
});

describe("served by a CDN, checked by a downloader with only what they downloaded", () => {
  it("serves the artifact with the headers of its _headers rules", async () => {
    const manifest = await fetch(`${cdn}/government/datapackage.json`);
    expect(manifest.status).toBe(200);
    expect(manifest.headers.get("cache-control")).toMatch(/must-revalidate|no-cache|max-age=\d+/);
    const asset = readdirSync(join(artifact, "_astro"))[0]!;
    expect((await fetch(`${cdn}/_astro/${asset}`)).headers.get("cache-control")).toMatch(/immutable/);
  });

  it("runs the verifier from the tarball the CDN serves, in an empty folder: an area, and an entry the API wrote", async () => {
    const empty = join(work, "downloader");
    mkdirSync(empty, { recursive: true });
    const tarball = readdirSync(join(artifact, "tools")).find((f) => f.endsWith(".tgz"))!;
    const pkg = `--package=${cdn}/tools/${tarball}`;
    const ledgerKey = verifierKey(LEDGER_NAME, publicKeyFromSecret("ed25519", LEDGER_SECRET));
    const area = await npxAsDownloader(work, empty, pkg, "integrity-verify", `${cdn}/government/`);
    expect(area.code, area.out + area.err).toBe(0);
    const entry = await npxAsDownloader(
      work,
      empty,
      pkg,
      "integrity-verify",
      "--ledger",
      `${cdn}/ledger/`,
      "--entry",
      String(apiEntry),
      "--key",
      ledgerKey,
    );
    expect(entry.code, entry.out + entry.err).toBe(0);
    expect(entry.out).toContain(String(apiEntry));
  });

  it("checks exactly the files a person downloaded, and fails a file the manifest does not list", async () => {
    const folder = join(work, "downloads", "academics");
    mkdirSync(folder, { recursive: true });
    for (const file of ["datapackage.json", "datapackage.json.sig", "dataset.json"]) {
      const res = await fetch(`${cdn}/academics/${file}`);
      expect(res.status, file).toBe(200);
      writeFileSync(join(folder, file), Buffer.from(await res.arrayBuffer()));
    }
    const keyFile = join(work, "downloads", "datasets.vkey");
    writeFileSync(keyFile, `${verifierKey(DATASET_NAME, publicKeyFromSecret("ed25519", DATASET_SECRET))}\n`);
    const tarball = readdirSync(join(artifact, "tools")).find((f) => f.endsWith(".tgz"))!;
    const pkg = `--package=${cdn}/tools/${tarball}`;
    const subset = await npxAsDownloader(work, folder, pkg, "integrity-verify", folder, "--key", keyFile);
    expect(subset.code, subset.out + subset.err).toBe(0);
    writeFileSync(join(folder, "extra.csv"), "a,b\n1,2\n");
    const extra = await npxAsDownloader(work, folder, pkg, "integrity-verify", folder, "--key", keyFile);
    expect(extra.code, extra.out + extra.err).not.toBe(0);
    expect(extra.out + extra.err).toContain("extra.csv");
  });
});

describe("in Chromium, on the CDN's origin", () => {
  beforeAll(async () => {
    browser = await launchChromium(join(work, "profile"), { width: 1280, height: 900 });
  }, 60_000);

  it("/verify checks the files a person chose, the ones not chosen reported as not checked", async () => {
    const page = await browser!.newPage();
    await page.goto(`${cdn}/verify/`);
    const file = async (name: string) => ({
      name,
      mimeType: "application/octet-stream",
      buffer: Buffer.from(await (await fetch(`${cdn}/academics/${name}`)).arrayBuffer()),
    });
    await page.setInputFiles("#area-files", [
      await file("datapackage.json"),
      await file("datapackage.json.sig"),
      await file("dataset.json"),
    ]);
    await page.click("#area-form button[type=submit]");
    await page.waitForFunction(() =>
      ["verified", "failed", "error"].includes(document.getElementById("area-result")?.dataset.verdict ?? ""),
    );
    const result = page.locator("#area-result");
    expect(await result.getAttribute("data-verdict"), (await result.textContent()) ?? "").toBe("verified");
    expect(await result.locator('li[data-status="failed"]').count()).toBe(0);
    expect(await result.locator('li[data-status="skipped"]').count()).toBeGreaterThan(0);
    await page.close();
  });

  it("sends a key request from the government page to the API's origin and shows the reference it answered", async () => {
    const page = await browser!.newPage();
    const posted: string[] = [];
    page.on("request", (r) => {
      if (r.method() === "POST") posted.push(r.url());
    });
    await page.goto(`${cdn}/government/`);
    const form = page.locator("key-request-form");
    await expect.poll(() => form.getAttribute("data-state")).toBe("ready");
    await page.getByLabel("Affiliation (organisation, department)").fill("Ministry of Examples, Audit Office");
    await page.getByLabel(/^Official contact address/).fill("audit@ministry.example.gov");
    await page.getByLabel(/^Purpose/).fill("Quarterly audit of the compliance report");
    await page.getByRole("button", { name: "Send the request" }).click();
    await expect.poll(() => form.getAttribute("data-reference")).toMatch(/^KR-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    expect(posted.every((url) => url.startsWith(`${api.url}/`))).toBe(true);
    expect(posted.length).toBeGreaterThan(0);
    await page.close();
  });
});
