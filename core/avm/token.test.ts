import { SignJWT, UnsecuredJWT, importJWK } from "jose";
import { describe, expect, it } from "vitest";
import { publicKeyFromSecret } from "../signature.ts";
import { issueToken } from "./operations.ts";
import { iso, NOW, Scenario, signerFor } from "../../test/support/core/avm/helpers.ts";
import {
  signToken,
  TOKEN_AUDIENCE,
  TOKEN_ISSUER,
  tokenClaims,
  verifyToken,
  type TokenClaims,
  type TokenError,
} from "./token.ts";

const KEY = signerFor("token key").secretKeyHex;
const PUBLIC = publicKeyFromSecret("ed25519", KEY);
const JTI = "1b4e28ba-2fa1-4d2b-883f-0016d3cca427";

/** A registry where JTI was issued to operator-1 with avm.revoke for an hour from NOW. */
function issued(permissions: ("avm.revoke" | "consensus.write")[] = ["avm.revoke"]) {
  const s = new Scenario();
  const op = issueToken(s.registry, { jti: JTI, subject: "operator-1", permissions, ttl_seconds: 3600 }, NOW);
  if (!op.ok) throw new Error(op.message);
  s.apply(...op.events);
  return { s, claims: op.result.claims };
}

async function check(
  token: string | undefined,
  s: Scenario,
  nowMs = NOW + 1000,
  permission: "avm.revoke" | "consensus.write" = "avm.revoke",
) {
  const verdict = await verifyToken(token, { publicKeyHex: PUBLIC, nowMs, registry: s.registry, permission });
  return verdict.ok ? "ok" : verdict.error;
}

async function signedWith(
  payload: Record<string, unknown>,
  header: Record<string, unknown> = { alg: "EdDSA", typ: "JWT" },
): Promise<string> {
  const key = await importJWK(
    {
      kty: "OKP",
      crv: "Ed25519",
      x: Buffer.from(PUBLIC, "hex").toString("base64url"),
      d: Buffer.from(KEY, "hex").toString("base64url"),
    },
    "EdDSA",
  );
  return new SignJWT(payload).setProtectedHeader(header as { alg: string }).sign(key);
}

describe("operator tokens", () => {
  it("a token issued on the ledger verifies for its permission until it expires", async () => {
    const { s, claims } = issued(["avm.revoke", "consensus.write"]);
    const token = await signToken(claims, KEY);
    expect(token.split(".")).toHaveLength(3);
    expect(await check(token, s)).toBe("ok");
    expect(await check(token, s, NOW + 1000, "consensus.write")).toBe("ok");
    const verdict = await verifyToken(token, {
      publicKeyHex: PUBLIC,
      nowMs: NOW,
      registry: s.registry,
      permission: "avm.revoke",
    });
    expect(verdict).toEqual({ ok: true, claims });
    expect(await check(token, s, NOW + 3_600_000 - 1)).toBe("ok");
    expect(await check(token, s, NOW + 3_600_000)).toBe("expired");
  });

  it("refuses: missing, malformed, another key, not yet valid, not issued, revoked, permission missing", async () => {
    const { s, claims } = issued();
    const token = await signToken(claims, KEY);
    const cases: [string | undefined, TokenError][] = [
      [undefined, "missing"],
      ["", "missing"],
      ["not.a.jwt", "malformed"],
      ["x".repeat(5000), "malformed"],
      [await signToken(claims, signerFor("another key").secretKeyHex), "signature_invalid"],
      [`${token.slice(0, -2)}${token.endsWith("AA") ? "AB" : "AA"}`, "signature_invalid"],
    ];
    for (const [candidate, error] of cases)
      expect(await check(candidate, s), String(candidate).slice(0, 20)).toBe(error);
    expect(await check(token, s, NOW - 1000)).toBe("not_yet_valid");
    expect(await check(token, new Scenario())).toBe("not_issued");
    expect(await check(token, s, NOW + 1000, "consensus.write")).toBe("permission_missing");
    s.event("token.revoked", { jti: JTI, reason: "leaked" });
    expect(await check(token, s)).toBe("revoked");
  });

  it("a token whose claims differ from what the ledger issued is not issued", async () => {
    const { s, claims } = issued();
    for (const changed of [
      { ...claims, sub: "operator-2" },
      { ...claims, exp: claims.exp + 1 },
      { ...claims, permissions: ["avm.revoke", "consensus.write"] },
    ] as TokenClaims[]) {
      expect(await check(await signToken(changed, KEY), s)).toBe("not_issued");
    }
  });

  it("only EdDSA JWTs with exactly the token claims: alg none, other typ, extra or missing claims are malformed", async () => {
    const { s, claims } = issued();
    const unsecured = new UnsecuredJWT({ ...claims }).encode();
    expect(await check(unsecured, s)).toBe("malformed");
    expect(await check(await signedWith({ ...claims, role: "admin" }), s)).toBe("malformed");
    const { permissions: _p, ...withoutPermissions } = claims;
    expect(await check(await signedWith(withoutPermissions), s)).toBe("malformed");
    expect(await check(await signedWith({ ...claims }, { alg: "EdDSA", typ: "at+jwt" }), s)).toBe("malformed");
    expect(await check(await signedWith({ ...claims, iss: "someone-else" }), s)).toBe("malformed");
    expect(await check(await signedWith({ ...claims }), s)).toBe("ok");
  });

  it("claims: whole seconds, sorted distinct permissions, the platform's issuer and audience", () => {
    expect(
      tokenClaims(
        { jti: JTI, subject: "ops", permissions: ["consensus.write", "avm.revoke", "consensus.write"], ttlSeconds: 10 },
        NOW + 999,
      ),
    ).toEqual({
      iss: TOKEN_ISSUER,
      aud: TOKEN_AUDIENCE,
      sub: "ops",
      jti: JTI,
      iat: NOW / 1000,
      exp: NOW / 1000 + 10,
      permissions: ["avm.revoke", "consensus.write"],
    });
    expect(iso(NOW)).toBe("2026-01-10T12:00:00.000Z");
  });
});
