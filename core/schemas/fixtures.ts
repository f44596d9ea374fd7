/**
 * One valid and several invalid documents for every registry entry. The type makes a missing entry
 * (or a valid fixture that does not fit its schema's type) a compile error.
 *
 * Invalid fixtures are ones that BOTH zod and the generated JSON Schema must reject; rules that only
 * zod enforces (cross-field refinements) are tested separately in schemas.test.ts.
 */
import type { z } from "zod";
import type { publishedSchemas } from "./index.ts";

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
// Shared values.

const LEDGER_ID = "3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f4a1b2c";
const PULSE_ID = "0b9f6a2e-1c3d-4e5f-8a7b-9c0d1e2f3a4b";
const DIGEST_A = `sha256:${"a3".repeat(32)}`;
const DIGEST_B = `sha256:${"5e".repeat(32)}`;
const DIGEST_UPPER = `sha256:${"A3".repeat(32)}`;
const SIG = "7c".repeat(64);
const ED_PUB = "d7".repeat(32);
const SECP_PUB = `02${"4b".repeat(32)}`;
const T0 = "2025-12-01T00:00:00Z";
const T1 = "2025-12-01T06:00:00.000Z";
const T_90D = "2026-03-01T00:00:00Z";

const companionAttestation: In<"avm-companion-attestation"> = {
  companion_id: "companion-athena",
  subject: LEDGER_ID,
  scopes: ["api.read", "api.write.draft"],
  ej_hash: DIGEST_A,
  risk_level: "medium",
  issued_at: T0,
  expires_at: T_90D,
  algorithm: "ed25519",
  public_key: ED_PUB,
  signature: SIG,
};

const proofOfControl: In<"avm-proof-of-control"> = {
  method: "dns_txt",
  resource: "api.example.org",
  challenge: "9f86d081884c7d65",
  signed_at: T0,
  algorithm: "secp256k1",
  public_key: SECP_PUB,
  signature: SIG,
};

const verifyRequest: In<"avm-verify-request"> = {
  ledger_id: LEDGER_ID,
  wallet_signature: SIG,
  companion_attestation: companionAttestation,
  requested_scopes: ["api.read", "api.write.draft"],
};

const authorityContext: In<"avm-authority-context"> = {
  verified: true,
  ledger_id: LEDGER_ID,
  scopes: ["api.read", "api.write.draft"],
  expires_at: "2026-01-01T00:00:00Z",
  risk_level: "medium",
  attestation_hash: DIGEST_B,
  stake_locked: 12500,
  created_at: T0,
  validation_chain: ["identity:pass", "stake:pass", "attestation:pass", "scope:pass", "temporal:pass"],
};

const avmFailure: In<"avm-verify-failure"> = {
  verified: false,
  code: "AVM_004",
  error: "attestation_invalid",
  error_detail: "The companion attestation signature does not verify against the registered key.",
  failed_at_stage: "attestation",
  remediation: "Verify companion registration",
};

const pulseRecord: In<"pulse-record"> = {
  id: PULSE_ID,
  cycle: "C-151",
  branch: "main",
  giScore: 0.982,
  miiScore: 0.9645,
  hash: DIGEST_A,
  stats: { totalFiles: 412, totalLines: 38211, appsCount: 3, packagesCount: 5, workflowsCount: 4 },
  generatedAt: "2025-12-01T06:00:00.123Z",
  openSecurityAlerts: 0,
  scoring: {
    version: "scoring-v1",
    inputs: {
      "gi.ledger_verified": { value: 1, measured: true, weight: 0.3 },
      "gi.ci_green": { value: null, measured: false, weight: 0.2 },
    },
  },
};

const sentinelStatus: In<"government/sentinel-status"> = {
  cycle: "C-151",
  timestamp: T1,
  sentinels: [
    {
      id: "sentinel-atlas",
      status: "operational",
      uptime_days: 42.5,
      cathedral: "FOR-GOVERNMENTS",
      last_heartbeat: T1,
      performance: { gi_score: 0.97, coordination: 3.8 },
    },
  ],
  system_health: "healthy",
  alerts: [
    {
      id: "alert-1",
      severity: "low",
      source: "sentinel-atlas",
      message: "Heartbeat latency above target",
      raised_at: T0,
    },
  ],
};

const deliberationProof: In<"consensus-deliberation-proof"> = {
  delib_id: "delib-c151-01",
  question: "Adopt the revised attestation expiry policy?",
  context: { proposal: "PR-17", affected: ["avm"], urgency: 2, notes: null },
  rounds: [
    {
      round: 1,
      statements: [
        { participant: "office-aurea", position: "APPROVE", summary: "Bounded expiry reduces risk." },
        { participant: "office-eve", position: "ABSTAIN", summary: "Needs renewal data." },
      ],
    },
  ],
  consensus: 0.75,
  gi_score: 0.981,
  constitutional_check: { bounded_authority: true, transparency: true },
  model_signatures: [{ participant: "office-aurea", public_key: ED_PUB, signature: SIG }],
  validator_signature: { validator: "validator-zeus", gi: 0.97, public_key: ED_PUB, signature: SIG },
  seal: { ledger_seq: 1024, merkle_root: DIGEST_B },
};

const { seal: _seal, ...unsealedProof } = deliberationProof;

const regulation = (keys: readonly string[]) =>
  Object.fromEntries([...keys.map((k) => [k, "compliant"]), ["last_audit", "2025-10-15"]]);

const complianceReport: In<"government/compliance-report"> = {
  cycle: "C-151",
  timestamp: T0,
  compliance_status: "compliant",
  jurisdictions: {
    USA: { SEC: "compatible", CFTC: "compatible", Federal_Reserve_Act: "compliant", last_audit: "2025-10-15" },
    EU: { GDPR: "compliant", AI_Act: "high_risk_compliant", MiCA: "utility_token", last_audit: "2025-10-20" },
    UK: { FCA: "compatible", Data_Protection_Act: "compliant", last_audit: "2025-09-30" },
    International: { Basel_III: "compatible", FATF: "compliant", last_audit: "2025-09-01" },
  },
  next_audit: "2026-01-15",
};

const cathedralRoi = { multiplier: 1.2, total_rewards: 1520.5, sentinel_count: 2, average_roi: 0.14 };

// ---------------------------------------------------------------------------------------------

export const fixtures: Fixtures = {
  "avm-verify-request": {
    valid: { ...verifyRequest, proof_of_control: proofOfControl },
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
    valid: {
      ...companionAttestation,
      cosignature: { companion_id: "companion-hermes", algorithm: "secp256k1", public_key: SECP_PUB, signature: SIG },
    },
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
    valid: proofOfControl,
    invalid: [
      withUnknownKey(proofOfControl),
      setAt(proofOfControl, ["method"], "email"),
      setAt(proofOfControl, ["challenge"], "xyz"),
      setAt(proofOfControl, ["signed_at"], 1764547200),
    ],
  },
  "avm-authority-context": {
    valid: authorityContext,
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
    valid: { verified: true, authority_context: authorityContext },
    invalid: [
      withUnknownKey({ verified: true, authority_context: authorityContext }),
      withUnknownKey({ verified: true, authority_context: authorityContext }, ["authority_context"]),
      { verified: false, authority_context: authorityContext },
      { verified: true },
    ],
  },
  "avm-verify-failure": {
    valid: avmFailure,
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
    valid: avmFailure,
    invalid: [
      withUnknownKey(avmFailure),
      { verified: true, authority_context: setAt(authorityContext, ["verified"], false) },
      { ...avmFailure, verified: "false" },
      { verified: true, authority_context: authorityContext, error: "none" },
    ],
  },
  "avm-check-response": {
    valid: { has_authority: true, scopes: ["api.read"], expires_at: "2026-01-01T00:00:00Z" },
    invalid: [
      { has_authority: true, scopes: ["api.read"], expires_at: "2026-01-01T00:00:00Z", role: "admin" },
      { has_authority: "yes", scopes: [], expires_at: null },
      { has_authority: false, scopes: [] },
      { has_authority: true, scopes: ["api.read"], expires_at: "2026-01-01" },
    ],
  },
  "avm-revoke-request": {
    valid: { ledger_id: LEDGER_ID, reason: "integrity_violation", evidence_hash: DIGEST_A },
    invalid: [
      { ledger_id: LEDGER_ID, reason: "integrity_violation", evidence_hash: DIGEST_A, note: "x" },
      { ledger_id: LEDGER_ID, reason: "because", evidence_hash: DIGEST_A },
      { ledger_id: LEDGER_ID, reason: "integrity_violation", evidence_hash: "a3".repeat(32) },
      { ledger_id: 42, reason: "integrity_violation", evidence_hash: DIGEST_A },
    ],
  },
  "avm-revoke-response": {
    valid: { revoked: true, revoked_at: "2025-12-01T12:30:00.250Z" },
    invalid: [
      { revoked: true, revoked_at: "2025-12-01T12:30:00.250Z", by: "admin" },
      { revoked: 1, revoked_at: "2025-12-01T12:30:00Z" },
      { revoked: true, revoked_at: "2025-12-01 12:30:00" },
    ],
  },

  "pulse-record": {
    valid: pulseRecord,
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
    valid: { count: 1, items: [pulseRecord] },
    invalid: [
      { count: 1, items: [pulseRecord], next: null },
      { count: "1", items: [pulseRecord] },
      { count: 1, items: [withUnknownKey(pulseRecord)] },
      { count: 1, items: pulseRecord },
    ],
  },
  "pulse-badge": {
    valid: { schemaVersion: 1, label: "integrity", message: "98.2% / 96.5%", color: "yellowgreen", cacheSeconds: 300 },
    invalid: [
      { schemaVersion: 1, label: "integrity", message: "98.2% / 96.5%", color: "yellowgreen", style: "flat" },
      { schemaVersion: 2, label: "integrity", message: "98.2% / 96.5%", color: "yellowgreen" },
      { schemaVersion: 1, label: "integrity", message: "98.2%", color: "blue" },
      { schemaVersion: 1, label: "integrity", message: 98.2, color: "red" },
      { schemaVersion: 1, label: "integrity", message: "n/a", color: "lightgrey", isError: "true" },
    ],
  },

  "government/compliance-report": {
    valid: complianceReport,
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
    valid: {
      timestamp: T0,
      event_type: "mic_mint",
      agent: "sentinel-atlas",
      data: '{"amount":12.5,"cycle":"C-151"}',
      attestation_hash: DIGEST_A,
    },
    invalid: [
      { timestamp: T0, event_type: "attestation", agent: "a", data: "{}", attestation_hash: DIGEST_A, seq: 1 },
      { timestamp: T0, event_type: "attestation", agent: "a", data: { x: 1 }, attestation_hash: DIGEST_A },
      { timestamp: T0, event_type: "Attestation!", agent: "a", data: "{}", attestation_hash: DIGEST_A },
      { timestamp: T0, event_type: "attestation", agent: "a", data: "{}", attestation_hash: DIGEST_UPPER },
    ],
  },
  "government/sentinel-status": {
    valid: sentinelStatus,
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
    valid: {
      cycle: "C-151",
      timestamp: T0,
      attempts: 12,
      grants: 7,
      renewals: 2,
      denials: 5,
      denials_by_stage: { identity: 1, stake: 1, attestation: 1, scope: 1, temporal: 0 },
      denials_by_code: { AVM_001: 1, AVM_002: 1, AVM_003: 1, AVM_004: 1, AVM_005: 1, AVM_006: 0, AVM_007: 0, AVM_008: 0 },
      malformed: 1,
      revocations: 2,
      revocations_by_reason: { integrity_violation: 0, stake_withdrawn: 1, drift_exceeded: 1, companion_concern: 0, requested_by_holder: 0, key_compromise: 0 },
      identities_by_role: { viewer: 1, contributor: 1, deployer: 2, admin: 1 },
      companions: 2,
      months: [{ month: "2025-07", attempts: 12, grants: 7, denials: 5, revocations: 2 }],
    },
    invalid: [
      { cycle: "C-151", timestamp: T0, attempts: 1 },
      {
        cycle: "C-151",
        timestamp: T0,
        attempts: -1,
        grants: 0,
        renewals: 0,
        denials: 0,
        denials_by_stage: { identity: 0, stake: 0, attestation: 0, scope: 0, temporal: 0 },
        denials_by_code: { AVM_001: 0, AVM_002: 0, AVM_003: 0, AVM_004: 0, AVM_005: 0, AVM_006: 0, AVM_007: 0, AVM_008: 0 },
        malformed: 0,
        revocations: 0,
        revocations_by_reason: { integrity_violation: 0, stake_withdrawn: 0, drift_exceeded: 0, companion_concern: 0, requested_by_holder: 0, key_compromise: 0 },
        identities_by_role: { viewer: 0, contributor: 0, deployer: 0, admin: 0 },
        companions: 0,
        months: [{ month: "2025-13", attempts: 0, grants: 0, denials: 0, revocations: 0 }],
      },
    ],
  },
  "government/policy-impact": {
    valid: {
      cycle: "C-151",
      timestamp: T0,
      projections: [
        {
          policy: "Integrity-linked public procurement",
          economic_impact: { debt_reduction_annual: "0.2% of GDP", gdp_impact: "+0.1%", job_creation: "12,000" },
          social_impact: { access_improvement: "high", equity_impact: "positive", transparency: "full audit trail" },
          risks: [{ risk: "Vendor lock-in", severity: "medium", mitigation: "Open formats" }],
          timeline: "24 months",
        },
      ],
    },
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
    valid: {
      cycle: "C-151",
      mii_baseline: 0.95,
      sentinels: [{ id: "sentinel-atlas", score: 0.97, cathedral: "FOR-ACADEMICS" }],
      apps: [{ name: "portal", path: "site", description: "Astro portal" }],
      packages: [{ name: "integrity-platform", version: "1.0.0", path: ".", description: "The platform" }],
    },
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
    valid: { timestamp: T0, mii_score: 0.964, cycle: "C-151", sentinel_count: 8 },
    invalid: [
      { timestamp: T0, mii_score: 0.964, cycle: "C-151", sentinel_count: 8, gi: 1 },
      { timestamp: T0, mii_score: "0.964", cycle: "C-151", sentinel_count: 8 },
      { timestamp: T0, mii_score: 0.964, cycle: "C-151", sentinel_count: 8.5 },
      { timestamp: T0, mii_score: -0.1, cycle: "C-151", sentinel_count: 8 },
    ],
  },
  "academics/sentinel-coordination": {
    valid: {
      cycle: "C-151",
      timestamp: T1,
      sentinels: [{ id: "sentinel-atlas", coordination_score: 4.2, uptime_days: 42, cathedral: "FOR-ACADEMICS" }],
      average_coordination: 4.2,
      consensus_rate: 0.9,
    },
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
    valid: {
      cycle: "C-151",
      papers: [
        {
          id: "paper-gi-2025",
          title: "Measuring Global Integrity from Ledger Signals",
          status: "preprint",
          venues: ["arXiv"],
          key_result: "GI correlates with audit outcomes (r = 0.81).",
          path: "papers/gi-2025.pdf",
        },
      ],
    },
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
    valid: {
      cycle: "C-151",
      timestamp: T0,
      deliberations: [
        {
          id: "delib-001",
          topic: "Bounded authority for automated deployers",
          sentinels: [
            {
              id: "sentinel-sophia",
              position: "support",
              reasoning: "Time-bound scopes limit harm.",
              virtue_tags: ["prudence", "integrity"],
            },
          ],
          consensus: 1,
          outcome: "approved",
        },
      ],
    },
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
    valid: {
      cycle: "C-151",
      timestamp: T0,
      virtues: {
        integrity: { score: 0.98, measure: "ledger verification pass rate", status: "compliant" },
        temperance: { score: 0.95, measure: "share of grants within minimal scope", status: "compliant" },
        justice: { score: 0.93, measure: "reward dispersion across cathedrals", status: "compliant" },
        prudence: { score: 0.96, measure: "attestations with bounded expiry", status: "compliant" },
        courage: { score: 0.9, measure: "alerts raised and resolved", status: "at_risk" },
      },
      overall_compliance: 0.944,
    },
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
    valid: {
      cycle: "C-151",
      timestamp: T0,
      decisions: [
        {
          id: "decision-017",
          date: "2025-11-28",
          topic: "Sunset of the v1 balance API",
          frameworks_applied: ["consequentialism", "deontology"],
          sentinels_involved: ["sentinel-sophia", "sentinel-atlas"],
          reasoning: "A fixed sunset date protects holders from ambiguity.",
          outcome: "Sunset on 2026-03-01 with read-only history.",
          lessons_learned: "Announce migrations at least one cycle ahead.",
        },
      ],
    },
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
    valid: {
      cycle: "C-151",
      timestamp: T0,
      drift_score: 0.04,
      status: "stable",
      analysis: { virtue_alignment: 0.97, principle_adherence: 0.96, charter_compliance: 0.99 },
      trends: [{ metric: "mii", baseline: 0.95, current: 0.964, drift: 0.014, direction: "increasing" }],
      alerts: [],
    },
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
    valid: { action: "start_simulation", scenario: "stake withdrawal during deployment" },
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
  "philosophy/simulation-update": (() => {
    const digest = `sha256:${"ab".repeat(32)}`;
    const state: In<"philosophy/simulation-update">["current_state"] = {
      round: 3,
      max_rounds: 50,
      phase: "deliberating",
      agreement: 0.5,
      opposition: 0.25,
      mean_stance: 0.3125,
      movement: 0.0421,
      outcome: null,
      end_reason: null,
      excluded: ["MINERVA"],
      inputs: { deliberations: digest, virtues: digest, sentinel_status: digest },
    };
    const valid: In<"philosophy/simulation-update"> = {
      type: "simulation_update",
      scenario: "stake withdrawal during deployment",
      sentinels: [{ id: "SOPHIA", cathedral: "FOR-PHILOSOPHERS", position: "oppose", stance: -0.42, influence: 0.25 }],
      current_state: state,
      next_actions: [{ sentinel: "SOPHIA", action: "lean_support", position: "abstain" }],
    };
    const final: In<"philosophy/simulation-update">["current_state"] = { ...state, phase: "final", outcome: "deferred", end_reason: "settled" };
    return {
      valid,
      invalid: [
        { ...valid, current_state: { ...state, extra: 1 } },
        { ...valid, type: "simulation_started" },
        { ...valid, current_state: { ...state, round: -1 } },
        { ...valid, next_actions: "wait" },
        { ...valid, sentinels: [{ ...valid.sentinels[0], stance: 1.5 }] },
        { ...valid, sentinels: [{ ...valid.sentinels[0], confidence: 0.8 }] },
        { ...valid, current_state: { ...final, outcome: "maybe" } },
        { ...valid, current_state: { ...final, end_reason: "bored" } },
        { ...valid, current_state: { ...state, inputs: { deliberations: digest, virtues: digest } } },
        { ...valid, next_actions: [{ sentinel: "SOPHIA", action: "request revocation", position: "abstain" }] },
      ],
    };
  })(),
  "philosophy/simulation-error": {
    valid: { type: "error", code: "malformed-message", message: "the message is not JSON" },
    invalid: [
      { type: "error", code: "whatever", message: "x" },
      { type: "error", code: "malformed-message" },
      { type: "error", code: "malformed-message", message: "" },
      { type: "error", code: "malformed-message", message: "x", close: 1008 },
      { type: "simulation_update", code: "malformed-message", message: "x" },
    ],
  },

  "economy/supply": {
    valid: { cycle: "C-151", timestamp: T0, total_supply: 1250000, circulating: 980000.5, locked: 250000, burned: 19999.5 },
    invalid: [
      { cycle: "C-151", timestamp: T0, total_supply: 1, circulating: 1, locked: 0, burned: 0, minted_today: 0 },
      { cycle: "C-151", timestamp: T0, total_supply: "1250000", circulating: 1, locked: 0, burned: 0 },
      { cycle: "C-151", timestamp: T0, total_supply: 1, circulating: -1, locked: 0, burned: 0 },
      { timestamp: T0, total_supply: 1, circulating: 1, locked: 0, burned: 0 },
    ],
  },
  "economy/mii": {
    valid: { timestamp: T0, mii: 0.964, threshold: 0.95, minting_active: true, cycle: "C-151" },
    invalid: [
      { timestamp: T0, mii: 0.964, threshold: 0.95, minting_active: true, cycle: "C-151", trend: "up" },
      { timestamp: T0, mii: 0.964, threshold: 0.95, minting_active: "true", cycle: "C-151" },
      { timestamp: T0, mii: 0.964, threshold: 0.95, minting_active: true, cycle: "C-0" },
    ],
  },
  "economy/coordination": {
    valid: {
      cycle: "C-151",
      timestamp: T0,
      average_coordination: 3.9,
      sentinels: [{ id: "sentinel-atlas", score: 3.9, cathedral: "FOR-ECONOMISTS" }],
      formula: "(0.4*apps + 0.3*packages + 0.2*workflows + 0.1*(10 - drift)) * (1 + ln(uptime))",
    },
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
    valid: {
      cycle: "C-151",
      timestamp: T0,
      by_cathedral: {
        "FOR-GOVERNMENTS": cathedralRoi,
        "FOR-ACADEMICS": { ...cathedralRoi, multiplier: 1.1 },
        "FOR-PHILOSOPHERS": { ...cathedralRoi, multiplier: 1.3 },
        "FOR-ECONOMISTS": { ...cathedralRoi, multiplier: 1.5 },
        DIPLOMACY: { ...cathedralRoi, multiplier: 2, sentinel_count: 0, total_rewards: 0, average_roi: null },
      },
    },
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
    valid: {
      timestamp: T0,
      cycle: "C-151",
      sentinel: "sentinel-atlas",
      amount: 12.5,
      cathedral: "FOR-ECONOMISTS",
      coordination_score: 3.9,
    },
    invalid: [
      { timestamp: T0, cycle: "C-151", sentinel: "s", amount: 1, cathedral: "DIPLOMACY", coordination_score: 1, tx: 1 },
      { timestamp: T0, cycle: "C-151", sentinel: "s", amount: "1", cathedral: "DIPLOMACY", coordination_score: 1 },
      { timestamp: T0, cycle: "C-151", sentinel: "s", amount: 1, cathedral: "diplomacy", coordination_score: 1 },
    ],
  },
  "economy/sentinel-roi": {
    valid: {
      cycle: "C-151",
      timestamp: T0,
      sentinels: [
        {
          id: "sentinel-atlas",
          cathedral: "FOR-GOVERNMENTS",
          total_rewards: 760.25,
          coordination_score: 3.9,
          multiplier: 1.2,
          roi: 0.14,
        },
      ],
    },
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
    valid: { timestamp: T0, cycle: "C-151", cathedral: "FOR-ACADEMICS", multiplier: 1.1, reason: "Genesis setting" },
    invalid: [
      { timestamp: T0, cycle: "C-151", cathedral: "FOR-ACADEMICS", multiplier: 1.1, reason: "r", by: "x" },
      { timestamp: T0, cycle: "C-151", cathedral: "FOR-ACADEMICS", multiplier: 0.9, reason: "r" },
      { timestamp: T0, cycle: "C-151", cathedral: "FOR-ACADEMICS", multiplier: "1.1", reason: "r" },
    ],
  },

  "diplomacy/treaty-framework": {
    valid: {
      cycle: "C-156",
      title: "Framework for Verifiable AI Authority",
      version: "1.0.0",
      effective_date: "2025-12-06",
      principles: [{ id: "P1", title: "Proof over claims", text: "Authority rests on cryptographic proof only." }],
      articles: [{ number: 1, title: "Scope", text: "This framework applies to privileged operations." }],
      signatories: [{ party: "Integrity Platform", signed_on: "2025-12-06" }],
    },
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
    valid: {
      cycle: "C-156",
      title: "International standards alignment",
      version: "1.0.0",
      standards: [
        {
          id: "iso-iec-42001",
          name: "ISO/IEC 42001:2023 AI management system",
          issuer: "ISO/IEC",
          alignment: "partial",
          notes: "Governance and audit controls mapped; certification not pursued.",
          reference_url: "https://www.iso.org/standard/81230.html",
        },
      ],
    },
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
    valid: {
      cycle: "C-156",
      title: "Diplomatic protocols",
      version: "1.0.0",
      protocols: [
        {
          id: "incident-disclosure",
          name: "Cross-border incident disclosure",
          trigger: "An integrity violation affects a partner jurisdiction.",
          steps: ["Notify partner contacts within 24 hours", "Publish the ledger evidence hash"],
          escalation: "Joint review board",
        },
      ],
    },
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
    valid: { cycle: "C-151", gi: 0.982, room: "main" },
    invalid: [
      { cycle: "C-151", gi: 0.982, room: "main", clock: "12:00" },
      { cycle: "C-151", gi: "0.982", room: "main" },
      { cycle: "C-01", gi: 0.982, room: "main" },
    ],
  },
  "consensus-cycle-update": {
    valid: { cycle: "C-152", gi: 0.984 },
    invalid: [
      { cycle: "C-152", gi: 0.984, room: "main" },
      { cycle: 152, gi: 0.984 },
      { cycle: "C-152", gi: 1.01 },
    ],
  },
  "consensus-open-session-input": {
    valid: {
      cycle: "C-151",
      room: "main",
      gi_baseline: 0.98,
      participants: ["office-aurea", "office-atlas", "office-eve", "office-hermes"],
    },
    invalid: [
      { cycle: "C-151", room: "main", gi_baseline: 0.98, participants: ["a", "b", "c", "d"], quorum: 3 },
      { cycle: "C-151", room: "main", gi_baseline: 0.98, participants: ["a", "b", "c"] },
      { cycle: "C-151", room: "main", gi_baseline: 0.98, participants: "a,b,c,d" },
      { cycle: "C-151", room: "main", gi_baseline: "high", participants: ["a", "b", "c", "d"] },
    ],
  },
  "consensus-open-session-result": {
    valid: { sessionId: "sess-c151-0001" },
    invalid: [{ sessionId: "sess-1", active: true }, { sessionId: 1 }, {}, "sess-1", false],
  },
  "consensus-close-session-input": {
    valid: { sessionId: "sess-c151-0001", outcome: "APPROVED", delibproof_id: "delib-c151-01", gi_delta: 0.002 },
    invalid: [
      { sessionId: "s", outcome: "APPROVED", delibproof_id: "d", gi_delta: 0, votes: 4 },
      { sessionId: "s", outcome: "approved", delibproof_id: "d", gi_delta: 0 },
      { sessionId: "s", outcome: "APPROVED", delibproof_id: "d", gi_delta: "+0.002" },
    ],
  },
  "consensus-vote": {
    valid: { session_id: "sess-c151-0001", participant: "office-aurea", vote: "APPROVE", signature: SIG },
    invalid: [
      { session_id: "s", participant: "p", vote: "APPROVE", weight: 1 },
      { session_id: "s", participant: "p", vote: "YES" },
      { session_id: "s", participant: "p", vote: "APPROVE", signature: "zz" },
      { session_id: "s", participant: ["p"], vote: "APPROVE" },
    ],
  },
  "consensus-deliberation-proof": {
    valid: deliberationProof,
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
    valid: {
      type: "consensus.evaluated",
      session_id: "sess-c151-0001",
      delibproof_id: "delib-c151-01",
      outcome: "APPROVED",
      gi_delta: 0.002,
    },
    invalid: [
      { type: "consensus.evaluated", session_id: "s", delibproof_id: "d", outcome: "APPROVED", gi_delta: 0, seq: 1 },
      { type: "consensus.opened", session_id: "s", delibproof_id: "d", outcome: "APPROVED", gi_delta: 0 },
      { type: "consensus.evaluated", session_id: "s", delibproof_id: "d", outcome: "MAYBE", gi_delta: 0 },
      { type: "consensus.evaluated", session_id: "s", delibproof_id: "d", outcome: "APPROVED", gi_delta: null },
    ],
  },
  "consensus-delibproof-transaction": {
    valid: { type: "delibproof.sealed", proof: unsealedProof },
    invalid: [
      { type: "delibproof.sealed", proof: deliberationProof, ledger_seq: 1 },
      { type: "delibproof.generated", proof: deliberationProof },
      { type: "delibproof.sealed", proof: withUnknownKey(deliberationProof) },
      { type: "delibproof.sealed", proof: JSON.stringify(deliberationProof) },
    ],
  },
  "consensus-office-registration": {
    valid: { id: "ATLAS", priority: "critical", cathedral: "FOR-GOVERNMENTS", public_key: ED_PUB },
    invalid: [
      { id: "ATLAS", priority: "critical", cathedral: "FOR-GOVERNMENTS", public_key: ED_PUB, gi: 0.99 },
      { id: "ATLAS", priority: "low", cathedral: "FOR-GOVERNMENTS", public_key: ED_PUB },
      { id: "ATLAS", priority: "high", cathedral: "FOR-GOVERNMENTS", public_key: SECP_PUB },
      { id: "bad id", priority: "high", cathedral: "FOR-GOVERNMENTS", public_key: ED_PUB },
    ],
  },
  "consensus-vote-request": {
    valid: { participant: "ATLAS", vote: "REJECT", signature: SIG },
    invalid: [
      { participant: "ATLAS", vote: "REJECT", signature: SIG, session_id: "s" },
      { participant: "ATLAS", vote: "REJECT" },
      { participant: "ATLAS", vote: "NO", signature: SIG },
    ],
  },
  "consensus-proof-request": {
    valid: { question: unsealedProof.question, context: unsealedProof.context, rounds: unsealedProof.rounds, constitutional_check: unsealedProof.constitutional_check },
    invalid: [
      { question: "q", context: {}, rounds: unsealedProof.rounds, constitutional_check: {}, consensus: 1 },
      { question: "q", context: {}, rounds: unsealedProof.rounds, constitutional_check: {}, gi_score: 0.99 },
      { question: "", context: {}, rounds: unsealedProof.rounds, constitutional_check: {} },
      { question: "q", context: {}, rounds: [], constitutional_check: {} },
      { question: "q", context: {}, rounds: unsealedProof.rounds, constitutional_check: { ok: "yes" } },
    ],
  },
  "consensus-model-signature-request": {
    valid: { participant: "ATLAS", signature: SIG },
    invalid: [{ participant: "ATLAS", signature: SIG, public_key: ED_PUB }, { participant: "ATLAS", signature: "7C".repeat(64) }, { signature: SIG }],
  },
  "consensus-validator-signature-request": {
    valid: { validator: "JANUS", signature: SIG },
    invalid: [{ validator: "JANUS", signature: SIG, gi: 0.99 }, { validator: "JANUS" }, { participant: "JANUS", signature: SIG }],
  },
  "consensus-proof-document": {
    valid: {
      format: "integrity-platform/delibproof/v1",
      state: "sealed",
      proof: deliberationProof,
      session: {
        session_id: "CS-151-1",
        cycle: "C-151",
        room: "ethics",
        gi_baseline: 0.97,
        participants: ["office-aurea", "office-atlas", "office-eve", "office-hermes"],
        votes: [{ participant: "office-aurea", vote: "APPROVE", signature: SIG }],
        outcome: "NO_QUORUM",
        gi_delta: -0.001,
      },
      anchor: {
        entry: { seq: 1024, type: "delibproof.sealed", payload: { delibproof_id: "delib-c151-01" }, ts: T1, prev: DIGEST_A, hash: DIGEST_B },
        tree_size: 1100,
        inclusion_proof: ["q83vEjRWeJASNFZ4kBI0VniQEjRWeJASNFZ4kBI0Vng="],
        checkpoint: "integrity-platform.example/ledger\n1100\nq83vEjRWeJASNFZ4kBI0VniQEjRWeJASNFZ4kBI0Vng=\n\n— integrity-platform.example/ledger AAAA\n",
      },
    },
    invalid: [
      { format: "integrity-platform/delibproof/v2", state: "sealed", proof: deliberationProof, session: {} },
      { format: "integrity-platform/delibproof/v1", state: "closed", proof: deliberationProof, session: {} },
      { format: "integrity-platform/delibproof/v1", state: "generated", proof: unsealedProof, session: { session_id: "s" } },
    ],
  },
  "consensus-active-sessions": {
    valid: {
      sessions: [
        {
          session_id: "CS-151-2",
          cycle: "C-151",
          room: "policy",
          gi_baseline: 0.97,
          opened_at: T1,
          participants: [{ office: "ATLAS", priority: "critical", cathedral: "FOR-GOVERNMENTS", gi_at_opening: 0.971, gi: 0.968 }],
          votes: [{ participant: "ATLAS", vote: "APPROVE" }],
          proof: { delib_id: "DP-151-2", state: "generated" },
        },
      ],
    },
    invalid: [
      [],
      { sessions: [], count: 0 },
      { sessions: [{ session_id: "s", cycle: "C-1", room: "r", gi_baseline: 1, opened_at: T1, participants: [], votes: [], proof: { delib_id: "d", state: "closed" } }] },
    ],
  },
  "philosophy/consensus-monitoring": {
    valid: {
      cycle: "C-151",
      timestamp: T1,
      weeks: [
        {
          week: "2025-W49",
          starts: "2025-12-01",
          ends: "2025-12-07",
          complete: true,
          sessions_closed: 4,
          sessions_open: 0,
          sessions: { measured: 4, target_min: 3, target_max: 5, met: true },
          average_duration_minutes: { measured: 46.5, target_max: 45, met: false },
          agreement_rate: { measured: 0.875, target_min: 0.85, met: true },
          gi_drift_per_session: { measured: null, target_max: 0.01, met: null },
          quorum_failure_rate: { measured: 0, target_below: 0.05, met: true },
        },
      ],
    },
    invalid: [
      { cycle: "C-151", timestamp: T1, weeks: [], targets: {} },
      { cycle: "C-151", timestamp: T1, weeks: [{ week: "2025-49" }] },
      { cycle: "C-151", timestamp: T1 },
    ],
  },

  "philosophy/consensus-registry": {
    valid: {
      cycle: "C-151",
      timestamp: T1,
      current: { cycle: "C-151", gi: 0.97, room: "policy" },
      offices: [
        { office: "ATLAS", priority: "critical", cathedral: "FOR-GOVERNMENTS", public_key: "ab".repeat(32), gi: 0.9712, gi_at: T1, eligible: true },
        { office: "IRIS", priority: "high", cathedral: "DIPLOMACY", public_key: "cd".repeat(32), gi: null, gi_at: null, eligible: false },
      ],
      active_sessions: [
        {
          session_id: "CS-151-2",
          cycle: "C-151",
          room: "policy",
          gi_baseline: 0.97,
          opened_at: T1,
          participants: [{ office: "ATLAS", priority: "critical", cathedral: "FOR-GOVERNMENTS", gi_at_opening: 0.971, gi: 0.9712 }],
          votes: [{ participant: "ATLAS", vote: "APPROVE" }],
          proof: null,
        },
      ],
      recent_proofs: [
        {
          delib_id: "DP-151-1",
          session_id: "CS-151-1",
          cycle: "C-151",
          room: "ethics",
          outcome: "APPROVED",
          consensus: 0.75,
          gi_score: 0.972,
          validator: "JANUS",
          sealed_at: T1,
          ledger_seq: 1051,
          merkle_root: `sha256:${"cd".repeat(32)}`,
        },
      ],
      sessions: 2,
      sealed_proofs: 1,
    },
    invalid: [
      { cycle: "C-151", timestamp: T1, current: null, offices: [], active_sessions: [], recent_proofs: [], sessions: 0 },
      { cycle: "C-151", timestamp: T1, current: null, offices: [], active_sessions: [], recent_proofs: [], sessions: 0, sealed_proofs: 0, extra: 1 },
      { cycle: "C-151", timestamp: T1, current: { cycle: "C-151", gi: 2, room: "main" }, offices: [], active_sessions: [], recent_proofs: [], sessions: 0, sealed_proofs: 0 },
    ],
  },

  "balance-v1": {
    valid: { balance_gic: 1234.5678 },
    invalid: [{ balance_gic: 1, balance_credits: 1 }, { balance_gic: "1234.5678" }, { balance_gic: -1 }, {}],
  },
  "balance-v2": {
    valid: { balance_shards: "1234567800", balance_credits: 1234.5678, balance_credits_formatted: "1234.567800 MIC" },
    invalid: [
      { balance_shards: "1500000", balance_credits: 1.5, balance_credits_formatted: "1.500000 MIC", balance_gic: 1.5 },
      { balance_shards: 1500000, balance_credits: 1.5, balance_credits_formatted: "1.500000 MIC" },
      { balance_shards: "1500000", balance_credits: 1.5, balance_credits_formatted: "1.5 MIC" },
      { balance_shards: "1.5", balance_credits: 1.5, balance_credits_formatted: "1.500000 MIC" },
      { balance_shards: "01500000", balance_credits: 1.5, balance_credits_formatted: "1.500000 MIC" },
    ],
  },

  "migration-leaf": {
    valid: { address: "ATLAS", balance_shards: "1005000", v1_balance_gic: "1.005" },
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
    valid: { address: "legacy-1", input: '{"address":"legacy-1","balance_gic":1e-7}', line: 3, reason: "too-precise" },
    invalid: [
      { address: "legacy-1", input: "x", line: 0, reason: "too-precise" },
      { address: "legacy-1", input: "x", line: 1, reason: "rounded" },
      { input: "x", line: 1, reason: "malformed-line" },
    ],
  },
  "migration-proof": {
    valid: { index: 0, tree_size: 2, leaf: '{"address":"a","balance_shards":"1","v1_balance_gic":"0.000001"}', proof: ["47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="] },
    invalid: [
      { index: 0, tree_size: 0, leaf: "x", proof: [] },
      { index: 0, tree_size: 1, leaf: "x", proof: ["not base64"] },
      { index: -1, tree_size: 1, leaf: "x", proof: [] },
    ],
  },
  "migration-summary": {
    valid: {
      origin: "integrity-platform.example/migration/v1-v2",
      snapshot_at: "2025-12-01T00:00:00.000Z",
      review_ends: "2025-12-02T00:00:00.000Z",
      input: { lines: 3, sha256: "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
      converted: 2,
      mismatches: 1,
      mismatches_by_reason: { "malformed-line": 0, "invalid-address": 0, "duplicate-address": 0, "not-a-number": 0, negative: 0, "too-precise": 1, "too-large": 0 },
      total_v1_balance_gic: "101.005",
      total_balance_shards: "101005000",
      verified: true,
      snapshot_size: 2,
      tree_size: 3,
      reviews: [{ at: "2025-12-01T12:00:00.000Z", corrections: 1, tree_size: 3 }],
    },
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
