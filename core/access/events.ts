/**
 * The events of the access ledger (a ledger of its own, store/access-ledger.ts, origin
 * `integrity-platform.example/access`): API keys issued and revoked, and every keyed access to the
 * data areas, and the requests for keys (core/access/key-requests.ts). They join the ledger's event registry (core/events/registry.ts), so the ledger's own
 * verifier, export and offline check work on the access ledger unchanged. A key is stored only as
 * the SHA-256 of its token; the token itself never reaches the ledger.
 */
import { z } from "zod";
import { AREAS, KEY_TIERS } from "../datapackage/contract.ts";
import { IsoTimestampMs } from "../schemas/common.ts";
import { KeyRequestReference, keyRequestEventSchemas } from "./key-requests.ts";

/** `<tier>-<n>`: n counts every key ever issued for the tier, so an id is never reused. */
export const KeyId = z.string().regex(/^[a-z]+-[1-9][0-9]{0,8}$/, "must be <tier>-<n>");

/** Where a key stands at a given instant (core/access/keys.ts keyStatus). */
export const KEY_STATUSES = ["active", "grace", "expired", "retired", "revoked"] as const;

/** What an access request came to; `status` carries the HTTP status. */
export const ACCESS_OUTCOMES = [
  "served",
  "not-modified",
  "unauthorized",
  "forbidden",
  "rate-limited",
  "data-unverified",
  "invalid-query",
  "ledger-unavailable",
] as const;
export type AccessOutcome = (typeof ACCESS_OUTCOMES)[number];

export const REFUSAL_CREDENTIALS = ["none", "unknown"] as const;

export const accessEventSchemas = {
  "apikey.issued": z.strictObject({
    key_id: KeyId,
    tier: z.enum(KEY_TIERS),
    /** Who the key is for (affiliation or person), as the operator typed it. */
    label: z.string().min(1).max(200),
    /** Lowercase hex SHA-256 of the token. */
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    issued_at: IsoTimestampMs,
    expires_at: IsoTimestampMs,
    /** The key this one succeeds (rotation), or null. */
    replaces: KeyId.nullable(),
    /** The key request it answers (core/access/key-requests.ts), when it was issued for one. */
    request: KeyRequestReference.optional(),
  }),
  "apikey.revoked": z.strictObject({ key_id: KeyId, reason: z.string().min(1).max(200), revoked_at: IsoTimestampMs }),
  access: z.strictObject({
    /** The key presented (whatever its status), or null when none matched. */
    key_id: KeyId.nullable(),
    key_status: z.enum(KEY_STATUSES).nullable(),
    /** The matched key's tier, else "anonymous". */
    tier: z.enum(["anonymous", ...KEY_TIERS]),
    area: z.enum(AREAS),
    /** The contract file, or the route that reads it (`ledger/export`). */
    file: z.string().min(1).max(200),
    outcome: z.enum(ACCESS_OUTCOMES),
    status: z.int().min(100).max(599),
  }),
  /**
   * Refusals of requests for keyed files that presented no known key (none, or one that names no
   * key), counted per window of REFUSAL_WINDOW_SECONDS and reason instead of one entry each: the
   * audit is for keyed access, and an anonymous flood must not cost a durable write per request.
   */
  "access.refusals": z.strictObject({
    window_start: IsoTimestampMs,
    window_seconds: z.int().positive(),
    /** `none`: no credential; `unknown`: a credential that names no key. */
    credential: z.enum(REFUSAL_CREDENTIALS),
    area: z.enum(AREAS),
    file: z.string().min(1).max(200),
    outcome: z.enum(ACCESS_OUTCOMES),
    status: z.int().min(100).max(599),
    count: z.int().positive(),
  }),
  ...keyRequestEventSchemas,
} as const;

/** The window anonymous refusals are counted in (core/access/events.ts "access.refusals"). */
export const REFUSAL_WINDOW_SECONDS = 60;

export type AccessRefusalsPayload = z.infer<(typeof accessEventSchemas)["access.refusals"]>;
export type AccessEventPayload = z.infer<(typeof accessEventSchemas)["access"]>;
export type KeyIssuedPayload = z.infer<(typeof accessEventSchemas)["apikey.issued"]>;
export type KeyRevokedPayload = z.infer<(typeof accessEventSchemas)["apikey.revoked"]>;
