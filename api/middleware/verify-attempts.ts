/**
 * The gate of POST /avm/verify, mounted on the app ahead of the body limit and the origin check so
 * that every refusal of a verify is an attempt on the ledger ("every attempt is logged"):
 *
 *   1. the per-client daily quota (RateLimit fields on every answer; 429 once spent). A request past
 *      the quota is NOT logged — it is in the request log: the quota is what keeps the attempt log
 *      from being a way to flood the ledger, and it counts every request, refusals included;
 *   2. after the layers and the route have answered, a refusal is recorded as an `avm.attempt`
 *      (core `malformedAttempt`: bounded, never the raw body) with its reason before it is
 *      answered, and `Ledger-Seq` names that entry:
 *        413 body over the limit       → `request_too_large` (the body is not read)
 *        403 another origin            → `origin_not_allowed`
 *        400/415 body or query refused → `request_malformed` (a body nested deeper than
 *                                        MAX_JSON_DEPTH is not parsed for the log either);
 *      if the attempt cannot be recorded, the answer is 503. A decided verify (200) is recorded by
 *      the route itself, in the decision's write.
 */
import type { Context, MiddlewareHandler } from "hono";
import { malformedAttempt, MALFORMED_REQUEST_ERROR } from "../../core/avm/verifier.ts";
import { jsonDepthWithin } from "../../core/json-depth.ts";
import { problem } from "../problems/problem.ts";
import { noteStoreFailure } from "../problems/store-failure.ts";
import { ownDailyQuota } from "./own-quota.ts";
import type { DailyQuotas, Quota } from "../clients/quotas.ts";
import type { Platform } from "../sources/platform.ts";

/** Verify requests per client (IP address; IPv6 by /64) per UTC day, like the data areas' anonymous quota. */
export const VERIFY_DAILY_QUOTA = 100;
const VERIFY_QUOTA_BUCKET = "avm-verify";
export const VERIFY_PATH = "/avm/verify";

/** The `error` an attempt refused with `status` is recorded with; null: not a refusal the gate records. */
export function refusalError(status: number): string | null {
  if (status === 413) return "request_too_large";
  if (status === 403) return "origin_not_allowed";
  if (status === 400 || status === 415) return MALFORMED_REQUEST_ERROR;
  return null;
}

/** The body as far as it can be read for the log: JSON within the depth bound, else null. */
async function loggableBody(c: Context, status: number): Promise<unknown> {
  if (status === 413) return null;
  try {
    const cached = (c.req.bodyCache as { text?: Promise<string> }).text;
    const text = await (cached ?? c.req.text());
    return jsonDepthWithin(text) ? (JSON.parse(text) as unknown) : null;
  } catch {
    return null; // not JSON, not readable: nothing of it is logged
  }
}

export function verifyAttempts(
  platform: Platform | undefined,
  quotas: DailyQuotas,
  quota: Quota = VERIFY_DAILY_QUOTA,
): MiddlewareHandler {
  return ownDailyQuota(quotas, VERIFY_QUOTA_BUCKET, quota, "verify requests", async function verifyAttempts(c, next) {
    await next();
    const error = refusalError(c.res.status);
    if (!platform || error === null) return;
    const event = malformedAttempt(await loggableBody(c, c.res.status), error);
    try {
      const [entry] = await platform.ledger.appendAsync([event]);
      c.res.headers.set("Ledger-Seq", String(entry!.seq));
    } catch (error) {
      noteStoreFailure(c, error);
      c.res = problem(
        c,
        "ledger-unavailable",
        "This attempt could not be recorded on the ledger, so it is not answered (every attempt is logged). Try again later.",
      );
    }
  });
}
