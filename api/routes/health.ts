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
import { Hono } from "hono";
import type { SystemHealthReport } from "../../core/health/system-health.ts";
import type { PulseHistorySource } from "../pulse-history.ts";

export const VERSION: string = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;

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

export function healthRoutes(source: PulseHistorySource, now: () => Date, system: () => SystemHealthReport | null = () => null): Hono {
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
        system: systemBody(system()),
      },
      200,
      { "Cache-Control": "no-store" },
    );
  });
  return routes;
}
