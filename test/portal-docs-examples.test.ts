/**
 * Every example of the API reference is run: the site built from the repository's data and served
 * with the API by the embedded default (`npm start`) over the sample ledger (the sample server);
 * in chromium, each /docs tag page is read as a visitor sees it (examples written for the page's
 * own origin), each example request is sent as written (a key of the operation's tier in place of
 * `<key>`), and the answer must be the documented example response: the same status and media
 * type, and the same body except what VARIES names below, each with why it varies (for published
 * data, the values, but not the field names). NOT_RUN names, with why, the examples not sent.
 */
import { spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCurl, sameExceptVarying, splitMessage, type Varies } from "./support/site/curl-examples.ts";
import { buildSite, launchChromium, REPO_DATA_DIR, REPO_ROOT, seedSampleLedger, startPortal, stopPortal } from "./support/site/helpers.ts";

const tmp = mkdtempSync(join(tmpdir(), "portal-docs-examples-"));
const siteDir = join(tmp, "site");
const stateDir = join(tmp, "state");
let portal: ChildProcess | undefined;
let base: string;
let context: BrowserContext;
let page: Page;
const keys = new Map<string, string>();

const DATA = "published data (data/ and the sample ledger), which the pipeline regenerates";
const data = (why = DATA): Varies => ({ values: true, why });
/** What legitimately differs between the documented answer and the sample server's, per operation id; anything else must be equal. */
const VARIES: Record<string, Varies> = {
  postKeysRequests: { fields: ["reference", "received_at"], why: "a fresh reference, stamped with the server's clock" },
  getHealth: data("the server's uptime and clock, and the state of the published data"),
  getOpenapiJson: { body: true, why: "the whole API description, which the reference itself renders" },
  getAsyncapiJson: { body: true, why: "the whole AsyncAPI description" },
  getLedgerEntriesBySeqInclusion: data(),
  getV1PulseBadge: data(),
  getV1PulseHistory: data(),
  getApiCycleCurrent: data(),
  getV1ConsensusSessions: data(),
  getV1ConsensusProofsByDelibId: data(),
  getV2BalanceByAddress: data(),
  getBalanceByAddress: data(),
  getMigrationProofByAddress: data(),
};
// Every published file of the data areas is data.
const AREA_FILE = /^get(Government|Academics|Philosophy|Economy|Diplomacy)/;

/**
 * Examples not run here, with why: an operation whose credential is a signed operator token of
 * the write interfaces (its example cannot carry one, and running it would change the sample
 * ledger the other examples answer from), or a protocol switch curl does not make.
 */
const WRITE = "needs a signed operator token of the write interfaces, and would change the sample ledger the other examples answer from";
const NOT_RUN: Record<string, string> = {
  getPhilosophySimulation: "a WebSocket upgrade (test/portal-simulation.test.ts runs it)",
  getV1BalanceByAddress: "retired at the v1 sunset (2026-03-01), which the sample server's clock has passed: it answers 410 gone",
  postAvmRevoke: WRITE,
  postAvmOperatorRegisterIdentity: WRITE,
  postAvmOperatorRegisterCompanion: WRITE,
  postAvmOperatorLockStake: WRITE,
  postAvmOperatorWithdrawStake: WRITE,
  postAvmOperatorRecordDrift: WRITE,
  postAvmOperatorReportViolation: WRITE,
  postAvmOperatorSignalConcern: WRITE,
  postAvmOperatorIssueToken: WRITE,
  postAvmOperatorRevokeToken: WRITE,
  postApiCycleCurrent: WRITE,
  postV1ConsensusSessions: WRITE,
  postV1ConsensusSessionsByIdVotes: WRITE,
  postV1ConsensusSessionsByIdProof: WRITE,
  postV1ConsensusProofsByDelibIdSignatures: WRITE,
  postV1ConsensusProofsByDelibIdValidator: WRITE,
  postV1ConsensusSessionsByIdClose: WRITE,
};

function keysCli(...args: string[]): string {
  const env: NodeJS.ProcessEnv = { ...process.env, STATE_DIR: stateDir };
  delete env.ACCESS_LEDGER_DB;
  const run = spawnSync(process.execPath, ["--import", "tsx", join(REPO_ROOT, "api/keys-cli.ts"), ...args], { cwd: REPO_ROOT, env, encoding: "utf8" });
  if (run.status !== 0) throw new Error(run.stderr);
  return run.stdout;
}

beforeAll(async () => {
  const build = await buildSite(REPO_DATA_DIR, siteDir);
  if (build.code !== 0) throw new Error(`site build failed:\n${build.output}`);
  await seedSampleLedger(stateDir, REPO_DATA_DIR);
  for (const tier of ["government", "academic", "institutional", "economist"]) {
    const token = /: (ipk_[A-Za-z0-9_-]{43})$/m.exec(keysCli("issue", "--tier", tier, "--label", "docs examples"))?.[1];
    if (!token) throw new Error(`no ${tier} key`);
    keys.set(`${tier}Key`, token);
  }
  const running = await startPortal({ stateDir, dataDir: REPO_DATA_DIR, siteDir });
  portal = running.child;
  base = running.url;
  context = await launchChromium(join(tmp, "profile"), { width: 1280, height: 900 });
  page = context.pages()[0] ?? (await context.newPage());
}, 240_000);

afterAll(async () => {
  await context?.close();
  await stopPortal(portal);
  rmSync(tmp, { recursive: true, force: true });
});

describe("the API reference's examples", () => {
  it("each answers, from the sample server, exactly the documented example response", async () => {
    await page.goto(`${base}/docs/`);
    const tagPages = [...new Set(await page.locator(".contents h3 a").evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).pathname)))];
    expect(tagPages.length).toBeGreaterThan(5);
    const run: string[] = [];
    const skipped: string[] = [];
    const wrong: string[] = [];
    for (const tagPage of tagPages) {
      await page.goto(`${base}${tagPage}`);
      // The page rewrites its examples for its own origin once its script has run.
      await expect.poll(() => page.locator(".request-example").first().textContent()).toContain(base);
      const operations = await page.locator("article.operation").evaluateAll((nodes) =>
        nodes.map((n) => ({
          id: n.id,
          request: n.querySelector(".request-example")!.textContent!,
          response: n.querySelector(".response-example")!.textContent!,
          schemes: (n as HTMLElement).dataset.security ?? "",
        })),
      );
      for (const op of operations) {
        if (op.id in NOT_RUN) {
          skipped.push(op.id);
          continue;
        }
        const request = parseCurl(op.request);
        expect(request.url.startsWith(`${base}/`), op.id).toBe(true);
        const scheme = op.schemes.split(" ").find((s) => keys.has(s));
        const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, v.replace("<key>", scheme ? keys.get(scheme)! : "<key>")]));
        const answer = await fetch(request.url, { method: request.method, headers, ...(request.body !== undefined ? { body: request.body } : {}) });
        const documented = splitMessage(op.response);
        const body = await answer.text();
        run.push(op.id);
        const problem = sameExceptVarying(documented, { status: answer.status, contentType: answer.headers.get("content-type") ?? "", body }, VARIES[op.id] ?? (AREA_FILE.test(op.id) ? data() : undefined));
        if (problem) wrong.push(`${op.id}: ${problem}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(skipped.sort()).toEqual(Object.keys(NOT_RUN).sort());
    expect(run.length).toBeGreaterThan(40);
  });
});
