/**
 * Integrity pulse routes, mounted at /v1/pulse.
 *
 * GET /v1/pulse/badge?metric=gi|mii&format=json|svg
 *   shields.io endpoint JSON (core/pulse/badge.ts); `metric` absent = combined. SVG when
 *   `format=svg`, or when no `format` is given and `Accept` ranks `image/svg+xml` strictly above
 *   `application/json` by q-value (`Vary: Accept`). No history yet → the `no data` badge. History
 *   that fails verification → `unverified` badge (lightgrey, isError): fail closed, never a score
 *   from an unverified file. `Cache-Control: public, max-age=300`.
 *
 * GET /v1/pulse/history?limit=N&before=<id>
 *   Body exactly `{count, items}` (spec), items newest first by generatedAt. `limit` defaults to
 *   90; it must be decimal digits without sign or leading zero (1–999999999); above 365 it is
 *   clamped to 365 and the response says so in `X-Limit-Clamped: 365`. Paging is a cursor: when
 *   older items remain, `Link: </v1/pulse/history?limit=N&before=<id of the last item>>; rel="next"`
 *   (RFC 8288) — the body stays `{count, items}`. `before` must be the id of a record in the
 *   history (400 otherwise). Verification failure → 503 `history-unverified` naming the first bad
 *   line. `Cache-Control: public, max-age=60`.
 *
 * Both: strong ETag = SHA-256 of the body, `If-None-Match` → 304, unknown/repeated/empty query
 * parameters → 400 `invalid-query`. Bodies and ETags are computed once per history version.
 */
import { Hono, type Context } from "hono";
import { z } from "zod";
import { badgeFor, badgeSvg, BADGE_CACHE_SECONDS, type BadgeMetric } from "../../core/pulse/badge.ts";
import { HISTORY_DEFAULT_LIMIT, HISTORY_MAX_LIMIT, historyPage } from "../../core/pulse/history.ts";
import type { PulseBadge } from "../../core/schemas/pulse.ts";
import { represent, send, weight, type Representation } from "../http-cache.ts";
import { prefersSvg } from "../negotiate.ts";
import { problem } from "../problem.ts";
import type { HistorySnapshot, PulseHistorySource } from "../pulse-history.ts";
import { invalidQuery, parseQuery } from "../query.ts";

export const BADGE_CACHE_CONTROL = `public, max-age=${BADGE_CACHE_SECONDS}`;
export const HISTORY_CACHE_CONTROL = "public, max-age=60";
/** Response header set when the requested `limit` was above the maximum: the limit applied. */
export const LIMIT_CLAMPED_HEADER = "X-Limit-Clamped";

export const BadgeQuery = z.strictObject({
  metric: z.enum(["gi", "mii"], { error: "must be gi or mii (absent means combined)" }).optional(),
  format: z.enum(["json", "svg"], { error: "must be json or svg" }).optional(),
});

export const HistoryQuery = z.strictObject({
  limit: z
    .string()
    .regex(/^[1-9][0-9]{0,8}$/, { error: `must be a positive integer in decimal digits (at most ${HISTORY_MAX_LIMIT} are returned)` })
    .transform(Number)
    .optional(),
  before: z.uuid({ error: "must be the id (UUID) of a record in the history" }).optional(),
});

function badgeBody(snapshot: HistorySnapshot, metric: BadgeMetric): PulseBadge {
  if (snapshot.status === "unverified") {
    const label = badgeFor(null, metric).label;
    return { schemaVersion: 1, label, message: "unverified", color: "lightgrey", isError: true, cacheSeconds: BADGE_CACHE_SECONDS };
  }
  return badgeFor(snapshot.latest, metric);
}

function badgeRepresentation(snapshot: HistorySnapshot, metric: BadgeMetric, svg: boolean): Representation {
  return snapshot.memo(`badge:${metric}:${svg ? "svg" : "json"}`, () => {
    const badge = badgeBody(snapshot, metric);
    return svg ? represent(badgeSvg(badge), "image/svg+xml; charset=utf-8") : represent(JSON.stringify(badge), "application/json; charset=utf-8");
  });
}

interface PageRepresentation {
  rep: Representation;
  link: string | null;
}

function historyRepresentation(snapshot: HistorySnapshot, limit: number, before: string | undefined): PageRepresentation {
  return snapshot.memo(`history:${limit}:${before ?? ""}`, () => {
    const page = historyPage(snapshot.newestFirst, limit, before)!;
    const link = page.next === null ? null : `</v1/pulse/history?limit=${limit}&before=${page.next}>; rel="next"`;
    return { rep: represent(JSON.stringify({ count: page.items.length, items: page.items }), "application/json; charset=utf-8"), link };
  }, (page) => weight(page.rep));
}

function unverified(c: Context, snapshot: HistorySnapshot): Response {
  const first = snapshot.firstProblem ?? { line: 0, problem: "unknown" };
  const where = first.line > 0 ? `line ${first.line} of pulse/history.jsonl` : "pulse/history.jsonl";
  return problem(c, "history-unverified", `The pulse history failed verification at ${where}: ${first.problem}`, {
    extensions: { line: first.line, problem: first.problem },
  });
}

export function pulseRoutes(source: PulseHistorySource): Hono {
  const routes = new Hono();

  routes.get("/badge", (c) => {
    const query = parseQuery(c, BadgeQuery);
    if (!query.ok) return query.response;
    const { metric = "combined", format } = query.value;
    const svg = format === undefined ? prefersSvg(c.req.header("accept")) : format === "svg";
    return send(c, badgeRepresentation(source.current(), metric, svg), BADGE_CACHE_CONTROL, { Vary: "Accept" });
  });

  routes.get("/history", (c) => {
    const query = parseQuery(c, HistoryQuery);
    if (!query.ok) return query.response;
    const snapshot = source.current();
    if (snapshot.status === "unverified") return unverified(c, snapshot);
    const { limit: requested = HISTORY_DEFAULT_LIMIT, before } = query.value;
    if (before !== undefined && !snapshot.has(before)) {
      return invalidQuery(c, [{ name: "before", reason: `no record with id ${before} in the pulse history` }]);
    }
    const limit = Math.min(requested, HISTORY_MAX_LIMIT);
    const { rep, link } = historyRepresentation(snapshot, limit, before);
    const extra: Record<string, string> = {};
    if (link) extra.Link = link;
    if (requested > HISTORY_MAX_LIMIT) extra[LIMIT_CLAMPED_HEADER] = String(HISTORY_MAX_LIMIT);
    return send(c, rep, HISTORY_CACHE_CONTROL, extra);
  });

  return routes;
}
