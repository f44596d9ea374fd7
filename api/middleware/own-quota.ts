/**
 * A daily quota of its own around one endpoint's POSTs (POST /avm/verify, POST /keys/requests),
 * per client (api/clients/client.ts): 429 `rate-limited` with Retry-After once spent, the RateLimit fields on
 * every answer, including one the inner handler replaced; 503 `limits-unavailable` when a shared
 * limits store cannot count (api/problems/refusals.ts).
 */
import type { MiddlewareHandler } from "hono";
import { clientAddress } from "../clients/client.ts";
import { problem } from "../problems/problem.ts";
import { limitsUnavailable } from "../problems/refusals.ts";
import { rateLimitHeaders, type DailyQuotas, type Quota } from "../clients/quotas.ts";

/** `what` names the requests in the refusal ("verify requests"); `inner` runs once the request is allowed. */
export function ownDailyQuota(
  quotas: DailyQuotas,
  bucket: string,
  quota: Quota,
  what: string,
  inner?: MiddlewareHandler,
): MiddlewareHandler {
  return async function ownDailyQuota(c, next) {
    if (c.req.method !== "POST") return next();
    let decision;
    try {
      decision = await quotas.takeOwn(bucket, quota, clientAddress(c));
    } catch (error) {
      return limitsUnavailable(c, error);
    }
    const limits = rateLimitHeaders(decision);
    if (decision.limited && !decision.allowed) {
      return problem(
        c,
        "rate-limited",
        `the quota of ${decision.quota} ${what} a day for this client is spent; it resets at 00:00 UTC`,
        {
          headers: { ...limits, "Retry-After": String(decision.resetSeconds) },
        },
      );
    }
    await (inner ? inner(c, next) : next());
    for (const [name, value] of Object.entries(limits)) c.res.headers.set(name, value);
  };
}
