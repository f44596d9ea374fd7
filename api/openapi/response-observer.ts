/**
 * The seam of the contract check: while a check is installed — the test suite installs one in
 * its setup file (test/support/api/contract/setup.ts), so every API test gets it — each app created afterwards
 * hands every response, with its request and the app's OpenAPI document, to the check. Nothing
 * is installed in production, and then createApp adds no layer at all.
 */
import type { MiddlewareHandler } from "hono";
import type { OpenApiDocument } from "./document.ts";

export interface Exchange {
  method: string;
  /** The request path as routed (percent-decoded by Hono). */
  path: string;
  requestHeaders: Headers;
  /** A copy of the response; reading it does not consume the client's. */
  response: Response;
  /** The OpenAPI document of the app that answered. */
  document: () => OpenApiDocument;
}

export type ResponseCheck = (exchange: Exchange) => void;

let installed: ResponseCheck | null = null;

/** Installs (or with null removes) the check every app created afterwards reports to. */
export function installResponseCheck(check: ResponseCheck | null): void {
  installed = check;
}

/** The outermost middleware reporting to the installed check, or null when none is installed. */
export function responseObserver(document: () => OpenApiDocument): MiddlewareHandler | null {
  const check = installed;
  if (!check) return null;
  let cached: OpenApiDocument | undefined;
  const describe = () => (cached ??= document());
  return async function observeResponse(c, next) {
    await next();
    // An accepted WebSocket upgrade is a 101 on the wire, which a Response cannot carry: nothing to check.
    if (c.res.status === 200 && c.req.header("upgrade")?.toLowerCase() === "websocket") return;
    check({
      method: c.req.method,
      path: c.req.path,
      requestHeaders: c.req.raw.headers,
      response: c.res.clone(),
      document: describe,
    });
  };
}

/** The installed check, or null (tests swap it around an app of their own). */
export function installedResponseCheck(): ResponseCheck | null {
  return installed;
}
