/**
 * Shared building blocks of every published record.
 *
 * All object schemas in core/schemas are strict (`z.strictObject`): unknown keys are rejected, both
 * by zod and by the generated JSON Schemas (`additionalProperties: false`). Strings follow the
 * formats fixed in DESIGN.md: digests `sha256:<64 lowercase hex>`, keys and signatures in lowercase
 * hex, times ISO 8601 UTC with `Z`, cycles `C-<n>`.
 */
import { z } from "zod";
import { DIGEST_PATTERN } from "../digest.ts";

/** Strips the `^`/`$` anchors of one of zod's built-in regexes so it can be embedded. */
function unanchored(re: RegExp): string {
  return re.source.replace(/^\^/, "").replace(/\$$/, "");
}

const DATE_PART = unanchored(z.regexes.date);

export { DIGEST_PATTERN };
export const Digest = z.string().regex(DIGEST_PATTERN).describe("SHA-256 digest written sha256:<64 lowercase hex>");
export type Digest = z.infer<typeof Digest>;

/**
 * ISO 8601 timestamp in UTC: `YYYY-MM-DDTHH:MM:SSZ` or with exactly three fractional digits
 * (`…SS.sssZ`). Offsets other than `Z` and other fractional precisions are rejected.
 */
export const ISO_TIMESTAMP_PATTERN = new RegExp(`^${DATE_PART}T(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d{3})?Z$`);
export const IsoTimestamp = z.string().regex(ISO_TIMESTAMP_PATTERN).meta({
  format: "date-time",
  description: "ISO 8601 UTC timestamp with Z, optional milliseconds",
});
export type IsoTimestamp = z.infer<typeof IsoTimestamp>;

/** ISO 8601 UTC timestamp with exactly millisecond precision (`…SS.sssZ`), as pulse `generatedAt`. */
export const IsoTimestampMs = z.iso
  .datetime({ precision: 3 })
  .describe("ISO 8601 UTC timestamp with exactly 3 fractional digits and Z");
export type IsoTimestampMs = z.infer<typeof IsoTimestampMs>;

/** Calendar date `YYYY-MM-DD`. */
export const IsoDate = z.iso.date().describe("Calendar date YYYY-MM-DD");
export type IsoDate = z.infer<typeof IsoDate>;

/** Cycle label `C-<n>`, n a positive integer without leading zeros (`C-1`, `C-151`; not `C-0`, `C-01`). */
export const CYCLE_PATTERN = /^C-[1-9][0-9]*$/;
export const Cycle = z
  .string()
  .regex(CYCLE_PATTERN)
  .describe("Cycle label C-<n>, n a positive integer without leading zeros");
export type Cycle = z.infer<typeof Cycle>;

/** RFC 9562 UUID in canonical 8-4-4-4-12 form. */
export const Uuid = z.uuid();
export type Uuid = z.infer<typeof Uuid>;

/** Non-empty, even-length lowercase hex (whole bytes). */
export const HexString = z
  .string()
  .regex(/^(?:[0-9a-f]{2})+$/)
  .describe("Lowercase hex encoding of one or more bytes");
export type HexString = z.infer<typeof HexString>;

/**
 * A 64-byte signature in lowercase hex (128 digits): Ed25519 (RFC 8032) or ECDSA secp256k1 over
 * SHA-256 as compact r‖s with low S (DESIGN "signatures").
 */
export const SignatureHex = z
  .string()
  .regex(/^[0-9a-f]{128}$/)
  .describe("64-byte signature (Ed25519, or secp256k1 compact r||s low-S) in lowercase hex");
export type SignatureHex = z.infer<typeof SignatureHex>;

/** Ed25519 public key: 32 bytes, lowercase hex. */
export const Ed25519PublicKeyHex = z
  .string()
  .regex(/^[0-9a-f]{64}$/)
  .describe("32-byte Ed25519 public key in lowercase hex");
export type Ed25519PublicKeyHex = z.infer<typeof Ed25519PublicKeyHex>;

/**
 * A public key of either supported algorithm, lowercase hex: Ed25519 (32 bytes, 64 digits) or
 * secp256k1 in SEC 1 compressed form (33 bytes starting 02/03, 66 digits).
 */
export const PublicKeyHex = z
  .string()
  .regex(/^(?:[0-9a-f]{64}|0[23][0-9a-f]{64})$/)
  .describe("Ed25519 (32 bytes) or compressed secp256k1 (33 bytes) public key in lowercase hex");
export type PublicKeyHex = z.infer<typeof PublicKeyHex>;

/** Signature algorithms accepted anywhere on the platform. */
export const SignatureAlgorithm = z.enum(["ed25519", "secp256k1"]);
export type SignatureAlgorithm = z.infer<typeof SignatureAlgorithm>;

/** The value of the `cathedral` field: one per audience area. */
export const CATHEDRALS = [
  "FOR-GOVERNMENTS",
  "FOR-ACADEMICS",
  "FOR-PHILOSOPHERS",
  "FOR-ECONOMISTS",
  "DIPLOMACY",
] as const;
export const Cathedral = z.enum(CATHEDRALS);
export type Cathedral = z.infer<typeof Cathedral>;

/** A score in the closed interval [0, 1] (GI, MII, rates, shares). */
export const Score01 = z.number().min(0).max(1);
export type Score01 = z.infer<typeof Score01>;

/** A finite number that is at least 0. */
export const NonNegativeNumber = z.number().nonnegative();
export type NonNegativeNumber = z.infer<typeof NonNegativeNumber>;

/** A safe integer that is at least 0. */
export const NonNegativeInt = z.int().nonnegative();
export type NonNegativeInt = z.infer<typeof NonNegativeInt>;

/** Non-negative integer written as a decimal string without leading zeros or sign ("0", "1500000"). */
export const SHARD_STRING_PATTERN = /^(?:0|[1-9][0-9]*)$/;
export const ShardString = z
  .string()
  .regex(SHARD_STRING_PATTERN)
  .describe("Non-negative integer as a decimal string without leading zeros (MIC shards)");
export type ShardString = z.infer<typeof ShardString>;

/** A non-empty string (names, titles, free text). */
export const NonEmptyString = z.string().min(1);
export type NonEmptyString = z.infer<typeof NonEmptyString>;

/**
 * An identifier (sentinel, agent, office, paper, decision…): 1–128 characters, starting with a letter
 * or digit, then letters, digits, `.`, `_`, `:` or `-`. Safe in paths, CSV and log lines.
 */
export const Identifier = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/)
  .describe("Identifier: letters, digits, '.', '_', ':', '-'; at most 128 characters");
export type Identifier = z.infer<typeof Identifier>;

/** Severity of an alert or risk. */
export const Severity = z.enum(["low", "medium", "high", "critical"]);
export type Severity = z.infer<typeof Severity>;

/**
 * Item of an `alerts` array (government sentinel status, philosophy drift analysis). The spec does
 * not show the item shape; decided here: {id, severity, source, message, raised_at}.
 */
export const Alert = z.strictObject({
  /** Stable identifier of the alert. */
  id: Identifier,
  severity: Severity,
  /** What raised it: a sentinel id, a metric name or a subsystem. */
  source: NonEmptyString,
  /** Human-readable description. */
  message: NonEmptyString,
  /** When the condition was first observed. */
  raised_at: IsoTimestamp,
});
export type Alert = z.infer<typeof Alert>;
