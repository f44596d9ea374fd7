/**
 * The one way an authenticated write route is declared (docs/api-structure.md). For every such
 * route, in order:
 *
 *   1. the token check before anything else (requireToken: missing, invalid, expired, unrecorded,
 *      revoked or lacking the permission → 401), then the declaration's validators (parse);
 *   2. the handler, which decides with `write.commit(decide)`: one conditional ledger write whose
 *      `decide` runs inside the write transaction at the ledger's tail. There the token is checked
 *      again — still recorded, not revoked, not expired — before `decide` runs, so a revocation
 *      that committed while this request was on its way refuses it (401) and nothing is written;
 *      checked only before the write, a racing revoke let writes land after `token.revoked`;
 *   3. the answer, with `Ledger-Seq`: the seq of the first entry the write appended.
 *
 * A refusal of `decide`, and a write that throws, are answered by api/problems/refusals.ts (the one
 * mapping from codes to problems): a store that cannot be written is 503 `ledger-unavailable`, a
 * money event in the migration freeze window 409.
 */
import type { Context, MiddlewareHandler } from "hono";
import { avmRegistry, tokenChainStanding, type AvmRegistry } from "../../core/avm/registry.ts";
import type { TokenClaims } from "../../core/avm/token.ts";
import type { Decision } from "../../core/ledger/decision.ts";
import type { LedgerEntry } from "../../core/ledger/entry.ts";
import type { WriteTail } from "../../core/ledger/store.ts";
import type { TokenPermission } from "../../core/schemas/avm.ts";
import { writeFailed } from "../problems/refusals.ts";
import { requireToken, TOKEN_CHALLENGE, type TokenVariables } from "../middleware/require-token.ts";
import type { Platform } from "../sources/platform.ts";
import { problem } from "../problems/problem.ts";
import { addRoute, type AppEnv, type DeclaredRoute, type RouteContext, type RouteGroup } from "./route.ts";

/** A committed write (its entries durable), or the answer to give instead. */
export type Committed<T> = { ok: true; result: T; entries: LedgerEntry[] } | { ok: false; response: Response };

/** What a write route's handler gets besides its context. */
export interface WriteRequest<F extends object> {
  /** The caller's verified token. */
  readonly claims: TokenClaims;
  readonly platform: Platform;
  /** One conditional write: the token checked again at the tail, then `decide`, then its events appended. */
  commit<T>(decide: (tail: WriteTail) => Decision<T, F>): Promise<Committed<T>>;
}

export interface WriteRouteGroup<F extends object> {
  /** Adds `route`: the token (with `permission`) checked first, then its validators, then `handler`. */
  add<R extends DeclaredRoute>(
    route: R,
    permission: TokenPermission,
    handler: (c: RouteContext<R>, write: WriteRequest<F>) => Promise<Response>,
  ): void;
}

/** The token is still authority at the tail: recorded, not revoked since the first check, not expired by now. */
export function tokenHolds(registry: AvmRegistry, claims: TokenClaims, nowMs: number): boolean {
  // Recorded, and no token of its chain (its issuer, theirs, …) revoked: a revocation may have landed since the check.
  return tokenChainStanding(registry, claims.jti) === "held" && nowMs < claims.exp * 1000;
}

/** Marks a decision refused because the token no longer held at the tail. */
const TOKEN_LAPSED = "token-lapsed";

/**
 * The write routes of `group`, over `platform` (undefined: every write is 401, fail closed).
 * `refused` answers a decision's refusal as a problem (api/problems/problem.ts, api/problems/consensus.ts).
 */
export function writeRoutes<F extends object>(
  group: RouteGroup,
  platform: Platform | undefined,
  refused: (c: Context, failure: F) => Response,
): WriteRouteGroup<F> {
  return {
    add(route, permission, handler) {
      const honoPath = route.path.replaceAll(/\{([^}]+)\}/g, ":$1");
      group.on(
        route.method.toUpperCase(),
        honoPath,
        requireToken(permission, platform) as unknown as MiddlewareHandler<AppEnv>,
      );
      addRoute(group, route, async (c) => {
        // requireToken answered 401 without a platform, so there is one here.
        const claims = (c as unknown as Context<{ Variables: TokenVariables }>).get("token");
        let appended: LedgerEntry[] = [];
        const write: WriteRequest<F> = {
          claims,
          platform: platform!,
          async commit(decide) {
            const committed = await commitAtTail(c, platform!, claims, decide, refused);
            if (committed.ok) appended = committed.entries;
            return committed;
          },
        };
        const response = await handler(c, write);
        const first = appended[0];
        if (first && response.ok && !response.headers.has("Ledger-Seq"))
          response.headers.set("Ledger-Seq", String(first.seq));
        return response;
      });
    },
  };
}

async function commitAtTail<T, F extends object>(
  c: Context,
  platform: Platform,
  claims: TokenClaims,
  decide: (tail: WriteTail) => Decision<T, F>,
  refused: (c: Context, failure: F) => Response,
): Promise<Committed<T>> {
  let written;
  try {
    written = await platform.ledger.write<Decision<T, F> | typeof TOKEN_LAPSED>((tail) => {
      if (!tokenHolds(tail.state(avmRegistry), claims, platform.now().getTime()))
        return { events: [], result: TOKEN_LAPSED };
      const decision = decide(tail);
      return { events: decision.ok ? decision.events : [], result: decision };
    });
  } catch (error) {
    return { ok: false, response: writeFailed(c, error) };
  }
  const decision = written.result;
  if (decision === TOKEN_LAPSED) {
    const detail = `the token ${claims.jti} was revoked or expired before this write was decided; nothing was recorded`;
    return { ok: false, response: problem(c, "unauthorized", detail, { headers: TOKEN_CHALLENGE }) };
  }
  if (!decision.ok) return { ok: false, response: refused(c, decision) };
  return { ok: true, result: decision.result, entries: written.entries };
}
