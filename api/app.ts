/**
 * The API as a Hono app: a small core of composed middleware and routes grouped by concern.
 *
 * Middleware, outermost first (kept to two layers: each layer costs a measurable share of a
 * cheap GET — see bench/pulse.ts):
 *   1. request id + request log — `X-Request-Id` on every response (the client's own when it is
 *      1–128 of `[A-Za-z0-9_=-]`, otherwise a fresh UUID) and one JSON line per request
 *      (middleware/request-log.ts);
 *   2. body limit — 413 `payload-too-large` problem above `bodyLimitBytes` (default 64 KiB).
 * Then the routes: `/health`, `/v1/pulse/*`, and — with `siteDir` — the static site for any other
 * GET. Unmatched → 405 `method-not-allowed` problem with `Allow` when the path exists for other
 * methods, else 404 `not-found` problem (not-found.ts). A thrown error → 500 `internal-error`
 * problem with a generic detail and the request id; the error and its stack go to the log sink
 * only.
 */
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { RequestIdVariables } from "hono/request-id";
import { bodyLimitProblem } from "./middleware/body-limit.ts";
import { requestLog, safeLog, stdoutSink, type LogSink } from "./middleware/request-log.ts";
import { notFoundOrNotAllowed } from "./not-found.ts";
import { genericProblem, problem } from "./problem.ts";
import { historyPath, PulseHistorySource } from "./pulse-history.ts";
import { ApiKeyStore } from "./api-keys.ts";
import { DailyQuotas } from "./rate-limit.ts";
import { areaRoutes } from "./routes/areas.ts";
import { healthRoutes } from "./routes/health.ts";
import { systemHealthOf } from "./system-health.ts";
import { pulseRoutes } from "./routes/pulse.ts";
import { serveSite } from "./routes/site.ts";
import { simulationRoutes } from "./routes/simulation.ts";
import type { SimulationLimits } from "./simulation-session.ts";

export interface AppOptions {
  /** The published data folder (the repository's `data/`); the history is `<dataDir>/pulse/history.jsonl`. */
  dataDir: string;
  /** Clock for log timestamps, uptime and the history's once-per-second file check. */
  now?: () => Date;
  /** Sink of the structured log (request lines and error lines); default: JSON lines on stdout. */
  log?: LogSink;
  bodyLimitBytes?: number;
  /** The built site (site/dist) to serve after the API routes. */
  siteDir?: string;
  /** API keys and the access audit log (default: an empty in-memory access ledger, so keyed files answer 401). */
  keys?: ApiKeyStore;
  /** Where the keyed files are (default: KEYED_DATA_DIR, else dataDir; README "Keyed data"). */
  keyedDataDir?: string;
  /** Daily quotas of the data areas (default: the spec's, counted in memory with `now`). */
  quotas?: DailyQuotas;
  /** Bounds of the simulation WebSocket (default: DEFAULT_SIMULATION_LIMITS). */
  simulation?: Partial<SimulationLimits>;
  /** Web origins besides the server's own that may open the simulation WebSocket (api/origin.ts). */
  allowedOrigins?: readonly string[];
}

export type AppEnv = { Variables: RequestIdVariables };

export function createApp(options: AppOptions): Hono<AppEnv> {
  const now = options.now ?? (() => new Date());
  const log = options.log ?? stdoutSink;
  const history = new PulseHistorySource(historyPath(options.dataDir), { now });

  const app = new Hono<AppEnv>();
  app.use(requestLog({ sink: log, now }));
  app.use(bodyLimitProblem(options.bodyLimitBytes));

  app.route("/", healthRoutes(history, now, () => systemHealthOf(options.dataDir)));
  app.route("/v1/pulse", pulseRoutes(history));
  const quotas = options.quotas ?? new DailyQuotas({ now });
  const keys = options.keys ?? new ApiKeyStore(":memory:");
  // The simulation WebSocket (/philosophy/simulation) and its AsyncAPI document (/asyncapi.json).
  app.route("/", simulationRoutes({ dataDir: options.dataDir, keys, quotas, limits: options.simulation, allowedOrigins: options.allowedOrigins, log, now }));
  app.use("*", areaRoutes({ dataDir: options.dataDir, keyedDataDir: options.keyedDataDir ?? process.env.KEYED_DATA_DIR ?? options.dataDir, keys, quotas, now }));
  if (options.siteDir !== undefined) app.get("*", serveSite(options.siteDir));

  app.notFound(notFoundOrNotAllowed(app));
  app.onError((error, c) => {
    if (error instanceof HTTPException && error.status < 500) {
      return genericProblem(c, error.status, error.message || "Bad request", error.message || "The request could not be processed.");
    }
    const id = c.get("requestId");
    safeLog(log, {
      ts: now().toISOString(),
      level: "error",
      request_id: id,
      method: c.req.method,
      path: c.req.path,
      error: error.message,
      stack: error.stack,
    });
    return problem(c, "internal-error", "An unexpected error occurred. It has been logged; quote the request id when reporting it.", {
      extensions: { request_id: id },
    });
  });
  return app;
}
