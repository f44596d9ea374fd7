/**
 * What the public may see of a ledger entry: its envelope — seq, type, ts, prev and hash, never the
 * payload (the full ledger, payloads included, is the government-keyed audit trail). The same
 * members the inclusion route answers (api/routes/ledger.ts); as JCS text it is what the published
 * entry bundles hold (docs/ledger-tiles.md). A client holding the payload rebuilds the whole entry
 * (entry.ts `entryText`), whose leaf hash the level-0 tile holds.
 */
import type { LedgerEntry } from "./entry.ts";

export type LedgerEnvelope = Omit<LedgerEntry, "payload">;

/** RFC 8785 JCS of the envelope: members in code-unit order; strings and integers as JSON.stringify writes them (JCS §3.2.2). */
export function envelopeText(entry: LedgerEnvelope): string {
  return `{"hash":${JSON.stringify(entry.hash)},"prev":${JSON.stringify(entry.prev)},"seq":${JSON.stringify(entry.seq)},"ts":${JSON.stringify(entry.ts)},"type":${JSON.stringify(entry.type)}}`;
}
