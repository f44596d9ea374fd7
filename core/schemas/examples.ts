/**
 * One example document of every published schema (core/schemas/index.ts): what each schema's
 * OpenAPI description shows (api/openapi/responses.ts), and the document the schema tests accept. The type
 * makes a missing entry, or an example that does not fit its schema's type, a compile error. The
 * schema tests' counter-examples are JSON Patches of these examples, kept as data in
 * test/fixtures/schemas/ (read by test/support/core/schemas/helpers.ts).
 *
 * Over 500 lines on purpose: it is data, one example per published schema, and the one `Examples`
 * type checks them together; split by area, that check would be split too.
 */
import type { z } from "zod";
import type { publishedSchemas } from "./index.ts";

type Registry = typeof publishedSchemas;
export type Examples = { [K in keyof Registry]: z.input<Registry[K]> };
type In<K extends keyof Registry> = z.input<Registry[K]>;

// ---------------------------------------------------------------------------------------------
// The parts the examples are made of (tests vary them into counter-examples).

export const LEDGER_ID = "3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f4a1b2c";
export const PULSE_ID = "0b9f6a2e-1c3d-4e5f-8a7b-9c0d1e2f3a4b";
export const DIGEST_A = `sha256:${"a3".repeat(32)}`;
export const DIGEST_B = `sha256:${"5e".repeat(32)}`;
export const DIGEST_UPPER = `sha256:${"A3".repeat(32)}`;
export const SIG = "7c".repeat(64);
export const ED_PUB = "d7".repeat(32);
export const SECP_PUB = `02${"4b".repeat(32)}`;
export const T0 = "2025-12-01T00:00:00Z";
export const T1 = "2025-12-01T06:00:00.000Z";
export const T_90D = "2026-03-01T00:00:00Z";

export const companionAttestation: In<"avm-companion-attestation"> = {
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

export const proofOfControl: In<"avm-proof-of-control"> = {
  method: "dns_txt",
  resource: "api.example.org",
  challenge: "9f86d081884c7d65",
  signed_at: T0,
  algorithm: "secp256k1",
  public_key: SECP_PUB,
  signature: SIG,
};

export const verifyRequest: In<"avm-verify-request"> = {
  ledger_id: LEDGER_ID,
  wallet_signature: SIG,
  companion_attestation: companionAttestation,
  requested_scopes: ["api.read", "api.write.draft"],
};

export const authorityContext: In<"avm-authority-context"> = {
  verified: true,
  ledger_id: LEDGER_ID,
  scopes: ["api.read", "api.write.draft"],
  expires_at: "2026-01-01T00:00:00Z",
  risk_level: "medium",
  attestation_hash: DIGEST_B,
  stake_locked: 12500,
  stake_locked_shards: "12500000000",
  created_at: T0,
  validation_chain: ["identity:pass", "stake:pass", "attestation:pass", "scope:pass", "temporal:pass"],
};

/** What POST /avm/verify answers `verifyRequest`: its ledger_id is registered nowhere (the API reference's example is run). */
export const avmFailure: In<"avm-verify-failure"> = {
  verified: false,
  code: "AVM_001",
  error: "identity_not_found",
  error_detail: `identity.not_found: no identity is registered as ${LEDGER_ID}`,
  failed_at_stage: "identity",
  remediation: "Register identity first",
};

export const pulseRecord: In<"pulse-record"> = {
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

export const sentinelStatus: In<"government/sentinel-status"> = {
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

export const deliberationProof: In<"consensus-deliberation-proof"> = {
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

const { seal: _seal, ...proofWithoutSeal } = deliberationProof;
export const unsealedProof = proofWithoutSeal;

export const regulation = (keys: readonly string[]) =>
  Object.fromEntries([...keys.map((k) => [k, "compliant"]), ["last_audit", "2025-10-15"]]);

export const complianceReport: In<"government/compliance-report"> = {
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

export const cathedralRoi = { multiplier: 1.2, total_rewards: 1520.5, sentinel_count: 2, average_roi: 0.14 };

export const SIMULATION_DIGEST = `sha256:${"ab".repeat(32)}`;
export const simulationState: In<"philosophy/simulation-update">["current_state"] = {
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
  inputs: { deliberations: SIMULATION_DIGEST, virtues: SIMULATION_DIGEST, sentinel_status: SIMULATION_DIGEST },
};
export const simulationUpdate: In<"philosophy/simulation-update"> = {
  type: "simulation_update",
  scenario: "stake withdrawal during deployment",
  sentinels: [{ id: "SOPHIA", cathedral: "FOR-PHILOSOPHERS", position: "oppose", stance: -0.42, influence: 0.25 }],
  current_state: simulationState,
  next_actions: [{ sentinel: "SOPHIA", action: "lean_support", position: "abstain" }],
};

// ---------------------------------------------------------------------------------------------

export const examples: Examples = {
  "avm-verify-request": { ...verifyRequest, proof_of_control: proofOfControl },
  "avm-companion-attestation": {
    ...companionAttestation,
    cosignature: { companion_id: "companion-hermes", algorithm: "secp256k1", public_key: SECP_PUB, signature: SIG },
  },
  "avm-proof-of-control": proofOfControl,
  "avm-authority-context": authorityContext,
  "avm-verify-success": { verified: true, authority_context: authorityContext },
  "avm-verify-failure": avmFailure,
  "avm-verify-response": avmFailure,
  "avm-check-response": { has_authority: true, scopes: ["api.read"], expires_at: "2026-01-01T00:00:00Z" },
  "avm-revoke-request": { ledger_id: LEDGER_ID, reason: "integrity_violation", evidence_hash: DIGEST_A },
  "avm-revoke-response": { revoked: true, revoked_at: "2025-12-01T12:30:00.250Z" },
  "pulse-record": pulseRecord,
  "pulse-history": { count: 1, items: [pulseRecord] },
  "pulse-badge": {
    schemaVersion: 1,
    label: "integrity",
    message: "98.2% / 96.5%",
    color: "yellowgreen",
    cacheSeconds: 300,
  },
  "government/compliance-report": complianceReport,
  "government/audit-trail-row": {
    timestamp: T0,
    event_type: "mic_mint",
    agent: "sentinel-atlas",
    data: '{"amount":12.5,"cycle":"C-151"}',
    attestation_hash: DIGEST_A,
  },
  "government/sentinel-status": sentinelStatus,
  "government/authority-activity": {
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
    revocations_by_reason: {
      integrity_violation: 0,
      stake_withdrawn: 1,
      drift_exceeded: 1,
      companion_concern: 0,
      requested_by_holder: 0,
      key_compromise: 0,
    },
    identities_by_role: { viewer: 1, contributor: 1, deployer: 2, admin: 1 },
    companions: 2,
    months: [{ month: "2025-07", attempts: 12, grants: 7, denials: 5, revocations: 2 }],
  },
  "government/policy-impact": {
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
  "academics/dataset": {
    cycle: "C-151",
    mii_baseline: 0.95,
    sentinels: [{ id: "sentinel-atlas", score: 0.97, cathedral: "FOR-ACADEMICS" }],
    apps: [{ name: "portal", path: "site", description: "Astro portal" }],
    packages: [{ name: "integrity-platform", version: "1.0.0", path: ".", description: "The platform" }],
  },
  "academics/mii-timeline-row": { timestamp: T0, mii_score: 0.964, cycle: "C-151", sentinel_count: 8 },
  "academics/sentinel-coordination": {
    cycle: "C-151",
    timestamp: T1,
    sentinels: [{ id: "sentinel-atlas", coordination_score: 4.2, uptime_days: 42, cathedral: "FOR-ACADEMICS" }],
    average_coordination: 4.2,
    consensus_rate: 0.9,
  },
  "academics/papers": {
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
  "philosophy/deliberations": {
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
  "philosophy/virtues": {
    cycle: "C-151",
    timestamp: T0,
    virtues: {
      integrity: {
        score: 0.98,
        measure: "ledger verification pass rate",
        status: "compliant",
        compliant_at: 0.9,
        at_risk_at: 0.75,
      },
      temperance: {
        score: 0.95,
        measure: "share of grants within minimal scope",
        status: "compliant",
        compliant_at: 0.9,
        at_risk_at: 0.75,
      },
      justice: {
        score: 0.93,
        measure: "reward dispersion across cathedrals",
        status: "compliant",
        compliant_at: 0.7,
        at_risk_at: 0.5,
      },
      prudence: {
        score: 0.96,
        measure: "attestations with bounded expiry",
        status: "compliant",
        compliant_at: 0.95,
        at_risk_at: 0.85,
      },
      courage: {
        score: 0.9,
        measure: "alerts raised and resolved",
        status: "at_risk",
        compliant_at: 0.95,
        at_risk_at: 0.75,
      },
    },
    overall_compliance: 0.944,
  },
  "philosophy/decisions": {
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
  "philosophy/drift-analysis": {
    cycle: "C-151",
    timestamp: T0,
    drift_score: 0.04,
    status: "stable",
    analysis: { virtue_alignment: 0.97, principle_adherence: 0.96, charter_compliance: 0.99 },
    trends: [{ metric: "mii", baseline: 0.95, current: 0.964, drift: 0.014, direction: "increasing" }],
    alerts: [],
  },
  "philosophy/simulation-request": { action: "start_simulation", scenario: "stake withdrawal during deployment" },
  "philosophy/simulation-update": simulationUpdate,
  "philosophy/simulation-error": { type: "error", code: "malformed-message", message: "the message is not JSON" },
  "economy/supply": {
    cycle: "C-151",
    timestamp: T0,
    total_supply: 1250000,
    total_supply_shards: "1250000000000",
    circulating: 980000.5,
    circulating_shards: "980000500000",
    locked: 250000,
    locked_shards: "250000000000",
    burned: 19999.5,
    burned_shards: "19999500000",
  },
  "economy/mii": { timestamp: T0, mii: 0.964, threshold: 0.95, minting_active: true, cycle: "C-151" },
  "economy/coordination": {
    cycle: "C-151",
    timestamp: T0,
    average_coordination: 3.9,
    sentinels: [{ id: "sentinel-atlas", score: 3.9, cathedral: "FOR-ECONOMISTS" }],
    formula: "(0.4*apps + 0.3*packages + 0.2*workflows + 0.1*(10 - drift)) * (1 + ln(uptime))",
  },
  "economy/roi": {
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
  "economy/mic-history-row": {
    timestamp: T0,
    cycle: "C-151",
    sentinel: "sentinel-atlas",
    amount: 12.5,
    cathedral: "FOR-ECONOMISTS",
    coordination_score: 3.9,
  },
  "economy/sentinel-roi": {
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
  "economy/cathedral-multipliers-row": {
    timestamp: T0,
    cycle: "C-151",
    cathedral: "FOR-ACADEMICS",
    multiplier: 1.1,
    reason: "Genesis setting",
  },
  "diplomacy/treaty-framework": {
    cycle: "C-156",
    title: "Framework for Verifiable AI Authority",
    version: "1.0.0",
    effective_date: "2025-12-06",
    principles: [{ id: "P1", title: "Proof over claims", text: "Authority rests on cryptographic proof only." }],
    articles: [{ number: 1, title: "Scope", text: "This framework applies to privileged operations." }],
    signatories: [{ party: "Integrity Platform", signed_on: "2025-12-06" }],
  },
  "diplomacy/standards": {
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
  "diplomacy/protocols": {
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
  "consensus-cycle-info": { cycle: "C-151", gi: 0.982, room: "main" },
  "consensus-cycle-update": { cycle: "C-152", gi: 0.984 },
  "consensus-open-session-input": {
    cycle: "C-151",
    room: "main",
    gi_baseline: 0.98,
    participants: ["office-aurea", "office-atlas", "office-eve", "office-hermes"],
  },
  "consensus-open-session-result": { sessionId: "sess-c151-0001" },
  "consensus-close-session-input": {
    sessionId: "sess-c151-0001",
    outcome: "APPROVED",
    delibproof_id: "delib-c151-01",
    gi_delta: 0.002,
  },
  "consensus-vote": { session_id: "sess-c151-0001", participant: "office-aurea", vote: "APPROVE", signature: SIG },
  "consensus-deliberation-proof": deliberationProof,
  "consensus-evaluated-transaction": {
    type: "consensus.evaluated",
    session_id: "sess-c151-0001",
    delibproof_id: "delib-c151-01",
    outcome: "APPROVED",
    gi_delta: 0.002,
  },
  "consensus-delibproof-transaction": { type: "delibproof.sealed", proof: unsealedProof },
  "consensus-office-registration": {
    id: "ATLAS",
    priority: "critical",
    cathedral: "FOR-GOVERNMENTS",
    public_key: ED_PUB,
  },
  "consensus-vote-request": { participant: "ATLAS", vote: "REJECT", signature: SIG },
  "consensus-proof-request": {
    question: unsealedProof.question,
    context: unsealedProof.context,
    rounds: unsealedProof.rounds,
    constitutional_check: unsealedProof.constitutional_check,
  },
  "consensus-model-signature-request": { participant: "ATLAS", signature: SIG },
  "consensus-validator-signature-request": { validator: "JANUS", signature: SIG },
  "consensus-proof-document": {
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
      entry: {
        seq: 1024,
        type: "delibproof.sealed",
        payload: { delibproof_id: "delib-c151-01" },
        ts: T1,
        prev: DIGEST_A,
        hash: DIGEST_B,
      },
      tree_size: 1100,
      inclusion_proof: ["q83vEjRWeJASNFZ4kBI0VniQEjRWeJASNFZ4kBI0Vng="],
      checkpoint:
        "integrity-platform.example/ledger\n1100\nq83vEjRWeJASNFZ4kBI0VniQEjRWeJASNFZ4kBI0Vng=\n\n— integrity-platform.example/ledger AAAA\n",
    },
  },
  "consensus-active-sessions": {
    sessions: [
      {
        session_id: "CS-151-2",
        cycle: "C-151",
        room: "policy",
        gi_baseline: 0.97,
        opened_at: T1,
        participants: [
          { office: "ATLAS", priority: "critical", cathedral: "FOR-GOVERNMENTS", gi_at_opening: 0.971, gi: 0.968 },
        ],
        votes: [{ participant: "ATLAS", vote: "APPROVE" }],
        proof: { delib_id: "DP-151-2", state: "generated" },
      },
    ],
  },
  "philosophy/consensus-monitoring": {
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
  "philosophy/consensus-registry": {
    cycle: "C-151",
    timestamp: T1,
    current: { cycle: "C-151", gi: 0.97, room: "policy" },
    offices: [
      {
        office: "ATLAS",
        priority: "critical",
        cathedral: "FOR-GOVERNMENTS",
        public_key: "ab".repeat(32),
        gi: 0.9712,
        gi_at: T1,
        eligible: true,
      },
      {
        office: "IRIS",
        priority: "high",
        cathedral: "DIPLOMACY",
        public_key: "cd".repeat(32),
        gi: null,
        gi_at: null,
        eligible: false,
      },
    ],
    active_sessions: [
      {
        session_id: "CS-151-2",
        cycle: "C-151",
        room: "policy",
        gi_baseline: 0.97,
        opened_at: T1,
        participants: [
          { office: "ATLAS", priority: "critical", cathedral: "FOR-GOVERNMENTS", gi_at_opening: 0.971, gi: 0.9712 },
        ],
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
  "release-table-changes": {
    table: "mii-timeline.csv",
    from: "1.0.0",
    to: "1.1.0",
    primaryKey: ["timestamp"],
    counts: { added: 1, removed: 0, changed: 1 },
    added: [{ timestamp: "2026-11-23T15:00:56.000Z", mii_score: "0.97", cycle: "C-508", sentinel_count: "12" }],
    removed: [],
    changed: [
      {
        key: { timestamp: "2026-11-22T15:00:56.000Z" },
        old: { timestamp: "2026-11-22T15:00:56.000Z", mii_score: "0.95", cycle: "C-507", sentinel_count: "12" },
        new: { timestamp: "2026-11-22T15:00:56.000Z", mii_score: "0.96", cycle: "C-507", sentinel_count: "12" },
      },
    ],
  },
  "balance-v1": { balance_gic: 1234.5678 },
  "balance-v2": {
    balance_shards: "1234567800",
    balance_credits: 1234.5678,
    balance_credits_formatted: "1234.567800 MIC",
  },
  "migration-leaf": { address: "ATLAS", balance_shards: "1005000", v1_balance_gic: "1.005" },
  "migration-mismatch": {
    address: "legacy-1",
    input: '{"address":"legacy-1","balance_gic":1e-7}',
    line: 3,
    reason: "too-precise",
  },
  "migration-proof": {
    index: 0,
    tree_size: 2,
    leaf: '{"address":"a","balance_shards":"1","v1_balance_gic":"0.000001"}',
    proof: ["47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="],
  },
  "migration-summary": {
    origin: "integrity-platform.example/migration/v1-v2",
    snapshot_at: "2025-12-01T00:00:00.000Z",
    review_ends: "2025-12-02T00:00:00.000Z",
    input: { lines: 3, sha256: "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
    converted: 2,
    mismatches: 1,
    mismatches_by_reason: {
      "malformed-line": 0,
      "invalid-address": 0,
      "duplicate-address": 0,
      "not-a-number": 0,
      negative: 0,
      "too-precise": 1,
      "too-large": 0,
    },
    total_v1_balance_gic: "101.005",
    total_balance_shards: "101005000",
    verified: true,
    snapshot_size: 2,
    tree_size: 3,
    reviews: [{ at: "2025-12-01T12:00:00.000Z", corrections: 1, tree_size: 3 }],
  },
};
