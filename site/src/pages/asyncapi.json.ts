/**
 * /asyncapi.json in the static site too: the AsyncAPI document of the simulation WebSocket, as the
 * API serves it (with the default limits), so the simulation section's link is not dead on a static
 * host. The WebSocket itself needs the API server; the page says so. Generated, never edited.
 */
import document from "virtual:integrity/asyncapi";
import { publicOrigins } from "../lib/public-origins.ts";

/**
 * The servers are this build's (src/lib/public-origins.ts): the API it names (wss: for https:), or
 * none on a copy with no API — never the development address.
 */
export function GET(): Response {
  const { api } = publicOrigins();
  const { servers: _servers, ...rest } = document as { servers?: unknown } & Record<string, unknown>;
  const url = api.kind === "none" ? null : new URL(api.origin);
  const servers = url
    ? {
        api: {
          host: url.host,
          protocol: url.protocol === "https:" ? "wss" : "ws",
          description: "The platform's API, which serves the portal's simulation.",
        },
      }
    : undefined;
  const out = servers ? { ...rest, servers } : rest;
  return new Response(`${JSON.stringify(out, null, 2)}\n`, { headers: { "Content-Type": "application/json" } });
}
