/**
 * Test support for the schema tests: for every published schema its example (./examples.ts) and
 * counter-examples that BOTH zod and the generated JSON Schema must reject. Rules that only zod
 * enforces (cross-field refinements) are tested separately in schemas.test.ts.
 */
import type { z } from "zod";
import type { publishedSchemas } from "../../../../core/schemas/index.ts";
import {
  LEDGER_ID,
  DIGEST_A,
  DIGEST_UPPER,
  SIG,
  ED_PUB,
  SECP_PUB,
  T0,
  T1,
  companionAttestation,
  proofOfControl,
  verifyRequest,
  authorityContext,
  avmFailure,
  pulseRecord,
  sentinelStatus,
  deliberationProof,
  regulation,
  complianceReport,
  cathedralRoi,
  simulationState,
  unsealedProof,
  SIMULATION_DIGEST,
  simulationUpdate,
  examples,
} from "../../../../core/schemas/examples.ts";

type Registry = typeof publishedSchemas;
export type Fixtures = {
  [K in keyof Registry]: { valid: z.input<Registry[K]>; invalid: unknown[] };
};
type In<K extends keyof Registry> = z.input<Registry[K]>;

// ---------------------------------------------------------------------------------------------
// Helpers: each returns a modified deep copy.

type Path = readonly (string | number)[];

function clone<T>(value: T): T {
  return structuredClone(value);
}

/** Copy of `value` with the property at `path` set to `replacement`. */
export function setAt(value: unknown, path: Path, replacement: unknown): unknown {
  const copy = clone(value);
  if (path.length === 0) return replacement;
  let target = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) {
    target = target[key] as Record<string | number, unknown>;
  }
  target[path[path.length - 1] as string | number] = replacement;
  return copy;
}

/** Copy of `value` without the property at `path`. */
export function omitAt(value: unknown, path: Path): unknown {
  const copy = clone(value);
  let target = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) {
    target = target[key] as Record<string | number, unknown>;
  }
  delete target[path[path.length - 1] as string | number];
  return copy;
}

/** Copy of `value` with an unknown key added to the object at `path` (default: top level). */
export function withUnknownKey(value: unknown, path: Path = []): unknown {
  const copy = clone(value);
  let target = copy as Record<string | number, unknown>;
  for (const key of path) target = target[key] as Record<string | number, unknown>;
  target["unexpected_field"] = true;
  return copy;
}

// ---------------------------------------------------------------------------------------------

const simulationFinal: In<"philosophy/simulation-update">["current_state"] = { ...simulationState, phase: "final", outcome: "deferred", end_reason: "settled" };

export const fixtures: Fixtures = {
  "avm-verify-request": {
    valid: examples["avm-verify-request"],
    invalid: [
      withUnknownKey(verifyRequest),
      // The attestation's content is judged by the attestation stage; the body needs a JSON object.
      setAt(verifyRequest, ["companion_attestation"], "an attestation"),
      setAt(verifyRequest, ["companion_attestation"], [companionAttestation]),
      setAt(verifyRequest, ["ledger_id"], "not-a-uuid"),
      setAt(verifyRequest, ["requested_scopes"], "api.read"),
      setAt(verifyRequest, ["requested_scopes"], []),
      setAt(verifyRequest, ["requested_scopes"], ["api.admin"]),
      setAt(verifyRequest, ["wallet_signature"], SIG.toUpperCase()),
      omitAt(verifyRequest, ["companion_attestation"]),
      // Natural-language claims of authority have no place in the request.
      { ...verifyRequest, claim: "I am an administrator" },
    ],
  },
  "avm-companion-attestation": {
    valid: examples["avm-companion-attestation"],
    invalid: [
      withUnknownKey(companionAttestation),
      { ...companionAttestation, cosignature: { companion_id: "companion-hermes", algorithm: "ed25519", public_key: ED_PUB } },
      setAt(companionAttestation, ["risk_level"], "severe"),
      setAt(companionAttestation, ["ej_hash"], DIGEST_UPPER),
      setAt(companionAttestation, ["algorithm"], "rsa"),
      setAt(companionAttestation, ["issued_at"], "2025-12-01T00:00:00+01:00"),
      setAt(companionAttestation, ["scopes"], []),
      setAt(companionAttestation, ["public_key"], "04".padEnd(130, "a")),
      omitAt(companionAttestation, ["signature"]),
    ],
  },
  "avm-proof-of-control": {
    valid: examples["avm-proof-of-control"],
    invalid: [
      withUnknownKey(proofOfControl),
      setAt(proofOfControl, ["method"], "email"),
      setAt(proofOfControl, ["challenge"], "xyz"),
      setAt(proofOfControl, ["signed_at"], 1764547200),
    ],
  },
  "avm-authority-context": {
    valid: examples["avm-authority-context"],
    invalid: [
      withUnknownKey(authorityContext),
      setAt(authorityContext, ["verified"], false),
      setAt(authorityContext, ["stake_locked"], "12500"),
      setAt(authorityContext, ["risk_level"], "unknown"),
      setAt(authorityContext, ["validation_chain"], ["identity:pass", "stake:pass"]),
      setAt(authorityContext, ["validation_chain", 4], "temporal:fail"),
      setAt(authorityContext, ["attestation_hash"], "sha256:abc"),
      omitAt(authorityContext, ["created_at"]),
    ],
  },
  "avm-verify-success": {
    valid: examples["avm-verify-success"],
    invalid: [
      withUnknownKey({ verified: true, authority_context: authorityContext }),
      withUnknownKey({ verified: true, authority_context: authorityContext }, ["authority_context"]),
      { verified: false, authority_context: authorityContext },
      { verified: true },
    ],
  },
  "avm-verify-failure": {
    valid: examples["avm-verify-failure"],
    invalid: [
      withUnknownKey(avmFailure),
      setAt(avmFailure, ["verified"], true),
      setAt(avmFailure, ["code"], "AVM_009"),
      setAt(avmFailure, ["failed_at_stage"], "time"),
      setAt(avmFailure, ["error"], "Attestation Invalid"),
      omitAt(avmFailure, ["remediation"]),
    ],
  },
  "avm-verify-response": {
    valid: examples["avm-verify-response"],
    invalid: [
      withUnknownKey(avmFailure),
      { verified: true, authority_context: setAt(authorityContext, ["verified"], false) },
      { ...avmFailure, verified: "false" },
      { verified: true, authority_context: authorityContext, error: "none" },
    ],
  },
  "avm-check-response": {
    valid: examples["avm-check-response"],
    invalid: [
      { has_authority: true, scopes: ["api.read"], expires_at: "2026-01-01T00:00:00Z", role: "admin" },
      { has_authority: "yes", scopes: [], expires_at: null },
      { has_authority: false, scopes: [] },
      { has_authority: true, scopes: ["api.read"], expires_at: "2026-01-01" },
    ],
  },
  "avm-revoke-request": {
    valid: examples["avm-revoke-request"],
    invalid: [
      { ledger_id: LEDGER_ID, reason: "integrity_violation", evidence_hash: DIGEST_A, note: "x" },
      { ledger_id: LEDGER_ID, reason: "because", evidence_hash: DIGEST_A },
      { ledger_id: LEDGER_ID, reason: "integrity_violation", evidence_hash: "a3".repeat(32) },
      { ledger_id: 42, reason: "integrity_violation", evidence_hash: DIGEST_A },
    ],
  },
  "avm-revoke-response": {
    valid: examples["avm-revoke-response"],
    invalid: [
      { revoked: true, revoked_at: "2025-12-01T12:30:00.250Z", by: "admin" },
      { revoked: 1, revoked_at: "2025-12-01T12:30:00Z" },
      { revoked: true, revoked_at: "2025-12-01 12:30:00" },
    ],
  },
  "pulse-record": {
    valid: examples["pulse-record"],
    invalid: [
      withUnknownKey(pulseRecord),
      withUnknownKey(pulseRecord, ["stats"]),
      withUnknownKey(pulseRecord, ["scoring", "inputs", "gi.ledger_verified"]),
      setAt(pulseRecord, ["giScore"], 1.2),
      setAt(pulseRecord, ["miiScore"], "0.96"),
      setAt(pulseRecord, ["cycle"], "C-0151"),
      setAt(pulseRecord, ["generatedAt"], "2025-12-01T06:00:00Z"),
      setAt(pulseRecord, ["stats", "totalFiles"], -1),
      setAt(pulseRecord, ["stats", "appsCount"], 2.5),
      omitAt(pulseRecord, ["stats", "workflowsCount"]),
      setAt(pulseRecord, ["testCoverage"], 87),
      setAt(pulseRecord, ["scoring", "inputs", "gi.ci_green", "measured"], "no"),
    ],
  },
  "pulse-history": {
    valid: examples["pulse-history"],
    invalid: [
      { count: 1, items: [pulseRecord], next: null },
      { count: "1", items: [pulseRecord] },
      { count: 1, items: [withUnknownKey(pulseRecord)] },
      { count: 1, items: pulseRecord },
    ],
  },
  "pulse-badge": {
    valid: examples["pulse-badge"],
    invalid: [
      { schemaVersion: 1, label: "integrity", message: "98.2% / 96.5%", color: "yellowgreen", style: "flat" },
      { schemaVersion: 2, label: "integrity", message: "98.2% / 96.5%", color: "yellowgreen" },
      { schemaVersion: 1, label: "integrity", message: "98.2%", color: "blue" },
      { schemaVersion: 1, label: "integrity", message: 98.2, color: "red" },
      { schemaVersion: 1, label: "integrity", message: "n/a", color: "lightgrey", isError: "true" },
    ],
  },
  "government/compliance-report": {
    valid: examples["government/compliance-report"],
    invalid: [
      withUnknownKey(complianceReport),
      withUnknownKey(complianceReport, ["jurisdictions"]),
      // A regulation of another jurisdiction is an unknown key.
      setAt(complianceReport, ["jurisdictions", "UK", "GDPR"], "compliant"),
      omitAt(complianceReport, ["jurisdictions", "EU", "MiCA"]),
      omitAt(complianceReport, ["jurisdictions", "International", "last_audit"]),
      setAt(complianceReport, ["jurisdictions", "USA", "SEC"], "approved"),
      setAt(complianceReport, ["next_audit"], "2026-01-15T00:00:00Z"),
      setAt(complianceReport, ["jurisdictions", "USA"], regulation(["SEC", "CFTC"])),
      omitAt(complianceReport, ["cycle"]),
    ],
  },
  "government/audit-trail-row": {
    valid: examples["government/audit-trail-row"],
    invalid: [
      { timestamp: T0, event_type: "attestation", agent: "a", data: "{}", attestation_hash: DIGEST_A, seq: 1 },
      { timestamp: T0, event_type: "attestation", agent: "a", data: { x: 1 }, attestation_hash: DIGEST_A },
      { timestamp: T0, event_type: "Attestation!", agent: "a", data: "{}", attestation_hash: DIGEST_A },
      { timestamp: T0, event_type: "attestation", agent: "a", data: "{}", attestation_hash: DIGEST_UPPER },
    ],
  },
  "government/sentinel-status": {
    valid: examples["government/sentinel-status"],
    invalid: [
      withUnknownKey(sentinelStatus),
      withUnknownKey(sentinelStatus, ["sentinels", 0, "performance"]),
      withUnknownKey(sentinelStatus, ["alerts", 0]),
      setAt(sentinelStatus, ["sentinels", 0, "cathedral"], "FOR-EVERYONE"),
      setAt(sentinelStatus, ["sentinels", 0, "uptime_days"], "42"),
      setAt(sentinelStatus, ["system_health"], "fine"),
      setAt(sentinelStatus, ["alerts", 0, "severity"], "urgent"),
      setAt(sentinelStatus, ["alerts"], {}),
      omitAt(sentinelStatus, ["sentinels", 0, "last_heartbeat"]),
      setAt(sentinelStatus, ["sentinels", 0, "performance", "gi_score"], 1.2),
      setAt(sentinelStatus, ["sentinels", 0, "status"], "online"),
    ],
  },
  "government/authority-activity": {
    valid: examples["government/authority-activity"],
    invalid: [
      { cycle: "C-151", timestamp: T0, attempts: 1 },
      // A negative count and a month that does not exist, in an otherwise valid document.
      setAt(setAt(examples["government/authority-activity"], ["attempts"], -1), ["months", 0, "month"], "2025-13"),
    ],
  },
  "government/policy-impact": {
    valid: examples["government/policy-impact"],
    invalid: [
      { cycle: "C-151", timestamp: T0, projections: [], summary: "x" },
      {
        cycle: "C-151",
        timestamp: T0,
        projections: [
          {
            policy: "p",
            economic_impact: { debt_reduction_annual: 1, gdp_impact: "g", job_creation: "j" },
            social_impact: { access_improvement: "a", equity_impact: "e", transparency: "t" },
            risks: [],
            timeline: "t",
          },
        ],
      },
      {
        cycle: "C-151",
        timestamp: T0,
        projections: [
          {
            policy: "p",
            economic_impact: { debt_reduction_annual: "d", gdp_impact: "g", job_creation: "j" },
            social_impact: { access_improvement: "a", equity_impact: "e", transparency: "t", extra: "x" },
            risks: [{ risk: "r", severity: "extreme", mitigation: "m" }],
            timeline: "t",
          },
        ],
      },
      { cycle: "151", timestamp: T0, projections: [] },
    ],
  },
  "academics/dataset": {
    valid: examples["academics/dataset"],
    invalid: [
      { cycle: "C-151", mii_baseline: 0.95, sentinels: [], apps: [], packages: [], timestamp: T0 },
      { cycle: "C-151", mii_baseline: 1.5, sentinels: [], apps: [], packages: [] },
      { cycle: "C-151", mii_baseline: 0.95, sentinels: [], apps: ["portal"], packages: [] },
      {
        cycle: "C-151",
        mii_baseline: 0.95,
        sentinels: [],
        apps: [],
        packages: [{ name: "core", version: "1.0.0", path: "core", description: "d", license: "MIT" }],
      },
      // File and line counts are not part of an app any more.
      { cycle: "C-151", mii_baseline: 0.95, sentinels: [], apps: [{ name: "site", path: "site", files: 1, lines: 2 }], packages: [] },
      { cycle: "C-151", mii_baseline: 0.95, sentinels: [], apps: [{ name: "site", path: "site", description: "" }], packages: [] },
      { cycle: "C-151", mii_baseline: 0.95, sentinels: [{ id: "s", score: 1 }], apps: [], packages: [] },
      { cycle: "C-151", mii_baseline: 0.95, sentinels: [{ id: "s", score: "1", cathedral: "FOR-ACADEMICS" }], apps: [], packages: [] },
    ],
  },
  "academics/mii-timeline-row": {
    valid: examples["academics/mii-timeline-row"],
    invalid: [
      { timestamp: T0, mii_score: 0.964, cycle: "C-151", sentinel_count: 8, gi: 1 },
      { timestamp: T0, mii_score: "0.964", cycle: "C-151", sentinel_count: 8 },
      { timestamp: T0, mii_score: 0.964, cycle: "C-151", sentinel_count: 8.5 },
      { timestamp: T0, mii_score: -0.1, cycle: "C-151", sentinel_count: 8 },
    ],
  },
  "academics/sentinel-coordination": {
    valid: examples["academics/sentinel-coordination"],
    invalid: [
      { cycle: "C-151", timestamp: T1, sentinels: [], average_coordination: 1, consensus_rate: 0.9, x: 1 },
      { cycle: "C-151", timestamp: T1, sentinels: [], average_coordination: "1", consensus_rate: 0.9 },
      { cycle: "C-151", timestamp: T1, sentinels: [], average_coordination: 1, consensus_rate: 90 },
      {
        cycle: "C-151",
        timestamp: T1,
        sentinels: [{ id: "s", coordination_score: 1, uptime_days: -1, cathedral: "FOR-ACADEMICS" }],
        average_coordination: 1,
        consensus_rate: 0.9,
      },
      { cycle: "C-151", timestamp: T1, sentinels: [], average_coordination: 1, consensus_rate: -0.1 },
      { cycle: "C-151", timestamp: T1, sentinels: [], average_coordination: 1 },
    ],
  },
  "academics/papers": {
    valid: examples["academics/papers"],
    invalid: [
      { cycle: "C-151", papers: [], authors: [] },
      {
        cycle: "C-151",
        papers: [{ id: "p", title: "t", status: "rumoured", venues: [], key_result: "k", path: "p.pdf" }],
      },
      { cycle: "C-151", papers: [{ id: "p", title: "t", status: "draft", venues: "arXiv", key_result: "k", path: "p" }] },
    ],
  },
  "philosophy/deliberations": {
    valid: examples["philosophy/deliberations"],
    invalid: [
      { cycle: "C-151", timestamp: T0, deliberations: [], extra: [] },
      {
        cycle: "C-151",
        timestamp: T0,
        deliberations: [
          {
            id: "d",
            topic: "t",
            sentinels: [{ id: "s", position: "maybe", reasoning: "r", virtue_tags: [] }],
            consensus: 1,
            outcome: "approved",
          },
        ],
      },
      {
        cycle: "C-151",
        timestamp: T0,
        deliberations: [{ id: "d", topic: "t", sentinels: [], consensus: "full", outcome: "approved" }],
      },
      {
        cycle: "C-151",
        timestamp: T0,
        deliberations: [
          {
            id: "d",
            topic: "t",
            sentinels: [{ id: "s", position: "support", reasoning: "r", virtue_tags: ["greed"] }],
            consensus: 1,
            outcome: "approved",
          },
        ],
      },
    ],
  },
  "philosophy/virtues": {
    valid: examples["philosophy/virtues"],
    invalid: [
      {
        cycle: "C-151",
        timestamp: T0,
        virtues: {
          integrity: { score: 1, measure: "m", status: "compliant" },
          temperance: { score: 1, measure: "m", status: "compliant" },
          justice: { score: 1, measure: "m", status: "compliant" },
          prudence: { score: 1, measure: "m", status: "compliant" },
          courage: { score: 1, measure: "m", status: "compliant" },
          humility: { score: 1, measure: "m", status: "compliant" },
        },
        overall_compliance: 1,
      },
      {
        cycle: "C-151",
        timestamp: T0,
        virtues: {
          integrity: { score: "high", measure: "m", status: "compliant" },
          temperance: { score: 1, measure: "m", status: "compliant" },
          justice: { score: 1, measure: "m", status: "compliant" },
          prudence: { score: 1, measure: "m", status: "compliant" },
          courage: { score: 1, measure: "m", status: "compliant" },
        },
        overall_compliance: 1,
      },
      { cycle: "C-151", timestamp: T0, virtues: {}, overall_compliance: 1 },
    ],
  },
  "philosophy/decisions": {
    valid: examples["philosophy/decisions"],
    invalid: [
      { cycle: "C-151", timestamp: T0, decisions: [], archived: [] },
      {
        cycle: "C-151",
        timestamp: T0,
        decisions: [
          {
            id: "d",
            date: "28/11/2025",
            topic: "t",
            frameworks_applied: [],
            sentinels_involved: [],
            reasoning: "r",
            outcome: "o",
            lessons_learned: "l",
          },
        ],
      },
      {
        cycle: "C-151",
        timestamp: T0,
        decisions: [
          {
            id: "d",
            date: "2025-11-28",
            topic: "t",
            frameworks_applied: "all",
            sentinels_involved: [],
            reasoning: "r",
            outcome: "o",
            lessons_learned: "l",
          },
        ],
      },
    ],
  },
  "philosophy/drift-analysis": {
    valid: examples["philosophy/drift-analysis"],
    invalid: [
      {
        cycle: "C-151",
        timestamp: T0,
        drift_score: 0.04,
        status: "stable",
        analysis: { virtue_alignment: 0.97, principle_adherence: 0.96, charter_compliance: 0.99, extra: 1 },
        trends: [],
        alerts: [],
      },
      {
        cycle: "C-151",
        timestamp: T0,
        drift_score: 0.04,
        status: "wobbly",
        analysis: { virtue_alignment: 0.97, principle_adherence: 0.96, charter_compliance: 0.99 },
        trends: [],
        alerts: [],
      },
      {
        cycle: "C-151",
        timestamp: T0,
        drift_score: "low",
        status: "stable",
        analysis: { virtue_alignment: 0.97, principle_adherence: 0.96, charter_compliance: 0.99 },
        trends: [],
        alerts: [],
      },
      {
        cycle: "C-151",
        timestamp: T0,
        drift_score: 0.04,
        status: "stable",
        analysis: { virtue_alignment: 0.97, principle_adherence: 0.96, charter_compliance: 0.99 },
        trends: [{ metric: "mii", baseline: 1, current: 1, drift: 0, direction: "sideways" }],
        alerts: [],
      },
    ],
  },
  "philosophy/simulation-request": {
    valid: examples["philosophy/simulation-request"],
    invalid: [
      { action: "start_simulation", scenario: "s", speed: 2 },
      { action: "stop_simulation", scenario: "s" },
      { action: "start_simulation", scenario: 7 },
      { action: "start_simulation" },
      { action: "start_simulation", scenario: "" },
      { action: "start_simulation", scenario: "  \n\t " },
      { action: "start_simulation", scenario: "x".repeat(501) },
    ],
  },
  "philosophy/simulation-update": {
    valid: examples["philosophy/simulation-update"],
    invalid: [
      { ...simulationUpdate, current_state: { ...simulationState, extra: 1 } },
      { ...simulationUpdate, type: "simulation_started" },
      { ...simulationUpdate, current_state: { ...simulationState, round: -1 } },
      { ...simulationUpdate, next_actions: "wait" },
      { ...simulationUpdate, sentinels: [{ ...simulationUpdate.sentinels[0], stance: 1.5 }] },
      { ...simulationUpdate, sentinels: [{ ...simulationUpdate.sentinels[0], confidence: 0.8 }] },
      { ...simulationUpdate, current_state: { ...simulationFinal, outcome: "maybe" } },
      { ...simulationUpdate, current_state: { ...simulationFinal, end_reason: "bored" } },
      { ...simulationUpdate, current_state: { ...simulationState, inputs: { deliberations: SIMULATION_DIGEST, virtues: SIMULATION_DIGEST } } },
      { ...simulationUpdate, next_actions: [{ sentinel: "SOPHIA", action: "request revocation", position: "abstain" }] },
    ],
  },
  "philosophy/simulation-error": {
    valid: examples["philosophy/simulation-error"],
    invalid: [
      { type: "error", code: "whatever", message: "x" },
      { type: "error", code: "malformed-message" },
      { type: "error", code: "malformed-message", message: "" },
      { type: "error", code: "malformed-message", message: "x", close: 1008 },
      { type: "simulation_update", code: "malformed-message", message: "x" },
    ],
  },
  "economy/supply": {
    valid: examples["economy/supply"],
    invalid: [
      { cycle: "C-151", timestamp: T0, total_supply: 1, circulating: 1, locked: 0, burned: 0, minted_today: 0 },
      { cycle: "C-151", timestamp: T0, total_supply: "1250000", circulating: 1, locked: 0, burned: 0 },
      { cycle: "C-151", timestamp: T0, total_supply: 1, circulating: -1, locked: 0, burned: 0 },
      { timestamp: T0, total_supply: 1, circulating: 1, locked: 0, burned: 0 },
    ],
  },
  "economy/mii": {
    valid: examples["economy/mii"],
    invalid: [
      { timestamp: T0, mii: 0.964, threshold: 0.95, minting_active: true, cycle: "C-151", trend: "up" },
      { timestamp: T0, mii: 0.964, threshold: 0.95, minting_active: "true", cycle: "C-151" },
      { timestamp: T0, mii: 0.964, threshold: 0.95, minting_active: true, cycle: "C-0" },
    ],
  },
  "economy/coordination": {
    valid: examples["economy/coordination"],
    invalid: [
      { cycle: "C-151", timestamp: T0, average_coordination: 1, sentinels: [], formula: "f", version: 1 },
      { cycle: "C-151", timestamp: T0, average_coordination: 1, sentinels: [], formula: 1 },
      {
        cycle: "C-151",
        timestamp: T0,
        average_coordination: 1,
        sentinels: [{ id: "s", score: 1, cathedral: "FOR-ECONOMISTS", rank: 1 }],
        formula: "f",
      },
    ],
  },
  "economy/roi": {
    valid: examples["economy/roi"],
    invalid: [
      {
        cycle: "C-151",
        timestamp: T0,
        by_cathedral: {
          "FOR-GOVERNMENTS": cathedralRoi,
          "FOR-ACADEMICS": cathedralRoi,
          "FOR-PHILOSOPHERS": cathedralRoi,
          "FOR-ECONOMISTS": cathedralRoi,
          DIPLOMACY: cathedralRoi,
          "FOR-EVERYONE": cathedralRoi,
        },
      },
      {
        cycle: "C-151",
        timestamp: T0,
        by_cathedral: {
          "FOR-GOVERNMENTS": cathedralRoi,
          "FOR-ACADEMICS": cathedralRoi,
          "FOR-PHILOSOPHERS": cathedralRoi,
          "FOR-ECONOMISTS": cathedralRoi,
        },
      },
      {
        cycle: "C-151",
        timestamp: T0,
        by_cathedral: {
          "FOR-GOVERNMENTS": { ...cathedralRoi, multiplier: 2.5 },
          "FOR-ACADEMICS": cathedralRoi,
          "FOR-PHILOSOPHERS": cathedralRoi,
          "FOR-ECONOMISTS": cathedralRoi,
          DIPLOMACY: cathedralRoi,
        },
      },
      {
        cycle: "C-151",
        timestamp: T0,
        by_cathedral: {
          "FOR-GOVERNMENTS": { ...cathedralRoi, sentinel_count: "2" },
          "FOR-ACADEMICS": cathedralRoi,
          "FOR-PHILOSOPHERS": cathedralRoi,
          "FOR-ECONOMISTS": cathedralRoi,
          DIPLOMACY: cathedralRoi,
        },
      },
      {
        cycle: "C-151",
        timestamp: T0,
        by_cathedral: {
          "FOR-GOVERNMENTS": { ...cathedralRoi, note: "x" },
          "FOR-ACADEMICS": cathedralRoi,
          "FOR-PHILOSOPHERS": cathedralRoi,
          "FOR-ECONOMISTS": cathedralRoi,
          DIPLOMACY: cathedralRoi,
        },
      },
    ],
  },
  "economy/mic-history-row": {
    valid: examples["economy/mic-history-row"],
    invalid: [
      { timestamp: T0, cycle: "C-151", sentinel: "s", amount: 1, cathedral: "DIPLOMACY", coordination_score: 1, tx: 1 },
      { timestamp: T0, cycle: "C-151", sentinel: "s", amount: "1", cathedral: "DIPLOMACY", coordination_score: 1 },
      { timestamp: T0, cycle: "C-151", sentinel: "s", amount: 1, cathedral: "diplomacy", coordination_score: 1 },
    ],
  },
  "economy/sentinel-roi": {
    valid: examples["economy/sentinel-roi"],
    invalid: [
      { cycle: "C-151", timestamp: T0, sentinels: [], total: 0 },
      {
        cycle: "C-151",
        timestamp: T0,
        sentinels: [{ id: "s", cathedral: "DIPLOMACY", total_rewards: 1, coordination_score: 1, multiplier: 0.5, roi: 0 }],
      },
      {
        cycle: "C-151",
        timestamp: T0,
        sentinels: [{ id: "s", cathedral: "DIPLOMACY", total_rewards: 1, coordination_score: 1, multiplier: 1, roi: "10%" }],
      },
    ],
  },
  "economy/cathedral-multipliers-row": {
    valid: examples["economy/cathedral-multipliers-row"],
    invalid: [
      { timestamp: T0, cycle: "C-151", cathedral: "FOR-ACADEMICS", multiplier: 1.1, reason: "r", by: "x" },
      { timestamp: T0, cycle: "C-151", cathedral: "FOR-ACADEMICS", multiplier: 0.9, reason: "r" },
      { timestamp: T0, cycle: "C-151", cathedral: "FOR-ACADEMICS", multiplier: "1.1", reason: "r" },
    ],
  },
  "diplomacy/treaty-framework": {
    valid: examples["diplomacy/treaty-framework"],
    invalid: [
      {
        cycle: "C-156",
        title: "t",
        version: "1",
        effective_date: "2025-12-06",
        principles: [],
        articles: [],
        signatories: [],
        preamble: "x",
      },
      {
        cycle: "C-156",
        title: "t",
        version: "1",
        effective_date: "2025-12-06",
        principles: [],
        articles: [{ number: 0, title: "t", text: "x" }],
        signatories: [],
      },
      {
        cycle: "C-156",
        title: "t",
        version: "1",
        effective_date: "2025-12-06",
        principles: [],
        articles: [],
        signatories: "everyone",
      },
    ],
  },
  "diplomacy/standards": {
    valid: examples["diplomacy/standards"],
    invalid: [
      { cycle: "C-156", title: "t", version: "1", standards: [], extra: true },
      {
        cycle: "C-156",
        title: "t",
        version: "1",
        standards: [{ id: "s", name: "n", issuer: "i", alignment: "sort of", notes: "", reference_url: "https://x.org" }],
      },
      {
        cycle: "C-156",
        title: "t",
        version: "1",
        standards: [{ id: "s", name: "n", issuer: "i", alignment: "aligned", notes: "", reference_url: "not a url" }],
      },
    ],
  },
  "diplomacy/protocols": {
    valid: examples["diplomacy/protocols"],
    invalid: [
      { cycle: "C-156", title: "t", version: "1", protocols: [], owner: "x" },
      {
        cycle: "C-156",
        title: "t",
        version: "1",
        protocols: [{ id: "p", name: "n", trigger: "t", steps: [], escalation: "e" }],
      },
      {
        cycle: "C-156",
        title: "t",
        version: "1",
        protocols: [{ id: "p", name: "n", trigger: "t", steps: "one", escalation: "e" }],
      },
    ],
  },
  "consensus-cycle-info": {
    valid: examples["consensus-cycle-info"],
    invalid: [
      { cycle: "C-151", gi: 0.982, room: "main", clock: "12:00" },
      { cycle: "C-151", gi: "0.982", room: "main" },
      { cycle: "C-01", gi: 0.982, room: "main" },
    ],
  },
  "consensus-cycle-update": {
    valid: examples["consensus-cycle-update"],
    invalid: [
      { cycle: "C-152", gi: 0.984, room: "main" },
      { cycle: 152, gi: 0.984 },
      { cycle: "C-152", gi: 1.01 },
    ],
  },
  "consensus-open-session-input": {
    valid: examples["consensus-open-session-input"],
    invalid: [
      { cycle: "C-151", room: "main", gi_baseline: 0.98, participants: ["a", "b", "c", "d"], quorum: 3 },
      { cycle: "C-151", room: "main", gi_baseline: 0.98, participants: ["a", "b", "c"] },
      { cycle: "C-151", room: "main", gi_baseline: 0.98, participants: "a,b,c,d" },
      { cycle: "C-151", room: "main", gi_baseline: "high", participants: ["a", "b", "c", "d"] },
    ],
  },
  "consensus-open-session-result": {
    valid: examples["consensus-open-session-result"],
    invalid: [{ sessionId: "sess-1", active: true }, { sessionId: 1 }, {}, "sess-1", false],
  },
  "consensus-close-session-input": {
    valid: examples["consensus-close-session-input"],
    invalid: [
      { sessionId: "s", outcome: "APPROVED", delibproof_id: "d", gi_delta: 0, votes: 4 },
      { sessionId: "s", outcome: "approved", delibproof_id: "d", gi_delta: 0 },
      { sessionId: "s", outcome: "APPROVED", delibproof_id: "d", gi_delta: "+0.002" },
    ],
  },
  "consensus-vote": {
    valid: examples["consensus-vote"],
    invalid: [
      { session_id: "s", participant: "p", vote: "APPROVE", weight: 1 },
      { session_id: "s", participant: "p", vote: "YES" },
      { session_id: "s", participant: "p", vote: "APPROVE", signature: "zz" },
      { session_id: "s", participant: ["p"], vote: "APPROVE" },
    ],
  },
  "consensus-deliberation-proof": {
    valid: examples["consensus-deliberation-proof"],
    invalid: [
      withUnknownKey(deliberationProof),
      withUnknownKey(deliberationProof, ["rounds", 0]),
      withUnknownKey(deliberationProof, ["seal"]),
      setAt(deliberationProof, ["rounds"], []),
      setAt(deliberationProof, ["rounds", 0, "round"], 0),
      setAt(deliberationProof, ["constitutional_check", "bounded_authority"], "yes"),
      setAt(deliberationProof, ["validator_signature", "gi"], 0.94),
      setAt(deliberationProof, ["model_signatures", 0, "public_key"], SECP_PUB),
      setAt(deliberationProof, ["context"], "no context"),
      setAt(deliberationProof, ["gi_score"], 2),
    ],
  },
  "consensus-evaluated-transaction": {
    valid: examples["consensus-evaluated-transaction"],
    invalid: [
      { type: "consensus.evaluated", session_id: "s", delibproof_id: "d", outcome: "APPROVED", gi_delta: 0, seq: 1 },
      { type: "consensus.opened", session_id: "s", delibproof_id: "d", outcome: "APPROVED", gi_delta: 0 },
      { type: "consensus.evaluated", session_id: "s", delibproof_id: "d", outcome: "MAYBE", gi_delta: 0 },
      { type: "consensus.evaluated", session_id: "s", delibproof_id: "d", outcome: "APPROVED", gi_delta: null },
    ],
  },
  "consensus-delibproof-transaction": {
    valid: examples["consensus-delibproof-transaction"],
    invalid: [
      { type: "delibproof.sealed", proof: deliberationProof, ledger_seq: 1 },
      { type: "delibproof.generated", proof: deliberationProof },
      { type: "delibproof.sealed", proof: withUnknownKey(deliberationProof) },
      { type: "delibproof.sealed", proof: JSON.stringify(deliberationProof) },
    ],
  },
  "consensus-office-registration": {
    valid: examples["consensus-office-registration"],
    invalid: [
      { id: "ATLAS", priority: "critical", cathedral: "FOR-GOVERNMENTS", public_key: ED_PUB, gi: 0.99 },
      { id: "ATLAS", priority: "low", cathedral: "FOR-GOVERNMENTS", public_key: ED_PUB },
      { id: "ATLAS", priority: "high", cathedral: "FOR-GOVERNMENTS", public_key: SECP_PUB },
      { id: "bad id", priority: "high", cathedral: "FOR-GOVERNMENTS", public_key: ED_PUB },
    ],
  },
  "consensus-vote-request": {
    valid: examples["consensus-vote-request"],
    invalid: [
      { participant: "ATLAS", vote: "REJECT", signature: SIG, session_id: "s" },
      { participant: "ATLAS", vote: "REJECT" },
      { participant: "ATLAS", vote: "NO", signature: SIG },
    ],
  },
  "consensus-proof-request": {
    valid: examples["consensus-proof-request"],
    invalid: [
      { question: "q", context: {}, rounds: unsealedProof.rounds, constitutional_check: {}, consensus: 1 },
      { question: "q", context: {}, rounds: unsealedProof.rounds, constitutional_check: {}, gi_score: 0.99 },
      { question: "", context: {}, rounds: unsealedProof.rounds, constitutional_check: {} },
      { question: "q", context: {}, rounds: [], constitutional_check: {} },
      { question: "q", context: {}, rounds: unsealedProof.rounds, constitutional_check: { ok: "yes" } },
    ],
  },
  "consensus-model-signature-request": {
    valid: examples["consensus-model-signature-request"],
    invalid: [{ participant: "ATLAS", signature: SIG, public_key: ED_PUB }, { participant: "ATLAS", signature: "7C".repeat(64) }, { signature: SIG }],
  },
  "consensus-validator-signature-request": {
    valid: examples["consensus-validator-signature-request"],
    invalid: [{ validator: "JANUS", signature: SIG, gi: 0.99 }, { validator: "JANUS" }, { participant: "JANUS", signature: SIG }],
  },
  "consensus-proof-document": {
    valid: examples["consensus-proof-document"],
    invalid: [
      { format: "integrity-platform/delibproof/v2", state: "sealed", proof: deliberationProof, session: {} },
      { format: "integrity-platform/delibproof/v1", state: "closed", proof: deliberationProof, session: {} },
      { format: "integrity-platform/delibproof/v1", state: "generated", proof: unsealedProof, session: { session_id: "s" } },
    ],
  },
  "consensus-active-sessions": {
    valid: examples["consensus-active-sessions"],
    invalid: [
      [],
      { sessions: [], count: 0 },
      { sessions: [{ session_id: "s", cycle: "C-1", room: "r", gi_baseline: 1, opened_at: T1, participants: [], votes: [], proof: { delib_id: "d", state: "closed" } }] },
    ],
  },
  "philosophy/consensus-monitoring": {
    valid: examples["philosophy/consensus-monitoring"],
    invalid: [
      { cycle: "C-151", timestamp: T1, weeks: [], targets: {} },
      { cycle: "C-151", timestamp: T1, weeks: [{ week: "2025-49" }] },
      { cycle: "C-151", timestamp: T1 },
    ],
  },
  "philosophy/consensus-registry": {
    valid: examples["philosophy/consensus-registry"],
    invalid: [
      { cycle: "C-151", timestamp: T1, current: null, offices: [], active_sessions: [], recent_proofs: [], sessions: 0 },
      { cycle: "C-151", timestamp: T1, current: null, offices: [], active_sessions: [], recent_proofs: [], sessions: 0, sealed_proofs: 0, extra: 1 },
      { cycle: "C-151", timestamp: T1, current: { cycle: "C-151", gi: 2, room: "main" }, offices: [], active_sessions: [], recent_proofs: [], sessions: 0, sealed_proofs: 0 },
    ],
  },

  "balance-v1": {
    valid: examples["balance-v1"],
    invalid: [{ balance_gic: 1, balance_credits: 1 }, { balance_gic: "1234.5678" }, { balance_gic: -1 }, {}],
  },
  "balance-v2": {
    valid: examples["balance-v2"],
    invalid: [
      { balance_shards: "1500000", balance_credits: 1.5, balance_credits_formatted: "1.500000 MIC", balance_gic: 1.5 },
      { balance_shards: 1500000, balance_credits: 1.5, balance_credits_formatted: "1.500000 MIC" },
      { balance_shards: "1500000", balance_credits: 1.5, balance_credits_formatted: "1.5 MIC" },
      { balance_shards: "1.5", balance_credits: 1.5, balance_credits_formatted: "1.500000 MIC" },
      { balance_shards: "01500000", balance_credits: 1.5, balance_credits_formatted: "1.500000 MIC" },
    ],
  },
  "migration-leaf": {
    valid: examples["migration-leaf"],
    invalid: [
      { address: "ATLAS", balance_shards: "1005000" },
      { address: "ATLAS", balance_shards: "1005000", v1_balance_gic: 1.005 },
      { address: "ATLAS", balance_shards: "1005000", v1_balance_gic: "1.005", correction: "both kinds" },
      { address: "has space", balance_shards: "1", correction: "settled" },
      { address: "ATLAS", balance_shards: "1", correction: "" },
      { address: "ATLAS", balance_shards: "-1", v1_balance_gic: "-0.000001" },
    ],
  },
  "migration-mismatch": {
    valid: examples["migration-mismatch"],
    invalid: [
      { address: "legacy-1", input: "x", line: 0, reason: "too-precise" },
      { address: "legacy-1", input: "x", line: 1, reason: "rounded" },
      { input: "x", line: 1, reason: "malformed-line" },
    ],
  },
  "migration-proof": {
    valid: examples["migration-proof"],
    invalid: [
      { index: 0, tree_size: 0, leaf: "x", proof: [] },
      { index: 0, tree_size: 1, leaf: "x", proof: ["not base64"] },
      { index: -1, tree_size: 1, leaf: "x", proof: [] },
    ],
  },
  "migration-summary": {
    valid: examples["migration-summary"],
    invalid: [
      {},
      {
        origin: "integrity-platform.example/migration/v1-v2",
        snapshot_at: "2025-12-01T00:00:00.000Z",
        review_ends: "2025-12-02T00:00:00.000Z",
        input: { lines: 3, sha256: "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
        converted: 2,
        mismatches: 1,
        mismatches_by_reason: { "too-precise": 1 },
        total_v1_balance_gic: "101.0050",
        total_balance_shards: "101005000",
        verified: false,
        snapshot_size: 2,
        tree_size: 3,
        reviews: [],
      },
    ],
  },
};
