/**
 * `requireToken(permission, platform)`: the write routes' bearer-token check (rule 3 of the spec:
 * missing, invalid, expired or insufficient → 401). The token is an operator JWT (core/avm/token.ts)
 * verified against the token key and the AVM registry caught up to the ledger's tail, so a token
 * revoked by any process is refused on the very next request. Fails closed: no ledger or no token
 * key configured, or an error while deciding, is a refusal, never a pass — 503 `ledger-unavailable`
 * with Retry-After when the store failed (the token may be good: the client should come back), 401
 * otherwise. The token is never logged.
 * The verified claims are on the context as `token` for the handler. This is the check before the
 * write; api/openapi/write-route.ts checks the token again inside the write transaction.
 */
import type { MiddlewareHandler } from "hono";
import { avmRegistry } from "../../core/avm/registry.ts";
import { verifyToken, type TokenClaims } from "../../core/avm/token.ts";
import type { TokenPermission } from "../../core/schemas/avm.ts";
import { bearerToken } from "../clients/bearer.ts";
import type { Platform } from "../sources/platform.ts";
import { problem } from "../problems/problem.ts";
import { isStoreFailure, storeUnavailable } from "../problems/store-failure.ts";

export type TokenVariables = { token: TokenClaims };

/** The challenge of every 401 a write route answers. */
export const TOKEN_CHALLENGE = { "WWW-Authenticate": 'Bearer realm="integrity-platform", error="invalid_token"' };

export function requireToken(
  permission: TokenPermission,
  platform: Platform | undefined,
): MiddlewareHandler<{ Variables: TokenVariables }> {
  return async function requireToken(c, next) {
    const deny = (detail: string) => problem(c, "unauthorized", detail, { headers: TOKEN_CHALLENGE });
    if (!platform)
      return deny(
        `this route needs a token with the ${permission} permission, and this server cannot check tokens (no ledger or token key is configured)`,
      );
    let verdict;
    try {
      const registry = await platform.ledger.state(avmRegistry);
      verdict = await verifyToken(bearerToken(c.req.header("Authorization")), {
        publicKeyHex: platform.tokenPublicKeyHex,
        nowMs: platform.now().getTime(),
        registry,
        permission,
      });
    } catch (error) {
      if (isStoreFailure(error)) return storeUnavailable(c, error);
      return deny("the token could not be checked; refused");
    }
    if (!verdict.ok)
      return deny(
        `a token with the ${permission} permission is required (Authorization: Bearer <token>): ${verdict.error.replaceAll("_", " ")}`,
      );
    c.set("token", verdict.claims);
    return next();
  };
}
