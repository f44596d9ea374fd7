/**
 * GET /health — liveness plus the state of what the API serves. Always 200 while the process
 * answers; never cached. Shape:
 *
 * ```json
 * {
 *   "status": "ok" | "degraded",     // degraded: the pulse history failed verification or has unsigned lines
 *   "version": "1.0.0",              // package.json version
 *   "uptime_s": 12,                  // whole seconds since createApp, on the injected clock
 *   "history": {
 *     "status": "absent" | "verified" | "unverified",
 *     "records": 400,                // records served: the lines the signed checkpoint covers (0 unless verified)
 *     "verified": true,              // status === "verified"
 *     "unsigned_lines": 1,           // only when lines follow the signed checkpoint: never served
 *     "first_problem": { "line": 3, "problem": "hash mismatch: …" }   // when unverified or lines are unsigned
 *   }
 * }
 * ```
 */
import { readFileSync } from "node:fs";
import { Hono } from "hono";
import type { PulseHistorySource } from "../pulse-history.ts";

export const VERSION: string = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;

export function healthRoutes(source: PulseHistorySource, now: () => Date): Hono {
  const started = now().getTime();
  const routes = new Hono();
  routes.get("/health", (c) => {
    const snapshot = source.current();
    const history = {
      status: snapshot.status,
      records: snapshot.newestFirst.length,
      verified: snapshot.status === "verified",
      ...(snapshot.unsignedLines > 0 ? { unsigned_lines: snapshot.unsignedLines } : {}),
      ...(snapshot.firstProblem ? { first_problem: snapshot.firstProblem } : {}),
    };
    return c.json(
      {
        status: snapshot.status === "unverified" || snapshot.unsignedLines > 0 ? "degraded" : "ok",
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
