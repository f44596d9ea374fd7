/**
 * What a limited route answers when the shared limits store fails under it (store/limits.ts
 * LimitsUnavailableError): 503 `limits-unavailable` with Retry-After — a refusal, never a pass
 * (fail closed: an unchecked request could exceed every quota). The store's error goes to the
 * request's log line, never to the client. Anything else is rethrown to the app's 500 handler.
 */
import type { Context } from "hono";
import { hasCode } from "../../core/errors.ts";
import { problem } from "../problem.ts";

/** Seconds a client is asked to wait before trying again. */
export const LIMITS_RETRY_AFTER_S = 5;

export function isLimitsFailure(error: unknown): boolean {
  return hasCode(error, "limits-unavailable");
}

export function limitsUnavailable(c: Context, error: unknown): Response {
  if (!isLimitsFailure(error)) throw error;
  c.set("storeFailure", (error as Error).message);
  return problem(c, "limits-unavailable", "The request limits cannot be checked right now, so this request is not answered. Try again later.", {
    headers: { "Retry-After": String(LIMITS_RETRY_AFTER_S) },
  });
}
