/**
 * POST /keys/requests — ask for an API key (interface spec, "Data areas"): the request states the
 * tier, affiliation, official contact address and purpose (and, for the non-government tiers, the
 * expected volume); it is recorded on the access ledger (`keyrequest.received`) and answered 201
 * with a reference the requester quotes. The operator reviews requests with
 * `npm run keys -- requests` and answers with `issue --request <ref>` or `decline --request <ref>`
 * (api/cli/keys.ts); the key itself is delivered over a secure channel, never by this API.
 *
 * Against robots: a per-client daily quota (RateLimit fields, 429) and a honeypot field (`website`,
 * hidden on the form) that must stay empty. The requester's details go to the access ledger only:
 * the request log has the method and path, never a body.
 */
import { z } from "@hono/zod-openapi";
import { KEY_REQUEST_DAILY_QUOTA, KeyRequestBody, KeyRequestReference } from "../../core/access/key-requests.ts";
import { KEY_TIERS } from "../../core/datapackage/contract.ts";
import { IsoTimestampMs } from "../../core/schemas/common.ts";
import type { ApiKeyStore } from "../clients/api-keys.ts";
import { ownDailyQuota } from "../middleware/own-quota.ts";
import type { DailyQuotas, Quota } from "../clients/quotas.ts";
import { component, headers, json } from "../openapi/responses.ts";
import { addRoute, defineRoute, routeGroup, type RouteGroup } from "../openapi/route.ts";
import { storeUnavailable } from "../problems/store-failure.ts";

const QUOTA_BUCKET = "key-requests";

export interface KeyRequestRouteOptions {
  keys: ApiKeyStore;
  quotas: DailyQuotas;
  now: () => Date;
  /** Requests per client per UTC day; null: unlimited (the hostile-input suite). Default KEY_REQUEST_DAILY_QUOTA. */
  quota?: Quota;
}

export const KEY_REQUEST_EXAMPLE = {
  tier: "academic",
  affiliation: "Example University, Department of Economics",
  contact: "researcher@example.edu",
  purpose: "Replicating the MII timeline for a paper on measured integrity",
  expected_volume: 200,
} as const;

const RequestBody = component("key-request", KeyRequestBody, KEY_REQUEST_EXAMPLE);

const Receipt = component(
  "key-request-receipt",
  z.strictObject({
    reference: KeyRequestReference.meta({ description: "Quote it when writing to the operators about this request" }),
    tier: z.enum(KEY_TIERS),
    received_at: IsoTimestampMs,
    status: z.literal("pending"),
    next: z.string().openapi({ description: "What happens next, in words" }),
  }),
);

export const NEXT_STEP =
  "The operators check the request (for an academic key, that the contact address is an academic one) and answer at the contact address; a key is delivered over a secure channel, never by e-mail in clear or by this API.";

export const keyRequestRoute = defineRoute({
  method: "post",
  path: "/keys/requests",
  tags: ["Key requests"],
  summary: "Request an API key for the keyed data areas",
  description:
    "Records a request for a government, academic, institutional or economist key on the access ledger and answers its reference. State the affiliation, an official contact address and the purpose; the academic, institutional and economist tiers also state the expected volume (requests per day). `website` is a honeypot: leave it out or empty. At most 5 requests per client per UTC day.",
  request: { body: { required: true, content: { "application/json": { schema: RequestBody } } } },
  responses: {
    201: json("The request was recorded", Receipt, {
      headers: headers("RateLimit-Policy", "RateLimit"),
      // The answer to KEY_REQUEST_EXAMPLE (the API reference's example is run; reference and time vary).
      example: {
        reference: "KR-7F3Q-9ZKD",
        tier: KEY_REQUEST_EXAMPLE.tier,
        received_at: "2026-01-01T00:00:00.000Z",
        status: "pending",
        next: NEXT_STEP,
      },
    }),
  },
  problems: ["rate-limited", "limits-unavailable", "ledger-unavailable"],
});

export function keyRequestRoutes(options: KeyRequestRouteOptions): RouteGroup {
  const { keys, quotas, now } = options;
  const quota = options.quota === undefined ? KEY_REQUEST_DAILY_QUOTA : options.quota;
  const routes = routeGroup();
  routes.use(keyRequestRoute.path, ownDailyQuota(quotas, QUOTA_BUCKET, quota, "key requests"));
  addRoute(routes, keyRequestRoute, async (c) => {
    const body = c.req.valid("json") as KeyRequestBody;
    let request;
    try {
      request = await keys.receiveRequest(body, now());
    } catch (error) {
      // A store that cannot be written is 503 with Retry-After, like every write; anything else is a bug (500).
      return storeUnavailable(c, error);
    }
    return c.json(
      {
        reference: request.reference,
        tier: request.tier,
        received_at: request.received_at,
        status: "pending" as const,
        next: NEXT_STEP,
      },
      201,
      { "Cache-Control": "no-store" },
    );
  });
  return routes;
}
