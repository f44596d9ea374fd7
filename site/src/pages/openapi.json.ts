/**
 * /openapi.json in the static site too (the API serves the same document; on a static host this
 * copy is what /docs links to). Generated at build time, never edited — but for its `servers`,
 * which are this build's (src/lib/public-origins.ts): the API origin it names when the API is
 * elsewhere, so a client reading the copy on the CDN calls the API, not the CDN.
 */
import document from "virtual:integrity/openapi";
import { publicOrigins } from "../lib/public-origins.ts";

export function GET(): Response {
  const { api } = publicOrigins();
  const out =
    api.kind === "elsewhere"
      ? { ...(document as Record<string, unknown>), servers: [{ url: api.origin, description: "The platform's API" }] }
      : document;
  return new Response(`${JSON.stringify(out, null, 2)}\n`, { headers: { "Content-Type": "application/json" } });
}
