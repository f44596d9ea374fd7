/**
 * Response header fields set before the route runs. On Node (@hono/node-server passes the
 * `ServerResponse` as `c.env.outgoing`) they go on the outgoing message, which keeps them on
 * whatever response the route returns: setting them with `c.header()` up front makes Hono build
 * every response with a `Headers` object, measured at about a tenth of the throughput of a cached
 * GET. Elsewhere (`app.request()` in tests, other runtimes), `c.header()`.
 */
import type { Context } from "hono";

interface NodeBindings {
  outgoing?: { setHeader?: (name: string, value: string) => unknown; headersSent?: boolean };
}

export function setEarlyHeader(c: Context, name: string, value: string): void {
  const outgoing = (c.env as NodeBindings | undefined)?.outgoing;
  if (outgoing && typeof outgoing.setHeader === "function" && !outgoing.headersSent) outgoing.setHeader(name, value);
  else c.header(name, value);
}
