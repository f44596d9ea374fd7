import { describe, expect, it } from "vitest";
import { validateEvent } from "../events/registry.ts";
import {
  AuthorityContext,
  AvmFailure,
  AvmVerifyRequest,
  MAX_AUTHORITY_DURATION_MS,
  type Scope,
} from "../schemas/avm.ts";
import { SignatureVerdicts } from "../signature-verdicts.ts";
import { sign, verify } from "../signature.ts";
import { attestationHash, signedForms, walletMessage } from "./messages.ts";
import { checkAuthority } from "./registry.ts";
import { AVM_RULE_NAMES, AVM_RULES, type AvmRule } from "./rules.ts";
import {
  attest,
  DAY,
  EJ_HASH,
  iso,
  NOW,
  request,
  Scenario,
  signerFor,
  type TestIdentity,
} from "../../test/support/core/avm/helpers.ts";
import { malformedAttempt, signatureQuestions, verifyAuthority } from "./verifier.ts";

/** A registered companion, a deployer with reputation 0.95 and 20,000 MIC bonded. */
function base(options: Parameters<Scenario["identity"]>[1] = {}) {
  const s = new Scenario();
  const athena = s.companion("athena");
  const holder = s.identity("holder", options);
  return { s, athena, holder };
}

const STAGING: Scope[] = ["api.read", "api.deploy.staging"];

interface Case {
  s: Scenario;
  req: AvmVerifyRequest;
  now?: number;
}

/** One failing request per rule of the table; a rule missing here is a compile error. */
const cases: Record<AvmRule, () => Case> = {
  "identity.not_found": () => {
    const { s, athena } = base();
    const stranger: TestIdentity = { ledger_id: "7d9f2c4e-1a3b-4c5d-8e6f-0a1b2c3d4e5f", wallet: signerFor("stranger") };
    return { s, req: request(stranger, attest(athena, stranger.ledger_id), STAGING) };
  },
  "identity.revoked": () => {
    const { s, athena, holder } = base();
    s.event("identity.revoked", { ledger_id: holder.ledger_id, reason: "key lost" });
    return { s, req: request(holder, attest(athena, holder.ledger_id), STAGING) };
  },
  "identity.reputation_not_positive": () => {
    const { s, athena, holder } = base({ reputation: 0 });
    return { s, req: request(holder, attest(athena, holder.ledger_id), STAGING) };
  },
  "stake.wallet_signature_invalid": () => {
    const { s, athena, holder } = base();
    return { s, req: request(holder, attest(athena, holder.ledger_id), STAGING, signerFor("someone else")) };
  },
  "stake.missing": () => {
    const { s, athena, holder } = base({ stakeMic: 0n });
    return { s, req: request(holder, attest(athena, holder.ledger_id), STAGING) };
  },
  "stake.slashing_not_accepted": () => {
    const { s, athena, holder } = base({ acceptSlashing: false });
    return { s, req: request(holder, attest(athena, holder.ledger_id), STAGING) };
  },
  "stake.below_minimum": () => {
    const { s, athena, holder } = base({ stakeMic: 99n });
    return { s, req: request(holder, attest(athena, holder.ledger_id), STAGING) };
  },
  "attestation.malformed": () => {
    const { s, athena, holder } = base();
    return { s, req: request(holder, { ...attest(athena, holder.ledger_id), note: "trust me" }, STAGING) };
  },
  "attestation.ej_hash_invalid": () => {
    const { s, athena, holder } = base();
    const { ej_hash: _missing, ...withoutEj } = attest(athena, holder.ledger_id);
    return { s, req: request(holder, withoutEj, STAGING) };
  },
  "attestation.companion_not_registered": () => {
    const { s, holder } = base();
    const ghost = { ...signerFor("companion/ghost"), companion_id: "ghost" };
    return { s, req: request(holder, attest(ghost, holder.ledger_id), STAGING) };
  },
  "attestation.companion_key_mismatch": () => {
    const { s, holder } = base();
    const impostor = { ...signerFor("companion/impostor"), companion_id: "athena" };
    return { s, req: request(holder, attest(impostor, holder.ledger_id), STAGING) };
  },
  "attestation.signature_invalid": () => {
    const { s, athena, holder } = base();
    const att = attest(athena, holder.ledger_id);
    return { s, req: request(holder, { ...att, scopes: ["api.*"] }, STAGING) };
  },
  "attestation.cosignature_invalid": () => {
    const { s, athena, holder } = base();
    const unregistered = { ...signerFor("companion/hermes"), companion_id: "hermes" };
    return { s, req: request(holder, attest(athena, holder.ledger_id, { cosigner: unregistered }), STAGING) };
  },
  "attestation.not_yet_valid": () => {
    const { s, athena, holder } = base();
    return { s, req: request(holder, attest(athena, holder.ledger_id, { issuedAt: NOW + 1 }), STAGING) };
  },
  "attestation.expired": () => {
    const { s, athena, holder } = base();
    return { s, req: request(holder, attest(athena, holder.ledger_id, { expiresAt: NOW }), STAGING) };
  },
  "attestation.replayed": () => {
    const { s, athena, holder } = base();
    const req = request(holder, attest(athena, holder.ledger_id), STAGING);
    const first = verifyAuthority(req, s.registry, NOW);
    expect(first.verified).toBe(true);
    s.apply(...first.events);
    return { s, req, now: NOW + 1000 };
  },
  "attestation.subject_mismatch": () => {
    const { s, athena, holder } = base();
    return {
      s,
      req: request(
        holder,
        attest(athena, holder.ledger_id, { subject: "7d9f2c4e-1a3b-4c5d-8e6f-0a1b2c3d4e5f" }),
        STAGING,
      ),
    };
  },
  "attestation.scopes_not_covered": () => {
    const { s, athena, holder } = base();
    return { s, req: request(holder, attest(athena, holder.ledger_id, { scopes: ["api.read"] }), STAGING) };
  },
  "attestation.risk_inappropriate": () => {
    const { s, athena, holder } = base();
    return { s, req: request(holder, attest(athena, holder.ledger_id, { risk_level: "high" }), STAGING) };
  },
  "scope.not_permitted_for_role": () => {
    const { s, athena, holder } = base({ role: "viewer" });
    return { s, req: request(holder, attest(athena, holder.ledger_id), ["api.write"]) };
  },
  "scope.escalation_needs_reputation": () => {
    const { s, athena, holder } = base({ reputation: 0.89 });
    return {
      s,
      req: request(holder, attest(athena, holder.ledger_id, { scopes: ["api.deploy.production"] }), [
        "api.deploy.production",
      ]),
    };
  },
  "scope.prohibited_combination": () => {
    const { s, athena, holder } = base();
    const scopes: Scope[] = ["api.write", "api.deploy.production"];
    return { s, req: request(holder, attest(athena, holder.ledger_id, { scopes }), scopes) };
  },
  "scope.production_stake_insufficient": () => {
    const { s, athena, holder } = base({ stakeMic: 9_999n });
    return {
      s,
      req: request(holder, attest(athena, holder.ledger_id, { scopes: ["api.deploy.production"] }), [
        "api.deploy.production",
      ]),
    };
  },
  "scope.additional_attestation_required": () => {
    const { s, athena, holder } = base({ role: "admin" });
    return {
      s,
      req: request(holder, attest(athena, holder.ledger_id, { scopes: ["api.*"], risk_level: "low" }), ["api.*"]),
    };
  },
  "scope.drift_exceeded": () => {
    const { s, athena, holder } = base();
    s.event("identity.drift", { ledger_id: holder.ledger_id, drift_score: 0.11, source: "athena" });
    return { s, req: request(holder, attest(athena, holder.ledger_id), STAGING) };
  },
  "temporal.duration_exceeds_maximum": () => {
    const { s, athena, holder } = base();
    return {
      s,
      req: request(
        holder,
        attest(athena, holder.ledger_id, { issuedAt: NOW - DAY, expiresAt: NOW + 89 * DAY + 1 }),
        STAGING,
      ),
    };
  },
};

describe("the rule table: one failing request per row", () => {
  it.each(AVM_RULE_NAMES)("%s", (rule) => {
    const { s, req, now = NOW } = cases[rule]();
    expect(AvmVerifyRequest.safeParse(req).success).toBe(true);
    const outcome = verifyAuthority(req, s.registry, now);
    expect(outcome.verified).toBe(false);
    if (outcome.verified) return;
    const spec = AVM_RULES[rule];
    expect(outcome.rule).toBe(rule);
    expect(outcome.response).toMatchObject({
      verified: false,
      code: spec.code,
      error: spec.error,
      failed_at_stage: spec.stage,
      remediation: spec.remediation,
    });
    expect(outcome.response.error_detail.startsWith(`${rule}: `)).toBe(true);
    expect(AvmFailure.safeParse(outcome.response).success).toBe(true);
    // The attempt is logged with the stage, code and error, and nothing is granted.
    expect(outcome.events).toHaveLength(1);
    const [attempt] = outcome.events;
    expect(attempt!.type).toBe("avm.attempt");
    expect(attempt!.payload).toEqual({
      ledger_id: req.ledger_id,
      requested_scopes: req.requested_scopes,
      verified: false,
      failed_at_stage: spec.stage,
      code: spec.code,
      attestation_hash: attestationHash(req.companion_attestation),
      error: spec.error,
    });
    expect(validateEvent(attempt!.type, attempt!.payload)).toBeNull();
  });

  it("the rows of a stage come before the next stage's, in the spec's stage order", () => {
    const order = ["identity", "stake", "attestation", "scope", "temporal"];
    const stages = AVM_RULE_NAMES.map((r) => order.indexOf(AVM_RULES[r].stage));
    expect(stages).toEqual([...stages].sort((a, b) => a - b));
    for (const rule of AVM_RULE_NAMES) expect(rule.split(".")[0]).toBe(AVM_RULES[rule].stage);
  });
});

describe("signatures verified ahead (the API verifies them on other threads before its write)", () => {
  const ahead = (
    req: AvmVerifyRequest,
    s: Scenario,
    answer = (q: ReturnType<typeof signatureQuestions>[number]) =>
      verify(q.algorithm, q.publicKeyHex, q.message, q.signatureHex),
  ) => {
    const forms = signedForms(req);
    const questions = signatureQuestions(req, forms, s.registry);
    return { questions, ahead: { forms, signatures: new SignatureVerdicts(questions, questions.map(answer)) } };
  };

  it.each([...AVM_RULE_NAMES, "granted (with a co-signature)"])("decides as without them: %s", (name) => {
    const {
      s,
      req,
      now = NOW,
    }: Case = name in cases
      ? cases[name as AvmRule]()
      : (() => {
          const { s, athena, holder } = base({ role: "admin" });
          const hermes = s.companion("hermes");
          return {
            s,
            req: request(
              holder,
              attest(athena, holder.ledger_id, { scopes: ["api.*"], risk_level: "low", cosigner: hermes }),
              ["api.*"],
            ),
          };
        })();
    const { questions, ahead: computed } = ahead(req, s);
    const outcome = verifyAuthority(req, s.registry, now, computed);
    expect(outcome).toEqual(verifyAuthority(req, s.registry, now));
    expect(outcome.verified).toBe(!(name in cases));
    if (outcome.verified) expect(questions).toHaveLength(3); // wallet, companion, co-signer
  });

  it("answers a question from its verdict only when algorithm, key, message and signature all match", () => {
    const { s, athena, holder } = base();
    const req = request(holder, attest(athena, holder.ledger_id), STAGING);
    // A verdict is what the stage uses: one saying the (valid) wallet signature is invalid is believed…
    const lying = ahead(req, s, (q) => q.publicKeyHex !== s.registry.identities.get(holder.ledger_id)!.public_key);
    const out = verifyAuthority(req, s.registry, NOW, lying.ahead);
    expect(out.verified ? null : out.rule).toBe("stake.wallet_signature_invalid");
    // …but verdicts about other keys or messages are not: those signatures are verified in place.
    const other = new SignatureVerdicts(
      lying.questions.map((q) => ({ ...q, message: Uint8Array.from([...q.message, 0x20]) })),
      lying.questions.map(() => false),
    );
    expect(verifyAuthority(req, s.registry, NOW, { forms: lying.ahead.forms, signatures: other }).verified).toBe(true);
  });
});

describe("a successful verification", () => {
  it("answers the spec's authority_context and logs the attempt with the grant", () => {
    const { s, athena, holder } = base();
    const att = attest(athena, holder.ledger_id);
    const req = request(holder, att, STAGING);
    const outcome = verifyAuthority(req, s.registry, NOW);
    expect(outcome.verified).toBe(true);
    if (!outcome.verified) return;
    const context = outcome.response.authority_context;
    expect(AuthorityContext.safeParse(context).success).toBe(true);
    expect(context).toEqual({
      verified: true,
      ledger_id: holder.ledger_id,
      scopes: STAGING,
      // Fewer than 5 attestations so far: at most 30 days (the attestation runs 60).
      expires_at: iso(NOW + 30 * DAY),
      risk_level: "medium",
      attestation_hash: attestationHash(att),
      stake_locked: 20_000,
      stake_locked_shards: "20000000000",
      created_at: iso(NOW),
      validation_chain: ["identity:pass", "stake:pass", "attestation:pass", "scope:pass", "temporal:pass"],
    });
    expect(outcome.renewal).toBe(false);
    expect(outcome.events.map((e) => e.type)).toEqual(["avm.attempt", "avm.grant"]);
    expect(outcome.events[0]!.payload).toMatchObject({ verified: true, failed_at_stage: null, code: null });
    expect(outcome.events[0]!.payload).not.toHaveProperty("error");
    expect(outcome.events[1]!.payload).toEqual({
      ledger_id: holder.ledger_id,
      scopes: STAGING,
      risk_level: "medium",
      attestation_hash: attestationHash(att),
      created_at: iso(NOW),
      expires_at: iso(NOW + 30 * DAY),
    });
    for (const e of outcome.events) expect(validateEvent(e.type, e.payload)).toBeNull();

    s.apply(...outcome.events);
    expect(checkAuthority(s.registry, holder.ledger_id, NOW + 1)).toEqual({
      has_authority: true,
      scopes: STAGING,
      expires_at: iso(NOW + 30 * DAY),
    });
    expect(checkAuthority(s.registry, holder.ledger_id, NOW + 30 * DAY)).toEqual({
      has_authority: false,
      scopes: [],
      expires_at: null,
    });
  });

  it("with 5 attestations since the last revocation a grant runs to the attestation's expiry (reduced verification frequency)", () => {
    const { s, athena, holder } = base();
    let now = NOW;
    for (let i = 0; i < 5; i++) {
      const out = verifyAuthority(
        request(holder, attest(athena, holder.ledger_id, { issuedAt: now - 1 }), STAGING),
        s.registry,
        now,
      );
      expect(out.verified).toBe(true);
      if (out.verified) expect(out.response.authority_context.expires_at).toBe(iso(now + 30 * DAY));
      s.apply(...out.events);
      now += 1000;
    }
    const sixth = verifyAuthority(
      request(holder, attest(athena, holder.ledger_id, { issuedAt: now - 1, expiresAt: now + 85 * DAY }), STAGING),
      s.registry,
      now,
    );
    expect(sixth.verified && sixth.response.authority_context.expires_at).toBe(iso(now + 85 * DAY));
    expect(sixth.verified && sixth.renewal).toBe(true);
  });

  it("never expires after the attestation, and never beyond 90 days", () => {
    const { s, athena, holder } = base();
    const out = verifyAuthority(
      request(holder, attest(athena, holder.ledger_id, { expiresAt: NOW + 3 * DAY }), STAGING),
      s.registry,
      NOW,
    );
    expect(out.verified && out.response.authority_context.expires_at).toBe(iso(NOW + 3 * DAY));
    const exactly90 = verifyAuthority(
      request(
        holder,
        attest(athena, holder.ledger_id, { issuedAt: NOW - DAY, expiresAt: NOW - DAY + MAX_AUTHORITY_DURATION_MS }),
        STAGING,
      ),
      s.registry,
      NOW,
    );
    expect(exactly90.verified).toBe(true);
  });

  it("grants an admin api.* with a co-signed attestation, with both algorithms", () => {
    const s = new Scenario();
    const athena = s.companion("athena", "secp256k1");
    const hermes = s.companion("hermes", "ed25519");
    const admin = s.identity("admin", { role: "admin", algorithm: "secp256k1", reputation: 0.5 });
    const att = attest(athena, admin.ledger_id, { scopes: ["api.*"], risk_level: "low", cosigner: hermes });
    const out = verifyAuthority(request(admin, att, ["api.*"]), s.registry, NOW);
    expect(out.verified).toBe(true);
    // The co-signature without the companion's signature over it does not verify.
    const { cosignature, ...rest } = att;
    const stripped = verifyAuthority(request(admin, { ...rest, signature: att.signature }, ["api.*"]), s.registry, NOW);
    expect(!stripped.verified && stripped.rule).toBe("attestation.signature_invalid");
    expect(cosignature?.companion_id).toBe("hermes");
  });

  it("a duplicated scope is granted once; the wallet signs the scopes as sent", () => {
    const { s, athena, holder } = base();
    const att = attest(athena, holder.ledger_id);
    const scopes: Scope[] = ["api.read", "api.read", "api.write"];
    const req = request(holder, att, scopes);
    expect(req.wallet_signature).toBe(
      sign("ed25519", holder.wallet.secretKeyHex, walletMessage(attestationHash(att), holder.ledger_id, scopes)),
    );
    const out = verifyAuthority(req, s.registry, NOW);
    expect(out.verified && out.response.authority_context.scopes).toEqual(["api.read", "api.write"]);
    const reordered = verifyAuthority({ ...req, requested_scopes: ["api.read", "api.write"] }, s.registry, NOW);
    expect(!reordered.verified && reordered.rule).toBe("stake.wallet_signature_invalid");
  });

  it("an EJ hash that is a placeholder fails like a missing one", () => {
    const { s, athena, holder } = base();
    const out = verifyAuthority(
      request(holder, attest(athena, holder.ledger_id, { ej_hash: `sha256:${"0".repeat(64)}` }), STAGING),
      s.registry,
      NOW,
    );
    expect(!out.verified && out.rule).toBe("attestation.ej_hash_invalid");
    expect(EJ_HASH).not.toBe(`sha256:${"0".repeat(64)}`);
  });
});

describe("malformedAttempt: the log line of a body that did not parse", () => {
  it("keeps only a UUID ledger_id, recognised scopes and the attestation hash", () => {
    const attestation = { anything: "at all" };
    expect(
      malformedAttempt({
        ledger_id: "7d9f2c4e-1a3b-4c5d-8e6f-0a1b2c3d4e5f",
        requested_scopes: ["api.read", "drop tables", 7],
        companion_attestation: attestation,
        extra: 1,
      }).payload,
    ).toEqual({
      ledger_id: "7d9f2c4e-1a3b-4c5d-8e6f-0a1b2c3d4e5f",
      requested_scopes: ["api.read"],
      verified: false,
      failed_at_stage: null,
      code: null,
      attestation_hash: attestationHash(attestation),
      error: "request_malformed",
    });
    for (const body of [
      null,
      "text",
      [1, 2],
      {
        ledger_id: "x".repeat(10_000),
        requested_scopes: Array(1000).fill("api.read"),
        companion_attestation: { s: "\ud800" },
      },
    ]) {
      const attempt = malformedAttempt(body);
      expect(validateEvent(attempt.type, attempt.payload)).toBeNull();
      expect((attempt.payload as { attestation_hash: unknown }).attestation_hash).toBeNull();
    }
  });
});
