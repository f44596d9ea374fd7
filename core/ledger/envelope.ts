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

const PAYLOAD_MEMBER = `,"payload":`;

/**
 * The envelope's text cut out of the whole entry's (entry.ts `entryText`, whose payload member is
 * `payloadText`): the same string as `envelopeText`, without writing it again. JCS puts `payload`
 * right after `hash`, and `,"payload":` cannot occur inside the JSON string before it (its quotes
 * would be escaped). Null when `text` is not laid out so (the caller uses `envelopeText`).
 */
export function envelopeFromEntryText(text: string, payloadText: string): string | null {
  const cut = text.indexOf(PAYLOAD_MEMBER);
  const resume = cut + PAYLOAD_MEMBER.length + payloadText.length;
  if (
    cut < 0 ||
    !text.startsWith('{"hash":') ||
    text.charCodeAt(resume) !== 44 ||
    !text.startsWith('"prev":', resume + 1)
  )
    return null;
  return text.slice(0, cut) + text.slice(resume);
}
