/**
 * Integrity pulse routes (declared in api/openapi/route.ts's way; the declarations below are what
 * /openapi.json says about them).
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
import type { Context } from "hono";
import { z } from "@hono/zod-openapi";
import { badgeFor, badgeSvg, BADGE_CACHE_SECONDS, type BadgeMetric } from "../../core/pulse/badge.ts";
import { HISTORY_DEFAULT_LIMIT, HISTORY_MAX_LIMIT, historyPage } from "../../core/pulse/history.ts";
import type { PulseBadge } from "../../core/schemas/pulse.ts";
import { represent, send, weight, type Representation } from "../http/cache.ts";
import { prefersSvg } from "../http/negotiate.ts";
import { problem } from "../problems/problem.ts";
import type { HistorySnapshot, PulseHistorySource } from "../sources/pulse-history.ts";
import { invalidQuery } from "../http/query.ts";
import { body, headers, notModified, published, text } from "../openapi/responses.ts";
import { addRoute, defineRoute, routeGroup, type RouteGroup } from "../openapi/route.ts";

export const BADGE_CACHE_CONTROL = `public, max-age=${BADGE_CACHE_SECONDS}`;
export const HISTORY_CACHE_CONTROL = "public, max-age=60";
/** Response header set when the requested `limit` was above the maximum: the limit applied. */
export const LIMIT_CLAMPED_HEADER = "X-Limit-Clamped";

export const BadgeQuery = z.strictObject({
  metric: z
    .enum(["gi", "mii"], { error: "must be gi or mii (absent means combined)" })
    .optional()
    .openapi({ description: "`gi` or `mii` for a single-metric badge; absent: both" }),
  format: z
    .enum(["json", "svg"], { error: "must be json or svg" })
    .optional()
    .openapi({ description: "`json` (shields.io endpoint) or `svg`; absent: by `Accept`" }),
});

export const HistoryQuery = z.strictObject({
  limit: z
    .string()
    .regex(/^[1-9][0-9]{0,8}$/, {
      error: `must be a positive integer in decimal digits (at most ${HISTORY_MAX_LIMIT} are returned)`,
    })
    .transform(Number)
    .optional()
    .openapi({
      description: `Records per page: default ${HISTORY_DEFAULT_LIMIT}; above ${HISTORY_MAX_LIMIT} it is clamped (see X-Limit-Clamped)`,
      example: "90",
    }),
  before: z
    .uuid({ error: "must be the id (UUID) of a record in the history" })
    .optional()
    .openapi({ description: "Cursor: the id of the last record of the previous page (from the `Link` header)" }),
});

const BADGE_HEADERS = headers("ETag", "Cache-Control", "Vary");
const HISTORY_HEADERS = headers("ETag", "Cache-Control", "Link", "X-Limit-Clamped");

export const badgeRoute = defineRoute({
  method: "get",
  path: "/v1/pulse/badge",
  tags: ["Integrity pulse"],
  summary: "The integrity badge (shields.io endpoint JSON or SVG)",
  description:
    "GI and MII of the latest verified pulse, as shields.io endpoint JSON or an SVG badge. The SVG is chosen by `format=svg`, or without `format` when `Accept` ranks `image/svg+xml` strictly above `application/json`. Before the first pulse: `no data`; a history that fails verification: `unverified` (never a score from an unverified file).",
  request: { query: BadgeQuery },
  responses: {
    200: body(
      "The badge",
      { "application/json": published("pulse-badge"), "image/svg+xml": text("The badge as SVG") },
      BADGE_HEADERS,
    ),
    304: notModified(BADGE_HEADERS),
  },
});

export const historyRoute = defineRoute({
  method: "get",
  path: "/v1/pulse/history",
  tags: ["Integrity pulse"],
  summary: "The pulse history, newest first, paged",
  description:
    '`{count, items}` with the records newest first by `generatedAt`. Paging is a cursor: while older records remain, `Link: <…&before=<id of the last item>>; rel="next"`. Served only from a history that verifies.',
  request: { query: HistoryQuery },
  responses: {
    200: body("A page of pulse records", { "application/json": published("pulse-history") }, HISTORY_HEADERS),
    304: notModified(HISTORY_HEADERS),
  },
  problems: ["history-unverified"],
});
function badgeBody(snapshot: HistorySnapshot, metric: BadgeMetric): PulseBadge {
  if (snapshot.status === "unverified") {
    const label = badgeFor(null, metric).label;
    return {
      schemaVersion: 1,
      label,
      message: "unverified",
      color: "lightgrey",
      isError: true,
      cacheSeconds: BADGE_CACHE_SECONDS,
    };
  }
  return badgeFor(snapshot.latest, metric);
}

function badgeRepresentation(snapshot: HistorySnapshot, metric: BadgeMetric, svg: boolean): Representation {
  return snapshot.memo(`badge:${metric}:${svg ? "svg" : "json"}`, () => {
    const badge = badgeBody(snapshot, metric);
    return svg
      ? represent(badgeSvg(badge), "image/svg+xml; charset=utf-8")
      : represent(JSON.stringify(badge), "application/json; charset=utf-8");
  });
}

interface PageRepresentation {
  rep: Representation;
  link: string | null;
}

function historyRepresentation(
  snapshot: HistorySnapshot,
  limit: number,
  before: string | undefined,
): PageRepresentation {
  return snapshot.memo(
    `history:${limit}:${before ?? ""}`,
    () => {
      const page = historyPage(snapshot.newestFirst, limit, before)!;
      const link = page.next === null ? null : `</v1/pulse/history?limit=${limit}&before=${page.next}>; rel="next"`;
      return {
        rep: represent(
          JSON.stringify({ count: page.items.length, items: page.items }),
          "application/json; charset=utf-8",
        ),
        link,
      };
    },
    (page) => weight(page.rep),
  );
}

function unverified(c: Context, snapshot: HistorySnapshot): Response {
  const first = snapshot.firstProblem ?? { line: 0, problem: "unknown" };
  const where = first.line > 0 ? `line ${first.line} of pulse/history.jsonl` : "pulse/history.jsonl";
  return problem(c, "history-unverified", `The pulse history failed verification at ${where}: ${first.problem}`, {
    extensions: { line: first.line, problem: first.problem },
  });
}

/** The badge for a validated query (the route's handler; the API bench calls it behind a hand-written parser too). */
export function badgeAnswer(c: Context, source: PulseHistorySource, query: z.output<typeof BadgeQuery>): Response {
  const { metric = "combined", format } = query;
  const svg = format === undefined ? prefersSvg(c.req.header("accept")) : format === "svg";
  return send(c, badgeRepresentation(source.current(), metric, svg), BADGE_CACHE_CONTROL, { Vary: "Accept" });
}

/** A history page for a validated query (the route's handler, as badgeAnswer). */
export function historyAnswer(c: Context, source: PulseHistorySource, query: z.output<typeof HistoryQuery>): Response {
  const snapshot = source.current();
  if (snapshot.status === "unverified") return unverified(c, snapshot);
  const { limit: requested = HISTORY_DEFAULT_LIMIT, before } = query;
  if (before !== undefined && !snapshot.has(before)) {
    return invalidQuery(c, [{ name: "before", reason: `no record with id ${before} in the pulse history` }]);
  }
  const limit = Math.min(requested, HISTORY_MAX_LIMIT);
  const { rep, link } = historyRepresentation(snapshot, limit, before);
  const extra: Record<string, string> = {};
  if (link) extra.Link = link;
  if (requested > HISTORY_MAX_LIMIT) extra[LIMIT_CLAMPED_HEADER] = String(HISTORY_MAX_LIMIT);
  return send(c, rep, HISTORY_CACHE_CONTROL, extra);
}

export function pulseRoutes(source: PulseHistorySource): RouteGroup {
  const routes = routeGroup();
  addRoute(routes, badgeRoute, (c) => badgeAnswer(c, source, c.req.valid("query")));
  addRoute(routes, historyRoute, (c) => historyAnswer(c, source, c.req.valid("query")));
  return routes;
}
