/**
 * `requireAuthority(scope, options)`: the one middleware a service that relies on the AVM puts in
 * front of a privileged route. Its one job: ask the AVM whether the caller holds `scope` now, and
 * let the request through only on a clear yes. Spec rule 2 — when the AVM is unavailable, callers
 * are denied by default — so every other outcome is a refusal:
 *
 *   caller not identified                            401 unauthorized
 *   the AVM errs, times out, answers garbage,        503 authority-unavailable
 *     or there is no AVM (no ledger)
 *   no authority, an expired grant, scope not held   403 forbidden
 *
 * Nothing is cached: each request asks, so a revocation takes effect on the next one. Who the
 * caller is comes from `identify` (the service's own authentication — a session, mTLS, a signed
 * request); this middleware does not authenticate, it authorizes. Where the answer comes from is
 * `source`: `ledgerAuthority` in a process that holds the ledger, `avmOverHttp` for a service that
 * calls the AVM's `GET /avm/check/{ledger_id}`. The verified answer is on the context as `authority`.
 */
import type { Context, MiddlewareHandler } from "hono";
import { grantCovers } from "../../core/avm/policy.ts";
import { avmRegistry, checkAuthority } from "../../core/avm/registry.ts";
import type { LedgerWriter } from "../../core/ledger/store.ts";
import { AvmCheckResponse, type Scope } from "../../core/schemas/avm.ts";
import { problem } from "../problems/problem.ts";

/** The AVM's answer for a ledger_id; rejects (or never settles) when it cannot answer. */
export type AuthoritySource = (ledgerId: string, signal: AbortSignal) => Promise<unknown>;

export interface RequireAuthorityOptions {
  /** Where the answer comes from; undefined: there is no AVM, and every request is denied. */
  source: AuthoritySource | undefined;
  /** The authenticated caller's ledger_id, or null. */
  identify: (c: Context) => string | null | Promise<string | null>;
  /** How long to wait for the AVM (default 2 s); then the request is denied. */
  timeoutMs?: number;
  /** The service's clock, to refuse a grant the AVM reports that has expired by now. */
  now?: () => Date;
  /** The `WWW-Authenticate` challenge of a 401 (the service's authentication scheme). */
  challenge?: string;
}

export type AuthorityVariables = { authority: { ledger_id: string; scopes: Scope[]; expires_at: string } };

export const DEFAULT_AUTHORITY_TIMEOUT_MS = 2000;

/** A source in the process that holds the ledger: the registry caught up to the tail, the injected clock. */
export function ledgerAuthority(ledger: LedgerWriter | undefined, now: () => Date): AuthoritySource | undefined {
  if (!ledger) return undefined;
  return async (ledgerId) => checkAuthority(await ledger.state(avmRegistry), ledgerId, now().getTime());
}

/** A source over HTTP: `GET <baseUrl>/avm/check/{ledger_id}`; anything but a 200 is no answer. */
export function avmOverHttp(baseUrl: string, fetcher: typeof fetch = fetch): AuthoritySource {
  const base = baseUrl.replace(/\/+$/, "");
  return async (ledgerId, signal) => {
    const res = await fetcher(`${base}/avm/check/${encodeURIComponent(ledgerId)}`, {
      signal,
      headers: { Accept: "application/json" },
    });
    if (res.status !== 200) throw new Error(`the AVM answered ${res.status}`);
    return res.json();
  };
}

export function requireAuthority(
  scope: Scope,
  options: RequireAuthorityOptions,
): MiddlewareHandler<{ Variables: AuthorityVariables }> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_AUTHORITY_TIMEOUT_MS;
  const now = options.now ?? (() => new Date());
  const challenge = options.challenge ?? 'Bearer realm="integrity-platform"';
  return async function requireAuthority(c, next) {
    let ledgerId: string | null;
    try {
      ledgerId = await options.identify(c);
    } catch {
      ledgerId = null;
    }
    if (!ledgerId)
      return problem(c, "unauthorized", `this route needs authority for ${scope}: identify yourself first`, {
        headers: { "WWW-Authenticate": challenge },
      });
    const unavailable = (why: string) =>
      problem(
        c,
        "authority-unavailable",
        `the authority verification service cannot answer (${why}); denied by default`,
      );
    if (!options.source) return unavailable("no AVM is configured");

    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new Error("timeout"));
      }, timeoutMs);
    });
    let answer: unknown;
    try {
      answer = await Promise.race([options.source(ledgerId, controller.signal), timeout]);
    } catch (error) {
      return unavailable((error as Error).message === "timeout" ? `no answer within ${timeoutMs} ms` : "it failed");
    } finally {
      clearTimeout(timer);
    }
    const parsed = AvmCheckResponse.safeParse(answer);
    if (!parsed.success) return unavailable("its answer is not a check response");
    const { has_authority, scopes, expires_at } = parsed.data;
    if (!has_authority || expires_at === null || !(now().getTime() < Date.parse(expires_at))) {
      return problem(c, "forbidden", `${ledgerId} holds no authority in force`);
    }
    if (!grantCovers(scopes, scope))
      return problem(c, "forbidden", `${ledgerId}'s authority (${scopes.join(", ")}) does not cover ${scope}`);
    c.set("authority", { ledger_id: ledgerId, scopes, expires_at });
    return next();
  };
}
