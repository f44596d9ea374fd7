/**
 * The ledger entry: the unit of the append-only log.
 *
 * `hash` is `sha256:` of the JCS bytes of the entry without `hash`; `prev` is the previous entry's
 * hash (null for seq 0). The Merkle leaf of an entry is the JCS bytes of the whole entry, which is
 * also its line in a JSONL export, so an export line can be hashed into the tree as it is.
 */
import { canonicalize } from "../canonical.ts";
import { hash } from "node:crypto";

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export interface LedgerEntry {
  seq: number;
  type: string;
  payload: JsonObject;
  ts: string;
  prev: string | null;
  hash: string;
}

export type UnsealedEntry = Omit<LedgerEntry, "hash">;

export interface SealedEntry {
  entry: LedgerEntry;
  /** JCS text of the whole entry: the Merkle leaf data and the export line. */
  text: string;
  /** JCS text of the payload alone, as the store keeps it. */
  payloadText: string;
  leafHash: Uint8Array;
}

const TIMESTAMP_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** ISO 8601 UTC with milliseconds, and a real calendar instant (no 2025-02-30). */
export function isLedgerTimestamp(ts: unknown): ts is string {
  if (typeof ts !== "string" || !TIMESTAMP_MS.test(ts)) return false;
  const ms = Date.parse(ts);
  return Number.isFinite(ms) && new Date(ms).toISOString() === ts;
}

export function sealEntry(fields: UnsealedEntry): SealedEntry {
  const payloadText = canonicalize(fields.payload);
  const sealed = sealPayloadText(fields, payloadText);
  return {
    entry: { ...fields, hash: sealed.hash },
    text: sealed.text,
    payloadText,
    leafHash: Buffer.from(sealed.leaf, "latin1"),
  };
}

/**
 * What sealEntry computes from the payload's JCS text instead of the payload (the append helper
 * thread receives text): the entry hash, the whole entry's JCS text, and its Merkle leaf hash as a
 * 32-character latin1 string (cheaper to return from node:crypto than a Buffer).
 */
export function sealPayloadText(
  fields: Omit<UnsealedEntry, "payload">,
  payloadText: string,
): { hash: string; text: string; leaf: string } {
  // JCS of {payload, prev, seq, ts, type}, keys already in order.
  const body =
    `{"payload":${payloadText},"prev":${jcsScalar(fields.prev)},"seq":${jcsScalar(fields.seq)},` +
    `"ts":${jcsScalar(fields.ts)},"type":${jcsScalar(fields.type)}}`;
  // Both hashes take the strings as they are: node:crypto encodes a string to UTF-8 without a
  // Buffer on this side, cheaper than writing the text into one and hashing views of it. The whole
  // entry is the body with the hash member first; the leaf input is 0x00 ‖ that text.
  const hex = hash("sha256", body, "hex");
  const text = `{"hash":"sha256:${hex}",${body.slice(1)}`;
  return { hash: `sha256:${hex}`, text, leaf: hash("sha256", `\u0000${text}`, "binary") };
}

/** Printable ASCII without `"` and `\`: a string JCS writes as it is, between quotes. */
const VERBATIM = /^[\x20\x21\x23-\x5B\x5D-\x7E]*$/;

/** The JCS of a string, integer or null member (the general canonicalize for anything unusual). */
function jcsScalar(value: string | number | null): string {
  if (value === null) return "null";
  if (typeof value === "number") return Number.isSafeInteger(value) ? `${value}` : canonicalize(value);
  return VERBATIM.test(value) ? `"${value}"` : canonicalize(value);
}

/**
 * The JCS text of a whole entry (its Merkle leaf data and export line), built from the JCS text of
 * its payload without canonicalizing the payload again: for an entry read back from a store, whose
 * stored payload text is what the entry's hash and leaf committed to. The other members are strings
 * and an integer, whose JCS form is JSON.stringify's (RFC 8785 §3.2.2.2). A payload text that is not
 * canonical gives a text, and so a leaf, that no sound ledger has: the root check then fails.
 */
export function entryText(entry: LedgerEntry, payloadText: string): string {
  return (
    `{"hash":${JSON.stringify(entry.hash)},"payload":${payloadText},"prev":${JSON.stringify(entry.prev)},` +
    `"seq":${JSON.stringify(entry.seq)},"ts":${JSON.stringify(entry.ts)},"type":${JSON.stringify(entry.type)}}`
  );
}

const ENTRY_KEYS = ["hash", "payload", "prev", "seq", "ts", "type"];

/** Checks the shape of a parsed entry; returns the first problem, or null. */
export function entryShapeProblem(value: unknown): string | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "entry is not a JSON object";
  const keys = Object.keys(value).sort();
  if (keys.join() !== ENTRY_KEYS.join())
    return `entry keys are [${keys.join(", ")}], expected [${ENTRY_KEYS.join(", ")}]`;
  const e = value as Record<string, unknown>;
  if (!Number.isSafeInteger(e.seq) || (e.seq as number) < 0) return "seq is not a non-negative integer";
  if (typeof e.type !== "string" || e.type.length === 0) return "type is not a non-empty string";
  if (typeof e.payload !== "object" || e.payload === null || Array.isArray(e.payload))
    return "payload is not an object";
  if (!isLedgerTimestamp(e.ts)) return "ts is not an ISO 8601 UTC timestamp with milliseconds";
  if (e.prev !== null && typeof e.prev !== "string") return "prev is neither null nor a digest";
  if (typeof e.hash !== "string") return "hash is not a string";
  return null;
}
