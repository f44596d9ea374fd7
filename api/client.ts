/**
 * Who is asking: the socket's address (forwarding headers are not trusted) and the API key the
 * request presents, if any. A key opens files only while it is active or in its grace period; an
 * expired, retired or revoked key counts as anonymous (docs/trust.md).
 */
import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context } from "hono";
import { opensFiles } from "../core/access/keys.ts";
import type { ApiKeyStore, KeyMatch } from "./api-keys.ts";
import { bearerToken } from "./bearer.ts";
import { clientOfAddress, type Tier } from "./middleware/rate-limit.ts";

/**
 * The client a request counts as, one rule everywhere (quotas, the verify quota, the simulation's
 * connection cap): the socket's address, IPv6 grouped by its /64 (rate-limit.ts clientOfAddress),
 * since one host usually holds a whole /64 and would otherwise be as many clients as it likes.
 */
export function clientAddress(c: Context): string {
  try {
    const address = getConnInfo(c).remote.address;
    return address === undefined ? "unknown" : clientOfAddress(address);
  } catch {
    return "unknown";
  }
}

export interface PresentedKey {
  /** The key the token names, with its status, or null (no token, or an unknown one). */
  match: KeyMatch | null;
  /** The key when it may be used now. */
  key: KeyMatch["key"] | null;
  tier: Tier;
  /** The quota's client: the usable key's id, else the socket address (IPv6 by its /64). */
  client: string;
}

export function presentedKey(c: Context, keys: ApiKeyStore, now: Date): PresentedKey {
  const token = bearerToken(c.req.header("Authorization"));
  const match = token ? keys.find(token, now) : null;
  const key = match && opensFiles(match.status) ? match.key : null;
  return { match, key, tier: key ? key.tier : "anonymous", client: key ? key.id : clientAddress(c) };
}
