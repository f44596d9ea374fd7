import { describe, expect, it } from "vitest";
import { EVENT_TYPES, validateEvent, type EventPayload, type EventType } from "./registry.ts";

const id = "3f0c6a4e-8d1b-4c2a-9e7f-1a2b3c4d5e6f";
const digest = `sha256:${"0f".repeat(32)}`;
const pk = "ab".repeat(32);
const sig = "cd".repeat(64);

/** One valid payload per event type; a type missing here is a compile error. */
const valid: { [T in EventType]: EventPayload<T> } = {
  "identity.registered": { ledger_id: id, algorithm: "ed25519", public_key: pk, role: "deployer", reputation: 0.92 },
  "identity.reputation": { ledger_id: id, reputation: 0.5, reason: "drift" },
  "identity.revoked": { ledger_id: id, reason: "key compromise" },
  "stake.locked": { ledger_id: id, amount_shards: "10000000000", slashing_conditions_accepted: true },
  "stake.withdrawn": { ledger_id: id, amount_shards: "1" },
  "stake.slashed": { ledger_id: id, amount_shards: "5", reason: "integrity_violation" },
  "avm.attempt": {
    ledger_id: null,
    requested_scopes: ["api.read"],
    verified: false,
    failed_at_stage: "identity",
    code: "AVM_001",
    attestation_hash: null,
  },
  "avm.grant": {
    ledger_id: id,
    scopes: ["api.read"],
    risk_level: "medium",
    attestation_hash: digest,
    created_at: "2026-01-01T00:00:00Z",
    expires_at: "2026-03-01T00:00:00Z",
  },
  "avm.revoke": {
    ledger_id: id,
    reason: "integrity_violation",
    evidence_hash: digest,
    revoked_at: "2026-01-02T00:00:00.000Z",
  },
  "companion.registered": { companion_id: "companion-athena", algorithm: "ed25519", public_key: pk },
  "identity.drift": { ledger_id: id, drift_score: 0.12, source: "companion-athena" },
  "integrity.violation": { ledger_id: id, evidence_hash: digest, detected_by: "ATLAS" },
  "companion.concern": { companion_id: "companion-athena", ledger_id: id, evidence_hash: digest },
  "token.issued": {
    jti: id,
    subject: "operator-1",
    permissions: ["avm.revoke"],
    issued_at: "2026-01-01T00:00:00.000Z",
    expires_at: "2026-01-01T01:00:00.000Z",
  },
  "token.revoked": { jti: id, reason: "rotated" },
  "sentinel.registered": { sentinel: "ATLAS", cathedral: "FOR-GOVERNMENTS", algorithm: "ed25519", public_key: pk },
  "sentinel.heartbeat": {
    sentinel: "ATLAS",
    status: "operational",
    gi_score: 0.99,
    apps: 3,
    packages: 5,
    workflows: 2,
    drift: 0.4,
  },
  "sample.generated": { generator: "pipeline/seed", seed: "42", notice: "SAMPLE DATA" },
  attestation: {
    agent: "ECHO",
    subject: "dataset:academics",
    attestation_hash: digest,
    algorithm: "ed25519",
    public_key: pk,
    signature: sig,
  },
  "deliberation.recorded": {
    id: "D-1",
    topic: "Publish the drift analysis",
    sentinels: [{ id: "EVE", position: "support", reasoning: "Transparency first.", virtue_tags: ["integrity"] }],
    consensus: 1,
    outcome: "approved",
  },
  mic_mint: {
    sentinel: "AUREA",
    cycle: "C-151",
    cathedral: "FOR-ECONOMISTS",
    amount_shards: "1500000",
    coordination_score: 61.2,
    multiplier: 1.5,
  },
  mic_burn: { account: "treasury", amount_shards: "1", reason: "fee" },
  mic_lock: { account: "AUREA", amount_shards: "1", contract: "stake-pool" },
  mic_unlock: { account: "AUREA", amount_shards: "1", contract: "stake-pool" },
  "multiplier.changed": { cathedral: "FOR-ACADEMICS", multiplier: 1.2, reason: "review" },
  "consensus.opened": {
    session_id: "S-1",
    cycle: "C-151",
    room: "main",
    gi_baseline: 0.97,
    participants: ["A", "B", "C", "D"],
  },
  "consensus.vote": { session_id: "S-1", participant: "A", vote: "APPROVE", signature: sig },
  "consensus.evaluated": { session_id: "S-1", delibproof_id: "DP-1", outcome: "APPROVED", gi_delta: 0.004 },
  "delibproof.generated": {
    delib_id: "DP-1",
    session_id: "S-1",
    question: "Publish the drift analysis?",
    context: { cycle: "C-151" },
    rounds: [{ round: 1, statements: [{ participant: "A", position: "APPROVE", summary: "Yes." }] }],
    consensus: 0.75,
    gi_score: 0.97,
    constitutional_check: { transparency: true },
  },
  "delibproof.signed": { delib_id: "DP-1", participant: "A", signature: sig },
  "delibproof.validated": { delib_id: "DP-1", validator: "E", gi: 0.96, signature: sig },
  "delibproof.sealed": { delibproof_id: "DP-1", proof_digest: digest, merkle_root: digest },
  "cycle.updated": { cycle: "C-151", gi: 0.97 },
  "pulse.recorded": {
    id,
    cycle: "C-151",
    hash: digest,
    giScore: 0.97,
    miiScore: 0.99,
    generatedAt: "2025-12-01T06:00:00.000Z",
  },
  "apikey.issued": {
    key_id: "government-1",
    tier: "government",
    label: "Ministry",
    sha256: "ab".repeat(32),
    issued_at: "2026-01-01T00:00:00.000Z",
    expires_at: "2026-04-01T00:00:00.000Z",
    replaces: null,
  },
  "apikey.revoked": { key_id: "government-1", reason: "key compromise", revoked_at: "2026-01-02T00:00:00.000Z" },
  access: {
    key_id: "government-1",
    key_status: "active",
    tier: "government",
    area: "government",
    file: "compliance-report.json",
    outcome: "served",
    status: 200,
  },
  "keyrequest.received": {
    reference: "KR-7F3Q-9ZKD",
    tier: "academic",
    affiliation: "Example University, Department of Economics",
    contact: "researcher@example.edu",
    purpose: "Replicating the MII timeline",
    expected_volume: 200,
    received_at: "2026-01-02T00:00:00.000Z",
  },
  "keyrequest.declined": {
    reference: "KR-7F3Q-9ZKD",
    reason: "no academic address",
    declined_at: "2026-01-03T00:00:00.000Z",
  },
  "access.refusals": {
    window_start: "2026-01-01T00:00:00.000Z",
    window_seconds: 60,
    credential: "none",
    area: "government",
    file: "compliance-report.json",
    outcome: "unauthorized",
    status: 401,
    count: 100,
  },
  "compliance.audited": {
    jurisdiction: "EU",
    auditor: "Sample audit office",
    audited_on: "2026-10-20",
    next_audit: "2027-04-20",
  },
};

describe("ledger event registry", () => {
  it.each(EVENT_TYPES)("%s: accepts its valid payload, refuses an unknown key and a missing field", (type) => {
    const payload = valid[type] as Record<string, unknown>;
    expect(validateEvent(type, payload)).toBeNull();
    expect(validateEvent(type, { ...payload, injected: true })).toMatch(/injected/);
    const [first] = Object.keys(payload);
    const { [first!]: _dropped, ...missing } = payload;
    expect(validateEvent(type, missing)).toMatch(new RegExp(`invalid ${type.replace(".", "\\.")} payload: ${first}`));
  });

  it("sentinel.registered takes an office priority, critical or high, and nothing else", () => {
    const office = { ...valid["sentinel.registered"], priority: "critical" };
    expect(validateEvent("sentinel.registered", office)).toBeNull();
    expect(validateEvent("sentinel.registered", { ...office, priority: "low" })).toMatch(/priority/);
  });

  it("avm.attempt: the failure's error string is optional, so entries written before it stay valid", () => {
    const attempt = valid["avm.attempt"];
    expect(validateEvent("avm.attempt", { ...attempt, error: "identity_not_found" })).toBeNull();
    expect(validateEvent("avm.attempt", { ...attempt, error: "Not Found" })).toMatch(/error/);
  });

  it("refuses unknown types, inherited names and non-object payloads", () => {
    expect(validateEvent("nope", {})).toBe('unknown event type "nope"');
    expect(validateEvent("toString", {})).toMatch(/unknown event type/);
    expect(validateEvent(42, {})).toMatch(/unknown event type/);
    expect(validateEvent("mic_burn", null)).toMatch(/\(payload\)/);
  });
});

describe("compliance.audited", () => {
  it("refuses a next audit that is not after the audit", () => {
    const audit = { jurisdiction: "UK", auditor: "x", audited_on: "2026-10-20", next_audit: "2026-10-20" };
    expect(validateEvent("compliance.audited", audit)).toMatch(/next_audit/);
    expect(validateEvent("compliance.audited", { ...audit, jurisdiction: "Mars", next_audit: "2027-01-01" })).toMatch(
      /jurisdiction/,
    );
  });
});
