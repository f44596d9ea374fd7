/**
 * Request bodies larger than `maxBytes` are refused with a 413 `payload-too-large` problem,
 * before any route reads them (hono/body-limit: Content-Length up front, or counted while
 * streaming when the body is chunked).
 *
 * A request without `Content-Length` and `Transfer-Encoding` has no body (RFC 9112 §6.3) and
 * passes straight through, synchronously: hono/body-limit looks at `c.req.raw.body`, which makes
 * @hono/node-server build a full `Request`, measured at about a third of a cheap GET's throughput.
 */
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { problem } from "../problem.ts";

export const DEFAULT_BODY_LIMIT_BYTES = 64 * 1024;

export function bodyLimitProblem(maxBytes: number = DEFAULT_BODY_LIMIT_BYTES): MiddlewareHandler {
  const limit = bodyLimit({
    maxSize: maxBytes,
    onError: (c) => problem(c, "payload-too-large", `The request body is larger than ${maxBytes} bytes.`, { extensions: { max_bytes: maxBytes } }),
  });
  return function bodyLimitProblem(c, next) {
    if (c.req.header("content-length") === undefined && c.req.header("transfer-encoding") === undefined) return next();
    return limit(c, next);
  };
}
