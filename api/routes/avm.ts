/**
 * The authority verification (AVM) routes. Each parses, calls core/avm, and answers; every
 * decision is one conditional write (`ledger.write(decide)`) whose `decide` reads the AVM registry
 * caught up to the ledger's tail inside the write transaction, so checks, replay refusal and
 * automatic revocations are atomic across concurrent requests, API instances and processes.
 *
 *   POST /avm/verify                     the five stages (core/avm/verifier.ts); attempt + grant in one write
 *   GET  /avm/check/{ledger_id}          the check response at the injected now
 *   POST /avm/revoke                     token with `avm.revoke`; always recorded
 *   POST /avm/operator/<command>         token with `avm.operate`; the `npm run avm` commands over HTTP
 *
 * Every write answers `Ledger-Seq`, the sequence number of the entry that records its outcome.
 * POST /avm/verify logs every attempt: a decided one in its decision's write, a refused one (400,
 * 403, 413, 415) by the app's gate api/middleware/verify-attempts.ts, which also holds the
 * per-client daily quota that keeps the log from being a way to flood the ledger.
 */
import { randomUUID } from "node:crypto";
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { signedForms } from "../../core/avm/messages.ts";
import { isCanonicalizableJson } from "../../core/canonical.ts";
import * as ops from "../../core/avm/operations.ts";
import { avmRegistry, checkAuthority, tokenChainStanding, type AvmRegistry } from "../../core/avm/registry.ts";
import { signToken, type TokenClaims } from "../../core/avm/token.ts";
import { signatureQuestions, verifyAuthority, type VerifyOutcome } from "../../core/avm/verifier.ts";
import { LedgerAppendError, type NewEvent } from "../../core/ledger/store.ts";
import { SignatureVerdicts } from "../../core/signature-verdicts.ts";
import { AvmVerifyRequest, TokenPermission, type AvmRevokeRequest } from "../../core/schemas/avm.ts";
import { examples } from "../../core/schemas/examples.ts";
import { Identifier, IsoTimestamp, Uuid } from "../../core/schemas/common.ts";
import { requireToken, type Platform, type TokenVariables } from "../middleware/require-token.ts";
import { WRITE_TOKEN_SCHEME } from "../openapi.ts";
import { problem, type ProblemSlug } from "../problem.ts";
import { component, headers, json, published } from "../responses.ts";
import { SignaturePool } from "../signature-pool.ts";
import { addRoute, defineRoute, routeGroup, type RouteContext, type RouteGroup } from "../route.ts";
import { storeUnavailable } from "./store-failure.ts";

export interface AvmRouteOptions {
  /** The ledger, token key and clock; undefined: the routes fail closed (503 / 401). */
  platform: Platform | undefined;
  /** The token key's secret half (hex Ed25519 seed): without it POST /avm/operator/issue-token answers 503. */
  tokenSecretKeyHex?: string;
  /** Where verify requests' signatures are checked ahead of the decision; default the process's shared pool. */
  signaturePool?: SignaturePool;
}

const TAGS = ["Authority verification"];
const SEQ = headers("Ledger-Seq");
const WRITE_SECURITY = [{ [WRITE_TOKEN_SCHEME]: [] }];

// ---------------------------------------------------------------------------------------------
// Declarations

/**
 * The verify body as the route validates and describes it: the spec's request (core AvmVerifyRequest),
 * its `companion_attestation` described as a JSON object (its content is the attestation stage's
 * to judge; the recursive JSON type is not something the description generator can walk).
 */
const AttestationObject = AvmVerifyRequest.shape.companion_attestation;
export const VerifyRequestBody = component(
  "avm-verify-request",
  AvmVerifyRequest.extend({
    companion_attestation: z
      // The body is JSON.parse's output: a JSON object RFC 8785 can encode is what AttestationObject admits.
      .custom<z.output<typeof AttestationObject>>((value) => typeof value === "object" && value !== null && !Array.isArray(value) && isCanonicalizableJson(value), { message: "must be a JSON object that RFC 8785 can encode" })
      .openapi({ type: "object", additionalProperties: true, description: "The companion attestation as issued (any JSON object: its fields are judged by the attestation stage)" }),
  }),
  examples["avm-verify-request"],
);

const jsonBody = (schema: z.ZodType) => ({ body: { required: true, content: { "application/json": { schema } } } });

export const verifyRoute = defineRoute({
  method: "post",
  path: "/avm/verify",
  tags: TAGS,
  summary: "Verify authority: identity, stake, attestation, scope, temporal",
  description:
    "Runs the five stages in order; the first failure ends the attempt. Success answers the authority_context; a failed verification answers the failure output with `verified: false`, also with 200 (the request was understood and decided). Every attempt is recorded on the ledger, and `Ledger-Seq` names the entry recording the outcome (the grant, or the failed attempt). A body that does not parse or fit is 400 (and recorded as a malformed attempt). At most 100 requests per client per UTC day.",
  request: jsonBody(VerifyRequestBody),
  responses: { 200: json("The authority_context, or the failure output", published("avm-verify-response").schema, { headers: headers("Ledger-Seq", "RateLimit-Policy", "RateLimit") }) },
  problems: ["rate-limited", "ledger-unavailable"],
});

export const checkRoute = defineRoute({
  method: "get",
  path: "/avm/check/{ledger_id}",
  tags: TAGS,
  summary: "Check an identity's authority now",
  description: "The grant in force: not revoked, not expired at the server's now, the identity not barred. Otherwise `has_authority: false`, no scopes and `expires_at: null`.",
  request: { params: z.strictObject({ ledger_id: Uuid }) },
  responses: { 200: json("The check response", published("avm-check-response").schema) },
  problems: ["ledger-unavailable"],
});

export const revokeRoute = defineRoute({
  method: "post",
  path: "/avm/revoke",
  tags: TAGS,
  summary: "Revoke an identity's authority",
  description:
    "Needs a token with the `avm.revoke` permission. Immediate and always recorded (`avm.revoke`): `revoked` says whether a grant in force ended. `integrity_violation` and `key_compromise` also bar the identity for good.",
  security: WRITE_SECURITY,
  request: jsonBody(published("avm-revoke-request").schema),
  responses: { 200: json("The revoke response", published("avm-revoke-response").schema, { headers: SEQ }) },
  problems: ["not-found", "ledger-unavailable"],
});

/** Whether a trigger revoked a grant in force (its automatic revocation was appended with it). */
const Revoked = z.boolean().openapi({ description: "An automatic revocation was appended with it: a grant in force ended" });
const Shards = z.string().regex(/^(0|[1-9][0-9]*)$/).openapi({ description: "An amount in shards (1 MIC = 1,000,000 shards), decimal text" });
const StakeResult = { ledger_id: Uuid, amount_shards: Shards, bonded_shards: Shards, unbonded_shards: Shards };

export const IssueTokenRequest = ops.IssueTokenInput.omit({ jti: true });

/** The operator operations over HTTP: the `npm run avm` commands, with core/avm/operations.ts's input schemas as bodies. */
const OPERATIONS = {
  "register-identity": {
    summary: "Register an identity (its ledger_id is derived from its key)",
    body: component("avm-register-identity", ops.RegisterIdentityInput),
    result: z.strictObject({ ledger_id: Uuid }),
  },
  "register-companion": { summary: "Register an AI companion's key", body: component("avm-register-companion", ops.RegisterCompanionInput), result: z.strictObject({ companion_id: Identifier }) },
  "lock-stake": {
    summary: "Lock stake (MIC as exact decimal text), accepting the slashing conditions or not",
    body: component("avm-lock-stake", ops.LockStakeInput),
    result: z.strictObject(StakeResult),
  },
  "withdraw-stake": {
    summary: "Withdraw stake (unbonded first); revokes a grant it leaves under-staked",
    body: component("avm-withdraw-stake", ops.WithdrawStakeInput),
    result: z.strictObject({ ...StakeResult, revoked: Revoked }),
  },
  "record-drift": { summary: "Record a drift score; above 0.1 it revokes the grant in force", body: component("avm-record-drift", ops.RecordDriftInput), result: z.strictObject({ ledger_id: Uuid, revoked: Revoked }) },
  "report-violation": {
    summary: "Report an integrity violation; it bars the identity and revokes its grant",
    body: component("avm-report-violation", ops.ReportViolationInput),
    result: z.strictObject({ ledger_id: Uuid, revoked: Revoked }),
  },
  "signal-concern": {
    summary: "A registered companion signals concern; it revokes the grant in force",
    body: component("avm-signal-concern", ops.SignalConcernInput),
    result: z.strictObject({ ledger_id: Uuid, revoked: Revoked }),
  },
  "issue-token": {
    summary: "Issue an operator token (permissions within your own, expiring no later than yours)",
    body: component("avm-issue-token", IssueTokenRequest),
    result: z.strictObject({ token: z.string(), jti: Uuid, subject: Identifier, permissions: z.array(TokenPermission), expires_at: IsoTimestamp }),
  },
  "revoke-token": { summary: "Revoke an operator token", body: component("avm-revoke-token", ops.RevokeTokenInput), result: z.strictObject({ jti: Uuid, revoked: z.literal(true) }) },
} as const;
type OperationName = keyof typeof OPERATIONS;

function operatorRoute<N extends OperationName>(name: N) {
  const { summary, body, result } = OPERATIONS[name];
  const problems: ProblemSlug[] = ["not-found", "conflict", "ledger-unavailable"];
  if (name === "issue-token") problems.push("forbidden", "signing-unavailable");
  return defineRoute({
    method: "post",
    path: `/avm/operator/${name}`,
    tags: TAGS,
    summary,
    description: `Needs a token with the \`avm.operate\` permission. The same operation as \`npm run avm -- ${name}\`: decided at the ledger's tail and appended with the automatic revocations it triggers, in one transaction. \`Ledger-Seq\` is the seq of its first entry.`,
    security: WRITE_SECURITY,
    request: jsonBody(body),
    responses: { 200: json("What the operation recorded", component(`avm-operator-${name}-result`, result), { headers: SEQ }) },
    problems,
  });
}

// ---------------------------------------------------------------------------------------------
// Handlers

/** The outcome of an operation decided inside a write: its events were appended, or a refusal. */
type Decided<T> = { ok: true; result: T } | { ok: false; code: ops.OperationErrorCode; message: string };

const REFUSAL_PROBLEM: Record<ops.OperationErrorCode, ProblemSlug> = { invalid: "invalid-body", not_found: "not-found", conflict: "conflict" };

/** The operator token still holds at the tail: recorded, nothing of its chain revoked (a revocation may have landed since the check). */
function tokenHolds(registry: AvmRegistry, claims: TokenClaims): boolean {
  return tokenChainStanding(registry, claims.jti) === "held";
}

export function avmRoutes(options: AvmRouteOptions): RouteGroup {
  const { platform } = options;
  const signaturePool = options.signaturePool ?? SignaturePool.shared();
  const routes = routeGroup();
  const unavailable = (c: Context) => problem(c, "ledger-unavailable", "This server has no ledger: authority cannot be decided, so nothing is granted (fail closed).");

  /**
   * One conditional write for a decision: `decide` runs in the write transaction with the AVM
   * registry at the tail. Store failures answer 503; a money event inside the migration freeze
   * window is a 409 conflict.
   */
  async function decided<T>(
    c: Context,
    decide: (registry: AvmRegistry) => { events: readonly NewEvent[]; result: Decided<T> },
  ): Promise<{ ok: true; result: T; seq: number | null } | { ok: false; response: Response }> {
    if (!platform) return { ok: false, response: unavailable(c) };
    let written;
    try {
      written = await platform.ledger.write((tail) => decide(tail.state(avmRegistry)));
    } catch (error) {
      if (error instanceof LedgerAppendError && error.code === "migration-freeze") return { ok: false, response: problem(c, "conflict", error.message) };
      return { ok: false, response: storeUnavailable(c, error) };
    }
    const outcome = written.result;
    if (!outcome.ok) return { ok: false, response: problem(c, REFUSAL_PROBLEM[outcome.code], outcome.message) };
    return { ok: true, result: outcome.result, seq: written.entries[0]?.seq ?? null };
  }

  // POST /avm/verify: its quota and the log of its refusals are the app's gate ahead of the body
  // limit and the origin check (api/middleware/verify-attempts.ts).
  addRoute(routes, verifyRoute, async (c) => {
    if (!platform) return unavailable(c);
    const request = c.req.valid("json") as AvmVerifyRequest;
    let written;
    try {
      // The signatures are verified on the signature pool, outside the write lock; the decision at
      // the tail reuses the verdicts for the keys it finds there (core/signature-verdicts.ts).
      const forms = signedForms(request);
      const questions = signatureQuestions(request, forms, platform.ledger.stateSeen(avmRegistry));
      const signatures = new SignatureVerdicts(questions, await signaturePool.verify(questions));
      written = await platform.ledger.write((tail) => {
        // The time of the decision is read at the tail, after the wait on the pool and the lock.
        const outcome: VerifyOutcome = verifyAuthority(request, tail.state(avmRegistry), platform.now().getTime(), { forms, signatures });
        return { events: outcome.events, result: outcome };
      });
    } catch (error) {
      return storeUnavailable(c, error);
    }
    return c.json(written.result.response, 200, { "Ledger-Seq": String(written.entries.at(-1)!.seq), "Cache-Control": "no-store" });
  });

  addRoute(routes, checkRoute, (c) => {
    if (!platform) return unavailable(c);
    try {
      const registry = platform.ledger.state(avmRegistry);
      return c.json(checkAuthority(registry, c.req.valid("param").ledger_id, platform.now().getTime()), 200, { "Cache-Control": "no-store" });
    } catch (error) {
      return storeUnavailable(c, error);
    }
  });

  routes.post(revokeRoute.path, requireToken("avm.revoke", platform));
  addRoute(routes, revokeRoute, async (c) => {
    const claims = (c as unknown as Context<{ Variables: TokenVariables }>).get("token");
    const nowMs = platform!.now().getTime();
    const input = c.req.valid("json") as AvmRevokeRequest;
    const d = await decided(c, (registry) => refusedUnlessHeld(registry, claims) ?? outcome(ops.revokeAuthority(registry, input, nowMs)));
    if (!d.ok) return d.response;
    return c.json(d.result, 200, { "Ledger-Seq": String(d.seq) });
  });

  for (const name of Object.keys(OPERATIONS) as OperationName[]) {
    const route = operatorRoute(name);
    routes.post(route.path, requireToken("avm.operate", platform));
    addRoute(routes, route, async (c: RouteContext<typeof route>) => {
      const claims = (c as unknown as Context<{ Variables: TokenVariables }>).get("token");
      const nowMs = platform!.now().getTime();
      const input = c.req.valid("json") as Record<string, unknown>;
      if (name === "issue-token") return issueToken(c, claims, input, nowMs);
      const d = await decided(c, (registry) => refusedUnlessHeld(registry, claims) ?? outcome(operate(name, registry, input, nowMs)));
      if (!d.ok) return d.response;
      return c.json(d.result as object, 200, { "Ledger-Seq": String(d.seq) });
    });
  }

  /** issue-token: within the caller's permissions and lifetime; signed before anything is recorded. */
  async function issueToken(c: Context, caller: TokenClaims, input: Record<string, unknown>, nowMs: number): Promise<Response> {
    if (!options.tokenSecretKeyHex) return problem(c, "signing-unavailable", "This server does not hold the token signing key; issue tokens with `npm run avm -- issue-token` where the key is.");
    const request = { ...(input as z.output<typeof IssueTokenRequest>), jti: randomUUID() };
    const preview = ops.issueToken(avmRegistry.initial(), request, nowMs);
    if (!preview.ok) return problem(c, REFUSAL_PROBLEM[preview.code], preview.message);
    const claims = preview.result.claims;
    const beyond = claims.permissions.filter((p) => !caller.permissions.includes(p));
    if (beyond.length > 0) return problem(c, "forbidden", `your token does not hold ${beyond.join(", ")}: a token can only issue permissions it holds`);
    if (claims.exp > caller.exp) return problem(c, "forbidden", `the new token would outlive yours (${new Date(caller.exp * 1000).toISOString()}); ask for a shorter ttl_seconds`);
    const token = await signToken(claims, options.tokenSecretKeyHex);
    const d = await decided(c, (registry) => refusedUnlessHeld(registry, caller) ?? outcome(ops.issueToken(registry, request, nowMs, caller.jti)));
    if (!d.ok) return d.response;
    const body = { token, jti: claims.jti, subject: claims.sub, permissions: claims.permissions, expires_at: new Date(claims.exp * 1000).toISOString() };
    return c.json(body, 200, { "Ledger-Seq": String(d.seq), "Cache-Control": "no-store" });
  }

  return routes;
}

/** A decide's answer when the caller's token was revoked since its check (401 is requireToken's; here the write is simply refused). */
function refusedUnlessHeld(registry: AvmRegistry, claims: TokenClaims): { events: NewEvent[]; result: Decided<never> } | null {
  return tokenHolds(registry, claims) ? null : { events: [], result: { ok: false, code: "conflict", message: `the token ${claims.jti} was revoked before this write; nothing was recorded` } };
}

function outcome<T>(op: ops.Operation<T>): { events: NewEvent[]; result: Decided<T> } {
  return op.ok ? { events: op.events, result: { ok: true, result: op.result } } : { events: [], result: op };
}

/** The operation a route names, on the registry at the tail. */
function operate(name: Exclude<OperationName, "issue-token">, registry: AvmRegistry, input: Record<string, unknown>, nowMs: number): ops.Operation<object> {
  const i = input as never;
  switch (name) {
    case "register-identity":
      return ops.registerIdentity(registry, i);
    case "register-companion":
      return ops.registerCompanion(registry, i);
    case "lock-stake":
      return ops.lockStake(registry, i);
    case "withdraw-stake":
      return ops.withdrawStake(registry, i, nowMs);
    case "record-drift":
      return withLedgerId(ops.recordDrift(registry, i, nowMs), input);
    case "report-violation":
      return withLedgerId(ops.reportViolation(registry, i, nowMs), input);
    case "signal-concern":
      return withLedgerId(ops.signalConcern(registry, i, nowMs), input);
    case "revoke-token": {
      const op = ops.revokeToken(registry, i);
      return op.ok ? { ...op, result: { ...op.result, revoked: true } } : op;
    }
  }
}

function withLedgerId(op: ops.Operation<{ revoked: boolean }>, input: Record<string, unknown>): ops.Operation<object> {
  return op.ok ? { ...op, result: { ledger_id: input.ledger_id as string, ...op.result } } : op;
}
