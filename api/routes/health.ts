/**
 * GET /health — liveness plus the state of what the API serves. Always 200 while the process
 * answers; never cached. Shape:
 *
 * ```json
 * {
 *   "status": "ok" | "degraded",     // degraded: the pulse history failed verification
 *   "version": "1.0.0",              // package.json version
 *   "uptime_s": 12,                  // whole seconds since createApp, on the injected clock
 *   "history": {
 *     "status": "absent" | "verified" | "unverified",
 *     "records": 400,                // verified records (0 unless verified)
 *     "verified": true,              // status === "verified"
 *     "first_problem": { "line": 3, "problem": "hash mismatch: …" }   // only when unverified
 *   }
 * }
 * ```
 */
import { readFileSync } from "node:fs";
import { z } from "@hono/zod-openapi";
import type { PulseHistorySource } from "../pulse-history.ts";
import { headers, json } from "../responses.ts";
import { addRoute, defineRoute, routeGroup, type RouteGroup } from "../route.ts";

export const VERSION: string = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;

export const Health = z.strictObject({
  status: z.enum(["ok", "degraded"]).openapi({ description: "`degraded`: the pulse history failed verification" }),
  version: z.string(),
  uptime_s: z.number().int().nonnegative(),
  history: z.strictObject({
    status: z.enum(["absent", "verified", "unverified"]),
    records: z.number().int().nonnegative().openapi({ description: "Verified records (0 unless verified)" }),
    verified: z.boolean(),
    first_problem: z.strictObject({ line: z.number().int().nonnegative(), problem: z.string() }).optional(),
  }),
});

export const healthRoute = defineRoute({
  method: "get",
  path: "/health",
  tags: ["Service"],
  summary: "Liveness and the state of what the API serves",
  description: "Always 200 while the process answers; never cached.",
  responses: {
    200: json("The service's state", Health, {
      headers: headers("Cache-Control"),
      example: { status: "ok", version: "1.0.0", uptime_s: 3600, history: { status: "verified", records: 412, verified: true } },
    }),
  },
});

export function healthRoutes(source: PulseHistorySource, now: () => Date): RouteGroup {
  const started = now().getTime();
  const routes = routeGroup();
  addRoute(routes, healthRoute, (c) => {
    const snapshot = source.current();
    const history = {
      status: snapshot.status,
      records: snapshot.newestFirst.length,
      verified: snapshot.status === "verified",
      ...(snapshot.firstProblem ? { first_problem: snapshot.firstProblem } : {}),
    };
    return c.json(
      {
        status: snapshot.status === "unverified" ? "degraded" : "ok",
        version: VERSION,
        uptime_s: Math.max(0, Math.floor((now().getTime() - started) / 1000)),
        history,
      },
      200,
      { "Cache-Control": "no-store" },
    );
  });
  return routes;
}
