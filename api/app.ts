/**
 * The API as a Hono app: a small core of composed middleware and routes grouped by concern, every
 * route declared once with its request and responses (api/openapi/route.ts), which also makes the
 * OpenAPI 3.1 description served at /openapi.json (api/openapi/document.ts).
 *
 * Middleware, outermost first (kept few and cheap: each layer costs a measurable share of a cheap
 * GET — see bench/pulse.ts and bench/api.ts):
 *   1. request id + request log — `X-Request-Id` on every response (the client's own when it is
 *      1–128 of `[A-Za-z0-9_=-]`, otherwise a fresh UUID) and one JSON line per request
 *      (middleware/request-log.ts);
 *   1a. Host check — 421 `misdirected-request` when `Host` names no origin of this server, except
 *      on /health (middleware/host.ts, the DNS rebinding guard);
 *   1a'. only with TRUSTED_PROXIES: the client a trusted proxy forwards (middleware/forwarded-client.ts);
 *   1b. on POST /avm/verify only: its quota and the log of its refusals (middleware/verify-attempts.ts);
 *   2. body limit — 413 `payload-too-large` problem above `bodyLimitBytes` (default 64 KiB), for
 *      every method (middleware/body-limit.ts);
 *   3. CORS — `Access-Control-Allow-Origin: *` on reads, the origin check on writes (middleware/cors.ts).
 * Then the routes: `/health`, `/v1/pulse/*`, the simulation WebSocket and `/asyncapi.json`, the area
 * files, `/openapi.json`. The app routes by `canonicalPath`: every spelling of an area file's path
 * (`//`, `%2f`, `\`, upper case, a trailing slash) is that file's one declared route. Unmatched
 * requests (not-found.ts): `OPTIONS` preflight, the static site with `siteDir` for GET, 405
 * `method-not-allowed` with `Allow` when the path exists for other methods, else 404 `not-found`.
 * A thrown error → 500 `internal-error` problem with a generic detail and the request id; the
 * error and its stack go to the log sink only.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { HTTPException } from "hono/http-exception";
import { getPath } from "hono/utils/url";
import { ApiKeyStore } from "./clients/api-keys.ts";
import { cors, originsFromEnv } from "./middleware/cors.ts";
import { hostCheck, publicOriginsFromEnv } from "./middleware/host.ts";
import { bodyLimitProblem } from "./middleware/body-limit.ts";
import { VERIFY_DAILY_QUOTA, VERIFY_PATH, verifyAttempts } from "./middleware/verify-attempts.ts";
import { instanceWise, requestLog, safeLog, stdoutSink, type LogSink } from "./middleware/request-log.ts";
import { unmatchedRequest } from "./fallback/not-found.ts";
import { openApiDocument, openApiRoutes, registerComponents } from "./openapi/document.ts";
import { genericProblem, problem, type ProblemSlug } from "./problems/problem.ts";
import { isStoreFailure, storeUnavailable } from "./problems/store-failure.ts";
import { historyPath, PulseHistorySource } from "./sources/pulse-history.ts";
import { DailyQuotas } from "./clients/quotas.ts";
import { forwardedClientAddress } from "./middleware/forwarded-client.ts";
import { trustedProxiesFromEnv, type TrustedProxies } from "./clients/forwarded-for.ts";
import type { LimitsStore } from "../store/limits.ts";
import { responseObserver } from "./openapi/response-observer.ts";
import type { AppEnv } from "./openapi/route.ts";
import { areaFileRoutes } from "./routes/area-files.ts";
import { AREAS, areaRequest } from "../core/datapackage/index.ts";
import type { LedgerStore } from "../core/ledger/store.ts";
import { assemblePlatform } from "./sources/platform.ts";
import { areaRoutes } from "./routes/areas.ts";
import { Balances } from "./sources/balances.ts";
import { balanceRoutes } from "./routes/balance.ts";
import { avmRoutes } from "./routes/avm.ts";
import { ledgerRoutes } from "./routes/ledger.ts";
import { consensusRoutes } from "./routes/consensus.ts";
import { healthRoutes } from "./routes/health.ts";
import { keyRequestRoutes } from "./routes/key-requests.ts";
import { pulseRoutes } from "./routes/pulse.ts";
import { simulationRoutes } from "./routes/simulation.ts";
import { staticSite } from "./fallback/site.ts";
import type { SimulationLimits } from "./simulation/session.ts";
import { systemHealthOf } from "./sources/system-health.ts";

export type { AppEnv } from "./openapi/route.ts";

export interface AppOptions {
  /** The published data folder (the repository's `data/`); the history is `<dataDir>/pulse/history.jsonl`. */
  dataDir: string;
  /** Clock for log timestamps, uptime and the history's once-per-second file check. */
  now?: () => Date;
  /** Sink of the structured log (request lines and error lines); default: JSON lines on stdout. */
  log?: LogSink;
  bodyLimitBytes?: number;
  /** The built site (site/dist) to serve for GET requests no route answers. */
  siteDir?: string;
  /** API keys and the access audit log (default: an empty in-memory access ledger, so keyed files answer 401). */
  keys?: ApiKeyStore;
  /** Where the keyed files are (default: KEYED_DATA_DIR, else dataDir; docs/trust.md). */
  keyedDataDir?: string;
  /** Daily quotas of the data areas (default: the spec's, counted in memory with `now`). */
  quotas?: DailyQuotas;
  /**
   * Origins (`scheme://host[:port]`) besides the server's own whose pages may call the routes that
   * write and open the simulation WebSocket (default: ALLOWED_ORIGINS).
   */
  trustedOrigins?: readonly string[];
  /**
   * The origins this server is reached by (`scheme://host[:port]`): a request whose `Host` names
   * none of them, nor the address it arrived on, is 421 (middleware/host.ts). Default:
   * PUBLIC_ORIGINS and SITE_URL.
   */
  publicOrigins?: readonly string[];
  /**
   * Proxies whose X-Forwarded-For names the client (api/clients/forwarded-for.ts; default TRUSTED_PROXIES,
   * empty: the client is always the socket's address).
   */
  trustedProxies?: TrustedProxies;
  /**
   * Where the request limits are counted (store/limits.ts): daily quotas and the simulation's open
   * connections. Default: this process's memory. `quotas`, when given, counts the quotas instead.
   */
  limits?: LimitsStore;
  /** Bounds of the simulation WebSocket (default: DEFAULT_SIMULATION_LIMITS). */
  simulation?: Partial<SimulationLimits>;
  /**
   * The ledger the authority, consensus and balance routes read and append to (group commit,
   * durable), and the public half of the token key their write routes verify tokens with. Without
   * them those routes answer 503 `ledger-unavailable` and their writes 401: they fail closed.
   */
  ledger?: LedgerStore;
  tokenPublicKeyHex?: string;
  /** The token key's secret half: lets POST /avm/operator/issue-token sign tokens (without it: 503). */
  tokenSecretKeyHex?: string;
  /** POST /avm/verify requests per client per UTC day (default 100; null: unlimited, for a benchmark). */
  verifyQuota?: number | null;
  /** POST /keys/requests per client per UTC day (default KEY_REQUEST_DAILY_QUOTA; null: unlimited). */
  keyRequestQuota?: number | null;
  /** This instance's id among N behind a load balancer: the `Instance-Id` header and `instance` in every log line. */
  instanceId?: string;
}

/** Area names, to skip the path parse on requests that cannot name an area file. */
const AREA_HINT = new RegExp(AREAS.join("|"), "i");

/**
 * The path the app routes by: Hono's, except that any spelling of an area file's path is that
 * file's canonical path (core/datapackage areaRequest), so each file has one route and one answer.
 */
export function canonicalPath(request: Request): string {
  const path = getPath(request);
  const url = request.url;
  if (!AREA_HINT.test(url)) return path;
  const raw = url.slice(url.indexOf("/", url.indexOf("//") + 2)).split(/[?#]/)[0] ?? "/";
  const area = areaRequest(raw);
  return area?.route ? `/${area.area}/${area.path}` : path;
}

/** The problem type of an HTTPException Hono threw (a malformed JSON body is a 400), by its status. */
const HTTP_EXCEPTION_PROBLEMS: Partial<Record<number, ProblemSlug>> = {
  400: "bad-request",
  401: "unauthorized",
  413: "payload-too-large",
  415: "unsupported-media-type",
};

export function createApp(options: AppOptions): OpenAPIHono<AppEnv> {
  const now = options.now ?? (() => new Date());
  const log = instanceWise(options.log ?? stdoutSink, options.instanceId);
  const history = new PulseHistorySource(historyPath(options.dataDir), { now });
  const trustedOrigins = options.trustedOrigins ?? originsFromEnv();
  // What the ledger-backed routes share; undefined without a ledger and token key (they fail closed).
  const platform = assemblePlatform({ ledger: options.ledger, tokenPublicKeyHex: options.tokenPublicKeyHex, now });

  const app = new OpenAPIHono<AppEnv>({ getPath: canonicalPath });
  // Only while a contract check is installed (the test suite): every response against the description.
  const observe = responseObserver(() => openApiDocument(app));
  if (observe) app.use(observe);
  app.use(
    requestLog({ sink: log, now, ...(options.instanceId !== undefined ? { instanceId: options.instanceId } : {}) }),
  );
  // Before anything trusts the request: a Host that names no origin of this server is 421.
  app.use(hostCheck(options.publicOrigins ?? publicOriginsFromEnv()));
  // Behind a load balancer: the client a trusted proxy forwards (api/clients/client.ts clientAddress).
  const trustedProxies = options.trustedProxies ?? trustedProxiesFromEnv();
  if (trustedProxies.entries.length > 0) app.use(forwardedClientAddress(trustedProxies, log, now));
  const quotas =
    options.quotas ?? new DailyQuotas({ now, ...(options.limits ? { counter: options.limits.quotas } : {}) });
  // Ahead of the body limit and the origin check: every refusal of a verify is a logged attempt.
  app.use(
    VERIFY_PATH,
    verifyAttempts(platform, quotas, options.verifyQuota === undefined ? VERIFY_DAILY_QUOTA : options.verifyQuota),
  );
  app.use(bodyLimitProblem(options.bodyLimitBytes));
  app.use(cors(trustedOrigins));

  registerComponents(app);
  const keys = options.keys ?? new ApiKeyStore(":memory:");
  app.route(
    "/",
    healthRoutes(history, now, () => systemHealthOf(options.dataDir), platform?.ledger, {
      keys,
      ...(options.limits ? { limits: options.limits } : {}),
    }),
  );
  app.route("/", pulseRoutes(history));
  app.route("/", consensusRoutes(platform));
  // The simulation WebSocket (/philosophy/simulation) and its AsyncAPI document (/asyncapi.json).
  app.route(
    "/",
    simulationRoutes({
      dataDir: options.dataDir,
      keys,
      quotas,
      connections: options.limits?.connections,
      limits: options.simulation,
      trustedOrigins,
      log,
      now,
    }),
  );
  const keyedDataDir = options.keyedDataDir ?? process.env.KEYED_DATA_DIR ?? options.dataDir;
  // Balances, migration proofs and the live supply: the ledger and the published migration tree (api/sources/balances.ts).
  const balances = new Balances({ ledger: options.ledger, dataDir: options.dataDir, now });
  app.route("/", balanceRoutes(balances));
  app.route(
    "/",
    areaFileRoutes(
      options.dataDir,
      areaRoutes({ dataDir: options.dataDir, keyedDataDir, keys, quotas, now, live: balances.liveDocuments() }),
    ),
  );
  // Authority verification (routes/avm.ts) and ledger inclusion proofs (routes/ledger.ts).
  app.route(
    "/",
    avmRoutes({ platform, ...(options.tokenSecretKeyHex ? { tokenSecretKeyHex: options.tokenSecretKeyHex } : {}) }),
  );
  app.route("/", ledgerRoutes(options.ledger, options.dataDir));
  // Requests for API keys, recorded on the access ledger for the operator (routes/key-requests.ts).
  app.route(
    "/",
    keyRequestRoutes({
      keys,
      quotas,
      now,
      ...(options.keyRequestQuota !== undefined ? { quota: options.keyRequestQuota } : {}),
    }),
  );
  app.route(
    "/",
    openApiRoutes(() => openApiDocument(app)),
  );

  app.notFound(
    unmatchedRequest(app, {
      ...(options.siteDir !== undefined ? { site: staticSite(options.siteDir) } : {}),
      trustedOrigins,
    }),
  );
  app.onError((error, c) => {
    if (error instanceof HTTPException && error.status < 500) {
      const slug = HTTP_EXCEPTION_PROBLEMS[error.status];
      const detail = error.message || "The request could not be processed.";
      return slug ? problem(c, slug, detail) : genericProblem(c, error.status, error.message || "Bad request", detail);
    }
    // A store that failed under a route that did not answer it itself (a read folding the ledger, a
    // row that does not verify): 503 with Retry-After, as every route answers it, never a 500.
    if (isStoreFailure(error)) return storeUnavailable(c, error);
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
    return problem(
      c,
      "internal-error",
      "An unexpected error occurred. It has been logged; quote the request id when reporting it.",
      {
        extensions: { request_id: id },
      },
    );
  });
  return app;
}
