/**
 * Every example of the API reference is run: the site built from the repository's data and served
 * with the API by the embedded default (`npm start`) over the sample ledger (the sample server);
 * in chromium, each /docs tag page is read as a visitor sees it (examples written for the page's
 * own origin), each example request is sent as written (a key of the operation's tier in place of
 * `<key>`), and the answer must be the documented example response: the same status and media
 * type, and the same body except what VARIES names below, each with why it varies (for published
 * data, the values, but not the field names). NOT_RUN names, with why, the examples not sent.
 *
 * The writes run too, after every read has answered from the untouched sample ledger: the sample
 * server's state dir is a throwaway copy seeded for this test, and `<key>` of the write routes is
 * an operator token issued by `npm run avm -- issue-token`, as an operator bootstraps the first one.
 */
import { spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { isDeepStrictEqual } from "node:util";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { WebSocket } from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCurl, sameExceptVarying, splitMessage, type Varies } from "./support/site/curl-examples.ts";
import { WRITE_TOKEN_SCHEME } from "../api/openapi/document.ts";
import { consensusWriteExamples, CONSENSUS_WRITE_EXAMPLES, DOCUMENTED_GI } from "../api/openapi/examples/consensus.ts";
import { consensusProjection } from "../core/consensus/state.ts";
import { openLedger } from "../store/open-ledger.ts";
import {
  buildSite,
  launchChromium,
  REPO_DATA_DIR,
  REPO_ROOT,
  seedSampleLedger,
  startPortal,
  stopPortal,
} from "./support/site/helpers.ts";

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
  postAvmRevoke: { fields: ["revoked_at"], why: "stamped with the server's clock" },
  postAvmOperatorIssueToken: {
    fields: ["token", "jti", "expires_at"],
    why: "a fresh token: its id drawn by the server, its expiry counted from the server's clock",
  },
  postV1ConsensusSessionsByIdVotes: {
    fields: ["ledger_seq"],
    why: "the seq of the vote's entry, after however many entries the sample ledger holds",
  },
  postV1ConsensusSessionsByIdClose: {
    fields: ["evaluated_seq", "/seal/ledger_seq"],
    why: "the seqs of the closing entries, after however many entries the sample ledger holds",
  },
};
// Every published file of the data areas is data.
const AREA_FILE = /^get(Government|Academics|Philosophy|Economy|Diplomacy)/;

/**
 * Examples not run here, with why (none today: the mechanism stays, for an example that cannot be
 * sent, and the test asserts the list is what was skipped).
 */
const NOT_RUN: Record<string, string> = {};

/**
 * The write examples (those needing the write routes' operator token), run after every other
 * example has answered from the untouched sample ledger, in this order: each builds on what the
 * ones before it recorded (api/openapi/examples/ tells their story). Not the page's order where a
 * write needs what a later one records: POST /avm/revoke revokes the identity the operator
 * operations register.
 */
const WRITE_ORDER = [
  "postAvmOperatorRegisterIdentity",
  "postAvmOperatorRegisterCompanion",
  "postAvmOperatorLockStake",
  "postAvmOperatorWithdrawStake",
  "postAvmOperatorRecordDrift",
  "postAvmOperatorSignalConcern",
  "postAvmOperatorReportViolation",
  "postAvmRevoke",
  "postAvmOperatorIssueToken",
  "postAvmOperatorRevokeToken",
  // Opened before the cycle is recorded, so that the cycle's answer names its room (the newest active session's).
  "postV1ConsensusSessions",
  "postApiCycleCurrent",
  "postV1ConsensusSessionsByIdVotes",
  "postV1ConsensusSessionsByIdProof",
  "postV1ConsensusProofsByDelibIdSignatures",
  "postV1ConsensusProofsByDelibIdValidator",
  "postV1ConsensusSessionsByIdClose",
];

/**
 * Values the server draws that later examples name: the documented value stands for the one the
 * server answered (JSON pointers into the answer), in every later request and documented answer.
 */
const CARRIED: Record<string, string[]> = {
  postAvmOperatorIssueToken: ["/jti"],
};

function avmCli(...args: string[]): string {
  const env: NodeJS.ProcessEnv = { ...process.env, STATE_DIR: stateDir };
  delete env.LEDGER_DB;
  delete env.TOKEN_SIGNING_KEY;
  delete env.TOKEN_SIGNING_KEY_FILE;
  const run = spawnSync(process.execPath, ["--import", "tsx", join(REPO_ROOT, "cli/avm-cli.ts"), ...args], {
    cwd: REPO_ROOT,
    env,
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(run.stderr);
  return run.stdout;
}

function keysCli(...args: string[]): string {
  const env: NodeJS.ProcessEnv = { ...process.env, STATE_DIR: stateDir };
  delete env.ACCESS_LEDGER_DB;
  const run = spawnSync(process.execPath, ["--import", "tsx", join(REPO_ROOT, "api/cli/keys.ts"), ...args], {
    cwd: REPO_ROOT,
    env,
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(run.stderr);
  return run.stdout;
}

beforeAll(async () => {
  const build = await buildSite(REPO_DATA_DIR, siteDir);
  if (build.code !== 0) throw new Error(`site build failed:\n${build.output}`);
  await seedSampleLedger(stateDir, REPO_DATA_DIR);
  await consensusStoryOnTheLedger();
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

interface Operation {
  id: string;
  request: string;
  response: string;
  schemes: string;
  /** A WebSocket's documented exchange: its client snippet, the message sent, how many answer, the first and the final. */
  socket: { example: string; sent: string; count: number; first: string; final: string } | null;
}

/**
 * Runs a WebSocket's documented exchange: connects to the address the page's snippet names (the
 * page's own origin), sends the documented message, and reads until the final message. What
 * differs from the documented messages, or null. Nothing varies: the stream is a pure function of
 * the scenario and the published data, which the page was built from and the server serves.
 */
async function runExchange(socket: NonNullable<Operation["socket"]>): Promise<string | null> {
  const url = /new WebSocket\("([^"]+)"\)/.exec(socket.example)?.[1];
  if (!url?.startsWith(base.replace(/^http/, "ws")))
    return `the snippet does not open a socket on the page's origin: ${socket.example}`;
  if (!socket.example.includes(`socket.send(${JSON.stringify(socket.sent)})`))
    return "the snippet does not send the documented message";
  const received = await new Promise<unknown[]>((resolve, reject) => {
    const ws = new WebSocket(url, { headers: { Origin: base } });
    const messages: unknown[] = [];
    ws.on("open", () => ws.send(socket.sent));
    ws.on("message", (data) => {
      const message = JSON.parse(String(data)) as { current_state?: { phase?: string } };
      messages.push(message);
      if (message.current_state?.phase === "final" || !("current_state" in message)) ws.close();
    });
    ws.on("close", () => resolve(messages));
    ws.on("error", reject);
  });
  if (received.length !== socket.count)
    return `${received.length} messages, documented ${socket.count}: ${JSON.stringify(received).slice(0, 300)}`;
  if (!isDeepStrictEqual(received[0], JSON.parse(socket.first)))
    return `first message differs: ${JSON.stringify(received[0]).slice(0, 400)}`;
  if (!isDeepStrictEqual(received.at(-1), JSON.parse(socket.final)))
    return `final message differs: ${JSON.stringify(received.at(-1)).slice(0, 400)}`;
  return null;
}

/** Each documented value carried so far replaced by the server's. */
const carry = (text: string, carried: Map<string, string>) =>
  [...carried].reduce((t, [documented, actual]) => t.replaceAll(documented, actual), text);

/** The value at a JSON pointer of a document. */
const at = (document: unknown, pointer: string) =>
  pointer
    .slice(1)
    .split("/")
    .reduce<unknown>((v, name) => (v as Record<string, unknown> | undefined)?.[name], document);

/**
 * The consensus examples' values that follow from the sample's data (the offices' measured GI, and
 * the signatures over it), each documented value → the one the story has with the GI the server
 * holds (none today; a regenerated sample may move them). Read from the ledger before it serves.
 */
let consensusStory: ReturnType<typeof consensusWriteExamples>;
const dataCarried = new Map<string, string>();

function differingLeaves(documented: unknown, actual: unknown, into: Map<string, string>): void {
  if (documented !== null && typeof documented === "object") {
    for (const [k, v] of Object.entries(documented)) differingLeaves(v, (actual as Record<string, unknown>)[k], into);
  } else if (documented !== actual) into.set(String(documented), String(actual));
}

async function consensusStoryOnTheLedger(): Promise<void> {
  const { ledger } = await openLedger({ env: { STATE_DIR: stateDir } });
  try {
    const { gi } = await ledger.state(consensusProjection);
    const readings = Object.fromEntries(
      Object.keys(DOCUMENTED_GI).map((office) => [office, gi.get(office)?.gi ?? Number.NaN]),
    ) as typeof DOCUMENTED_GI;
    consensusStory = consensusWriteExamples(readings);
  } finally {
    await ledger.close();
  }
  differingLeaves(CONSENSUS_WRITE_EXAMPLES, consensusStory.examples, dataCarried);
}

describe("the API reference's examples", () => {
  it("each answers, from the sample server, exactly the documented example response", async () => {
    await page.goto(`${base}/docs/`);
    const tagPages = [
      ...new Set(
        await page
          .locator(".contents h3 a")
          .evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).pathname)),
      ),
    ];
    expect(tagPages.length).toBeGreaterThan(5);
    const run: string[] = [];
    const skipped: string[] = [];
    const wrong: string[] = [];
    const writes = new Map<string, Operation>();
    const carried = new Map(dataCarried);
    const send = async (op: Operation) => {
      const request = parseCurl(carry(op.request, carried));
      expect(request.url.startsWith(`${base}/`), op.id).toBe(true);
      const scheme = op.schemes.split(" ").find((s) => keys.has(s));
      const headers = Object.fromEntries(
        Object.entries(request.headers).map(([k, v]) => [k, v.replace("<key>", scheme ? keys.get(scheme)! : "<key>")]),
      );
      const answer = await fetch(request.url, {
        method: request.method,
        headers,
        ...(request.body !== undefined ? { body: request.body } : {}),
      });
      const documented = splitMessage(carry(op.response, carried));
      const body = await answer.text();
      run.push(op.id);
      const problem = sameExceptVarying(
        documented,
        { status: answer.status, contentType: answer.headers.get("content-type") ?? "", body },
        VARIES[op.id] ?? (AREA_FILE.test(op.id) ? data() : undefined),
      );
      if (problem) wrong.push(`${op.id}: ${problem}`);
      else
        for (const pointer of CARRIED[op.id] ?? [])
          carried.set(String(at(JSON.parse(documented.body), pointer)), String(at(JSON.parse(body), pointer)));
    };
    for (const tagPage of tagPages) {
      await page.goto(`${base}${tagPage}`);
      // The page rewrites its examples for its own origin once its script has run.
      await expect.poll(() => page.locator(".request-example").first().textContent()).toContain(base);
      const operations: Operation[] = await page.locator("article.operation").evaluateAll((nodes) =>
        nodes.map((n) => ({
          id: n.id,
          request: n.querySelector(".request-example")!.textContent!,
          response: n.querySelector(".response-example")!.textContent!,
          schemes: (n as HTMLElement).dataset.security ?? "",
          socket: n.querySelector(".socket-exchange")
            ? {
                example: n.querySelector(".socket-example")!.textContent!,
                sent: n.querySelector(".socket-sent")!.textContent!,
                count: Number((n.querySelector(".socket-exchange") as HTMLElement).dataset.messages),
                first: n.querySelector(".socket-first")!.textContent!,
                final: n.querySelector(".socket-final")!.textContent!,
              }
            : null,
        })),
      );
      for (const op of operations) {
        if (op.id in NOT_RUN) skipped.push(op.id);
        else if (op.socket) {
          // The upgrade's example is the 101 a curl cannot show being used: the exchange is what runs.
          const problem = await runExchange(op.socket);
          run.push(op.id);
          if (problem) wrong.push(`${op.id}: ${problem}`);
        } else if (op.schemes.split(" ").includes(WRITE_TOKEN_SCHEME)) writes.set(op.id, op);
        else await send(op);
      }
    }
    // The writes, once every read has answered: an operator's first token, issued as an operator
    // does (`npm run avm -- issue-token` where the token key is), stands for `<key>`.
    expect([...writes.keys()].sort()).toEqual([...WRITE_ORDER].sort());
    const issued = JSON.parse(
      avmCli(
        "issue-token",
        "--subject",
        "docs-examples",
        "--permission",
        "avm.operate",
        "--permission",
        "avm.revoke",
        "--permission",
        "consensus.write",
        "--ttl",
        "3600",
      ),
    ) as { token: string };
    keys.set(WRITE_TOKEN_SCHEME, issued.token);
    for (const id of WRITE_ORDER) {
      await send(writes.get(id)!);
      // The steps between the examples that no example shows (the other participants' votes and signatures).
      const between = consensusStory.between[id as keyof typeof consensusStory.between];
      for (const body of between?.bodies ?? []) {
        const answer = await fetch(`${base}${between!.path}`, {
          method: "POST",
          headers: { Authorization: `Bearer ${issued.token}`, "Content-Type": "application/json" },
          body: JSON.stringify(body),
        });
        if (!answer.ok)
          wrong.push(`after ${id}, ${between!.path}: ${answer.status} ${(await answer.text()).slice(0, 300)}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(skipped.sort()).toEqual(Object.keys(NOT_RUN).sort());
    expect(NOT_RUN).toEqual({});
    expect(run).toContain("getPhilosophySimulation");
    expect(run).toContain("getV1BalanceByAddress");
    expect(run.length).toBeGreaterThan(40);
  });
});
