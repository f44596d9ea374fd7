/**
 * The token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1). The scheme is
 * case-insensitive (RFC 9110 §11.1: `bearer`, `BEARER` …); the token is a token68 after one or more
 * spaces; anything else — another scheme, a second token, a comma list — is no token at all.
 */
const BEARER = /^bearer +([A-Za-z0-9._~+/-]+=*)$/i;

export function bearerToken(header: string | undefined): string | null {
  if (header === undefined || header.length > 4096) return null;
  return BEARER.exec(header)?.[1] ?? null;
}
