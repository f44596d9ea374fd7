import { describe, expect, it } from "vitest";
import { fold } from "../ledger/projection.ts";
import { authorizes, avmRegistry, checkAuthority, currentGrant, stakeFor } from "./registry.ts";
import { attest, DAY, iso, MIC, NOW, request, Scenario } from "../../test/support/core/avm/helpers.ts";
import { verifyAuthority } from "./verifier.ts";

const DIGEST = `sha256:${"4e".repeat(32)}`;

/** A scenario with a companion and a granted deployer (30-day grant from NOW). */
function granted() {
  const s = new Scenario();
  const athena = s.companion("athena");
  const holder = s.identity("holder");
  const grant = (now = NOW) => {
    const out = verifyAuthority(
      request(holder, attest(athena, holder.ledger_id, { issuedAt: now - 1 }), ["api.read"]),
      s.registry,
      now,
    );
    if (!out.verified) throw new Error(out.response.error_detail);
    s.apply(...out.events);
  };
  grant();
  return { s, athena, holder, grant };
}

const revoke = (ledger_id: string, reason: string) => ({
  ledger_id,
  reason,
  evidence_hash: DIGEST,
  revoked_at: iso(NOW),
});

describe("stakes: bonded and unbonded buckets in shards", () => {
  it("locks add to their bucket, withdrawals take unbonded stake first, slashing takes bonded stake, nothing goes below zero", () => {
    const s = new Scenario();
    const { ledger_id } = s.identity("x", { stakeMic: 1_000n });
    s.event("stake.locked", { ledger_id, amount_shards: (300n * MIC).toString(), slashing_conditions_accepted: false });
    expect(stakeFor(s.registry, ledger_id)).toEqual({ bondedShards: 1_000n * MIC, unbondedShards: 300n * MIC });
    s.event("stake.withdrawn", { ledger_id, amount_shards: (400n * MIC).toString() });
    expect(stakeFor(s.registry, ledger_id)).toEqual({ bondedShards: 900n * MIC, unbondedShards: 0n });
    s.event("stake.slashed", { ledger_id, amount_shards: "1", reason: "integrity_violation" });
    expect(stakeFor(s.registry, ledger_id).bondedShards).toBe(900n * MIC - 1n);
    s.event("stake.withdrawn", { ledger_id, amount_shards: (10_000n * MIC).toString() });
    expect(stakeFor(s.registry, ledger_id)).toEqual({ bondedShards: 0n, unbondedShards: 0n });
    expect(stakeFor(s.registry, "00000000-0000-4000-8000-000000000000")).toEqual({
      bondedShards: 0n,
      unbondedShards: 0n,
    });
  });

  it("amounts beyond 2^53 shards stay exact", () => {
    const s = new Scenario();
    const { ledger_id } = s.identity("rich", { stakeMic: 0n });
    s.event("stake.locked", { ledger_id, amount_shards: "123456789012345678901", slashing_conditions_accepted: true });
    s.event("stake.withdrawn", { ledger_id, amount_shards: "1" });
    expect(stakeFor(s.registry, ledger_id).bondedShards).toBe(123456789012345678900n);
  });
});

describe("registrations", () => {
  it("the first registration of a ledger_id, a key or a companion counts", () => {
    const s = new Scenario();
    const first = s.identity("a", { role: "viewer" });
    const identity = s.registry.identities.get(first.ledger_id)!;
    s.event("identity.registered", {
      ledger_id: first.ledger_id,
      algorithm: identity.algorithm,
      public_key: `02${"11".repeat(32)}`,
      role: "admin",
      reputation: 1,
    });
    s.event("identity.registered", {
      ledger_id: "00000000-0000-4000-8000-000000000001",
      algorithm: identity.algorithm,
      public_key: identity.public_key,
      role: "admin",
      reputation: 1,
    });
    expect(s.registry.identities.get(first.ledger_id)!.role).toBe("viewer");
    expect(s.registry.identities.has("00000000-0000-4000-8000-000000000001")).toBe(false);
    s.companion("athena");
    const key = s.registry.companions.get("athena")!;
    s.event("companion.registered", { companion_id: "athena", algorithm: "ed25519", public_key: "ab".repeat(32) });
    expect(s.registry.companions.get("athena")).toEqual(key);
  });
});

describe("grants, revocations and check (injected clock)", () => {
  it("a grant holds until its expiry; expired authority is no authority", () => {
    const { s, holder } = granted();
    const grant = s.registry.identities.get(holder.ledger_id)!.grant!;
    expect(checkAuthority(s.registry, holder.ledger_id, NOW)).toEqual({
      has_authority: true,
      scopes: ["api.read"],
      expires_at: grant.expires_at,
    });
    expect(checkAuthority(s.registry, holder.ledger_id, grant.expiresAtMs - 1).has_authority).toBe(true);
    expect(checkAuthority(s.registry, holder.ledger_id, grant.expiresAtMs)).toEqual({
      has_authority: false,
      scopes: [],
      expires_at: null,
    });
    expect(checkAuthority(s.registry, "00000000-0000-4000-8000-000000000000", NOW).has_authority).toBe(false);
    expect(authorizes(s.registry, holder.ledger_id, "api.read", NOW)).toBe(true);
    expect(authorizes(s.registry, holder.ledger_id, "api.write", NOW)).toBe(false);
    expect(authorizes(s.registry, holder.ledger_id, "api.read", grant.expiresAtMs)).toBe(false);
  });

  it("a revocation ends the grant at once and for good, and resets the attestation count", () => {
    const { s, holder, grant } = granted();
    grant(NOW + 1000);
    expect(s.registry.identities.get(holder.ledger_id)!.attestationCount).toBe(2);
    s.event("avm.revoke", revoke(holder.ledger_id, "requested_by_holder"));
    expect(checkAuthority(s.registry, holder.ledger_id, NOW + 2000).has_authority).toBe(false);
    const identity = s.registry.identities.get(holder.ledger_id)!;
    expect(identity.attestationCount).toBe(0);
    expect(identity.barred).toBeNull();
    expect(identity.grant!.revocation).toMatchObject({ reason: "requested_by_holder", evidence_hash: DIGEST });
    // A new verification with a new attestation grants again.
    grant(NOW + 3000);
    expect(checkAuthority(s.registry, holder.ledger_id, NOW + 4000).has_authority).toBe(true);
    // The attestation used before the revocation stays used.
    expect(s.registry.usedAttestations.size).toBe(3);
  });

  it.each(["integrity_violation", "key_compromise"])("an avm.revoke for %s also bars the identity", (reason) => {
    const { s, holder, athena } = granted();
    s.event("avm.revoke", revoke(holder.ledger_id, reason));
    expect(s.registry.identities.get(holder.ledger_id)!.barred?.cause).toBe(`authority revoked: ${reason}`);
    const out = verifyAuthority(
      request(holder, attest(athena, holder.ledger_id), ["api.read"]),
      s.registry,
      NOW + 1000,
    );
    expect(!out.verified && out.rule).toBe("identity.revoked");
  });

  it("identity.revoked and integrity.violation end authority and bar the identity", () => {
    for (const [type, payload] of [
      ["identity.revoked", (id: string) => ({ ledger_id: id, reason: "left the organisation" })],
      ["integrity.violation", (id: string) => ({ ledger_id: id, evidence_hash: DIGEST, detected_by: "ATLAS" })],
    ] as const) {
      const { s, holder } = granted();
      s.event(type, payload(holder.ledger_id));
      expect(checkAuthority(s.registry, holder.ledger_id, NOW + 1).has_authority).toBe(false);
      expect(currentGrant(s.registry, holder.ledger_id, NOW + 1)).toBeNull();
      expect(s.registry.identities.get(holder.ledger_id)!.barred).not.toBeNull();
    }
  });

  it("a renewal supersedes the previous grant", () => {
    const { s, holder, athena } = granted();
    const out = verifyAuthority(
      request(holder, attest(athena, holder.ledger_id, { scopes: ["api.write"], expiresAt: NOW + 5 * DAY }), [
        "api.write",
      ]),
      s.registry,
      NOW + 1000,
    );
    expect(out.verified && out.renewal).toBe(true);
    s.apply(...out.events);
    expect(checkAuthority(s.registry, holder.ledger_id, NOW + 2000)).toEqual({
      has_authority: true,
      scopes: ["api.write"],
      expires_at: iso(NOW + 5 * DAY),
    });
    // The superseded grant ran longer; it does not come back when the renewal expires.
    expect(checkAuthority(s.registry, holder.ledger_id, NOW + 6 * DAY).has_authority).toBe(false);
  });

  it("rebuilding from the entries gives the same registry", () => {
    const { s, holder } = granted();
    s.event("identity.drift", { ledger_id: holder.ledger_id, drift_score: 0.05, source: "athena" });
    s.event("companion.concern", { companion_id: "athena", ledger_id: holder.ledger_id, evidence_hash: DIGEST });
    const rebuilt = fold(avmRegistry, s.entries);
    expect(rebuilt).toEqual(s.registry);
    expect(rebuilt.size).toBe(s.entries.length);
    expect(rebuilt.identities.get(holder.ledger_id)).toMatchObject({ driftScore: 0.05, concerns: 1 });
  });

  it("tokens: issued, then revoked", () => {
    const s = new Scenario();
    const jti = "1b4e28ba-2fa1-4d2b-883f-0016d3cca427";
    s.event("token.issued", {
      jti,
      subject: "operator",
      permissions: ["avm.revoke"],
      issued_at: iso(NOW),
      expires_at: iso(NOW + 3_600_000),
    });
    expect(s.registry.tokens.get(jti)).toMatchObject({
      subject: "operator",
      revoked: false,
      expiresAtMs: NOW + 3_600_000,
    });
    s.event("token.revoked", { jti, reason: "rotated" });
    expect(s.registry.tokens.get(jti)!.revoked).toBe(true);
  });
});
