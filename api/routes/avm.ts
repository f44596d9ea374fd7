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
 * This file declares the routes; what they run is elsewhere: the token-checked writes
 * (api/openapi/write-route.ts), the operator commands (api/routes/avm/operator-dispatch.ts), token issuance
 * (api/routes/avm/issue-token.ts). POST /avm/verify logs every attempt: a decided one in its decision's
 * write, a refused one (400, 403, 413, 415) by the app's gate api/middleware/verify-attempts.ts,
 * which also holds the per-client daily quota that keeps the log from being a way to flood the ledger.
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { signedForms } from "../../core/avm/messages.ts";
import { isCanonicalizableJson } from "../../core/canonical.ts";
import * as ops from "../../core/avm/operations.ts";
import { avmRegistry, checkAuthority } from "../../core/avm/registry.ts";
import { signatureQuestions, verifyAuthority, type VerifyOutcome } from "../../core/avm/verifier.ts";
import { SignatureVerdicts } from "../../core/signature-verdicts.ts";
import {
  AvmVerifyRequest,
  TokenPermission,
  type AvmRevokeRequest,
  type AvmVerifyResponse,
} from "../../core/schemas/avm.ts";
import { withExactMicFigures } from "../../core/balance/exact-json.ts";
import { examples } from "../../core/schemas/examples.ts";
import { Identifier, IsoTimestamp, Uuid } from "../../core/schemas/common.ts";
import { IssueTokenRequest, issueTokenOverHttp } from "./avm/issue-token.ts";
import { operate, OPERATOR_COMMANDS, type OperatorCommand } from "./avm/operator-dispatch.ts";
import { operationRefused } from "../problems/refusals.ts";
import { WRITE_TOKEN_SCHEME } from "../openapi/document.ts";
import type { Platform } from "../sources/platform.ts";
import { problem, type ProblemSlug } from "../problems/problem.ts";
import { component, headers, json, published } from "../openapi/responses.ts";
import { SignaturePool } from "../workers/signature-pool.ts";
import { addRoute, defineRoute, routeGroup, type RouteContext, type RouteGroup } from "../openapi/route.ts";
import { writeRoutes } from "../openapi/write-route.ts";
import { AVM_WRITE_EXAMPLES } from "../openapi/examples/avm.ts";
import { storeUnavailable } from "../problems/store-failure.ts";

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
      .custom<z.output<typeof AttestationObject>>(
        (value) => typeof value === "object" && value !== null && !Array.isArray(value) && isCanonicalizableJson(value),
        { message: "must be a JSON object that RFC 8785 can encode" },
      )
      .openapi({
        type: "object",
        additionalProperties: true,
        description:
          "The companion attestation as issued (any JSON object: its fields are judged by the attestation stage)",
      }),
  }),
  examples["avm-verify-request"],
);

const jsonBody = (schema: z.ZodType, example?: unknown) => ({
  body: { required: true, content: { "application/json": { schema, ...(example !== undefined ? { example } : {}) } } },
});

export const verifyRoute = defineRoute({
  method: "post",
  path: "/avm/verify",
  tags: TAGS,
  summary: "Verify authority: identity, stake, attestation, scope, temporal",
  description:
    "Runs the five stages in order; the first failure ends the attempt. Success answers the authority_context; a failed verification answers the failure output with `verified: false`, also with 200 (the request was understood and decided). Every attempt is recorded on the ledger, and `Ledger-Seq` names the entry recording the outcome (the grant, or the failed attempt). A body that does not parse or fit is 400 (and recorded as a malformed attempt). At most 100 requests per client per UTC day.",
  request: jsonBody(VerifyRequestBody),
  responses: {
    200: json("The authority_context, or the failure output", published("avm-verify-response").schema, {
      headers: headers("Ledger-Seq", "RateLimit-Policy", "RateLimit"),
    }),
  },
  problems: ["rate-limited", "limits-unavailable", "ledger-unavailable"],
});

export const checkRoute = defineRoute({
  method: "get",
  path: "/avm/check/{ledger_id}",
  tags: TAGS,
  summary: "Check an identity's authority now",
  description:
    "The grant in force: not revoked, not expired at the server's now, the identity not barred. Otherwise `has_authority: false`, no scopes and `expires_at: null`.",
  request: { params: z.strictObject({ ledger_id: Uuid }) },
  // The example is what the sample server answers for the example id, which holds no grant.
  responses: {
    200: json("The check response", published("avm-check-response").schema, {
      example: { has_authority: false, scopes: [], expires_at: null },
    }),
  },
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
  request: jsonBody(published("avm-revoke-request").schema, AVM_WRITE_EXAMPLES.revoke.request),
  responses: {
    200: json("The revoke response", published("avm-revoke-response").schema, {
      headers: SEQ,
      example: AVM_WRITE_EXAMPLES.revoke.response,
    }),
  },
  problems: ["not-found", "ledger-unavailable"],
});

/** Whether a trigger revoked a grant in force (its automatic revocation was appended with it). */
const Revoked = z
  .boolean()
  .openapi({ description: "An automatic revocation was appended with it: a grant in force ended" });
const Shards = z
  .string()
  .regex(/^(0|[1-9][0-9]*)$/)
  .openapi({ description: "An amount in shards (1 MIC = 1,000,000 shards), decimal text" });
const StakeResult = { ledger_id: Uuid, amount_shards: Shards, bonded_shards: Shards, unbonded_shards: Shards };

/** The operator operations over HTTP: the `npm run avm` commands, with core/avm/operations.ts's input schemas as bodies. */
const OPERATIONS = {
  "register-identity": {
    summary: "Register an identity (its ledger_id is derived from its key)",
    body: component("avm-register-identity", ops.RegisterIdentityInput),
    result: z.strictObject({ ledger_id: Uuid }),
  },
  "register-companion": {
    summary: "Register an AI companion's key",
    body: component("avm-register-companion", ops.RegisterCompanionInput),
    result: z.strictObject({ companion_id: Identifier }),
  },
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
  "record-drift": {
    summary: "Record a drift score; above 0.1 it revokes the grant in force",
    body: component("avm-record-drift", ops.RecordDriftInput),
    result: z.strictObject({ ledger_id: Uuid, revoked: Revoked }),
  },
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
    result: z.strictObject({
      token: z.string(),
      jti: Uuid,
      subject: Identifier,
      permissions: z.array(TokenPermission),
      expires_at: IsoTimestamp,
    }),
  },
  "revoke-token": {
    summary: "Revoke an operator token",
    body: component("avm-revoke-token", ops.RevokeTokenInput),
    result: z.strictObject({ jti: Uuid, revoked: z.literal(true) }),
  },
} as const satisfies Record<OperatorCommand, unknown>;

function operatorRoute<N extends OperatorCommand>(name: N) {
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
    request: jsonBody(body, AVM_WRITE_EXAMPLES[name].request),
    responses: {
      200: json("What the operation recorded", component(`avm-operator-${name}-result`, result), {
        headers: SEQ,
        example: AVM_WRITE_EXAMPLES[name].response,
      }),
    },
    problems,
  });
}

// ---------------------------------------------------------------------------------------------
// Handlers

export function avmRoutes(options: AvmRouteOptions): RouteGroup {
  const { platform } = options;
  const signaturePool = options.signaturePool ?? SignaturePool.shared();
  const routes = routeGroup();
  const writes = writeRoutes(routes, platform, operationRefused);
  // stake_locked is written from its exact shard count, never through a double (core/balance/exact-json.ts).
  const exactStake = (response: AvmVerifyResponse): AvmVerifyResponse =>
    response.verified
      ? { ...response, authority_context: withExactMicFigures(response.authority_context, ["stake_locked"]) }
      : response;
  const unavailable = (c: Context) =>
    problem(
      c,
      "ledger-unavailable",
      "This server has no ledger: authority cannot be decided, so nothing is granted (fail closed).",
    );

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
        const outcome: VerifyOutcome = verifyAuthority(request, tail.state(avmRegistry), platform.now().getTime(), {
          forms,
          signatures,
        });
        return { events: outcome.events, result: outcome };
      });
    } catch (error) {
      return storeUnavailable(c, error);
    }
    return c.json(exactStake(written.result.response), 200, {
      "Ledger-Seq": String(written.entries.at(-1)!.seq),
      "Cache-Control": "no-store",
    });
  });

  addRoute(routes, checkRoute, async (c) => {
    if (!platform) return unavailable(c);
    try {
      const registry = await platform.ledger.state(avmRegistry);
      return c.json(checkAuthority(registry, c.req.valid("param").ledger_id, platform.now().getTime()), 200, {
        "Cache-Control": "no-store",
      });
    } catch (error) {
      return storeUnavailable(c, error);
    }
  });

  writes.add(revokeRoute, "avm.revoke", async (c, write) => {
    const nowMs = write.platform.now().getTime();
    const input = c.req.valid("json") as AvmRevokeRequest;
    const out = await write.commit((tail) => ops.revokeAuthority(tail.state(avmRegistry), input, nowMs));
    if (!out.ok) return out.response;
    return c.json(out.result, 200);
  });

  for (const name of OPERATOR_COMMANDS) {
    const route = operatorRoute(name);
    writes.add(route, "avm.operate", async (c: RouteContext<typeof route>, write) => {
      const input = c.req.valid("json") as Record<string, unknown>;
      if (name === "issue-token")
        return issueTokenOverHttp(c, write, input as z.output<typeof IssueTokenRequest>, options.tokenSecretKeyHex);
      const nowMs = write.platform.now().getTime();
      const out = await write.commit((tail) => operate(name, tail.state(avmRegistry), input, nowMs));
      if (!out.ok) return out.response;
      return c.json(out.result, 200);
    });
  }

  return routes;
}
