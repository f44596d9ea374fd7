/**
 * `npm run bench -- pulse`: requests per second of the pulse routes over real HTTP on loopback.
 *
 * The servers run in a child process (this file with BENCH_ROLE=pulse-server), so that autocannon
 * and the server each have a core of the two instead of sharing one event loop. The child serves:
 *   - the production app (createApp) over a verified history of 400 records, and
 *   - a separate bench-only Hono app with `GET /bench/trivial` → `c.json({ok: true})` and nothing
 *     else, on the same machinery (api/server/server.ts `listen`, @hono/node-server): the floor;
 *   - the same trivial route added (bench only) to a createApp instance, i.e. behind the production
 *     middleware (request id + log, body limit, CORS) on the same server machinery.
 * The log sink is a no-op in the bench (the log line is still built), so stdout is not measured.
 *
 * autocannon, 50 connections, 5 s per route after a 1 s warm-up each, all in the same run, as 5
 * alternating rounds of 1 s keeping each route's best round (the machine is shared and noisy).
 * Targets: badge >= 0.6x and history?limit=90 >= 0.4x the requests/s of the trivial route behind
 * the same middleware and server (the route's own cost). The same routes against the bare Hono
 * app, and the middleware against the bare app, are reported without a target.
 */
import { fileURLToPath } from "node:url";
import { Hono } from "hono";
import { createApp } from "../api/app.ts";
import { listen } from "../api/server/server.ts";
import { sampleHistory, tempDir, writeHistory } from "../test/support/api/helpers.ts";
import { printComparisons, type Comparison } from "./harness.ts";
import {
  bestRates,
  CONNECTIONS,
  PER_ROUND,
  rateComparison as comparison,
  startBenchServer,
  stopOnSignal,
} from "./http-bench.ts";

const RECORDS = 400;
const SECONDS = 5;
const WARMUP_SECONDS = 1;
const ROUNDS = 5;

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
  stopOnSignal([appServer, floorServer], cleanup);
}

export async function run(): Promise<Comparison[]> {
  const { urls, stop } = await startBenchServer<Urls>(fileURLToPath(import.meta.url), "pulse-server");
  try {
    const targets = {
      bare: `${urls.floor}/bench/trivial`,
      stack: `${urls.app}/bench/trivial`,
      badge: `${urls.app}/v1/pulse/badge`,
      history: `${urls.app}/v1/pulse/history?limit=90`,
    };
    // Alternate short rounds and keep each route's best: the machine is shared and noisy, and a
    // burst of someone else's work then hits every route alike instead of one of them.
    const best = await bestRates(targets, { seconds: SECONDS, rounds: ROUNDS, warmup: WARMUP_SECONDS });
    const stackLabel = "GET /bench/trivial → c.json({ok:true}), bench-only route behind the same middleware and server";
    const bareLabel = "GET /bench/trivial → c.json({ok:true}) on a bare Hono app, same server machinery";
    const comparisons = [
      comparison(
        `pulse badge, ${RECORDS}-record history`,
        "GET /v1/pulse/badge",
        best.badge,
        stackLabel,
        best.stack,
        0.6,
      ),
      comparison(
        `pulse history page, ${RECORDS}-record history`,
        "GET /v1/pulse/history?limit=90",
        best.history,
        stackLabel,
        best.stack,
        0.4,
      ),
      comparison(
        "pulse badge vs a bare Hono app (no middleware)",
        "GET /v1/pulse/badge",
        best.badge,
        bareLabel,
        best.bare,
      ),
      comparison(
        "pulse history page vs a bare Hono app (no middleware)",
        "GET /v1/pulse/history?limit=90",
        best.history,
        bareLabel,
        best.bare,
      ),
      comparison(
        "the production middleware itself",
        "trivial route behind the production middleware (request id + log, body limit, CORS)",
        best.stack,
        bareLabel,
        best.bare,
      ),
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

if (process.env.BENCH_ROLE === "pulse-server") await serveForBench();
