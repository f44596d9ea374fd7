/**
 * Who is asking: the client's address (the socket's, or behind a trusted proxy the one it forwards:
 * api/clients/forwarded-for.ts) and the API key the request presents, if any. A key opens files only while it is active or in its grace period; an
 * expired, retired or revoked key counts as anonymous (docs/trust.md).
 */
import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context } from "hono";
import { opensFiles } from "../../core/access/keys.ts";
import type { ApiKeyStore, KeyMatch } from "./api-keys.ts";
import { bearerToken } from "./bearer.ts";
import { clientOfAddress, type Tier } from "./quotas.ts";

/** Set by api/middleware/forwarded-client.ts when TRUSTED_PROXIES names proxies. */
export type ClientVariables = { clientAddress?: string };

/**
 * The client a request counts as, one rule everywhere (quotas, the verify quota, the simulation's
 * connection cap, the access audit): the socket's address — or, when the socket's peer is a trusted
 * proxy, the address it forwarded (api/middleware/forwarded-client.ts) — with IPv6 grouped by its
 * /64 (quotas.ts clientOfAddress), since one host usually holds a whole /64 and would otherwise
 * be as many clients as it likes.
 */
export function clientAddress(c: Context): string {
  const forwarded = (c.get as (key: string) => unknown)("clientAddress");
  if (typeof forwarded === "string") return clientOfAddress(forwarded);
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

export async function presentedKey(c: Context, keys: ApiKeyStore, now: Date): Promise<PresentedKey> {
  const token = bearerToken(c.req.header("Authorization"));
  const match = token ? await keys.find(token, now) : null;
  const key = match && opensFiles(match.status) ? match.key : null;
  return { match, key, tier: key ? key.tier : "anonymous", client: key ? key.id : clientAddress(c) };
}
