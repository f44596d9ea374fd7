/**
 * API keys for the keyed data areas, and the audit log of every keyed access — both in the access
 * ledger (store/access-ledger.ts). Keys are random 32-byte tokens (`ipk_<base64url>`), shown once
 * when issued; the ledger holds only their SHA-256 (`apikey.issued`). The registry is the
 * projection of the ledger (core/access/keys.ts), caught up to the ledger tail before every
 * decision, so a key revoked by `npm run keys -- revoke` (another process) is refused by every API
 * instance on the same store from the next request on. Any error while deciding is a denial.
 */
import { createHash, randomBytes } from "node:crypto";
import { issuePayload, keyRegistry, keyStatus, type ApiKey, type KeyRegistry, type KeyStatus } from "../core/access/keys.ts";
import { REFUSAL_WINDOW_SECONDS, type AccessEventPayload, type AccessRefusalsPayload } from "../core/access/events.ts";
import { labelOfRequest, receivedPayload, requestReference, type KeyRequest, type KeyRequestBody } from "../core/access/key-requests.ts";
import type { KeyTier } from "../core/datapackage/contract.ts";
import { accessLedgerPath, openAccessLedger, type AccessLedger } from "../store/access-ledger.ts";
import type { SigningKey } from "../store/keys.ts";
import { CodedError } from "../core/errors.ts";

export { KEY_TIERS, type KeyTier } from "../core/datapackage/contract.ts";
export type { ApiKey, KeyRequest, KeyStatus };

/** Where the access ledger is: `ACCESS_LEDGER_DB`, else `<STATE_DIR>/access.sqlite`. */
export function keysPath(env: NodeJS.ProcessEnv = process.env): string {
  return accessLedgerPath(env);
}

const TOKEN = /^ipk_[A-Za-z0-9_-]{43}$/;
const hashOf = (token: string) => createHash("sha256").update(token).digest("hex");

/** A presented token that names a key, and where that key stands now. */
export interface KeyMatch {
  key: ApiKey;
  status: KeyStatus;
}

export type KeyStoreErrorCode = "unknown-key" | "not-active" | "raced" | "unknown-request" | "answered";

export class KeyStoreError extends CodedError<KeyStoreErrorCode> {}

/** A refusal of a request that presented no known key: what `countRefusal` counts. */
export type UnkeyedRefusal = Omit<AccessRefusalsPayload, "window_start" | "window_seconds" | "count">;

export class ApiKeyStore {
  readonly path: string;
  readonly #ledger: AccessLedger;
  #state: KeyRegistry = keyRegistry.initial();
  #seen = 0;
  /** The window being counted (ms since the epoch) and its counts per reason; bounded by files × outcomes × credentials. */
  #refusalWindow = 0;
  readonly #refusals = new Map<string, AccessRefusalsPayload>();

  /**
   * `path`: the access ledger file (":memory:" for a store of its own). `key` lets the store sign
   * checkpoints (the operator's tools; the API never gets it). `durability` as the ledger's:
   * "full" (default) fsyncs every audit record.
   */
  constructor(path: string, options: { key?: SigningKey; durability?: "full" | "normal" } = {}) {
    this.path = path;
    this.#ledger = openAccessLedger(path, options);
  }

  /** The registry as of the ledger's tail (entries appended by any process included). */
  #current(): KeyRegistry {
    const size = this.#ledger.size();
    if (size < this.#seen) {
      // Never happens to an append-only ledger; rebuild rather than trust a shorter log.
      this.#state = keyRegistry.initial();
      this.#seen = 0;
    }
    if (size > this.#seen) {
      for (const entry of this.#ledger.entries(this.#seen, size)) this.#state = keyRegistry.apply(this.#state, entry);
      this.#seen = size;
    }
    return this.#state;
  }

  list(): ApiKey[] {
    return [...this.#current().keys.values()];
  }

  get(id: string): ApiKey | null {
    return this.#current().keys.get(id) ?? null;
  }

  /** Issues a key (a successor of `replaces` when rotating, or the answer to a request); returns the token, which is not stored. */
  issue(tier: KeyTier, label: string, now: Date, replaces: string | null = null, request?: string): { token: string; key: ApiKey } {
    const token = `ipk_${randomBytes(32).toString("base64url")}`;
    const payload = issuePayload(this.#current(), tier, label, hashOf(token), now, replaces, request);
    this.#ledger.append([{ type: "apikey.issued", payload: { ...payload } }]);
    const key = this.#current().keys.get(payload.key_id);
    // Two issuers may have raced for the id: the ledger keeps the first, and this one is void.
    if (!key || key.sha256 !== payload.sha256) throw new KeyStoreError("raced", `another issuer took ${payload.key_id} at the same moment; nothing was issued, try again`);
    return { token, key };
  }

  /** Issues the successor of an active key: same tier and label; the old key retires after the grace period. */
  rotate(id: string, now: Date): { token: string; key: ApiKey } {
    const old = this.#known(id);
    const status = keyStatus(old, now);
    if (old.replaced_by !== null || (status !== "active" && status !== "grace")) {
      throw new KeyStoreError("not-active", `${id} is ${old.replaced_by ? `already rotated (successor ${old.replaced_by})` : status}; issue a new key instead`);
    }
    return this.issue(old.tier, old.label, now, id);
  }

  /** Revokes a key at once. */
  revoke(id: string, reason: string, now: Date): ApiKey {
    const key = this.#known(id);
    if (key.revoked_at === null) this.#ledger.append([{ type: "apikey.revoked", payload: { key_id: id, reason, revoked_at: now.toISOString() } }]);
    return this.#current().keys.get(id)!;
  }

  /**
   * Records a key request (already checked against KeyRequestBody) and returns its reference.
   * Throws when it cannot be recorded: the caller then answers that nothing was received.
   */
  receiveRequest(body: KeyRequestBody, now: Date): KeyRequest {
    const payload = receivedPayload(body, requestReference(randomBytes(5)), now);
    this.#ledger.append([{ type: "keyrequest.received", payload: { ...payload } }]);
    const request = this.#current().requests.get(payload.reference);
    // 40 random bits: a repeat is all but impossible, and the ledger keeps the first one if it happens.
    if (!request || request.received_at !== payload.received_at || request.contact !== payload.contact) throw new KeyStoreError("raced", "the reference drawn was taken; nothing was recorded, try again");
    return request;
  }

  /** Every key request ever received, oldest first. */
  requests(): KeyRequest[] {
    return [...this.#current().requests.values()];
  }

  /** Issues the key a pending request asked for, in one append that also marks the request answered. */
  issueForRequest(reference: string, now: Date): { token: string; key: ApiKey; request: KeyRequest } {
    const request = this.#pending(reference);
    const issued = this.issue(request.tier, labelOfRequest(request), now, null, reference);
    return { ...issued, request: this.#current().requests.get(reference)! };
  }

  /** Declines a pending request. */
  declineRequest(reference: string, reason: string, now: Date): KeyRequest {
    this.#pending(reference);
    this.#ledger.append([{ type: "keyrequest.declined", payload: { reference, reason, declined_at: now.toISOString() } }]);
    return this.#current().requests.get(reference)!;
  }

  #pending(reference: string): KeyRequest {
    const request = this.#current().requests.get(reference);
    if (!request) throw new KeyStoreError("unknown-request", `no key request ${reference} (see npm run keys -- requests)`);
    if (request.status !== "pending") throw new KeyStoreError("answered", `${reference} is already ${request.status}${request.key_id ? ` (key ${request.key_id})` : ""}`);
    return request;
  }

  #known(id: string): ApiKey {
    const key = this.#current().keys.get(id);
    if (!key) throw new KeyStoreError("unknown-key", `no key ${id}`);
    return key;
  }

  /** The key a presented token names, with its status at `now`, or null. Never throws: an error denies. */
  find(token: string, now: Date): KeyMatch | null {
    try {
      if (!TOKEN.test(token)) return null;
      const state = this.#current();
      const id = state.byHash.get(hashOf(token));
      const key = id === undefined ? undefined : state.keys.get(id);
      return key ? { key, status: keyStatus(key, now) } : null;
    } catch {
      return null;
    }
  }

  /** Appends one access to the audit log; throws when it cannot be recorded (the caller then refuses). */
  record(access: AccessEventPayload, now?: Date): void {
    if (now) this.#flushRefusals(now);
    this.#ledger.append([{ type: "access", payload: { ...access } }]);
  }

  /**
   * Counts a refusal of a request that presented no known key, in memory: no durable write per
   * request. The counts of a window are appended as `access.refusals` entries (one per reason)
   * by the first record or count of a later window, or by `close()`; a process that dies first
   * loses its current window's counts (the request log still has every request).
   */
  countRefusal(refusal: UnkeyedRefusal, now: Date): void {
    this.#flushRefusals(now);
    const key = `${refusal.credential}\n${refusal.area}\n${refusal.file}\n${refusal.outcome}\n${refusal.status}`;
    const counted = this.#refusals.get(key);
    if (counted) counted.count += 1;
    else this.#refusals.set(key, { window_start: new Date(this.#refusalWindow).toISOString(), window_seconds: REFUSAL_WINDOW_SECONDS, ...refusal, count: 1 });
  }

  /** Appends the counts of a finished window (all of them with `now` null); a failed append keeps them for the next try. */
  #flushRefusals(now: Date | null): void {
    const window = now === null ? Number.NaN : Math.floor(now.getTime() / (REFUSAL_WINDOW_SECONDS * 1000)) * REFUSAL_WINDOW_SECONDS * 1000;
    if (window === this.#refusalWindow) return;
    if (this.#refusals.size > 0) {
      const events = [...this.#refusals.values()].sort(byReason).map((payload) => ({ type: "access.refusals" as const, payload: { ...payload } }));
      try {
        this.#ledger.append(events);
        this.#refusals.clear();
      } catch {
        return; // counted on in the old window; written with the next flush
      }
    }
    if (!Number.isNaN(window)) this.#refusalWindow = window;
  }

  /** Signs a checkpoint of the access ledger (needs the key given at construction). */
  checkpoint(): string {
    return this.#ledger.checkpoint();
  }

  /** The underlying ledger, for exports and verification. */
  get ledger(): AccessLedger {
    return this.#ledger;
  }

  close(): void {
    try {
      this.#flushRefusals(null);
    } finally {
      this.#ledger.close();
    }
  }
}

/** A stable order of a window's counts: by credential, area, file, outcome. */
function byReason(a: AccessRefusalsPayload, b: AccessRefusalsPayload): number {
  const key = (p: AccessRefusalsPayload) => `${p.credential}\n${p.area}\n${p.file}\n${p.outcome}`;
  return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
}
