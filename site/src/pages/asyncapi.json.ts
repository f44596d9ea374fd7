/**
 * /asyncapi.json in the static site too: the AsyncAPI document of the simulation WebSocket, as the
 * API serves it (with the default limits), so the simulation section's link is not dead on a static
 * host. The WebSocket itself needs the API server; the page says so. Generated, never edited.
 */
import document from "virtual:integrity/asyncapi";

export function GET(): Response {
  return new Response(`${JSON.stringify(document, null, 2)}\n`, { headers: { "Content-Type": "application/json" } });
}
