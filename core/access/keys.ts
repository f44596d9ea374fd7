/**
 * API keys as a projection of the access ledger (core/ledger/projection.ts): the registry is folded
 * from `apikey.issued` and `apikey.revoked` events, so it can always be rebuilt, and a store that
 * catches up to the ledger tail before deciding gives every API instance the same answer — no
 * revocation can be outlived by a cache.
 *
 * Lifetimes (the spec rotates government keys quarterly): a government key lives 90 days, an
 * academic, institutional or economist key 365 days. A key then has a 14-day grace period in which
 * it still opens files, so its holder can switch to the successor; after that it is `expired`.
 * Rotation issues a successor of the same tier and label, and the predecessor `retires` 14 days
 * later (or at the end of its own grace, if sooner). Revocation takes effect at once. Ids are
 * `<tier>-<n>` where n counts every key ever issued for the tier, so they are never reused; an
 * issue event that repeats an id or a token hash (two issuers racing) is void.
 */
import type { LedgerEntry } from "../ledger/entry.ts";
import type { Projection } from "../ledger/projection.ts";
import type { KeyTier } from "../datapackage/contract.ts";
import type { KeyIssuedPayload, KeyRevokedPayload } from "./events.ts";
import type { KEY_STATUSES } from "./events.ts";
import { DAY_MS } from "../time.ts";
import { applyKeyRequestEntry, type KeyRequest } from "./key-requests.ts";

export const KEY_LIFETIME_DAYS: Readonly<Record<KeyTier, number>> = {
  government: 90,
  academic: 365,
  institutional: 365,
  economist: 365,
};
export const KEY_GRACE_DAYS = 14;

export type KeyStatus = (typeof KEY_STATUSES)[number];

export interface ApiKey {
  id: string;
  tier: KeyTier;
  label: string;
  /** Hex SHA-256 of the token. */
  sha256: string;
  issued_at: string;
  expires_at: string;
  replaces: string | null;
  /** Set when a successor was issued: the key stops working at `retires_at`. */
  replaced_by: string | null;
  retires_at: string | null;
  revoked_at: string | null;
  revoke_reason: string | null;
}

export interface KeyRegistry {
  keys: Map<string, ApiKey>;
  /** Key id by token hash. */
  byHash: Map<string, string>;
  /** Keys ever issued per tier (the n of the next id). */
  issued: Map<string, number>;
  /** Key requests by reference (core/access/key-requests.ts). */
  requests: Map<string, KeyRequest>;
}

const plusDays = (iso: string, days: number) => new Date(Date.parse(iso) + days * DAY_MS).toISOString();

export const keyRegistry: Projection<KeyRegistry> = {
  initial: () => ({ keys: new Map(), byHash: new Map(), issued: new Map(), requests: new Map() }),
  apply(state, entry: LedgerEntry) {
    if (entry.type === "apikey.issued") {
      const p = entry.payload as unknown as KeyIssuedPayload;
      const tier = p.key_id.slice(0, p.key_id.lastIndexOf("-"));
      state.issued.set(tier, Math.max(state.issued.get(tier) ?? 0, Number(p.key_id.slice(tier.length + 1))));
      if (state.keys.has(p.key_id) || state.byHash.has(p.sha256) || tier !== p.tier) return state; // void: a raced or malformed issue
      const { key_id: id, request, ...fields } = p;
      state.keys.set(id, { id, ...fields, replaced_by: null, retires_at: null, revoked_at: null, revoke_reason: null });
      applyKeyRequestEntry(state.requests, entry, { key_id: id, request, issued_at: p.issued_at });
      state.byHash.set(p.sha256, p.key_id);
      const old = p.replaces ? state.keys.get(p.replaces) : undefined;
      if (old && old.replaced_by === null) {
        old.replaced_by = p.key_id;
        const retire = plusDays(p.issued_at, KEY_GRACE_DAYS);
        const end = plusDays(old.expires_at, KEY_GRACE_DAYS);
        old.retires_at = retire < end ? retire : end;
      }
    } else if (entry.type === "apikey.revoked") {
      const p = entry.payload as unknown as KeyRevokedPayload;
      const key = state.keys.get(p.key_id);
      if (key && key.revoked_at === null) {
        key.revoked_at = p.revoked_at;
        key.revoke_reason = p.reason;
      }
    } else {
      applyKeyRequestEntry(state.requests, entry, null);
    }
    return state;
  },
};

/** Where a key stands at `now`. Only "active" and "grace" open files. */
export function keyStatus(key: ApiKey, now: Date): KeyStatus {
  if (key.revoked_at !== null) return "revoked";
  const t = now.toISOString();
  if (key.retires_at !== null && t >= key.retires_at) return "retired";
  if (t < key.expires_at) return "active";
  return t < plusDays(key.expires_at, KEY_GRACE_DAYS) ? "grace" : "expired";
}

export function opensFiles(status: KeyStatus): boolean {
  return status === "active" || status === "grace";
}

/** The id the next key of a tier gets. */
export function nextKeyId(state: KeyRegistry, tier: KeyTier): string {
  return `${tier}-${(state.issued.get(tier) ?? 0) + 1}`;
}

/** The payload of a new key (the caller draws the token and hashes it). */
export function issuePayload(
  state: KeyRegistry,
  tier: KeyTier,
  label: string,
  sha256: string,
  now: Date,
  replaces: string | null = null,
  request?: string,
): KeyIssuedPayload {
  const issued_at = now.toISOString();
  const payload: KeyIssuedPayload = {
    key_id: nextKeyId(state, tier),
    tier,
    label,
    sha256,
    issued_at,
    expires_at: plusDays(issued_at, KEY_LIFETIME_DAYS[tier]),
    replaces,
  };
  // Only keys issued for a request carry the field, so the events of all other keys stay as they were.
  return request === undefined ? payload : { ...payload, request };
}
