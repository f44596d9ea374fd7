/**
 * Whether one stored row is an entry this code could have sealed: what a writer checks of every row
 * another writer appended before it folds it into its tree, its projections or a checkpoint it
 * signs (store/ledger/ledger.ts). Pure. The chain between rows (`prev` = the previous row's hash, no gap)
 * is the caller's, which knows the previous row; this checks the row against itself:
 *
 * - the payload text is JSON, an object, and canonical (its JCS form is itself);
 * - the time is an ISO 8601 UTC timestamp with milliseconds;
 * - the entry hash is the SHA-256 of the entry's JCS text (payload, prev, seq, ts, type), and the
 *   stored Merkle leaf is the leaf of that entry;
 * - with `validate`, the event's type is known and its payload fits that type's schema.
 */
import { canonicalize } from "../canonical.ts";
import { isLedgerTimestamp, sealPayloadText } from "./entry.ts";

export interface StoredRow {
  seq: number;
  type: string;
  payload: string;
  ts: string;
  prev: string | null;
  hash: string;
  leaf: Uint8Array;
}

/** The first thing wrong with `row`, or null when it is an entry this code could have sealed. */
export function storedRowProblem(
  row: StoredRow,
  validate?: (type: string, payload: unknown) => string | null,
): string | null {
  let payload: unknown;
  try {
    payload = JSON.parse(row.payload);
  } catch {
    return "its payload is not JSON";
  }
  if (typeof payload !== "object" || payload === null || Array.isArray(payload))
    return "its payload is not a JSON object";
  let canonical: string;
  try {
    canonical = canonicalize(payload);
  } catch (error) {
    return `its payload cannot be canonicalized: ${(error as Error).message}`;
  }
  if (canonical !== row.payload) return "its payload is not in canonical (JCS) form";
  if (typeof row.type !== "string" || row.type.length === 0) return "its type is empty";
  if (!isLedgerTimestamp(row.ts)) return "its time is not an ISO 8601 UTC timestamp with milliseconds";
  const sealed = sealPayloadText({ seq: row.seq, type: row.type, ts: row.ts, prev: row.prev }, row.payload);
  if (sealed.hash !== row.hash) return `its hash ${row.hash} is not the hash of its content (${sealed.hash})`;
  if (
    row.leaf.length !== 32 ||
    Buffer.from(sealed.leaf, "latin1").compare(
      Buffer.from(row.leaf.buffer, row.leaf.byteOffset, row.leaf.byteLength),
    ) !== 0
  )
    return "its Merkle leaf is not the leaf of its content";
  const invalid = validate?.(row.type, payload) ?? null;
  return invalid === null ? null : `its event is invalid: ${invalid}`;
}
