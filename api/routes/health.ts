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
 *   },
 *   "system": {                      // core/health over the published files (api/system-health.ts);
 *     "status": "operational" | "degraded" | "critical",   // null without a sentinel-status file
 *     "as_of": "2026-11-23T14:05:00.000Z",
 *     "sentinels": { "total": 12, "operational": 11, "degraded": 1, "offline": 0 },
 *     "minting": { "active": true, "mii": 1, "threshold": 0.95 } | null,
 *     "compliance": { "status": "compliant", "next_audit": "2027-01-02", "overdue": false } | null,
 *     "reasons": [{ "code": "sentinels-down", "status": "degraded", "text": "…" }]
 *   }
 * }
 * ```
 * `status` stays the API's own liveness; the platform's health is `system.status`, the same value
 * every portal page marks with data-system-health and the transparency report states.
 */
import { readFileSync } from "node:fs";
import { z } from "@hono/zod-openapi";
import { HEALTH_STATUSES, type SystemHealthReport } from "../../core/health/system-health.ts";
import type { PulseHistorySource } from "../pulse-history.ts";
import { headers, json } from "../responses.ts";
import { addRoute, defineRoute, routeGroup, type RouteGroup } from "../route.ts";

export const VERSION: string = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;

const SystemHealth = z.strictObject({
  status: z.enum(HEALTH_STATUSES),
  as_of: z.string().openapi({ description: "The data's as-of instant (ISO 8601 UTC)" }),
  sentinels: z.strictObject({
    total: z.number().int().nonnegative(),
    operational: z.number().int().nonnegative(),
    degraded: z.number().int().nonnegative(),
    offline: z.number().int().nonnegative(),
  }),
  minting: z.strictObject({ active: z.boolean(), mii: z.number(), threshold: z.number() }).nullable(),
  compliance: z.strictObject({ status: z.enum(["compliant", "partially_compliant", "non_compliant"]), next_audit: z.string(), overdue: z.boolean() }).nullable(),
  reasons: z.array(z.strictObject({ code: z.string(), status: z.enum(["degraded", "critical"]), text: z.string() })),
});

export const Health = z.strictObject({
  status: z.enum(["ok", "degraded"]).openapi({ description: "`degraded`: the pulse history failed verification or has lines after its signed checkpoint" }),
  version: z.string(),
  uptime_s: z.number().int().nonnegative(),
  history: z.strictObject({
    status: z.enum(["absent", "verified", "unverified"]),
    records: z.number().int().nonnegative().openapi({ description: "Records served: the lines the signed checkpoint covers (0 unless verified)" }),
    verified: z.boolean(),
    unsigned_lines: z.number().int().positive().optional().openapi({ description: "Lines after the signed checkpoint: never served" }),
    first_problem: z.strictObject({ line: z.number().int().nonnegative(), problem: z.string() }).optional(),
  }),
  system: SystemHealth.nullable().openapi({ description: "The platform's health (core/health), as every portal page and the transparency report state it; null before the government area is generated" }),
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
      example: { status: "ok", version: "1.0.0", uptime_s: 3600, history: { status: "verified", records: 412, verified: true }, system: null },
    }),
  },
});

/** The `system` member of /health (see the module comment). */
export function systemBody(report: SystemHealthReport | null) {
  if (!report) return null;
  return {
    status: report.status,
    as_of: report.asOf,
    sentinels: report.sentinels,
    minting: report.minting,
    compliance: report.compliance && { status: report.compliance.status, next_audit: report.compliance.nextAudit, overdue: report.compliance.overdue },
    reasons: report.reasons,
  };
}

export function healthRoutes(source: PulseHistorySource, now: () => Date, system: () => SystemHealthReport | null = () => null): RouteGroup {
  const started = now().getTime();
  const routes = routeGroup();
  addRoute(routes, healthRoute, (c) => {
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
        system: systemBody(system()),
      },
      200,
      { "Cache-Control": "no-store" },
    );
  });
  return routes;
}
