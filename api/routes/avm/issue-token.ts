/**
 * POST /avm/operator/issue-token: a token issued over HTTP, within the caller's own permissions
 * and lifetime, signed with the token key before anything is recorded, then recorded
 * (`token.issued`) by one write at the ledger's tail (api/openapi/write-route.ts).
 */
import { randomUUID } from "node:crypto";
import type { Context } from "hono";
import { z } from "zod";
import * as ops from "../../../core/avm/operations.ts";
import { avmRegistry } from "../../../core/avm/registry.ts";
import { signToken } from "../../../core/avm/token.ts";
import { problem } from "../../problems/problem.ts";
import type { WriteRequest } from "../../openapi/write-route.ts";
import { operationRefused } from "../../problems/refusals.ts";

/** The request body: the operation's input without `jti`, which the server draws. */
export const IssueTokenRequest = ops.IssueTokenInput.omit({ jti: true });

export async function issueTokenOverHttp(
  c: Context,
  write: WriteRequest<{ code: ops.OperationErrorCode; message: string }>,
  input: z.output<typeof IssueTokenRequest>,
  secretKeyHex: string | undefined,
): Promise<Response> {
  if (!secretKeyHex)
    return problem(
      c,
      "signing-unavailable",
      "This server does not hold the token signing key; issue tokens with `npm run avm -- issue-token` where the key is.",
    );
  const caller = write.claims;
  const nowMs = write.platform.now().getTime();
  const request = { ...input, jti: randomUUID() };
  const preview = ops.issueToken(avmRegistry.initial(), request, nowMs);
  if (!preview.ok) return operationRefused(c, preview);
  const claims = preview.result.claims;
  const beyond = claims.permissions.filter((p) => !caller.permissions.includes(p));
  if (beyond.length > 0)
    return problem(
      c,
      "forbidden",
      `your token does not hold ${beyond.join(", ")}: a token can only issue permissions it holds`,
    );
  if (claims.exp > caller.exp)
    return problem(
      c,
      "forbidden",
      `the new token would outlive yours (${new Date(caller.exp * 1000).toISOString()}); ask for a shorter ttl_seconds`,
    );
  const token = await signToken(claims, secretKeyHex);
  // The new token records its issuer: it holds only while no token of its chain is revoked.
  const out = await write.commit((tail) => ops.issueToken(tail.state(avmRegistry), request, nowMs, caller.jti));
  if (!out.ok) return out.response;
  const body = {
    token,
    jti: claims.jti,
    subject: claims.sub,
    permissions: claims.permissions,
    expires_at: new Date(claims.exp * 1000).toISOString(),
  };
  return c.json(body, 200, { "Cache-Control": "no-store" });
}
