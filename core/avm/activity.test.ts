import { describe, expect, it } from "vitest";
import type { LedgerEntry } from "../ledger/entry.ts";
import { fold } from "../ledger/projection.ts";
import { activityFigures, authorityActivity } from "./activity.ts";

const ID = "0b7c3f1e-2a4d-4e6f-8a9b-1c2d3e4f5a6b";
const KEY = "ab".repeat(32);
const A1 = `sha256:${"a1".repeat(32)}`;
const A2 = `sha256:${"a2".repeat(32)}`;
const grant = (a: string, created: string, expires: string) => ({
  ledger_id: ID,
  scopes: ["api.read"],
  risk_level: "low",
  attestation_hash: a,
  created_at: created,
  expires_at: expires,
});
const attempt = (verified: boolean, stage: string | null = null, code: string | null = null) => ({
  ledger_id: ID,
  requested_scopes: ["api.read"],
  verified,
  failed_at_stage: stage,
  code,
  attestation_hash: null,
});

const events: [string, string, unknown][] = [
  ["2025-07-04T00:01:00.000Z", "companion.registered", { companion_id: "c1", algorithm: "ed25519", public_key: KEY }],
  [
    "2025-07-04T00:02:00.000Z",
    "identity.registered",
    { ledger_id: ID, algorithm: "ed25519", public_key: KEY, role: "deployer", reputation: 0.9 },
  ],
  ["2025-07-05T00:00:00.000Z", "avm.attempt", attempt(true)],
  ["2025-07-05T00:00:00.000Z", "avm.grant", grant(A1, "2025-07-05T00:00:00.000Z", "2025-08-04T00:00:00.000Z")],
  ["2025-07-20T00:00:00.000Z", "avm.attempt", attempt(false, "stake", "AVM_002")],
  ["2025-07-21T00:00:00.000Z", "avm.attempt", attempt(false, null, "AVM_004")],
  // A grant while the first is in force: a renewal.
  ["2025-08-01T00:00:00.000Z", "avm.attempt", attempt(true)],
  ["2025-08-01T00:00:00.000Z", "avm.grant", grant(A2, "2025-08-01T00:00:00.000Z", "2025-08-31T00:00:00.000Z")],
  [
    "2025-08-02T00:00:00.000Z",
    "avm.revoke",
    { ledger_id: ID, reason: "drift_exceeded", evidence_hash: A1, revoked_at: "2025-08-02T00:00:00.000Z" },
  ],
  // After the revocation, a grant is a new grant, not a renewal.
  ["2025-09-10T00:00:00.000Z", "avm.attempt", attempt(true)],
  [
    "2025-09-10T00:00:00.000Z",
    "avm.grant",
    grant(`sha256:${"a3".repeat(32)}`, "2025-09-10T00:00:00.000Z", "2025-10-10T00:00:00.000Z"),
  ],
];
const entries: LedgerEntry[] = events.map(([ts, type, payload], seq) => ({
  seq,
  ts,
  type,
  payload: payload as LedgerEntry["payload"],
  prev: null,
  hash: "",
}));

describe("authorityActivity", () => {
  it("counts attempts, grants, renewals, denials by stage and code, malformed bodies, revocations by reason, identities and companions", () => {
    const f = activityFigures(fold(authorityActivity, entries));
    expect(f).toMatchObject({
      attempts: 5,
      grants: 3,
      renewals: 1,
      denials: 2,
      malformed: 1,
      revocations: 1,
      companions: 1,
    });
    expect(f.denials_by_stage).toEqual({ identity: 0, stake: 1, attestation: 0, scope: 0, temporal: 0 });
    expect(f.denials_by_code.AVM_002).toBe(1);
    expect(f.denials_by_code.AVM_004).toBe(1);
    expect(Object.values(f.denials_by_code).reduce((a, b) => a + b, 0)).toBe(2);
    expect(f.revocations_by_reason.drift_exceeded).toBe(1);
    expect(f.identities_by_role).toEqual({ viewer: 0, contributor: 0, deployer: 1, admin: 0 });
    expect(f.months).toEqual([
      { month: "2025-07", attempts: 3, grants: 1, denials: 2, revocations: 0 },
      { month: "2025-08", attempts: 1, grants: 1, denials: 0, revocations: 1 },
      { month: "2025-09", attempts: 1, grants: 1, denials: 0, revocations: 0 },
    ]);
  });
});
