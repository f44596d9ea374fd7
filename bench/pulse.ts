/**
 * `npm run bench -- pulse`: requests per second of the pulse routes over real HTTP on loopback.
 *
 * The servers run in a child process (this file with PULSE_BENCH_ROLE=server), so that autocannon
 * and the server each have a core of the two instead of sharing one event loop. The child serves:
 *   - the production app (createApp) over a verified history of 400 records, and
 *   - a separate bench-only Hono app with `GET /bench/trivial` → `c.json({ok: true})` and nothing
 *     else, on the same machinery (api/server.ts `listen`, @hono/node-server): the floor;
 *   - the same trivial route added (bench only) to a createApp instance, i.e. behind the production
 *     middleware (request id + log, body limit) on the same server machinery.
 * The log sink is a no-op in the bench (the log line is still built), so stdout is not measured.
 *
 * autocannon, 50 connections, 5 s per route after a 1 s warm-up each, all in the same run, as 5
 * alternating rounds of 1 s keeping each route's best round (the machine is shared and noisy).
 * Targets: badge >= 0.6x and history?limit=90 >= 0.4x the requests/s of the trivial route behind
 * the same middleware and server (the route's own cost). The same routes against the bare Hono
 * app, and the middleware against the bare app, are reported without a target.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { Hono } from "hono";
import { createApp } from "../api/app.ts";
import { listen } from "../api/server.ts";
import { sampleHistory, tempDir, writeHistory } from "../api/test-helpers.ts";
import { printComparisons, type Comparison } from "./harness.ts";

const RECORDS = 400;
const CONNECTIONS = 50;
const SECONDS = 5;
const WARMUP_SECONDS = 1;
const ROUNDS = 5;
/** Requests per "round" in the printed comparison: the harness prints time for this many. */
const PER_ROUND = 100_000;

interface Urls {
  app: string;
  floor: string;
}

/** The child: start the servers and print their URLs as one JSON line; run until killed. */
async function serveForBench(): Promise<void> {
  const { dir, cleanup } = tempDir("bench-pulse-");
  writeHistory(dir, sampleHistory(RECORDS));
  const noop = () => {};
  const app = createApp({ dataDir: dir, log: noop });
  app.get("/bench/trivial", (c) => c.json({ ok: true }));
  const floorApp = new Hono();
  floorApp.get("/bench/trivial", (c) => c.json({ ok: true }));
  const [appServer, floorServer] = await Promise.all([listen(app, "127.0.0.1", 0), listen(floorApp, "127.0.0.1", 0)]);
  process.stdout.write(`${JSON.stringify({ app: appServer.url, floor: floorServer.url } satisfies Urls)}\n`);
  const stop = () => {
    void Promise.all([appServer.close(100), floorServer.close(100)]).finally(() => {
      cleanup();
      process.exit(0);
    });
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

function startChild(): Promise<{ urls: Urls; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], {
    env: { ...process.env, PULSE_BENCH_ROLE: "server" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const newline = out.indexOf("\n");
      if (newline < 0) return;
      resolve({
        urls: JSON.parse(out.slice(0, newline)) as Urls,
        stop: async () => {
          child.kill("SIGTERM");
          await exited;
        },
      });
    });
    child.once("exit", (code) => reject(new Error(`bench server exited (${code}) before it was ready`)));
  });
}

/** Requests per second answered with 2xx over `seconds`; fails on errors or non-2xx. */
async function measure(url: string, seconds: number): Promise<number> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds });
  if (result.errors > 0 || result.non2xx > 0) throw new Error(`${url}: ${result.errors} errors, ${result.non2xx} non-2xx responses`);
  return result["2xx"] / result.duration;
}

function comparison(name: string, subject: string, subjectRps: number, floor: string, floorRps: number, target?: number): Comparison {
  return {
    name,
    subject,
    floor,
    subjectSeconds: PER_ROUND / subjectRps,
    floorSeconds: PER_ROUND / floorRps,
    items: PER_ROUND,
    kind: "speed",
    ...(target !== undefined ? { target } : {}),
  };
}

export async function run(): Promise<Comparison[]> {
  const { urls, stop } = await startChild();
  try {
    const targets = {
      bare: `${urls.floor}/bench/trivial`,
      stack: `${urls.app}/bench/trivial`,
      badge: `${urls.app}/v1/pulse/badge`,
      history: `${urls.app}/v1/pulse/history?limit=90`,
    };
    type Name = keyof typeof targets;
    const names = Object.keys(targets) as Name[];
    for (const name of names) await measure(targets[name], WARMUP_SECONDS);
    // Alternate short rounds and keep each route's best: the machine is shared and noisy, and a
    // burst of someone else's work then hits every route alike instead of one of them.
    const best = Object.fromEntries(names.map((n) => [n, 0])) as Record<Name, number>;
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of names) best[name] = Math.max(best[name], await measure(targets[name], SECONDS / ROUNDS));
    }
    const stackLabel = "GET /bench/trivial → c.json({ok:true}), bench-only route behind the same middleware and server";
    const bareLabel = "GET /bench/trivial → c.json({ok:true}) on a bare Hono app, same server machinery";
    const comparisons = [
      comparison(`pulse badge, ${RECORDS}-record history`, "GET /v1/pulse/badge", best.badge, stackLabel, best.stack, 0.6),
      comparison(`pulse history page, ${RECORDS}-record history`, "GET /v1/pulse/history?limit=90", best.history, stackLabel, best.stack, 0.4),
      comparison("pulse badge vs a bare Hono app (no middleware)", "GET /v1/pulse/badge", best.badge, bareLabel, best.bare),
      comparison("pulse history page vs a bare Hono app (no middleware)", "GET /v1/pulse/history?limit=90", best.history, bareLabel, best.bare),
      comparison("the production middleware itself", "trivial route behind the production middleware (request id + log, body limit)", best.stack, bareLabel, best.bare),
    ];
    printComparisons(
      `pulse API over HTTP (autocannon, ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${SECONDS / ROUNDS} s per route, best round; time shown per ${PER_ROUND.toLocaleString("en")} requests)`,
      comparisons,
    );
    return comparisons;
  } finally {
    await stop();
  }
}

if (process.env.PULSE_BENCH_ROLE === "server") await serveForBench();
