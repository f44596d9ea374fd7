/**
 * The parts the published schemas' examples are made of (core/schemas/examples.ts), and the types
 * that check them: `Examples` holds one example per published schema, `In<K>` one schema's input.
 * The schema tests vary these parts into counter-examples (test/fixtures/schemas/).
 */
import type { z } from "zod";
import type { ComplianceReport, SentinelStatus } from "./government.ts";
import type { publishedSchemas } from "./index.ts";
import type { SimulationUpdate } from "./philosophy.ts";

type Registry = typeof publishedSchemas;
export type Examples = { [K in keyof Registry]: z.input<Registry[K]> };
type In<K extends keyof Registry> = z.input<Registry[K]>;
/** Some of the examples, each checked against its schema's type where it is written. */
export type SomeExamples = { [K in keyof Examples]?: Examples[K] };

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

export const sentinelStatus: z.input<typeof SentinelStatus> = {
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

export const complianceReport: z.input<typeof ComplianceReport> = {
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
export const simulationState: z.input<typeof SimulationUpdate>["current_state"] = {
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
export const simulationUpdate: z.input<typeof SimulationUpdate> = {
  type: "simulation_update",
  scenario: "stake withdrawal during deployment",
  sentinels: [{ id: "SOPHIA", cathedral: "FOR-PHILOSOPHERS", position: "oppose", stance: -0.42, influence: 0.25 }],
  current_state: simulationState,
  next_actions: [{ sentinel: "SOPHIA", action: "lean_support", position: "abstain" }],
};
