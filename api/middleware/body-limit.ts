/**
 * At most `maxBytes` (default 64 KiB) of request content, for every method — GET and HEAD
 * included — answered with a 413 `payload-too-large` problem (and `Connection: close`, so the
 * rest is never read) before any route sees the request:
 *
 * - a `Content-Length` above the limit is refused up front, whatever its size;
 * - a `Content-Length` within the limit passes on untouched: Node's parser reads exactly that many
 *   bytes as the request's content;
 * - chunked content is counted as it arrives and refused at the first byte over the limit;
 *   for GET and HEAD, whose `Request` @hono/node-server builds without a body, it is read (at
 *   most `maxBytes`) from the Node request itself; for the other methods hono/body-limit wraps
 *   the body the route will read.
 * Content within the limit on a route that takes no body is ignored (RFC 9110 §9.3.1).
 *
 * A request without `Content-Length` and `Transfer-Encoding` has no content (RFC 9112 §6.3) and
 * passes straight through, synchronously: hono/body-limit looks at `c.req.raw.body`, which makes
 * @hono/node-server build a full `Request`, measured at about a third of a cheap GET's throughput.
 */
import type { IncomingMessage } from "node:http";
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { problem } from "../problems/problem.ts";

export const DEFAULT_BODY_LIMIT_BYTES = 64 * 1024;

/** Reads the Node request's content to its end; false as soon as it passes `maxBytes`. */
function withinLimit(incoming: IncomingMessage, maxBytes: number): Promise<boolean> {
  return new Promise((resolve) => {
    let size = 0;
    const done = (ok: boolean) => {
      incoming.off("data", onData).off("end", onEnd).off("error", onError);
      if (!ok) incoming.pause();
      resolve(ok);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > maxBytes) done(false);
    };
    const onEnd = () => done(true);
    // A client that breaks off mid-body gets no answer anyway; let the request through to be logged.
    const onError = () => done(true);
    incoming.on("data", onData).on("end", onEnd).on("error", onError);
  });
}

export function bodyLimitProblem(maxBytes: number = DEFAULT_BODY_LIMIT_BYTES): MiddlewareHandler {
  const tooLarge = (c: Context): Promise<Response> =>
    Promise.resolve(
      problem(c, "payload-too-large", `The request content is larger than ${maxBytes} bytes.`, {
        extensions: { max_bytes: maxBytes },
        headers: { Connection: "close" },
      }),
    );
  const limit = bodyLimit({ maxSize: maxBytes, onError: tooLarge });
  return function bodyLimitProblem(c, next) {
    const length = c.req.header("content-length");
    const chunked = c.req.header("transfer-encoding") !== undefined;
    if (length === undefined && !chunked) return next();
    // Node's parser has checked the syntax: one decimal Content-Length, never with Transfer-Encoding.
    if (length !== undefined && Number(length) > maxBytes) return tooLarge(c);
    // Within the limit: Node's parser delivers exactly Content-Length bytes, so there is nothing to
    // count. Passed on without touching `c.req.raw.body` (what hono/body-limit does first), which
    // would make @hono/node-server build a full `Request` over a web stream instead of reading the
    // body directly when the route parses it.
    if (length !== undefined) return next();
    const method = c.req.method;
    if (method !== "GET" && method !== "HEAD") return limit(c, next);
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    if (chunked && incoming)
      return withinLimit(incoming, maxBytes).then((ok): Promise<void | Response> => (ok ? next() : tooLarge(c)));
    return next();
  };
}
