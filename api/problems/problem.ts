/**
 * RFC 9457 problem details (`application/problem+json`), the one error format of the API.
 *
 * Every problem has a stable `type` URI under {@link PROBLEM_BASE} (the slug never changes once
 * published), a `title` fixed per type, the HTTP `status`, a `detail` for this occurrence and the
 * request path as `instance`. Extension members (e.g. `invalid_params`) are added per type.
 * Problems are never cached (`Cache-Control: no-store`), and never carry a stack trace: an
 * unexpected error becomes an `internal-error` problem with a generic detail and is logged on the
 * server only.
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { CONSENSUS_PROBLEM_TYPES } from "./consensus.ts";

export const PROBLEM_BASE = "https://integrity-platform.example/problems/";
export const PROBLEM_CONTENT_TYPE = "application/problem+json";

/** The problem types of the API: slug → status and title. The URI is PROBLEM_BASE + slug. */
export const PROBLEM_TYPES = {
  /** A query parameter is unknown, repeated, empty or malformed; `invalid_params` names each. */
  "invalid-query": { status: 400, title: "Invalid query parameter" },
  /** The request could not be read: HTTP framing Node's parser refused, a bad header or path parameter. */
  "bad-request": { status: 400, title: "Bad request" },
  /** The JSON body is malformed or does not fit the route's schema; `invalid_fields` points at each problem. */
  "invalid-body": { status: 400, title: "Invalid request body" },
  /** A keyed file without a valid API key, or a write route without a valid token (`WWW-Authenticate: Bearer`). */
  unauthorized: { status: 401, title: "Valid credentials are required" },
  /** The key is valid but its tier does not open this file. */
  forbidden: { status: 403, title: "This key does not grant access" },
  /** A browser request from an origin the write routes do not trust (cross-site request forgery guard). */
  "origin-not-allowed": { status: 403, title: "Cross-origin request refused" },
  "not-found": { status: 404, title: "Not found" },
  /** A well-formed balance address that holds no balance (never a made-up zero). */
  "unknown-address": { status: 404, title: "Unknown address" },
  /** An interface version that was retired (v1 balances after the sunset); `Link` names its successor. */
  gone: { status: 410, title: "This interface version is retired" },
  /** The write contradicts what the ledger already holds (a key or id registered twice, a token revoked twice, money during the migration freeze). */
  conflict: { status: 409, title: "Conflict with the ledger" },
  /** The path exists but not for this method; the `Allow` header lists the methods it has. */
  "method-not-allowed": { status: 405, title: "Method not allowed" },
  /** The request did not arrive completely in time (headers within 60 s, the whole request within 5 min). */
  "request-timeout": { status: 408, title: "Request timeout" },
  /** The `Host` names no origin of this server (DNS rebinding guard, api/middleware/host.ts). */
  "misdirected-request": { status: 421, title: "Misdirected request" },
  /** A WebSocket endpoint asked for without the upgrade (`Upgrade: websocket`). */
  "upgrade-required": { status: 426, title: "Upgrade required" },
  /** The request body is larger than the server accepts; `max_bytes` says how large it may be. */
  "payload-too-large": { status: 413, title: "Request body too large" },
  /** The route takes a body of another media type (`Content-Type`). */
  "unsupported-media-type": { status: 415, title: "Unsupported media type" },
  "range-not-satisfiable": { status: 416, title: "Range not satisfiable" },
  /** The client's daily quota for this area is spent; `Retry-After` and `RateLimit` say when it resets. */
  "rate-limited": { status: 429, title: "Rate limit exceeded" },
  /** The request line and header fields together are larger than the server reads (16 KiB). */
  "header-fields-too-large": { status: 431, title: "Request header fields too large" },
  "internal-error": { status: 500, title: "Internal server error" },
  /** A published file no longer matches its manifest's hash: nothing unverified is served. */
  "data-unverified": { status: 503, title: "Published data failed verification" },
  /** A keyed access could not be recorded in the audit log, so it is not answered (fail closed). */
  "audit-unavailable": { status: 503, title: "Access audit unavailable" },
  /** The shared store of the request limits (quotas, connection caps) failed, so no limit could be checked: refused (fail closed), with Retry-After. */
  "limits-unavailable": { status: 503, title: "Request limits unavailable" },
  /** The pulse history failed verification; `line` and `problem` name the first bad line. */
  /** A route that reads or writes the ledger, on a server without one (or whose ledger failed): fail closed. */
  "ledger-unavailable": { status: 503, title: "Ledger unavailable" },
  /** A service relying on the AVM could not get an answer from it (error, timeout, no ledger): denied by default (spec rule 2). */
  "authority-unavailable": { status: 503, title: "Authority verification unavailable" },
  /** Issuing a token over HTTP, on a server that does not hold the token signing key. */
  "signing-unavailable": { status: 503, title: "Token signing unavailable" },
  "history-unverified": { status: 503, title: "Pulse history failed verification" },
  /** A consensus decision refused (`consensus-<refusal code>`, api/problems/consensus.ts). */
  ...CONSENSUS_PROBLEM_TYPES,
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemSlug = keyof typeof PROBLEM_TYPES;

export function problemType(slug: ProblemSlug): string {
  return PROBLEM_BASE + slug;
}

/** One entry of the `invalid_params` extension member. */
export interface InvalidParam {
  name: string;
  reason: string;
}

export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  [extension: string]: unknown;
}

const MAX_ECHO = 200;

/** Shortens client-supplied text before it is echoed in a problem (names, paths, values). */
export function echo(text: string, max = MAX_ECHO): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

export function problemDetails(
  slug: ProblemSlug,
  detail: string,
  instance: string,
  extensions: Record<string, unknown> = {},
): ProblemDetails {
  const { status, title } = PROBLEM_TYPES[slug];
  const body: ProblemDetails = { type: problemType(slug), title, status, detail, instance: echo(instance, 1024) };
  // Extensions follow the standard members and can never overwrite them.
  for (const [key, value] of Object.entries(extensions)) if (!(key in body)) body[key] = value;
  return body;
}

/**
 * Seconds a 503 asks the client to wait when its caller names none: every 503 carries
 * `Retry-After` (a store back, a lock released, a file republished answer again within seconds).
 */
export const DEFAULT_RETRY_AFTER_S = 2;

/** The problem as a response for the current request (its path is the `instance`); a 503 always with `Retry-After`. */
export function problem(
  c: Context,
  slug: ProblemSlug,
  detail: string,
  options: { extensions?: Record<string, unknown>; headers?: Record<string, string> } = {},
): Response {
  const body = problemDetails(slug, detail, c.req.path, options.extensions);
  // Through the context, so headers set earlier by middleware (X-Request-Id) are kept.
  return c.body(JSON.stringify(body), body.status as ContentfulStatusCode, {
    "Content-Type": PROBLEM_CONTENT_TYPE,
    "Cache-Control": "no-store",
    ...(body.status === 503 ? { "Retry-After": String(DEFAULT_RETRY_AFTER_S) } : {}),
    ...options.headers,
  });
}

/** An `about:blank` problem for a status without a type of its own (RFC 9457 §4.2.1). */
export function genericProblem(c: Context, status: number, title: string, detail: string): Response {
  const body: ProblemDetails = { type: "about:blank", title, status, detail, instance: echo(c.req.path, 1024) };
  return c.body(JSON.stringify(body), status as ContentfulStatusCode, {
    "Content-Type": PROBLEM_CONTENT_TYPE,
    "Cache-Control": "no-store",
    ...(status === 503 ? { "Retry-After": String(DEFAULT_RETRY_AFTER_S) } : {}),
  });
}
