/**
 * Use from another origin (CORS, WHATWG Fetch): reads answer `Access-Control-Allow-Origin: *` (keys
 * are bearer tokens, never cookies), preflights answer what a path allows, and a browser request
 * that writes passes only from the page's own origin or a trusted one (`crossOriginRefusal`, Go's
 * CrossOriginProtection rule), else 403 `origin-not-allowed` before the route runs. Trusted origins:
 * AppOptions.trustedOrigins, by default `ALLOWED_ORIGINS` and the origin of `SITE_URL` (the portal,
 * which may be served from another origin than the API: its forms and simulation call the API).
 */
import type { Context, MiddlewareHandler } from "hono";
import { setEarlyHeader } from "../http/early-header.ts";
import { echo, problem } from "../problems/problem.ts";

export const EXPOSED_HEADERS = [
  "ETag",
  "Link",
  "RateLimit",
  "RateLimit-Policy",
  "Retry-After",
  "Deprecation",
  "Sunset",
  "X-Limit-Clamped",
  "X-Request-Id",
  "Instance-Id",
  "WWW-Authenticate",
  "Ledger-Seq",
].join(", ");

/** How long a browser may cache a preflight answer (Chromium caps it at 2 hours). */
const PREFLIGHT_MAX_AGE = "7200";

/** The canonical form of an origin (`scheme://host[:port]`, default port dropped), or null. */
export function canonicalOrigin(text: string): string | null {
  try {
    const url = new URL(text);
    if ((url.protocol !== "http:" && url.protocol !== "https:") || url.origin === "null") return null;
    if (url.pathname !== "/" || url.search || url.hash || url.username || url.password) return null;
    return url.origin;
  } catch {
    return null;
  }
}

/**
 * The trusted origins: those of `ALLOWED_ORIGINS` and the portal's own, `SITE_URL` (the same setting
 * the site is built with, so a portal on a CDN may send key requests to an API elsewhere); throws
 * naming an entry that is not an origin.
 */
export function originsFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  const named = (variable: string, entry: string) => {
    const origin = canonicalOrigin(entry.trim());
    if (origin === null)
      throw new Error(`${variable}: ${JSON.stringify(entry.trim())} is not an origin (scheme://host[:port])`);
    return origin;
  };
  const text = env.ALLOWED_ORIGINS?.trim();
  const allowed = text ? text.split(",").map((entry) => named("ALLOWED_ORIGINS", entry)) : [];
  const site = env.SITE_URL?.trim() ? [named("SITE_URL", env.SITE_URL.trim().replace(/\/$/, ""))] : [];
  return [...new Set([...allowed, ...site])];
}

/** Reads a request header field (Hono's `c.req.header`, or a `Headers`). */
export type HeaderReader = (name: string) => string | undefined | null;

/**
 * Why a browser request that writes must be refused, or null when it may pass. `trusted` holds
 * canonical origins (`canonicalOrigin`). "Same origin" trusts `Host`: the app checks it first
 * (middleware/host.ts), so it names one of this server's own origins, never a rebound name.
 */
export function crossOriginRefusal(header: HeaderReader, trusted: ReadonlySet<string>): string | null {
  const origin = header("origin");
  const site = header("sec-fetch-site");
  if (site) {
    if (site === "same-origin" || site === "none") return null;
  } else {
    if (!origin) return null;
    const host = header("host");
    try {
      if (host && new URL(origin).host === host.toLowerCase()) return null;
    } catch {
      // not a URL: not the same origin
    }
  }
  const canonical = origin ? canonicalOrigin(origin) : null;
  if (canonical !== null && trusted.has(canonical)) return null;
  return origin
    ? `requests from ${echo(origin, 100)} may not change anything here`
    : "a cross-site request may not change anything here";
}

function refuse(c: Context, reason: string): Response {
  return problem(c, "origin-not-allowed", `${reason}; only this site and its configured trusted origins may.`, {
    headers: { Vary: "Origin" },
  });
}

/** The CORS layer of the app: `*` on reads, the origin check on everything that writes. */
export function cors(trustedOrigins: readonly string[]): MiddlewareHandler {
  const trusted = new Set(trustedOrigins);
  return function cors(c, next) {
    const method = c.req.method;
    if (method === "GET" || method === "HEAD") {
      setEarlyHeader(c, "Access-Control-Allow-Origin", "*");
      setEarlyHeader(c, "Access-Control-Expose-Headers", EXPOSED_HEADERS);
      return next();
    }
    if (method === "OPTIONS") return next(); // answered by `preflight` once routing finds no OPTIONS route
    const header = (name: string) => c.req.header(name);
    const refusal = crossOriginRefusal(header, trusted);
    if (refusal !== null) return Promise.resolve(refuse(c, refusal));
    const origin = c.req.header("origin");
    if (origin) {
      setEarlyHeader(c, "Access-Control-Allow-Origin", origin);
      setEarlyHeader(c, "Access-Control-Expose-Headers", EXPOSED_HEADERS);
      setEarlyHeader(c, "Vary", "Origin");
    }
    return next();
  };
}

export interface PathMethods {
  /** Methods of the path, upper case, OPTIONS included. */
  methods: readonly string[];
  /** A route of the path takes `Authorization` (a key or a token). */
  keyed: boolean;
}

/** The answer to `OPTIONS` on a path that exists: a CORS preflight or a plain 204 with `Allow`. */
export function preflight(c: Context, path: PathMethods, trustedOrigins: ReadonlySet<string>): Response {
  const allow = path.methods.join(", ");
  const requested = c.req.header("access-control-request-method");
  const origin = c.req.header("origin");
  if (!requested || !origin) return c.body(null, 204, { Allow: allow });
  const writes = requested !== "GET" && requested !== "HEAD";
  if (writes) {
    const refusal = crossOriginRefusal((name) => c.req.header(name), trustedOrigins);
    if (refusal !== null) return refuse(c, refusal);
  }
  const allowedHeaders = ["If-None-Match", "X-Request-Id"];
  if (path.keyed) allowedHeaders.push("Authorization");
  if (path.methods.some((m) => m !== "GET" && m !== "HEAD" && m !== "OPTIONS")) allowedHeaders.push("Content-Type");
  return c.body(null, 204, {
    Allow: allow,
    "Access-Control-Allow-Origin": writes ? origin : "*",
    "Access-Control-Allow-Methods": allow,
    "Access-Control-Allow-Headers": allowedHeaders.join(", "),
    "Access-Control-Max-Age": PREFLIGHT_MAX_AGE,
    ...(writes ? { Vary: "Origin" } : {}),
  });
}
