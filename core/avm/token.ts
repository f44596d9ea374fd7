/**
 * Operator tokens for the platform's write routes (`avm.revoke` now, `consensus.write` next): JWTs
 * (RFC 7519) signed with Ed25519 (JWS `alg` "EdDSA", via jose), bound to a subject and a set of
 * permissions, expiring, and revocable on the ledger.
 *
 * A token is accepted only when, at the injected `now`: its signature verifies under the token key;
 * its claims are exactly the ones below; it has not expired; and the caught-up registry holds a
 * `token.issued` with the same jti, subject, permissions and expiry and no `token.revoked`. So a
 * token is authority only while the ledger says so: revoking it is one ledger event, and every API
 * instance folding the ledger refuses it from then on. Tokens themselves are never written to the
 * ledger or a log — only their jti.
 */
import { errors, importJWK, jwtVerify, SignJWT, type CryptoKey } from "jose";
import { z } from "zod";
import type { NewEvent } from "../ledger/store.ts";
import { TokenPermission } from "../schemas/avm.ts";
import { Identifier, Uuid } from "../schemas/common.ts";
import { publicKeyFromSecret } from "../signature.ts";
import { tokenChainStanding, type AvmRegistry } from "./registry.ts";

export const TOKEN_ISSUER = "integrity-platform.example/avm";
export const TOKEN_AUDIENCE = "integrity-platform.example/api";
export const TOKEN_ALGORITHM = "EdDSA";
export const TOKEN_DEFAULT_TTL_S = 3600;
/** No token outlives the longest authority grant: 90 days. */
export const TOKEN_MAX_TTL_S = 90 * 24 * 3600;
/** Longer Authorization values are refused before any parsing. */
export const TOKEN_MAX_LENGTH = 4096;

/** The claims of an operator token: nothing more, nothing less. */
export const TokenClaims = z.strictObject({
  iss: z.literal(TOKEN_ISSUER),
  aud: z.literal(TOKEN_AUDIENCE),
  sub: Identifier,
  jti: Uuid,
  iat: z.int().nonnegative(),
  exp: z.int().positive(),
  permissions: z.array(TokenPermission).min(1).max(TokenPermission.options.length),
});
export type TokenClaims = z.infer<typeof TokenClaims>;

export type TokenError =
  | "missing"
  | "malformed"
  | "signature_invalid"
  | "expired"
  | "not_yet_valid"
  | "not_issued"
  | "revoked"
  | "permission_missing";

export type TokenVerdict = { ok: true; claims: TokenClaims } | { ok: false; error: TokenError };

/** The claims of a new token issued at `nowMs` (whole seconds) for `ttlSeconds`. */
export function tokenClaims(
  input: { jti: string; subject: string; permissions: readonly TokenPermission[]; ttlSeconds: number },
  nowMs: number,
): TokenClaims {
  const iat = Math.floor(nowMs / 1000);
  return TokenClaims.parse({
    iss: TOKEN_ISSUER,
    aud: TOKEN_AUDIENCE,
    sub: input.subject,
    jti: input.jti,
    iat,
    exp: iat + input.ttlSeconds,
    permissions: [...new Set(input.permissions)].sort(),
  });
}

/** The `token.issued` event that makes a token valid; `issuedBy`: the jti of the token that issued it, if one did. */
export function tokenIssuedEvent(claims: TokenClaims, issuedBy?: string): NewEvent {
  return {
    type: "token.issued",
    payload: {
      jti: claims.jti,
      subject: claims.sub,
      permissions: claims.permissions,
      issued_at: new Date(claims.iat * 1000).toISOString(),
      expires_at: new Date(claims.exp * 1000).toISOString(),
      ...(issuedBy !== undefined ? { issued_by: issuedBy } : {}),
    },
  };
}

/** The compact JWS of `claims`, signed with the token key (hex Ed25519 seed). */
export async function signToken(claims: TokenClaims, secretKeyHex: string): Promise<string> {
  const key = await importJWK(
    { kty: "OKP", crv: "Ed25519", x: b64url(publicKeyFromSecret("ed25519", secretKeyHex)), d: b64url(secretKeyHex) },
    TOKEN_ALGORITHM,
  );
  const { iss, aud, sub, jti, iat, exp, ...rest } = claims;
  return new SignJWT(rest)
    .setProtectedHeader({ alg: TOKEN_ALGORITHM, typ: "JWT" })
    .setIssuer(iss)
    .setAudience(aud)
    .setSubject(sub)
    .setJti(jti)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(key);
}

export interface TokenCheck {
  /** The token key's public half, hex. */
  publicKeyHex: string;
  nowMs: number;
  /** Caught up to the ledger's tail. */
  registry: AvmRegistry;
  /** The permission the route needs. */
  permission: TokenPermission;
}

/** Verifies a token for a route; never throws. */
export async function verifyToken(token: string | null | undefined, check: TokenCheck): Promise<TokenVerdict> {
  if (!token) return refuse("missing");
  if (token.length > TOKEN_MAX_LENGTH) return refuse("malformed");
  let payload: unknown;
  try {
    const key = await publicKey(check.publicKeyHex);
    ({ payload } = await jwtVerify(token, key, {
      algorithms: [TOKEN_ALGORITHM],
      typ: "JWT",
      issuer: TOKEN_ISSUER,
      audience: TOKEN_AUDIENCE,
      requiredClaims: ["sub", "jti", "iat", "exp"],
      currentDate: new Date(check.nowMs),
    }));
  } catch (error) {
    if (error instanceof errors.JWSSignatureVerificationFailed) return refuse("signature_invalid");
    if (error instanceof errors.JWTExpired) return refuse("expired");
    if (error instanceof errors.JWTClaimValidationFailed && error.claim === "nbf") return refuse("not_yet_valid");
    return refuse("malformed");
  }
  const parsed = TokenClaims.safeParse(payload);
  if (!parsed.success) return refuse("malformed");
  const claims = parsed.data;
  if (claims.exp <= claims.iat || claims.exp - claims.iat > TOKEN_MAX_TTL_S) return refuse("malformed");
  if (claims.iat * 1000 > check.nowMs) return refuse("not_yet_valid");

  const issued = check.registry.tokens.get(claims.jti);
  if (
    !issued ||
    issued.subject !== claims.sub ||
    issued.expiresAtMs !== claims.exp * 1000 ||
    issued.issuedAtMs !== claims.iat * 1000 ||
    issued.permissions.length !== claims.permissions.length ||
    !claims.permissions.every((p) => issued.permissions.includes(p))
  ) {
    return refuse("not_issued");
  }
  // Revoking a token revokes every token it issued, directly or not (core/avm/registry.ts).
  if (tokenChainStanding(check.registry, claims.jti) !== "held") return refuse("revoked");
  if (!claims.permissions.includes(check.permission)) return refuse("permission_missing");
  return { ok: true, claims };
}

function refuse(error: TokenError): TokenVerdict {
  return { ok: false, error };
}

// Imported public keys, per hex key (a handful at most: the current key and a rotated one).
const publicKeys = new Map<string, Promise<CryptoKey>>();

function publicKey(publicKeyHex: string): Promise<CryptoKey> {
  let key = publicKeys.get(publicKeyHex);
  if (!key) {
    if (!/^[0-9a-f]{64}$/.test(publicKeyHex))
      return Promise.reject(new Error("the token public key must be 32 bytes of lowercase hex"));
    key = importJWK({ kty: "OKP", crv: "Ed25519", x: b64url(publicKeyHex) }, TOKEN_ALGORITHM) as Promise<CryptoKey>;
    if (publicKeys.size >= 16) publicKeys.clear();
    publicKeys.set(publicKeyHex, key);
  }
  return key;
}

function b64url(hex: string): string {
  return Buffer.from(hex, "hex").toString("base64url");
}
