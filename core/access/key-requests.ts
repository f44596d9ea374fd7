/**
 * Key requests: what a person sends to ask for an API key (interface spec, "Data areas": a request
 * states affiliation, official contact address and purpose; the non-government tiers also the
 * expected volume), and where each request stands. A request is an event of the access ledger
 * (`keyrequest.received`); the operator answers it with `npm run keys -- issue --request <ref>`,
 * which issues the key with `request: <ref>` in its `apikey.issued` event (one atomic append), or
 * `decline --request <ref>` (`keyrequest.declined`). The state is folded from those events, like the
 * keys themselves (core/access/keys.ts), so every process sees the same answer.
 *
 * The reference a requester gets is random (`KR-XXXX-XXXX`, Crockford base32, 40 bits): it says
 * nothing about how many requests there were, and it is what they quote when writing.
 */
import { z } from "zod";
import { GOVERNMENT_KEY_TIER, KEY_TIERS, type KeyTier } from "../datapackage/contract.ts";
import type { LedgerEntry } from "../ledger/entry.ts";
import { IsoTimestampMs } from "../schemas/common.ts";

/** Key requests one client may send per UTC day. */
export const KEY_REQUEST_DAILY_QUOTA = 5;

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
export const KeyRequestReference = z
  .string()
  .regex(/^KR-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/, "must be KR-XXXX-XXXX");

/** The reference of a request from 5 random bytes. */
export function requestReference(random: Uint8Array): string {
  if (random.length !== 5) throw new RangeError("a reference takes 5 random bytes");
  let bits = 0n;
  for (const byte of random) bits = (bits << 8n) | BigInt(byte);
  let text = "";
  for (let i = 7; i >= 0; i -= 1) text += CROCKFORD[Number((bits >> BigInt(i * 5)) & 31n)];
  return `KR-${text.slice(0, 4)}-${text.slice(4)}`;
}

/**
 * Characters no request text may hold, because they would reach the operator's terminal (`npm run
 * keys -- requests`) and change what it shows: control characters (Cc), format characters (Cf: the
 * bidirectional overrides such as U+202E, zero-width characters, U+FEFF) and the line and paragraph
 * separators (Zl U+2028, Zp U+2029). Line refuses all of them; escapeUnprintable writes them out.
 * FORMAT is the format characters, which no JSON Schema pattern written by ranges lists in every
 * validator's dialect: a refinement of Line's pattern.
 */
const FORMAT = /\p{Cf}/u;

/** Control, format and separator characters, every one, for escaping (api/cli/keys.ts prints them as \u{…}). */
const UNPRINTABLE_ALL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/** `text` with every control, format and separator character written as `\u{XXXX}`: safe to print. */
export function escapeUnprintable(text: string): string {
  return text.replace(
    UNPRINTABLE_ALL,
    (ch) => `\\u{${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}}`,
  );
}

/**
 * A printable line of text. The pattern (what the JSON Schema says) refuses the control characters
 * by ranges, not \\p{Cc}, so it reads the same in every JSON Schema validator, and the line and
 * paragraph separators (U+2028, U+2029); the refinement adds the format characters (Cf).
 */
const Line = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .regex(/^[^\u0000-\u001f\u007f-\u009f\u2028\u2029]*$/, "must not contain control characters")
    .refine((text) => !FORMAT.test(text), "must not contain format characters (such as U+202E or U+200B)");

/** An e-mail address as people type one: a local part, an @, a domain with a dot. */
const Email = z
  .string()
  .trim()
  .max(254)
  .regex(
    /^[^\s@<>()[\]\\,;:"\u0000-\u001f\u007f-\u009f]{1,64}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/,
    "must be an e-mail address (name@domain.tld)",
  )
  .refine((text) => !FORMAT.test(text), "must not contain format characters (such as U+202E or U+200B)");

/** Requests per day the requester expects (the non-government tiers state it). */
const ExpectedVolume = z.int().min(1).max(10_000_000);

/** The body of POST /keys/requests. */
export const KeyRequestBody = z
  .strictObject({
    tier: z.enum(KEY_TIERS),
    affiliation: Line(200),
    contact: Email,
    purpose: Line(1000),
    expected_volume: ExpectedVolume.optional(),
    /** The honeypot: hidden from people, so only a form-filling robot puts anything here. */
    website: z.literal("").optional(),
  })
  .refine((body) => body.tier === GOVERNMENT_KEY_TIER || body.expected_volume !== undefined, {
    path: ["expected_volume"],
    message: "the academic, institutional and economist tiers state the expected volume (requests per day)",
  });
export type KeyRequestBody = z.infer<typeof KeyRequestBody>;

export const keyRequestEventSchemas = {
  "keyrequest.received": z.strictObject({
    reference: KeyRequestReference,
    tier: z.enum(KEY_TIERS),
    affiliation: z.string().min(1).max(200),
    contact: z.string().min(3).max(254),
    purpose: z.string().min(1).max(1000),
    expected_volume: ExpectedVolume.nullable(),
    received_at: IsoTimestampMs,
  }),
  "keyrequest.declined": z.strictObject({
    reference: KeyRequestReference,
    reason: z.string().min(1).max(200),
    declined_at: IsoTimestampMs,
  }),
} as const;
export type KeyRequestReceived = z.infer<(typeof keyRequestEventSchemas)["keyrequest.received"]>;
export type KeyRequestDeclined = z.infer<(typeof keyRequestEventSchemas)["keyrequest.declined"]>;

export type KeyRequestStatus = "pending" | "issued" | "declined";

export interface KeyRequest extends KeyRequestReceived {
  status: KeyRequestStatus;
  /** The key issued for it, when issued. */
  key_id: string | null;
  answered_at: string | null;
  decline_reason: string | null;
}

/** The payload of a request received at `now` under `reference`. */
export function receivedPayload(body: KeyRequestBody, reference: string, now: Date): KeyRequestReceived {
  return {
    reference,
    tier: body.tier,
    affiliation: body.affiliation,
    contact: body.contact,
    purpose: body.purpose,
    expected_volume: body.expected_volume ?? null,
    received_at: now.toISOString(),
  };
}

/** Folds one access-ledger entry into the requests (a repeated reference is void: the first one stands). */
export function applyKeyRequestEntry(
  requests: Map<string, KeyRequest>,
  entry: LedgerEntry,
  issuedKey: { key_id: string; request?: string | undefined; issued_at: string } | null,
): void {
  if (entry.type === "keyrequest.received") {
    const p = entry.payload as unknown as KeyRequestReceived;
    if (!requests.has(p.reference))
      requests.set(p.reference, { ...p, status: "pending", key_id: null, answered_at: null, decline_reason: null });
  } else if (entry.type === "keyrequest.declined") {
    const p = entry.payload as unknown as KeyRequestDeclined;
    const request = requests.get(p.reference);
    if (request?.status === "pending")
      Object.assign(request, { status: "declined", answered_at: p.declined_at, decline_reason: p.reason });
  } else if (issuedKey?.request) {
    const request = requests.get(issuedKey.request);
    if (request?.status === "pending")
      Object.assign(request, { status: "issued", key_id: issuedKey.key_id, answered_at: issuedKey.issued_at });
  }
}

/** The label of a key issued for a request: who it is for and the request's reference. */
export function labelOfRequest(request: KeyRequestReceived): string {
  const suffix = ` (${request.reference})`;
  return `${request.affiliation.slice(0, 200 - suffix.length)}${suffix}`;
}

/**
 * Whether a contact address is on a domain that is academic by its name (`.edu`, `.ac.<cc>`,
 * `.edu.<cc>`): a hint for the operator, who verifies the academic address before issuing an
 * academic key (many universities use other domains, so it is never a refusal).
 */
export function looksAcademic(contact: string): boolean {
  const domain = contact.slice(contact.lastIndexOf("@") + 1).toLowerCase();
  return /(^|\.)(edu|ac\.[a-z]{2}|edu\.[a-z]{2})$/.test(domain);
}

export type { KeyTier };
