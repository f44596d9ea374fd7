/**
 * Balance routes (spec "Balance", "Unit migration", "Versioning"): thin — parse the address, ask
 * api/sources/balances.ts at the server's clock, answer. The phase decides (core/migration/phases.ts):
 *
 *   GET /v1/balance/{address}   announcement: the ledger's balance; snapshot day: frozen at the
 *                               snapshot; transition: forwarded to v2 (`balance_gic` from the
 *                               shards) with `Deprecation`, `Sunset` and `Link: successor-version`;
 *                               sunset: 410 `gone` with the successor link and where the historical
 *                               v1 balance stays readable
 *   GET /v2/balance/{address}   from the transition on: the snapshot plus the ledger's movements
 *                               after it (`balance_shards` exact); before: 404 (v2 does not exist)
 *   GET /balance/{address}      the version of the current phase (v1 until the transition, then v2)
 *   GET /migration/proof/{address}
 *                               the address's last leaf in the published tree with its inclusion
 *                               proof, exactly as `npm run migration -- prove` prints it: the
 *                               historical v1 balance (`v1_balance_gic`) with its proof, readable in
 *                               every phase once the snapshot is published
 *
 * An address is the ledger's account name (core/money/address.ts): anything else is 400
 * `bad-request` naming `address`; a well-formed address without a balance is 404 `unknown-address`;
 * a store that fails under a lookup is 503 `ledger-unavailable`.
 * Balances are `Cache-Control: no-store` (they move with the ledger).
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { ADDRESS_PATTERN } from "../../core/money/address.ts";
import { dateTime } from "../../core/format/text.ts";
import {
  REVIEW_ENDS,
  SNAPSHOT_AT,
  SUNSET_AT,
  V1_DEPRECATION_FIELD,
  V1_SUNSET_FIELD,
} from "../../core/migration/phases.ts";
import { successorLink, type BalanceAnswer, type Balances, type BalanceVersion } from "../sources/balances.ts";
import { balanceRefused, goneProblem } from "../problems/refusals.ts";
import { problemDetails } from "../problems/problem.ts";
import { represent, send } from "../http/cache.ts";
import { body, headers, json, notModified, published } from "../openapi/responses.ts";
import { addRoute, defineRoute, routeGroup, type RouteGroup } from "../openapi/route.ts";
import { storeUnavailable } from "../problems/store-failure.ts";

const TAGS = ["Balances"];
const NO_STORE = "no-store";

/** The address the examples name. */
const EXAMPLE_ADDRESS = "ATLAS";

export const AddressParams = z.strictObject({
  address: z
    .string()
    .regex(ADDRESS_PATTERN, {
      error:
        "must be a ledger account name: an ASCII letter or digit, then up to 127 letters, digits, '.', '_', ':' or '-'",
    })
    .openapi({
      param: { name: "address", in: "path" },
      example: EXAMPLE_ADDRESS,
      description: "A ledger account name (case-sensitive)",
    }),
});

/** The proof of one address, as `npm run migration -- prove` prints it. */
export const MigrationProof = z.strictObject({
  index: z.number().int().nonnegative(),
  tree_size: z.number().int().positive(),
  leaf: z.string().openapi({
    description:
      "The leaf's text: the JCS of {address, balance_shards, v1_balance_gic} (snapshot) or {address, balance_shards, correction} (review); its UTF-8 bytes are the RFC 9162 leaf",
  }),
  proof: z
    .array(z.string().regex(/^[A-Za-z0-9+/]{43}=$/))
    .openapi({ description: "Base64 SHA-256 hashes of the inclusion proof, leaf side first" }),
});

const V1_HEADERS = headers("Cache-Control", "Deprecation", "Sunset", "Link");
const PHASES = `Phases by the server's clock: announcement (until ${dateTime(SNAPSHOT_AT)}), snapshot day (the 24-hour review), transition (${dateTime(REVIEW_ENDS)} to ${dateTime(SUNSET_AT)}), sunset (from ${dateTime(SUNSET_AT)}).`;

export const v1BalanceRoute = defineRoute({
  method: "get",
  path: "/v1/balance/{address}",
  tags: TAGS,
  summary: "The v1 balance (balance_gic), until the sunset",
  description: `${PHASES} Announcement: the ledger's balance. Snapshot day: frozen at the snapshot. Transition: forwarded to the v2 backend (\`balance_gic\` computed from the shards) with \`Deprecation\` (RFC 9745), \`Sunset\` (RFC 8594) and \`Link: </v2/balance/{address}>; rel="successor-version"\`. Sunset: 410 \`gone\` with the successor link; the historical v1 balance stays readable at \`/migration/proof/{address}\` and in the published snapshot.`,
  request: { params: AddressParams },
  responses: { 200: body("The v1 balance", { "application/json": published("balance-v1") }, V1_HEADERS) },
  problems: ["unknown-address", "gone", "ledger-unavailable", "data-unverified"],
  // Retired at the sunset, which has passed: the reference shows the answer a reader gets today.
  deprecated: true,
  answersNow: {
    status: 410,
    example: problemDetails(
      "gone",
      goneProblem(EXAMPLE_ADDRESS).detail,
      `/v1/balance/${EXAMPLE_ADDRESS}`,
      goneProblem(EXAMPLE_ADDRESS).extensions,
    ),
  },
});

export const v2BalanceRoute = defineRoute({
  method: "get",
  path: "/v2/balance/{address}",
  tags: TAGS,
  summary: "The v2 balance (integer shards), from the transition on",
  description: `${PHASES} From the transition on: the balance in the published snapshot (after the review's corrections) plus the ledger's movements dated at or after the snapshot instant; \`balance_shards\` is exact at any size. Before the transition v2 does not exist: 404 \`not-found\`.`,
  request: { params: AddressParams },
  responses: { 200: body("The v2 balance", { "application/json": published("balance-v2") }, headers("Cache-Control")) },
  problems: ["not-found", "unknown-address", "ledger-unavailable", "data-unverified"],
});

export const currentBalanceRoute = defineRoute({
  method: "get",
  path: "/balance/{address}",
  tags: TAGS,
  summary: "The balance in the version of the current phase",
  description: `${PHASES} v1 (\`balance_gic\`) until the transition, v2 (\`balance_shards\`, \`balance_credits\`, \`balance_credits_formatted\`) from then on.`,
  request: { params: AddressParams },
  responses: {
    200: body(
      "The balance: v1 before the transition, v2 from then on",
      {
        "application/json": { schema: z.union([published("balance-v2").schema, published("balance-v1").schema]) },
      },
      headers("Cache-Control"),
    ),
  },
  problems: ["unknown-address", "ledger-unavailable", "data-unverified"],
});

const PROOF_HEADERS = headers("ETag", "Cache-Control");

export const migrationProofRoute = defineRoute({
  method: "get",
  path: "/migration/proof/{address}",
  tags: TAGS,
  summary: "The address's leaf in the migration tree with its inclusion proof",
  description:
    "The address's last leaf in the published verification tree (snapshot.jsonl then corrections.jsonl) and its RFC 9162 inclusion proof against the newest signed checkpoint (`/migration/checkpoint` on the portal), exactly as `npm run migration -- prove` prints it. Check it yourself: the leaf, the proof and the checkpoint's signature under the published dataset key (`/keys/datasets.vkey`). A snapshot leaf keeps the v1 text (`v1_balance_gic`): this is where the historical v1 balance stays readable after the sunset.",
  request: { params: AddressParams },
  responses: {
    200: json("The leaf and its inclusion proof", MigrationProof, { headers: PROOF_HEADERS }),
    304: notModified(PROOF_HEADERS),
  },
  problems: ["not-found", "unknown-address", "ledger-unavailable", "data-unverified"],
});

/** The answer to a balance lookup: the record, or the problem that says why not. */
function balanceAnswer(c: Context, address: string, lookup: BalanceAnswer): Response {
  if (!lookup.ok) return balanceRefused(c, address, lookup);
  const fields: Record<string, string> = { "Cache-Control": NO_STORE };
  if (lookup.version === "v1" && lookup.forwarded) {
    fields.Deprecation = V1_DEPRECATION_FIELD;
    fields.Sunset = V1_SUNSET_FIELD;
    fields.Link = successorLink(address);
  }
  return c.json(lookup.record, 200, fields);
}

export function balanceRoutes(balances: Balances): RouteGroup {
  const routes = routeGroup();
  const answerLookup = async (c: Context, version: BalanceVersion, address: string): Promise<Response> => {
    try {
      return balanceAnswer(c, address, await balances.lookup(version, address));
    } catch (error) {
      return storeUnavailable(c, error);
    }
  };
  addRoute(routes, v1BalanceRoute, (c) => answerLookup(c, "v1", c.req.valid("param").address));
  addRoute(routes, v2BalanceRoute, (c) => answerLookup(c, "v2", c.req.valid("param").address));
  addRoute(routes, currentBalanceRoute, (c) => answerLookup(c, "current", c.req.valid("param").address));
  addRoute(routes, migrationProofRoute, (c) => {
    const { address } = c.req.valid("param");
    const found = balances.proof(address);
    if (!found.ok) return balanceRefused(c, address, found);
    return send(c, represent(JSON.stringify(found.proof), "application/json; charset=utf-8"), "no-cache");
  });
  return routes;
}
