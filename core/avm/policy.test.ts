import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ROLE_BASE_SCOPES, type Role, type Scope } from "../schemas/avm.ts";
import {
  cedarDecide,
  policyCaseArbitrary,
  prepareCedar,
  toCedarCall,
  toPolicyInput,
  validateCedarPolicy,
} from "./cedar-oracle.ts";
import {
  AVM_POLICY,
  decidePolicy,
  grantCovers,
  maxGrantDurationMs,
  requiredStakeShards,
  type PolicyRule,
  type PolicySubject,
} from "./policy.ts";

const MIC = 1_000_000n;
const subject = (role: Role, over: Partial<PolicySubject> = {}): PolicySubject => ({
  role,
  reputation: 0.95,
  bondedStakeShards: 20_000n * MIC,
  driftScore: 0,
  ...over,
});
const decide = (
  s: PolicySubject,
  scopes: Scope[],
  riskLevel: "low" | "medium" | "high" | "critical" = "low",
  additionalAttestation = false,
) => decidePolicy(s, { scopes, riskLevel, additionalAttestation });
const ruleOf = (d: ReturnType<typeof decide>) => (d.allowed ? "allow" : d.rule);

describe("the policy table", () => {
  it("keeps the spec's RBAC base scopes", () => {
    for (const role of Object.keys(ROLE_BASE_SCOPES) as Role[])
      expect(AVM_POLICY.roles[role].base).toEqual(ROLE_BASE_SCOPES[role]);
  });

  it("base scopes are granted without reputation; advanced ones need 0.9", () => {
    expect(ruleOf(decide(subject("viewer", { reputation: 0.01 }), ["api.read"]))).toBe("allow");
    expect(ruleOf(decide(subject("viewer", { reputation: 0.8999 }), ["api.write.draft"]))).toBe(
      "scope.escalation_needs_reputation",
    );
    expect(ruleOf(decide(subject("viewer", { reputation: 0.9 }), ["api.write.draft"]))).toBe("allow");
    expect(ruleOf(decide(subject("contributor"), ["api.write"]))).toBe("allow");
    expect(ruleOf(decide(subject("contributor"), ["api.deploy.staging"]))).toBe("scope.not_permitted_for_role");
    expect(ruleOf(decide(subject("deployer", { reputation: 0.5 }), ["api.write", "api.deploy.staging"]))).toBe("allow");
    expect(ruleOf(decide(subject("deployer"), ["api.*"]))).toBe("scope.not_permitted_for_role");
  });

  it("escalation is one rung: a viewer never gets api.write, whatever the reputation", () => {
    expect(ruleOf(decide(subject("viewer", { reputation: 1 }), ["api.write"]))).toBe("scope.not_permitted_for_role");
    expect(ruleOf(decide(subject("contributor", { reputation: 1 }), ["api.deploy.production"]))).toBe(
      "scope.not_permitted_for_role",
    );
  });

  it("production deployment needs reputation 0.9 and 10,000 MIC bonded; api.* needs the stake too", () => {
    expect(ruleOf(decide(subject("deployer"), ["api.deploy.production"]))).toBe("allow");
    expect(
      ruleOf(decide(subject("deployer", { bondedStakeShards: 10_000n * MIC - 1n }), ["api.deploy.production"])),
    ).toBe("scope.production_stake_insufficient");
    expect(ruleOf(decide(subject("admin", { bondedStakeShards: 9_000n * MIC }), ["api.*"], "low", true))).toBe(
      "scope.production_stake_insufficient",
    );
    expect(ruleOf(decide(subject("admin", { bondedStakeShards: 9_000n * MIC }), ["api.write"], "low", true))).toBe(
      "allow",
    );
  });

  it("admin grants need the additional attestation, whatever the scope", () => {
    expect(ruleOf(decide(subject("admin"), ["api.*"]))).toBe("scope.additional_attestation_required");
    expect(ruleOf(decide(subject("admin"), ["api.read"]))).toBe("scope.additional_attestation_required");
    expect(ruleOf(decide(subject("admin"), ["api.read"], "low", true))).toBe("allow");
    expect(ruleOf(decide(subject("admin", { reputation: 0.1 }), ["api.*"], "low", true))).toBe("allow");
  });

  it("prohibited combinations: api.* alone; api.write with api.deploy.production", () => {
    expect(ruleOf(decide(subject("admin"), ["api.*", "api.read"], "low", true))).toBe("scope.prohibited_combination");
    expect(ruleOf(decide(subject("admin"), ["api.*", "api.*"], "low", true))).toBe("allow");
    expect(ruleOf(decide(subject("deployer"), ["api.write", "api.deploy.production"]))).toBe(
      "scope.prohibited_combination",
    );
    expect(ruleOf(decide(subject("admin"), ["api.write", "api.deploy.production"], "low", true))).toBe(
      "scope.prohibited_combination",
    );
  });

  it("risk ceilings: critical never; high only read and draft; api.* only low", () => {
    expect(ruleOf(decide(subject("deployer"), ["api.read"], "critical"))).toBe("attestation.risk_inappropriate");
    expect(ruleOf(decide(subject("contributor"), ["api.read", "api.write.draft"], "high"))).toBe("allow");
    expect(ruleOf(decide(subject("deployer"), ["api.deploy.staging"], "high"))).toBe("attestation.risk_inappropriate");
    expect(ruleOf(decide(subject("deployer"), ["api.deploy.production"], "medium"))).toBe("allow");
    expect(ruleOf(decide(subject("admin"), ["api.*"], "medium", true))).toBe("attestation.risk_inappropriate");
  });

  it("minimum stake 100 MIC; drift at most 0.1", () => {
    expect(ruleOf(decide(subject("viewer", { bondedStakeShards: 100n * MIC - 1n }), ["api.read"]))).toBe(
      "stake.below_minimum",
    );
    expect(ruleOf(decide(subject("viewer", { bondedStakeShards: 100n * MIC }), ["api.read"]))).toBe("allow");
    expect(ruleOf(decide(subject("viewer", { driftScore: 0.1 }), ["api.read"]))).toBe("allow");
    expect(ruleOf(decide(subject("viewer", { driftScore: 0.1001 }), ["api.read"]))).toBe("scope.drift_exceeded");
    expect(ruleOf(decide(subject("viewer", { driftScore: Number.NaN }), ["api.read"]))).toBe("scope.drift_exceeded");
  });

  it("helpers: coverage, the stake a grant needs, the verification interval", () => {
    expect(grantCovers(["api.*"], "api.deploy.production")).toBe(true);
    expect(grantCovers(["api.write"], "api.write.draft")).toBe(false);
    expect(requiredStakeShards(["api.read"])).toBe(100n * MIC);
    expect(requiredStakeShards(["api.read", "api.deploy.production"])).toBe(10_000n * MIC);
    expect(maxGrantDurationMs(4)).toBe(30 * 86_400_000);
    expect(maxGrantDurationMs(5)).toBe(90 * 86_400_000);
  });
});

describe("differential: the same policy in Cedar (cedar-wasm) decides identically", () => {
  prepareCedar();

  it("the Cedar transcription validates against its schema (strict mode)", () => {
    const answer = validateCedarPolicy();
    expect(answer.type).toBe("success");
    if (answer.type === "success") expect(answer.validationErrors).toEqual([]);
  });

  it("on 10,000 random requests", () => {
    let allowed = 0;
    const rules = new Set<PolicyRule>();
    fc.assert(
      fc.property(policyCaseArbitrary, (c) => {
        const { subject: s, request } = toPolicyInput(c);
        const ours = decidePolicy(s, request);
        const theirs = cedarDecide(toCedarCall(c));
        if (theirs.errors.length > 0) throw new Error(`Cedar evaluation errors: ${theirs.errors.join("; ")}`);
        if (ours.allowed !== theirs.allowed) {
          throw new Error(
            `disagreement: decidePolicy ${ours.allowed ? "allows" : `denies (${ours.rule})`}, Cedar ${theirs.allowed ? "allows" : `denies (${theirs.reasons.join(", ")})`}`,
          );
        }
        if (ours.allowed) allowed++;
        else rules.add(ours.rule);
      }),
      { numRuns: 10_000 },
    );
    // The requests reach both outcomes, and every rule of the policy decided some of them.
    expect(allowed).toBeGreaterThan(1_500);
    expect([...rules].sort()).toEqual(
      [
        "attestation.risk_inappropriate",
        "scope.additional_attestation_required",
        "scope.drift_exceeded",
        "scope.escalation_needs_reputation",
        "scope.not_permitted_for_role",
        "scope.production_stake_insufficient",
        "scope.prohibited_combination",
        "stake.below_minimum",
      ].sort(),
    );
  }, 300_000); // Cedar takes milliseconds per call on a loaded machine
});
