/**
 * Request id and structured request log, in one middleware layer (each async layer costs a
 * measurable share of a cheap GET, so the two share one).
 *
 * Request id: `X-Request-Id` on every response — the client's own when it is 1–128 characters of
 * `[A-Za-z0-9_=-]`, otherwise a fresh UUID — and `c.get("requestId")` for later code, set early
 * (api/http/early-header.ts).
 *
 * Log: one object per request, to an injectable sink, after the response is ready:
 * `{ ts, method, path, status, duration_ms, request_id }` — `path` is the URL path only (never
 * the query string: secrets must not be in URLs, and if one is, it does not reach the log), cut to
 * 512 characters. A request refused because the store failed under it (api/problems/store-failure.ts
 * sets `storeFailure`) is logged at `level: "error"` with the store's `error`. A sink that throws
 * never breaks the response.
 *
 * Instance id: with `instanceId` (one of N instances behind a load balancer, INSTANCE_ID), every
 * response carries `Instance-Id`; the app's sink adds `instance` to every log line (`instanceWise`),
 * so an answer and its log line name the process that made them.
 */
import type { MiddlewareHandler } from "hono";
import type { RequestIdVariables } from "hono/request-id";
import { setEarlyHeader } from "../http/early-header.ts";

export type LogLine = Record<string, unknown>;

/** What a handler leaves for the request's log line: why the store refused the request. */
export type LogVariables = RequestIdVariables & { storeFailure?: string };
export type LogSink = (line: LogLine) => void;

export const REQUEST_ID_HEADER = "X-Request-Id";
export const INSTANCE_ID_HEADER = "Instance-Id";
/** What INSTANCE_ID may hold: a token that fits a header value and a log field unescaped. */
export const VALID_INSTANCE_ID = /^[A-Za-z0-9._:-]{1,64}$/;
const VALID_ID = /^[\w=-]{1,128}$/;

/** The default sink: one line of JSON on stdout. */
export const stdoutSink: LogSink = (line) => {
  process.stdout.write(`${JSON.stringify(line)}\n`);
};

export function safeLog(sink: LogSink, line: LogLine): void {
  try {
    sink(line);
  } catch {
    // logging must never take a request down
  }
}

export function requestLog(options: {
  sink: LogSink;
  now: () => Date;
  instanceId?: string;
}): MiddlewareHandler<{ Variables: LogVariables }> {
  const { sink, now, instanceId } = options;
  return async function requestLog(c, next) {
    const started = performance.now();
    const given = c.req.header(REQUEST_ID_HEADER);
    const id = given !== undefined && VALID_ID.test(given) ? given : crypto.randomUUID();
    c.set("requestId", id);
    setEarlyHeader(c, REQUEST_ID_HEADER, id);
    if (instanceId !== undefined) setEarlyHeader(c, INSTANCE_ID_HEADER, instanceId);
    try {
      await next();
    } finally {
      const path = c.req.path;
      const storeFailure = c.get("storeFailure");
      safeLog(sink, {
        ts: now().toISOString(),
        ...(storeFailure === undefined ? {} : { level: "error" }),
        method: c.req.method,
        path: path.length > 512 ? `${path.slice(0, 512)}…` : path,
        status: c.res.status,
        duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
        request_id: id,
        ...(storeFailure === undefined ? {} : { error: storeFailure }),
      });
    }
  };
}

/** `sink` with the instance id on every line (`sink` itself without one). */
export function instanceWise(sink: LogSink, instanceId: string | undefined): LogSink {
  return instanceId === undefined ? sink : (line) => sink({ ...line, instance: instanceId });
}
