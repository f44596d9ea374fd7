/**
 * Installed only when TRUSTED_PROXIES names proxies (api/clients/forwarded-for.ts): takes the client's
 * address from a trusted proxy's `X-Forwarded-For` once per request, for api/clients/client.ts
 * clientAddress (quotas, the verify quota, the connection cap, the access audit). A header it
 * cannot read is logged (its reason, never its text) and the socket's peer counts instead.
 */
import { getConnInfo } from "@hono/node-server/conninfo";
import type { MiddlewareHandler } from "hono";
import { forwardedClient, type TrustedProxies } from "../clients/forwarded-for.ts";
import { safeLog, type LogSink } from "./request-log.ts";

export function forwardedClientAddress(trusted: TrustedProxies, log: LogSink, now: () => Date): MiddlewareHandler {
  return async function forwardedClientAddress(c, next) {
    let peer: string | undefined;
    try {
      peer = getConnInfo(c).remote.address;
    } catch {
      peer = undefined;
    }
    if (peer !== undefined) {
      const found = forwardedClient(peer, c.req.header("X-Forwarded-For"), trusted);
      if (found.malformed) {
        safeLog(log, {
          ts: now().toISOString(),
          level: "warn",
          event: "forwarded-for.malformed",
          request_id: c.get("requestId"),
          peer,
          reason: found.malformed,
        });
      }
      c.set("clientAddress", found.address);
    }
    await next();
  };
}
