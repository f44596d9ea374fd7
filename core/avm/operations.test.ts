import { describe, expect, it } from "vitest";
import { validateEvent } from "../events/registry.ts";
import { generateKeyPair, publicKeyFromSecret } from "../signature.ts";
import {
  issueToken,
  ledgerIdForKey,
  lockStake,
  recordDrift,
  registerCompanion,
  registerIdentity,
  reportViolation,
  revokeAuthority,
  revokeToken,
  signalConcern,
  withdrawStake,
  type Operation,
} from "./operations.ts";
import { checkAuthority, stakeFor } from "./registry.ts";
import { attest, MIC, NOW, request, Scenario, signerFor } from "../../test/support/core/avm/helpers.ts";
import { verifyAuthority } from "./verifier.ts";

const DIGEST = `sha256:${"4e".repeat(32)}`;

function ok<T>(op: Operation<T>, s?: Scenario): T {
  if (!op.ok) throw new Error(`${op.code}: ${op.message}`);
  for (const e of op.events) expect(validateEvent(e.type, e.payload)).toBeNull();
  s?.apply(...op.events);
  return op.result;
}

function refused<T>(op: Operation<T>): { code: string; message: string } {
  expect(op.ok).toBe(false);
  return op as { code: string; message: string };
}

function withGrant() {
  const s = new Scenario();
  const athena = s.companion("athena");
  const holder = s.identity("holder", { stakeMic: 150n });
  const out = verifyAuthority(request(holder, attest(athena, holder.ledger_id), ["api.read"]), s.registry, NOW);
  if (!out.verified) throw new Error(out.response.error_detail);
  s.apply(...out.events);
  return { s, id: holder.ledger_id };
}

describe("register-identity", () => {
  it("derives the ledger_id from the key, records the identity, refuses the same key twice", () => {
    const s = new Scenario();
    const pk = publicKeyFromSecret("secp256k1", signerFor("w").secretKeyHex);
    const { ledger_id } = ok(
      registerIdentity(s.registry, { algorithm: "secp256k1", public_key: pk, role: "contributor", reputation: 0.7 }),
      s,
    );
    expect(ledger_id).toBe(ledgerIdForKey("secp256k1", pk));
    expect(ledger_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(s.registry.identities.get(ledger_id)).toMatchObject({ role: "contributor", reputation: 0.7 });
    expect(
      refused(registerIdentity(s.registry, { algorithm: "secp256k1", public_key: pk, role: "admin", reputation: 1 })),
    ).toEqual({
      ok: false,
      code: "conflict",
      message: `this key is already registered as ${ledger_id}`,
    });
  });

  it("refuses invalid keys, roles and reputations with a message naming the field", () => {
    const s = new Scenario();
    const pk = generateKeyPair("ed25519").publicKey;
    expect(
      refused(
        registerIdentity(s.registry, {
          algorithm: "ed25519",
          public_key: `02${"00".repeat(31)}`,
          role: "viewer",
          reputation: 0.5,
        }),
      ).message,
    ).toMatch(/not a valid ed25519/);
    expect(
      refused(registerIdentity(s.registry, { algorithm: "secp256k1", public_key: pk, role: "viewer", reputation: 0.5 }))
        .message,
    ).toMatch(/not a valid secp256k1/);
    expect(
      refused(
        registerIdentity(s.registry, {
          algorithm: "ed25519",
          public_key: pk,
          role: "root" as "admin",
          reputation: 0.5,
        }),
      ).message,
    ).toMatch(/^role:/);
    expect(
      refused(registerIdentity(s.registry, { algorithm: "ed25519", public_key: pk, role: "viewer", reputation: 1.5 }))
        .message,
    ).toMatch(/^reputation:/);
  });
});

describe("companions and stakes", () => {
  it("register-companion refuses a second registration of the id", () => {
    const s = new Scenario();
    const pk = generateKeyPair("ed25519").publicKey;
    expect(
      ok(registerCompanion(s.registry, { companion_id: "athena", algorithm: "ed25519", public_key: pk }), s),
    ).toEqual({ companion_id: "athena" });
    expect(
      refused(registerCompanion(s.registry, { companion_id: "athena", algorithm: "ed25519", public_key: pk })).code,
    ).toBe("conflict");
  });

  it("lock-stake reads MIC exactly and stores shards; bad amounts are refused", () => {
    const s = new Scenario();
    const { ledger_id } = s.identity("x", { stakeMic: 0n });
    expect(
      ok(lockStake(s.registry, { ledger_id, amount: "10000.000001", slashing_conditions_accepted: true }), s),
    ).toEqual({
      ledger_id,
      amount_shards: "10000000001",
      bonded_shards: "10000000001",
      unbonded_shards: "0",
    });
    ok(lockStake(s.registry, { ledger_id, amount: "1e2", slashing_conditions_accepted: false }), s);
    expect(stakeFor(s.registry, ledger_id)).toEqual({ bondedShards: 10_000_000_001n, unbondedShards: 100n * MIC });
    for (const [amount, why] of [
      ["0.0000001", /more than 6 decimals/],
      ["-5", /negative/],
      ["ten", /not a decimal number/],
      ["0", /more than 0/],
      ["2000000000", /is above 1000000000.000000 MIC/],
    ] as const) {
      expect(refused(lockStake(s.registry, { ledger_id, amount, slashing_conditions_accepted: true })).message).toMatch(
        why,
      );
    }
    expect(
      refused(
        lockStake(s.registry, {
          ledger_id: "00000000-0000-4000-8000-000000000000",
          amount: "1",
          slashing_conditions_accepted: true,
        }),
      ).code,
    ).toBe("not_found");
  });

  it("withdraw-stake refuses more than is locked and revokes a grant it undercuts, in the same batch", () => {
    const { s, id } = withGrant();
    expect(refused(withdrawStake(s.registry, { ledger_id: id, amount: "150.000001" }, NOW + 1)).message).toMatch(
      /150.000000 MIC is locked/,
    );
    const kept = withdrawStake(s.registry, { ledger_id: id, amount: "50" }, NOW + 1);
    expect(kept.ok && kept.events.map((e) => e.type)).toEqual(["stake.withdrawn"]);
    const op = withdrawStake(s.registry, { ledger_id: id, amount: "50.000001" }, NOW + 1);
    expect(op.ok && op.events.map((e) => e.type)).toEqual(["stake.withdrawn", "avm.revoke"]);
    expect(ok(op, s)).toMatchObject({ revoked: true, bonded_shards: "99999999" });
    expect(checkAuthority(s.registry, id, NOW + 2).has_authority).toBe(false);
  });
});

describe("the automatic-revocation triggers and manual revocation", () => {
  it("record-drift, report-violation and signal-concern append their event and the revocation it triggers", () => {
    for (const [run, reason] of [
      [
        (s: Scenario, id: string) =>
          recordDrift(s.registry, { ledger_id: id, drift_score: 0.3, source: "athena" }, NOW + 1),
        "drift_exceeded",
      ],
      [
        (s: Scenario, id: string) =>
          reportViolation(s.registry, { ledger_id: id, evidence_hash: DIGEST, detected_by: "ATLAS" }, NOW + 1),
        "integrity_violation",
      ],
      [
        (s: Scenario, id: string) =>
          signalConcern(s.registry, { companion_id: "athena", ledger_id: id, evidence_hash: DIGEST }, NOW + 1),
        "companion_concern",
      ],
    ] as const) {
      const { s, id } = withGrant();
      const op = run(s, id);
      expect(op.ok && op.events[1]).toMatchObject({ type: "avm.revoke", payload: { ledger_id: id, reason } });
      expect(ok(op, s)).toEqual({ revoked: true });
      expect(checkAuthority(s.registry, id, NOW + 2).has_authority).toBe(false);
    }
    const { s, id } = withGrant();
    expect(
      refused(signalConcern(s.registry, { companion_id: "nobody", ledger_id: id, evidence_hash: DIGEST }, NOW)).code,
    ).toBe("not_found");
  });

  it("revoke: recorded even without a grant in force; `revoked` says whether one ended", () => {
    const { s, id } = withGrant();
    const first = ok(
      revokeAuthority(s.registry, { ledger_id: id, reason: "requested_by_holder", evidence_hash: DIGEST }, NOW + 5),
      s,
    );
    expect(first).toEqual({ revoked: true, revoked_at: new Date(NOW + 5).toISOString() });
    const op = revokeAuthority(s.registry, { ledger_id: id, reason: "key_compromise", evidence_hash: DIGEST }, NOW + 6);
    expect(op.ok && op.events).toHaveLength(1);
    expect(ok(op, s).revoked).toBe(false);
    expect(s.registry.identities.get(id)!.barred).not.toBeNull();
    expect(
      refused(
        revokeAuthority(
          s.registry,
          { ledger_id: id, reason: "because" as "key_compromise", evidence_hash: DIGEST },
          NOW,
        ),
      ).message,
    ).toMatch(/^reason:/);
  });
});

describe("tokens", () => {
  it("issue-token records the claims (never the token) and revoke-token ends it", () => {
    const s = new Scenario();
    const jti = "1b4e28ba-2fa1-4d2b-883f-0016d3cca427";
    const { claims } = ok(
      issueToken(
        s.registry,
        { jti, subject: "operator-1", permissions: ["consensus.write", "avm.revoke", "avm.revoke"], ttl_seconds: 60 },
        NOW + 999,
      ),
      s,
    );
    expect(claims).toMatchObject({
      sub: "operator-1",
      jti,
      iat: NOW / 1000,
      exp: NOW / 1000 + 60,
      permissions: ["avm.revoke", "consensus.write"],
    });
    expect(s.entries.at(-1)!.payload).toEqual({
      jti,
      subject: "operator-1",
      permissions: ["avm.revoke", "consensus.write"],
      issued_at: new Date(NOW).toISOString(),
      expires_at: new Date(NOW + 60_000).toISOString(),
    });
    expect(refused(issueToken(s.registry, { jti, subject: "x", permissions: ["avm.revoke"] }, NOW)).code).toBe(
      "conflict",
    );
    expect(
      refused(
        issueToken(
          s.registry,
          { jti: "2b4e28ba-2fa1-4d2b-883f-0016d3cca427", subject: "x", permissions: ["root" as "avm.revoke"] },
          NOW,
        ),
      ).message,
    ).toMatch(/^permissions\.0:/);
    expect(
      refused(
        issueToken(
          s.registry,
          {
            jti: "2b4e28ba-2fa1-4d2b-883f-0016d3cca427",
            subject: "x",
            permissions: ["avm.revoke"],
            ttl_seconds: 91 * 86400,
          },
          NOW,
        ),
      ).message,
    ).toMatch(/^ttl_seconds:/);
    ok(revokeToken(s.registry, { jti, reason: "rotated" }), s);
    expect(refused(revokeToken(s.registry, { jti, reason: "again" })).code).toBe("conflict");
  });
});
