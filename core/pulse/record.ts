/**
 * Sealing a new pulse record with a deterministic id.
 *
 * The spec types `id` as a UUID. A random v4 would make two runs over the same inputs differ, so the
 * id is derived instead: a UUIDv8 (RFC 9562 §5.8, "custom") whose bits are the first 16 bytes of
 * the record's payload hash (the same `hash` the record carries: SHA-256 of its JCS without `id`
 * and `hash`), with the version and variant bits set. Same payload → same id; and since a record's
 * payload holds `prev` and a strictly later `generatedAt`, two records of one history never share it.
 */
import { parseDigest, toHex } from "../digest.ts";
import { PulseRecord } from "../schemas/pulse.ts";
import { pulseHash, sealPulse } from "./history.ts";
import { formatIssues } from "../zod-issues.ts";

/** UUIDv8 from the first 16 bytes of a `sha256:` digest. */
export function uuidFromDigest(digest: string): string {
  const bytes = parseDigest(digest).slice(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80; // version 8
  bytes[8] = (bytes[8]! & 0x3f) | 0x80; // variant 10xx
  const hex = toHex(bytes);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Seals the fields into a record: hash via sealPulse, id derived from that hash, checked by zod (keys in schema order). */
export function buildPulseRecord(fields: Omit<PulseRecord, "id" | "hash">): PulseRecord {
  // pulseHash leaves `id` out, so the empty id here cannot change the hash the id is derived from.
  const hash = pulseHash({ ...fields, id: "" });
  const record = sealPulse({ ...fields, id: uuidFromDigest(hash) });
  const checked = PulseRecord.safeParse(record);
  if (!checked.success) {
    throw new Error(`the new pulse record is invalid: ${formatIssues(checked.error.issues, "(record)")}`);
  }
  return checked.data;
}
