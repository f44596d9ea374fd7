/**
 * /openapi.json in the static site too (the API serves the same document; on a static host this
 * copy is what /docs links to). Generated at build time, never edited.
 */
import document from "virtual:integrity/openapi";

export function GET(): Response {
  return new Response(`${JSON.stringify(document, null, 2)}\n`, { headers: { "Content-Type": "application/json" } });
}
