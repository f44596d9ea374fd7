/**
 * Which names this server answers to (DNS rebinding guard). A page on `evil.example` whose name is
 * rebound to this server's address is same-origin to the browser: its requests carry
 * `Host: evil.example`, `Origin: http://evil.example` and `Sec-Fetch-Site: same-origin`. So `Host`
 * must name this installation before anything else trusts the request: a request whose `Host` names
 * no configured public origin and not the address it arrived on is 421 `misdirected-request`
 * (RFC 9110 §15.5.20), on every route but /health. With `Host` checked, the origin check's
 * same-origin rule (middleware/cors.ts) can only mean a page of one of these origins.
 *
 * Accepted `Host` values: the host of each public origin (PUBLIC_ORIGINS and SITE_URL, plus what
 * the caller adds: `npm start` adds the origin it serves, `http://HOST:PORT`); the socket's own
 * local address and port (an IP literal cannot be rebound); `localhost` with that port when the
 * socket is on loopback (a browser resolves `localhost` only to loopback). A request without `Host`
 * (HTTP/1.0; Node refuses one on HTTP/1.1) did not come from a browser and passes.
 */
import type { IncomingMessage } from "node:http";
import type { MiddlewareHandler } from "hono";
import { echo, problem } from "../problems/problem.ts";
import { canonicalOrigin } from "./cors.ts";

/** Paths that answer any Host: a load balancer's probe may name the instance by an internal name. */
export const ANY_HOST_PATHS: ReadonlySet<string> = new Set(["/health"]);

/** The public origins of `PUBLIC_ORIGINS` (comma-separated) and `SITE_URL`; throws naming an entry that is not an origin. */
export function publicOriginsFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  const entries = [...(env.PUBLIC_ORIGINS?.split(",") ?? []), ...(env.SITE_URL ? [env.SITE_URL] : [])]
    .map((e) => e.trim())
    .filter((e) => e !== "");
  return entries.map((entry) => {
    const origin = canonicalOrigin(entry.replace(/\/$/, ""));
    if (origin === null)
      throw new Error(`PUBLIC_ORIGINS / SITE_URL: ${JSON.stringify(entry)} is not an origin (scheme://host[:port])`);
    return origin;
  });
}

const DEFAULT_PORTS: Record<string, string> = { "http:": "80", "https:": "443" };

/** The `Host` values that name an origin: `host[:port]`, and `host:port` spelled out for a default port. */
function hostValues(origin: string): string[] {
  const url = new URL(origin);
  return url.port === "" ? [url.host, `${url.hostname}:${DEFAULT_PORTS[url.protocol]}`] : [url.host];
}

/** The `Host` values that name the socket's own address: the IP literal, and `localhost` on loopback. */
function socketHostValues(incoming: IncomingMessage | undefined): string[] {
  const socket = incoming?.socket;
  if (!socket?.localAddress || !socket.localPort) return [];
  const address = socket.localAddress.replace(/^::ffff:(?=\d+\.)/i, "");
  const names = [address.includes(":") ? `[${address}]` : address];
  if (/^127\./.test(address) || address === "::1") names.push("localhost");
  const port = socket.localPort;
  return names.flatMap((name) => (port === 80 ? [name, `${name}:80`] : [`${name}:${port}`]));
}

/** Whether `host` (a `Host` field value) names this server, given its public origins and the request's socket. */
export function namesThisServer(
  host: string,
  accepted: ReadonlySet<string>,
  incoming: IncomingMessage | undefined,
): boolean {
  const value = host.toLowerCase();
  return accepted.has(value) || socketHostValues(incoming).includes(value);
}

/** The Host check of the app: 421 `misdirected-request` for a `Host` that names no origin of this server. */
export function hostCheck(publicOrigins: readonly string[]): MiddlewareHandler {
  const accepted = new Set(publicOrigins.flatMap(hostValues).map((h) => h.toLowerCase()));
  return function hostCheck(c, next) {
    const host = c.req.header("host");
    if (host === undefined || ANY_HOST_PATHS.has(c.req.path)) return next();
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    if (namesThisServer(host, accepted, incoming)) return next();
    return Promise.resolve(
      problem(
        c,
        "misdirected-request",
        `This server does not answer for ${echo(host, 100)}; use one of its configured public origins (PUBLIC_ORIGINS, SITE_URL).`,
      ),
    );
  };
}
