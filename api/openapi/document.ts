/**
 * The API description: OpenAPI 3.1, generated from the route declarations (api/openapi/route.ts) of the
 * app it describes, never written by hand, and served at `GET /openapi.json` (strong ETag, 304).
 * The portal's /docs page renders the same document at build time (`npm run openapi` prints it).
 *
 * What the declarations cannot say per route is said once here: the security schemes (one
 * bearer scheme per API-key tier, and the bearer token of the write routes), the tags, and the
 * rules every route follows (errors, strict queries, body limit, CORS, quotas, caching).
 */
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { GLOSSARY } from "../../core/glossary.ts";
import { KEY_TIERS, type KeyTier } from "../clients/api-keys.ts";
import { represent, send, type Representation } from "../http/cache.ts";
import { DEFAULT_BODY_LIMIT_BYTES } from "../middleware/body-limit.ts";
import { EXPOSED_HEADERS } from "../middleware/cors.ts";
import { PROBLEM_BASE, PROBLEM_TYPES } from "../problems/problem.ts";
import { HEADERS, headers, json, notModified } from "./responses.ts";
import { addRoute, defineRoute, routeGroup, type AppEnv, type RouteGroup } from "./route.ts";
import { VERSION } from "../openapi/version.ts";

export type OpenApiDocument = ReturnType<OpenAPIHono["getOpenAPI31Document"]>;

/** The security scheme of an API-key tier: `governmentKey`, `academicKey`, … */
export function keyScheme(tier: KeyTier): string {
  return `${tier}Key`;
}

/** The security scheme the write routes (authority, consensus, balance) declare. */
export const WRITE_TOKEN_SCHEME = "bearerToken";

const TIER_TERMS: Record<KeyTier, string> = {
  government:
    "issued after a request stating affiliation, official contact address and purpose; rotated quarterly; all access logged",
  academic: "issued after academic e-mail verification",
  institutional: "issued under a partnership agreement",
  economist: "issued after economist verification",
};

const TAGS = [
  { name: "Integrity pulse", description: "The GI/MII badge and the verified pulse history." },
  {
    name: "Government area",
    description: "Compliance, audit trail, transparency report, sentinel status, policy impact.",
  },
  { name: "Academics area", description: "Research datasets, the MII timeline, papers and citations." },
  { name: "Philosophers area", description: "Deliberations, virtues, decisions and drift." },
  { name: "Economists area", description: "MIC supply, MII, coordination scores and returns." },
  { name: "Diplomacy area", description: "Treaty framework, standards and protocols." },
  {
    name: "Balances",
    description:
      "Balances by the v1 → v2 migration's phases, and each address's proof in the migration's verification tree.",
  },
  {
    name: "Authority verification",
    description:
      "Verify authority (five stages), check and revoke it; the operator operations for holders of operator tokens.",
  },
  { name: "Ledger", description: "Proofs that an entry is in the ledger." },
  {
    name: "Key requests",
    description: "Ask for an API key of a keyed tier; the operators answer at the contact address given.",
  },
  {
    name: "Consensus",
    description: "The cycle, consensus sessions, signed votes and deliberation proofs from generated to sealed.",
  },
  { name: "Service", description: "Health and this description." },
];

const RULES = `Every error is an RFC 9457 problem (\`application/problem+json\`) whose \`type\` is a stable URI under \`${PROBLEM_BASE}\` followed by the problem's name (${Object.keys(PROBLEM_TYPES).length} of them; each response lists those it can be, and the components \`problem.<name>\` describe each).

- **Strict queries.** A route accepts exactly the query parameters it lists, each at most once; anything else is 400 \`invalid-query\` naming the parameter.
- **Bodies.** At most ${DEFAULT_BODY_LIMIT_BYTES / 1024} KiB (${DEFAULT_BODY_LIMIT_BYTES.toLocaleString("en-US")} bytes) of request content for every method (413 \`payload-too-large\`); a route without a request body ignores content within that limit.
- **Caching.** Representations carry strong ETags; \`If-None-Match\` answers 304.
- **Quotas.** The data areas count requests per UTC day and announce them with the IETF \`RateLimit-Policy\` and \`RateLimit\` fields; once spent, 429 \`rate-limited\` with \`Retry-After\`.
- **Keys.** Keyed files need \`Authorization: Bearer <key>\` of their tier; keys are never cookies.
- **Other origins (CORS).** Reads answer \`Access-Control-Allow-Origin: *\` and expose ${EXPOSED_HEADERS}; a preflight \`OPTIONS\` answers 204. Methods that write accept browser requests only from the configured origins (403 \`origin-not-allowed\`).
- **Request ids.** Every response carries \`X-Request-Id\` (yours, when it is 1–128 of \`[A-Za-z0-9_=-]\`).
- **N instances.** The API may run as several stateless instances behind a load balancer, all deciding on one shared ledger, access ledger and limits store (PostgreSQL), so any instance may answer any request. An instance given an id (\`INSTANCE_ID\`) names itself on every response in \`Instance-Id\` (the header component of that name; browsers may read it): quote it with the \`X-Request-Id\` when reporting a problem. \`GET /health\` reports the instance's view of each shared store.`;

/** The words the description uses, from the one glossary the portal's /glossary/ page shows. */
const WORDS = `The words used here, as the portal's glossary (/glossary/) defines them:\n\n${GLOSSARY.map((t) => `- **${t.term}**${t.abbr ? ` (${t.abbr})` : ""}: ${t.definition}`).join("\n")}`;

/** Registers the shared components on the app the document is generated from: security schemes, header fields. */
export function registerComponents(app: OpenAPIHono<AppEnv>): void {
  for (const [name, header] of Object.entries(HEADERS)) app.openAPIRegistry.registerComponent("headers", name, header);
  for (const tier of KEY_TIERS) {
    app.openAPIRegistry.registerComponent("securitySchemes", keyScheme(tier), {
      type: "http",
      scheme: "bearer",
      description: `An API key of the ${tier} tier (\`ipk_…\`), ${TIER_TERMS[tier]}. Sent as \`Authorization: Bearer <key>\`.`,
    });
  }
  app.openAPIRegistry.registerComponent("securitySchemes", WRITE_TOKEN_SCHEME, {
    type: "http",
    scheme: "bearer",
    description:
      "The token the write routes verify (authority and consensus interfaces), sent as `Authorization: Bearer <token>`.",
  });
}

/** The OpenAPI 3.1 document of `app` as it is now. */
export function openApiDocument(app: OpenAPIHono<AppEnv>): OpenApiDocument {
  return app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Integrity Platform API",
      version: VERSION,
      description: `A tamper-evident ledger, the integrity pulse and the published datasets of five audiences.\n\n${RULES}\n\n${WORDS}`,
    },
    tags: TAGS,
    // Relative: the origin this document is served from (OpenAPI 3.1 §4.8.5), never a Host header echoed back.
    servers: [{ url: "/", description: "The origin this description is served from" }],
    // What an operation without its own `security` needs: nothing (public); keyed and write routes declare theirs.
    security: [{}],
  });
}

const DOCUMENT_HEADERS = headers("ETag", "Cache-Control");

export const openApiRoute = defineRoute({
  method: "get",
  path: "/openapi.json",
  tags: ["Service"],
  summary: "This API description (OpenAPI 3.1)",
  description: "Generated from the route declarations at start-up; the same document the portal's /docs page shows.",
  responses: {
    200: json(
      "The OpenAPI 3.1 document",
      z.looseObject({ openapi: z.string().regex(/^3\.1\.\d+$/), info: z.looseObject({}), paths: z.looseObject({}) }),
      { headers: DOCUMENT_HEADERS },
    ),
    304: notModified(DOCUMENT_HEADERS),
  },
});

/** `GET /openapi.json`, serving the document `describe` returns, generated on first use. */
export function openApiRoutes(describe: () => OpenApiDocument): RouteGroup {
  const routes = routeGroup();
  let rep: Representation | undefined;
  addRoute(routes, openApiRoute, (c) => {
    rep ??= represent(JSON.stringify(describe()), "application/json; charset=utf-8");
    return send(c, rep, "public, max-age=300");
  });
  return routes;
}
