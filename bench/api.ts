/**
 * `npm run bench -- api`: the cost of the route declarations (api/openapi/route.ts), over real HTTP on
 * loopback, in one run:
 *   - after: the declared badge and history routes, validated as every declared route is
 *     (api/openapi/route.ts: the strict query, then the library's validators for anything else declared)
 *     and answered by their handlers (badgeAnswer, historyAnswer);
 *   - before: the same handlers behind a hand-written strict query parser (the one every route
 *     called itself before the declarations: repeated parameters, then a strict zod object),
 *     added bench-only to the same app;
 *   - the floor of bench/pulse.ts: a trivial route behind the same middleware and server.
 * Targets: the declared routes keep today's ratios against the floor (badge >= 0.6x, history
 * >= 0.4x); after against before is the validation layer's own cost, reported.
 * Same method as bench/pulse.ts: servers in a child process, autocannon with 50 connections,
 * alternating rounds keeping each route's best.
 */
import { fileURLToPath } from "node:url";
import type { Context } from "hono";
import type { z } from "zod";
import { createApp } from "../api/app.ts";
import { queryIssues, invalidQuery } from "../api/http/query.ts";
import { badgeAnswer, BadgeQuery, historyAnswer, HistoryQuery } from "../api/routes/pulse.ts";
import { historyPath, PulseHistorySource } from "../api/sources/pulse-history.ts";
import { listen } from "../api/server/server.ts";
import { sampleHistory, tempDir, writeHistory } from "../test/support/api/helpers.ts";
import { printComparisons, type Comparison } from "./harness.ts";
import { bestRates, CONNECTIONS, PER_ROUND, rateComparison, startBenchServer, stopOnSignal } from "./http-bench.ts";

const RECORDS = 400;
const SECONDS = 5;
const WARMUP_SECONDS = 1;
const ROUNDS = 5;

/** The strict query parser every route called before the declarations (bench baseline only). */
function parseQueryByHand<S extends z.ZodType>(
  c: Context,
  schema: S,
): { ok: true; value: z.output<S> } | { ok: false; response: Response } {
  const all = c.req.queries();
  const flat: Record<string, string | string[]> = {};
  for (const name in all) {
    const values = all[name]!;
    flat[name] = values.length > 1 ? values : (values[0] ?? "");
  }
  const result = schema.safeParse(flat);
  if (!result.success) return { ok: false, response: invalidQuery(c, queryIssues(flat, result.error.issues)) };
  return { ok: true, value: result.data };
}

interface Urls {
  app: string;
}

async function serveForBench(): Promise<void> {
  const { dir, cleanup } = tempDir("bench-api-");
  writeHistory(dir, sampleHistory(RECORDS));
  const app = createApp({ dataDir: dir, log: () => {} });
  app.get("/bench/trivial", (c) => c.json({ ok: true }));
  // The baseline reads the same history file through its own source, so both sides do the same work.
  const source = new PulseHistorySource(historyPath(dir), { now: () => new Date() });
  app.get("/bench/before/badge", (c) => {
    const query = parseQueryByHand(c, BadgeQuery);
    return query.ok ? badgeAnswer(c, source, query.value) : query.response;
  });
  app.get("/bench/before/history", (c) => {
    const query = parseQueryByHand(c, HistoryQuery);
    return query.ok ? historyAnswer(c, source, query.value) : query.response;
  });
  const server = await listen(app, "127.0.0.1", 0);
  process.stdout.write(`${JSON.stringify({ app: server.url } satisfies Urls)}\n`);
  stopOnSignal([server], cleanup);
}

export async function run(): Promise<Comparison[]> {
  const { urls, stop } = await startBenchServer<Urls>(fileURLToPath(import.meta.url), "api-server");
  try {
    const best = await bestRates(
      {
        stack: `${urls.app}/bench/trivial`,
        badge: `${urls.app}/v1/pulse/badge`,
        badgeBefore: `${urls.app}/bench/before/badge`,
        history: `${urls.app}/v1/pulse/history?limit=90`,
        historyBefore: `${urls.app}/bench/before/history?limit=90`,
      },
      { seconds: SECONDS, rounds: ROUNDS, warmup: WARMUP_SECONDS },
    );
    const floor = "GET /bench/trivial → c.json({ok:true}), bench-only route behind the same middleware and server";
    const comparisons = [
      rateComparison(
        `declared badge, ${RECORDS}-record history`,
        "GET /v1/pulse/badge (declared)",
        best.badge,
        floor,
        best.stack,
        0.6,
      ),
      rateComparison(
        `declared history page, ${RECORDS}-record history`,
        "GET /v1/pulse/history?limit=90 (declared)",
        best.history,
        floor,
        best.stack,
        0.4,
      ),
      rateComparison(
        "the validation layer: badge after vs before",
        "GET /v1/pulse/badge (declared)",
        best.badge,
        "the same handler behind the hand-written parser",
        best.badgeBefore,
      ),
      rateComparison(
        "the validation layer: history after vs before",
        "GET /v1/pulse/history?limit=90 (declared)",
        best.history,
        "the same handler behind the hand-written parser",
        best.historyBefore,
      ),
      rateComparison(
        "before: badge",
        "the badge handler behind the hand-written parser",
        best.badgeBefore,
        floor,
        best.stack,
      ),
      rateComparison(
        "before: history",
        "the history handler behind the hand-written parser",
        best.historyBefore,
        floor,
        best.stack,
      ),
    ];
    printComparisons(
      `route declarations over HTTP (autocannon, ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${SECONDS / ROUNDS} s per route, best round; time shown per ${PER_ROUND.toLocaleString("en")} requests)`,
      comparisons,
    );
    return comparisons;
  } finally {
    await stop();
  }
}

if (process.env.BENCH_ROLE === "api-server") await serveForBench();
