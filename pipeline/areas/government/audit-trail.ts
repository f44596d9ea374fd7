/**
 * The audit trail (government key): one row per ledger entry, in ledger order, streamed while the
 * runner reads the ledger — `ledger/export.json` (a JSON array) and `ledger/export.csv` (RFC 4180).
 * Row schema: government/audit-trail-row.
 *
 * Columns:
 * - timestamp: the entry's `ts`.
 * - event_type: the entry's `type`.
 * - agent: the acting party named by the payload (AGENT_FIELD below):
 *     sample.generated                                   → generator
 *     identity.*, stake.*, avm.attempt/grant/revoke       → ledger_id ("unidentified" when an
 *                                                          avm.attempt could not name one)
 *     sentinel.registered, sentinel.heartbeat, mic_mint   → sentinel
 *     attestation                                         → agent
 *     deliberation.recorded                               → id (the deliberation, a collective act)
 *     mic_burn, mic_lock, mic_unlock                      → account
 *     multiplier.changed                                  → cathedral (whose multiplier changed)
 *     consensus.opened, consensus.evaluated               → session_id (the session acts as a body)
 *     consensus.vote                                      → participant
 *     delibproof.sealed                                   → delibproof_id
 *     delibproof.generated                                → session_id
 *     delibproof.signed                                   → participant
 *     delibproof.validated                                → validator
 *     cycle.updated                                       → "system" (the cycle keeper acts for it)
 *     pulse.recorded                                      → "pulse-indexer" (the indexer writes it)
 *     compliance.audited                                  → auditor
 *     companion.registered, companion.concern             → companion_id
 *     identity.drift, integrity.violation                 → ledger_id (the holder concerned)
 *     token.issued                                        → subject
 *     token.revoked                                       → "system" (an operator acts for it)
 *   An event type not in the table (a newer ledger) uses the first of sentinel, agent, participant,
 *   account, ledger_id, session_id, id that the payload holds as a non-empty string, else "system".
 * - data: the payload's RFC 8785 JCS text.
 * - attestation_hash: the payload's `attestation_hash` when it holds a digest (attestation,
 *   avm.grant, avm.attempt), otherwise the entry's own `hash`, which commits to the whole entry.
 */
import { canonicalize } from "../../../core/canonical.ts";
import type { LedgerEntry } from "../../../core/ledger/entry.ts";
import type { AuditTrailRow } from "../../../core/schemas/index.ts";
import { isDigest } from "../../../core/digest.ts";
import { csvWriter } from "../../../core/csv.ts";
import { JSON_ROWS_HEAD, jsonRowsEnd, jsonRowsLine } from "../../../core/json-rows.ts";
import type { RowsStep } from "../../step.ts";
import { government } from "../../../core/areas/government.ts";
import { declaredOutput } from "../../../core/areas/declaration.ts";

/** Agent of events with no acting party in the payload. */
export const UNIDENTIFIED_AGENT = "unidentified";
export const PULSE_AGENT = "pulse-indexer";
export const SYSTEM_AGENT = "system";

/** Payload field that names the acting party, per event type; a string value is a fixed agent. */
export const AGENT_FIELD: Readonly<Record<string, { field: string } | { fixed: string }>> = {
  "sample.generated": { field: "generator" },
  "compliance.audited": { field: "auditor" },
  "identity.registered": { field: "ledger_id" },
  "identity.reputation": { field: "ledger_id" },
  "identity.revoked": { field: "ledger_id" },
  "stake.locked": { field: "ledger_id" },
  "stake.withdrawn": { field: "ledger_id" },
  "stake.slashed": { field: "ledger_id" },
  "avm.attempt": { field: "ledger_id" },
  "avm.grant": { field: "ledger_id" },
  "avm.revoke": { field: "ledger_id" },
  "companion.registered": { field: "companion_id" },
  "companion.concern": { field: "companion_id" },
  "identity.drift": { field: "ledger_id" },
  "integrity.violation": { field: "ledger_id" },
  "token.issued": { field: "subject" },
  "token.revoked": { fixed: SYSTEM_AGENT },
  "sentinel.registered": { field: "sentinel" },
  "sentinel.heartbeat": { field: "sentinel" },
  attestation: { field: "agent" },
  "deliberation.recorded": { field: "id" },
  mic_mint: { field: "sentinel" },
  mic_burn: { field: "account" },
  mic_lock: { field: "account" },
  mic_unlock: { field: "account" },
  "multiplier.changed": { field: "cathedral" },
  "consensus.opened": { field: "session_id" },
  "consensus.vote": { field: "participant" },
  "consensus.evaluated": { field: "session_id" },
  "delibproof.sealed": { field: "delibproof_id" },
  "delibproof.generated": { field: "session_id" },
  "delibproof.signed": { field: "participant" },
  "delibproof.validated": { field: "validator" },
  "cycle.updated": { fixed: SYSTEM_AGENT },
  "pulse.recorded": { fixed: PULSE_AGENT },
};

const FALLBACK_FIELDS = ["sentinel", "agent", "participant", "account", "ledger_id", "session_id", "id"] as const;

function nonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value !== "";
}

export function agentOf(entry: Pick<LedgerEntry, "type" | "payload">): string {
  const rule = AGENT_FIELD[entry.type];
  if (rule) {
    if ("fixed" in rule) return rule.fixed;
    const value = entry.payload[rule.field];
    return nonEmptyString(value) ? value : UNIDENTIFIED_AGENT;
  }
  for (const field of FALLBACK_FIELDS) {
    const value = entry.payload[field];
    if (nonEmptyString(value)) return value;
  }
  return SYSTEM_AGENT;
}

// The JSON and CSV exports are fed the same entry object one after the other in the runner's single
// pass: remembering the last row builds it once.
let lastEntry: LedgerEntry | null = null;
let lastRow: AuditTrailRow | null = null;

/** The row of an entry; `payloadText` is its payload's JCS text (canonicalized when not given). */
export function auditRow(entry: LedgerEntry, payloadText?: string): AuditTrailRow {
  if (entry === lastEntry && lastRow) return lastRow;
  const payloadHash = entry.payload["attestation_hash"];
  lastEntry = entry;
  lastRow = {
    timestamp: entry.ts,
    event_type: entry.type,
    agent: agentOf(entry),
    data: payloadText ?? canonicalize(entry.payload),
    attestation_hash: isDigest(payloadHash) ? payloadHash : entry.hash,
  };
  return lastRow;
}

export const AUDIT_COLUMNS = ["timestamp", "event_type", "agent", "data", "attestation_hash"] as const;

const COMMON = {
  kind: "rows",
  schema: "government/audit-trail-row",
  inputs: ["ledger"],
  version: 3, // 2: the consensus proof events name their acting office; 3: AVM companions, drift, violations, tokens
} as const;

const DESCRIPTION =
  "One row per ledger entry in ledger order: timestamp, event type, acting agent, the payload as canonical JSON text, and the attestation hash (the payload's, else the entry hash).";

export const auditTrailJsonStep: RowsStep = {
  ...COMMON,
  ...declaredOutput(government, "ledger/export.json"),
  name: "ledger-export-json",
  title: "Ledger audit trail (JSON)",
  description: DESCRIPTION,
  start(_inputs, from) {
    let rows = typeof from === "number" ? from : 0;
    return {
      head: JSON_ROWS_HEAD,
      sink: {
        push(entry, payloadText) {
          return jsonRowsLine(rows++, JSON.stringify(auditRow(entry, payloadText)));
        },
        end: () => jsonRowsEnd(rows),
        state: () => rows,
        // The same rows as data: the pass helper writes their JSON text (RowSink.records).
        records: {
          columns: AUDIT_COLUMNS,
          record(entry, payloadText) {
            const row = auditRow(entry, payloadText);
            rows += 1;
            // In AUDIT_COLUMNS order, spelled out (no array made per row): a test compares the
            // helper's text with push's, which a member out of order would change.
            return [row.timestamp, row.event_type, row.agent, row.data, row.attestation_hash];
          },
        },
      },
    };
  },
};

export const auditTrailCsvStep: RowsStep = {
  ...COMMON,
  ...declaredOutput(government, "ledger/export.csv"),
  name: "ledger-export-csv",
  title: "Ledger audit trail (CSV)",
  description: DESCRIPTION,
  // The same rows as the JSON export: made from its items on the pass helper when both run.
  rowsOf: auditTrailJsonStep.id,
  start() {
    const writer = csvWriter(AUDIT_COLUMNS);
    return {
      head: writer.header,
      sink: {
        push: (entry, payloadText) => writer.row(auditRow(entry, payloadText)),
        end: () => "",
        state: () => null,
      },
    };
  },
};
