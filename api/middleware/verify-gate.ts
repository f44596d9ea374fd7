/**
 * `verifyGate(platform, quotas, quota)`: around POST /avm/verify, two jobs that belong to the
 * attempt log rather than to the verification: the per-client daily quota (429 once spent,
 * RateLimit fields on every answer; a refused request is not logged — it is in the request log,
 * and the quota keeps the log from being a way to flood the ledger), then — once the route has
 * answered — the malformed-attempt log: a 400 or 415 from the body's validation (not a refused
 * query string) is recorded as an `avm.attempt` with `error: request_malformed` (core
 * `malformedAttempt`: bounded, never the raw body) before it is answered; if it cannot be
 * recorded, the answer is 503.
 */
import type { MiddlewareHandler } from "hono";
import { malformedAttempt } from "../../core/avm/verifier.ts";
import { clientAddress } from "../client.ts";
import type { Platform } from "../platform.ts";
import { problem } from "../problem.ts";
import { noteStoreFailure } from "../routes/store-failure.ts";
import { rateLimitHeaders, type DailyQuotas, type Quota } from "./rate-limit.ts";

/** Verify requests per client (IP address; IPv6 by /64) per UTC day, like the data areas' anonymous quota. */
export const VERIFY_DAILY_QUOTA = 100;
const VERIFY_QUOTA_BUCKET = "avm-verify";

export function verifyGate(platform: Platform | undefined, quotas: DailyQuotas, quota: Quota): MiddlewareHandler {
  return async function verifyGate(c, next) {
    if (c.req.method !== "POST") return next();
    const decision = quotas.takeOwn(VERIFY_QUOTA_BUCKET, quota, clientAddress(c));
    const limits = rateLimitHeaders(decision);
    if (decision.limited && !decision.allowed) {
      return problem(c, "rate-limited", `the quota of ${decision.quota} verify requests a day for this client is spent; it resets at 00:00 UTC`, {
        headers: { ...limits, "Retry-After": String(decision.resetSeconds) },
      });
    }
    await next();
    for (const [name, value] of Object.entries(limits)) c.res.headers.set(name, value);
    const status = c.res.status;
    const queryChecked = c.req.valid("query" as never) !== undefined;
    if (!platform || !queryChecked || (status !== 400 && status !== 415)) return;
    let body: unknown = null;
    const text = (c.req.bodyCache as { text?: Promise<string> }).text;
    if (text !== undefined) {
      try {
        body = JSON.parse(await text);
      } catch {
        body = null; // not JSON at all: nothing of it is logged
      }
    }
    try {
      await platform.ledger.appendAsync([malformedAttempt(body)]);
    } catch (error) {
      noteStoreFailure(c, error);
      c.res = problem(c, "ledger-unavailable", "This attempt could not be recorded on the ledger, so it is not answered (every attempt is logged). Try again later.");
    }
  };
}
