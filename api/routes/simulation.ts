/**
 * `GET /philosophy/simulation`: the spec's simulation WebSocket, on the same server and port as the
 * rest of the API (the upgrade support built into @hono/node-server, with a `ws` WebSocketServer
 * created by api/server/server.ts). The upgrade is checked in this order, and refused with an HTTP status
 * (the handshake never completes, so the status line is what a client sees):
 *
 *   1. not a WebSocket upgrade → 426 with `Upgrade: websocket`;
 *   2. `Origin` not same-origin and not allowed (api/middleware/cors.ts crossOriginRefusal) → 403 (does not count: a page on
 *      another origin must not spend the visitor's quota either);
 *   3. the client (its key, or else its IP address, api/clients/client.ts) already has
 *      `maxConnectionsPerClient` connections open → 429 (does not count);
 *   4. the published inputs do not verify → 503 `data-unverified`;
 *   5. the philosophy area's daily quota (api/clients/quotas.ts) → 429 with RateLimit fields and
 *      Retry-After; an accepted upgrade is counted and its 101 carries the RateLimit fields.
 *
 * A limits store that fails (store/limits.ts) refuses the upgrade with 503 `limits-unavailable`.
 * Then each connection is a SimulationSession (api/simulation/session.ts). Open connections are
 * counted where the quotas are: in this process by default, or shared by every API instance
 * (store/drivers/postgres/limits.ts); a connection is released when its TCP socket closes.
 */
import type { WebSocket } from "ws";
import type { IncomingMessage, ServerResponse } from "node:http";
import { upgradeWebSocket } from "@hono/node-server";
import { z } from "@hono/zod-openapi";
import { philosophy } from "../../core/areas/philosophy.ts";
import type { Handler } from "hono";
import { headers, json, notModified } from "../openapi/responses.ts";
import { addRoute, defineRoute, routeGroup, type RouteGroup } from "../openapi/route.ts";
import type { ApiKeyStore } from "../clients/api-keys.ts";
import { presentedKey } from "../clients/client.ts";
import { auditUnavailable } from "./areas.ts";
import { safeLog, type LogSink } from "../middleware/request-log.ts";
import { crossOriginRefusal } from "../middleware/cors.ts";
import { problem } from "../problems/problem.ts";
import { limitsUnavailable } from "../problems/refusals.ts";
import { MemoryConnectionCap } from "../../store/memory-limits.ts";
import type { ConnectionCap } from "../../store/limits.ts";
import { rateLimitHeaders, type DailyQuotas } from "../clients/quotas.ts";
import { PhilosophyCouncilSource } from "../simulation/council.ts";
import {
  checkLimits,
  DEFAULT_SIMULATION_LIMITS,
  SIMULATION_PATH,
  SimulationSession,
  type SimulationLimits,
} from "../simulation/session.ts";
import { ASYNCAPI_PATH, asyncApiRoute } from "./asyncapi.ts";

export interface SimulationRouteOptions {
  council: PhilosophyCouncilSource;
  keys: ApiKeyStore;
  quotas: Pick<DailyQuotas, "take">;
  /** Open connections per client (default: counted in this process). */
  connections?: ConnectionCap | undefined;
  limits: SimulationLimits;
  /** Origins besides the server's own that may open the connection (api/middleware/cors.ts crossOriginRefusal). */
  trustedOrigins: readonly string[];
  log: LogSink;
  now: () => Date;
}

export interface SimulationRoutesOptions extends Omit<SimulationRouteOptions, "council" | "limits" | "trustedOrigins"> {
  dataDir: string;
  limits?: Partial<SimulationLimits> | undefined;
  trustedOrigins?: readonly string[] | undefined;
}

const simulationDeclaration = defineRoute({
  method: "get",
  path: SIMULATION_PATH,
  tags: ["Philosophers area"],
  summary: "The philosophy simulation (a WebSocket)",
  description:
    'Upgrades to a WebSocket (`ws:`, or `wss:` behind TLS). The client sends `{"action": "start_simulation", "scenario": "…"}`; the server sends one `simulation_update` per round. The messages and their JSON Schemas are described by the AsyncAPI 3.0 document at `/asyncapi.json`. Opening a connection counts against the philosophy area\'s daily quota; a page on another origin must be in the server\'s trusted origins.',
  responses: {
    101: {
      description: "Switching Protocols: the WebSocket is open",
      headers: headers("RateLimit-Policy", "RateLimit"),
    },
  },
  problems: [
    "upgrade-required",
    "origin-not-allowed",
    "rate-limited",
    "limits-unavailable",
    "data-unverified",
    "audit-unavailable",
  ],
});

const asyncApiDeclaration = defineRoute({
  method: "get",
  path: ASYNCAPI_PATH,
  tags: ["Service"],
  summary: "The AsyncAPI 3.0 description of the simulation WebSocket",
  responses: {
    200: json("AsyncAPI 3.0 document", z.looseObject({ asyncapi: z.literal("3.0.0") }), {
      headers: headers("ETag", "Cache-Control"),
    }),
    304: notModified(headers("ETag", "Cache-Control")),
  },
});

/** The WebSocket and its AsyncAPI description, to mount at the root of the app. */
export function simulationRoutes(options: SimulationRoutesOptions): RouteGroup {
  const limits = checkLimits({ ...DEFAULT_SIMULATION_LIMITS, ...options.limits });
  const routes = routeGroup();
  const simulation = simulationRoute({
    ...options,
    council: new PhilosophyCouncilSource(options.dataDir),
    limits,
    trustedOrigins: options.trustedOrigins ?? [],
  });
  const asyncApi = asyncApiRoute(limits);
  addRoute(routes, simulationDeclaration, async (c) => (await simulation(c, async () => {})) as Response);
  addRoute(routes, asyncApiDeclaration, async (c) => (await asyncApi(c, async () => {})) as Response);
  return routes;
}

export function simulationRoute(options: SimulationRouteOptions): Handler {
  const { limits, quotas, keys, log, now } = options;
  const connections = options.connections ?? new MemoryConnectionCap();
  const trusted = new Set(options.trustedOrigins);

  return async (c) => {
    if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
      // `Upgrade` must be named in Connection beside the Upgrade field (RFC 9110 §7.8). Node keeps any
      // connection alive whose answer names Connection without `close`, so where node itself would
      // close after this answer (the client sent `Connection: close`, or HTTP/1.0 without
      // keep-alive: its `shouldKeepAlive`), the answer says `close` and the socket ends with it.
      const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
      const closing = outgoing?.shouldKeepAlive === false;
      return problem(
        c,
        "upgrade-required",
        'This is a WebSocket endpoint: connect with ws: (or wss: behind TLS) and send {"action": "start_simulation", "scenario": "…"}.',
        {
          headers: { Upgrade: "websocket", Connection: closing ? "Upgrade, close" : "Upgrade" },
        },
      );
    }
    const refusal = crossOriginRefusal((name) => c.req.header(name), trusted);
    if (refusal)
      return problem(
        c,
        "origin-not-allowed",
        `${refusal}; only this site and its configured trusted origins may open the simulation.`,
      );

    let presented;
    try {
      presented = await presentedKey(c, keys, now());
    } catch (error) {
      return auditUnavailable(c, error);
    }
    const { key, tier } = presented;
    const client = key ? `key:${key.id}` : `ip:${presented.client}`;
    // Taken first, so that the count and the cap are one decision; given back on any refusal below.
    let release: (() => void) | null;
    try {
      release = await connections.open(client, limits.maxConnectionsPerClient);
    } catch (error) {
      return limitsUnavailable(c, error);
    }
    if (!release) {
      return problem(
        c,
        "rate-limited",
        `at most ${limits.maxConnectionsPerClient} simulation connections may be open at once per client; close one first`,
        {
          headers: { "Retry-After": "1" },
        },
      );
    }
    const refuse = (response: Response) => {
      release();
      return response;
    };
    const council = options.council.current();
    if (!council.ok) return refuse(problem(c, "data-unverified", council.reason));

    const take = () => quotas.take(philosophy.name, tier, presented.client);
    let decision;
    try {
      decision = await take();
    } catch (error) {
      return refuse(limitsUnavailable(c, error));
    }
    const limitHeaders = rateLimitHeaders(decision);
    if (decision.limited && !decision.allowed) {
      const detail =
        decision.reason ??
        `the ${tier === "anonymous" ? "anonymous" : `${tier} key`} quota of ${decision.quota} requests a day for philosophy is spent; it resets at 00:00 UTC`;
      return refuse(
        problem(c, "rate-limited", detail, {
          headers: { ...limitHeaders, "Retry-After": String(decision.resetSeconds) },
        }),
      );
    }

    // The connection is released when its TCP socket closes, whether or not the handshake finished.
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    if (incoming) {
      if (incoming.socket.destroyed) release();
      else incoming.socket.once("close", release);
    } else {
      release();
    }
    const requestId = c.get("requestId" as never) as string | undefined;
    const sessionLog = (event: string, fields: Record<string, unknown>) =>
      safeLog(log, { ts: now().toISOString(), event, request_id: requestId, ...fields });
    let session: SimulationSession | undefined;
    const response = await upgradeWebSocket(c, {
      onOpen: (_event, ws) => {
        session = new SimulationSession(ws.raw as unknown as WebSocket, {
          limits,
          council: () => options.council.current(),
          charge: async () => {
            const further = await take();
            return !further.limited || further.allowed;
          },
          log: sessionLog,
        });
        session.open();
      },
      onMessage: (event) => session?.receive(event.data as string | ArrayBuffer),
      onClose: (event) => session?.closed(event.code, event.reason),
      onError: (event) =>
        sessionLog("simulation.socket-error", { error: String((event as ErrorEvent).error?.message ?? "error") }),
    });
    for (const [name, value] of Object.entries(limitHeaders)) response.headers.set(name, value);
    return response;
  };
}
