/**
 * API keys for the keyed data areas, and the audit log of every keyed access — both in the access
 * ledger (store/access-ledger.ts). Keys are random 32-byte tokens (`ipk_<base64url>`), shown once
 * when issued; the ledger holds only their SHA-256 (`apikey.issued`). The registry is the
 * projection of the ledger (core/access/keys.ts), caught up to the ledger tail before every
 * decision (`Ledger.state`; the tail reads of one turn are shared, store/ledger/tail-reads.ts), so a key
 * issued or revoked by `npm run keys` (another process) or by another API instance on the same
 * store is known, or refused, from the next request on. Any error while deciding is a denial.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  issuePayload,
  keyRegistry,
  keyStatus,
  type ApiKey,
  type KeyRegistry,
  type KeyStatus,
} from "../../core/access/keys.ts";
import {
  REFUSAL_WINDOW_SECONDS,
  type AccessEventPayload,
  type AccessRefusalsPayload,
} from "../../core/access/events.ts";
import {
  labelOfRequest,
  receivedPayload,
  requestReference,
  type KeyRequest,
  type KeyRequestBody,
} from "../../core/access/key-requests.ts";
import type { KeyTier } from "../../core/datapackage/contract.ts";
import { accessLedgerPath, openAccessLedgerStore } from "../../store/access-ledger.ts";
import { driverFor } from "../../store/drivers/registry.ts";
import type { SigningKey } from "../../store/keys.ts";
import type { Ledger } from "../../store/ledger/ledger.ts";
import { TailReads } from "../../store/ledger/tail-reads.ts";
import { LedgerUnavailableError } from "../../store/ledger/backend.ts";
import { CodedError } from "../../core/errors.ts";

export { KEY_TIERS, type KeyTier } from "../../core/datapackage/contract.ts";
export type { ApiKey, KeyRequest, KeyStatus };

/** Where the access ledger is: `DATABASE_URL` (its `access` schema), else `ACCESS_LEDGER_DB`, else `<STATE_DIR>/access.sqlite`. */
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

/**
 * The access ledger could not be read, so whether a presented key is known cannot be decided: the
 * API answers 503 `audit-unavailable`, never "no key" (a valid key must not turn into anonymous).
 */
export class AccessLedgerUnavailableError extends CodedError<"audit-unavailable"> {
  constructor(message: string, options?: { cause?: unknown }) {
    super("audit-unavailable", message, options);
  }
}

/** After a failed open, the next use tries again once this many ms have passed (not on every request). */
const REOPEN_AFTER_MS = 1_000;

/** A refusal of a request that presented no known key: what `countRefusal` counts. */
export type UnkeyedRefusal = Omit<AccessRefusalsPayload, "window_start" | "window_seconds" | "count">;

export class ApiKeyStore {
  readonly path: string;
  /** The kind of store the access ledger is kept in (what /health names; never its location). */
  readonly storeKind: string;
  /** The ledger being opened: every method awaits it, so the constructor stays synchronous. */
  #opening: Promise<Ledger>;
  /** When the last open failed (ms since the epoch), else null. */
  #failedAt: number | null = null;
  readonly #open: () => Promise<Ledger>;
  readonly #tail: TailReads;
  /** The window being counted (ms since the epoch) and its counts per reason; bounded by files × outcomes × credentials. */
  #refusalWindow = 0;
  readonly #refusals = new Map<string, AccessRefusalsPayload>();
  /** Counts of finished windows whose append failed, written with the next flush. */
  #unwritten: AccessRefusalsPayload[] = [];

  /**
   * `path`: the access ledger's location — a SQLite file (":memory:" for a store of its own) or a
   * postgres:// URL (its `access` schema). `key` lets the store sign checkpoints (the operator's
   * tools; the API never gets it). `durability` as the ledger's: "full" (default) fsyncs every
   * audit record.
   */
  constructor(path: string, options: { key?: SigningKey; durability?: "full" | "normal" } = {}) {
    this.path = path;
    const driver = driverFor(path);
    this.storeKind = driver.kind;
    // An open that fails (the database down, a role without the grants it needs) is a store that
    // cannot be used: LedgerUnavailableError, answered 503 with Retry-After; tried again on a later use.
    this.#open = () => {
      const opening = openAccessLedgerStore(path, { ...options, driver }).catch((error: unknown) => {
        this.#failedAt = Date.now();
        throw error instanceof LedgerUnavailableError
          ? error
          : new LedgerUnavailableError(
              `the access ledger could not be opened: ${(error as Error)?.message ?? String(error)}`,
              { cause: error },
            );
      });
      opening.catch(() => {}); // not unhandled: the first method to await it gets the error
      return opening;
    };
    this.#opening = this.#open();
    this.#tail = new TailReads({ size: async () => (await this.#ledger).size() });
  }

  /** The opened ledger; after a failed open, a new attempt once REOPEN_AFTER_MS have passed. */
  get #ledger(): Promise<Ledger> {
    if (this.#failedAt !== null && Date.now() - this.#failedAt >= REOPEN_AFTER_MS) {
      this.#failedAt = null;
      this.#opening = this.#open();
    }
    return this.#opening;
  }

  /** The registry as of the ledger's tail (entries appended by any process included), read after the call. */
  async #current(): Promise<KeyRegistry> {
    const ledger = await this.#ledger;
    return ledger.state(keyRegistry, await this.#tail.size());
  }

  async list(): Promise<ApiKey[]> {
    return [...(await this.#current()).keys.values()];
  }

  async get(id: string): Promise<ApiKey | null> {
    return (await this.#current()).keys.get(id) ?? null;
  }

  /** Issues a key (a successor of `replaces` when rotating, or the answer to a request); returns the token, which is not stored. */
  async issue(
    tier: KeyTier,
    label: string,
    now: Date,
    replaces: string | null = null,
    request?: string,
  ): Promise<{ token: string; key: ApiKey }> {
    const token = `ipk_${randomBytes(32).toString("base64url")}`;
    const payload = issuePayload(await this.#current(), tier, label, hashOf(token), now, replaces, request);
    await (await this.#ledger).append([{ type: "apikey.issued", payload: { ...payload } }]);
    const key = (await this.#current()).keys.get(payload.key_id);
    // Two issuers may have raced for the id: the ledger keeps the first, and this one is void.
    if (!key || key.sha256 !== payload.sha256)
      throw new KeyStoreError(
        "raced",
        `another issuer took ${payload.key_id} at the same moment; nothing was issued, try again`,
      );
    return { token, key };
  }

  /** Issues the successor of an active key: same tier and label; the old key retires after the grace period. */
  async rotate(id: string, now: Date): Promise<{ token: string; key: ApiKey }> {
    const old = await this.#known(id);
    const status = keyStatus(old, now);
    if (old.replaced_by !== null || (status !== "active" && status !== "grace")) {
      throw new KeyStoreError(
        "not-active",
        `${id} is ${old.replaced_by ? `already rotated (successor ${old.replaced_by})` : status}; issue a new key instead`,
      );
    }
    return this.issue(old.tier, old.label, now, id);
  }

  /** Revokes a key at once. */
  async revoke(id: string, reason: string, now: Date): Promise<ApiKey> {
    const key = await this.#known(id);
    if (key.revoked_at === null)
      await (
        await this.#ledger
      ).append([{ type: "apikey.revoked", payload: { key_id: id, reason, revoked_at: now.toISOString() } }]);
    return (await this.#current()).keys.get(id)!;
  }

  /**
   * Records a key request (already checked against KeyRequestBody) and returns its reference.
   * Throws when it cannot be recorded: the caller then answers that nothing was received.
   */
  async receiveRequest(body: KeyRequestBody, now: Date): Promise<KeyRequest> {
    const payload = receivedPayload(body, requestReference(randomBytes(5)), now);
    await (await this.#ledger).append([{ type: "keyrequest.received", payload: { ...payload } }]);
    const request = (await this.#current()).requests.get(payload.reference);
    // 40 random bits: a repeat is all but impossible, and the ledger keeps the first one if it happens.
    if (!request || request.received_at !== payload.received_at || request.contact !== payload.contact)
      throw new KeyStoreError("raced", "the reference drawn was taken; nothing was recorded, try again");
    return request;
  }

  /** Every key request ever received, oldest first. */
  async requests(): Promise<KeyRequest[]> {
    return [...(await this.#current()).requests.values()];
  }

  /** Issues the key a pending request asked for, in one append that also marks the request answered. */
  async issueForRequest(reference: string, now: Date): Promise<{ token: string; key: ApiKey; request: KeyRequest }> {
    const request = await this.#pending(reference);
    const issued = await this.issue(request.tier, labelOfRequest(request), now, null, reference);
    return { ...issued, request: (await this.#current()).requests.get(reference)! };
  }

  /** Declines a pending request. */
  async declineRequest(reference: string, reason: string, now: Date): Promise<KeyRequest> {
    await this.#pending(reference);
    await (
      await this.#ledger
    ).append([{ type: "keyrequest.declined", payload: { reference, reason, declined_at: now.toISOString() } }]);
    return (await this.#current()).requests.get(reference)!;
  }

  async #pending(reference: string): Promise<KeyRequest> {
    const request = (await this.#current()).requests.get(reference);
    if (!request)
      throw new KeyStoreError("unknown-request", `no key request ${reference} (see npm run keys -- requests)`);
    if (request.status !== "pending")
      throw new KeyStoreError(
        "answered",
        `${reference} is already ${request.status}${request.key_id ? ` (key ${request.key_id})` : ""}`,
      );
    return request;
  }

  async #known(id: string): Promise<ApiKey> {
    const key = (await this.#current()).keys.get(id);
    if (!key) throw new KeyStoreError("unknown-key", `no key ${id}`);
    return key;
  }

  /**
   * The key a presented token names, with its status at `now`, or null (not a token, or no key's).
   * Rejects with AccessLedgerUnavailableError when the access ledger cannot be read: the caller
   * refuses (503), since "no key" would serve a keyed client as anonymous, unaudited.
   */
  async find(token: string, now: Date): Promise<KeyMatch | null> {
    if (!TOKEN.test(token)) return null;
    let state: KeyRegistry;
    try {
      state = await this.#current();
    } catch (error) {
      throw new AccessLedgerUnavailableError(
        `the access ledger cannot be read: ${(error as Error)?.message ?? String(error)}`,
        { cause: error },
      );
    }
    const id = state.byHash.get(hashOf(token));
    const key = id === undefined ? undefined : state.keys.get(id);
    return key ? { key, status: keyStatus(key, now) } : null;
  }

  /** Appends one access to the audit log; rejects when it cannot be recorded (the caller then refuses). */
  async record(access: AccessEventPayload, now?: Date): Promise<void> {
    if (now) await this.#flushRefusals(now);
    await (await this.#ledger).append([{ type: "access", payload: { ...access } }]);
  }

  /**
   * Counts a refusal of a request that presented no known key, in memory: no durable write per
   * request. The counts of a window are appended as `access.refusals` entries (one per reason)
   * by the first record or count of a later window, or by `close()`; a process that dies first
   * loses its current window's counts (the request log still has every request).
   */
  async countRefusal(refusal: UnkeyedRefusal, now: Date): Promise<void> {
    const flushed = this.#flushRefusals(now); // moves to now's window at once, then writes the old one
    const key = `${refusal.credential}\n${refusal.area}\n${refusal.file}\n${refusal.outcome}\n${refusal.status}`;
    const counted = this.#refusals.get(key);
    if (counted) counted.count += 1;
    else
      this.#refusals.set(key, {
        window_start: new Date(this.#refusalWindow).toISOString(),
        window_seconds: REFUSAL_WINDOW_SECONDS,
        ...refusal,
        count: 1,
      });
    await flushed;
  }

  /**
   * Appends the counts of a finished window (all of them with `now` null). The window moves on
   * before the append (synchronously: concurrent callers never write one window twice); counts
   * whose append failed are kept and written with the next flush.
   */
  async #flushRefusals(now: Date | null): Promise<void> {
    const window =
      now === null
        ? Number.NaN
        : Math.floor(now.getTime() / (REFUSAL_WINDOW_SECONDS * 1000)) * REFUSAL_WINDOW_SECONDS * 1000;
    if (window === this.#refusalWindow) return;
    const finished = [...this.#unwritten, ...[...this.#refusals.values()].sort(byReason)];
    this.#unwritten = [];
    this.#refusals.clear();
    if (!Number.isNaN(window)) this.#refusalWindow = window;
    if (finished.length === 0) return;
    try {
      await (
        await this.#ledger
      ).append(finished.map((payload) => ({ type: "access.refusals" as const, payload: { ...payload } })));
    } catch {
      this.#unwritten.unshift(...finished); // written with the next flush
    }
  }

  /** Signs a checkpoint of the access ledger (needs the key given at construction). */
  async checkpoint(): Promise<string> {
    return (await this.#ledger).checkpoint();
  }

  /** The underlying ledger, for exports and verification. */
  ledger(): Promise<Ledger> {
    return this.#ledger;
  }

  /** Writes the counts of the current window, then closes the ledger. */
  async close(): Promise<void> {
    try {
      await this.#flushRefusals(null);
    } finally {
      await (await this.#opening.catch(() => null))?.close();
    }
  }
}

/** A stable order of a window's counts: by credential, area, file, outcome. */
function byReason(a: AccessRefusalsPayload, b: AccessRefusalsPayload): number {
  const key = (p: AccessRefusalsPayload) => `${p.credential}\n${p.area}\n${p.file}\n${p.outcome}`;
  return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
}
