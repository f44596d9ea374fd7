/**
 * The AVM policy written a second time, in Cedar, as a test oracle: the differential test checks
 * that `decidePolicy` (policy.ts) and Cedar decide identically, and `npm run bench -- avm` times
 * both on the same requests. Test and benchmark only: it imports devDependencies
 * (@cedar-policy/cedar-wasm, fast-check); nothing the platform runs imports it.
 *
 * Written from the manual's policy description (docs/authority.md), not generated from AVM_POLICY, so a mistake in
 * either shows up as a disagreement. Cedar has no floats: reputation and drift are `decimal`s (four
 * places), so the generated values have at most four decimals; stake is a Long of shards.
 */
import * as cedar from "@cedar-policy/cedar-wasm/nodejs";
import fc from "fast-check";
import { RISK_LEVELS, ROLES, SCOPES, type RiskLevel, type Role, type Scope } from "../schemas/avm.ts";
import type { PolicyRequest, PolicySubject } from "./policy.ts";

export const CEDAR_SCHEMA = `
entity Identity = { role: String, reputation: decimal, stake_shards: Long, drift: decimal };
entity Grant;
action verify appliesTo {
  principal: [Identity],
  resource: [Grant],
  context: { scopes: Set<String>, risk: Long, cosigned: Bool }
};
`;

export const CEDAR_POLICY = `
// RBAC: each role's base scopes; reputation >= 0.9 adds the next rung (advanced scopes).
@id("viewer")
permit (principal, action == Action::"verify", resource)
when { principal.role == "viewer" && ["api.read"].containsAll(context.scopes) };

@id("viewer-advanced")
permit (principal, action == Action::"verify", resource)
when {
  principal.role == "viewer" && principal.reputation.greaterThanOrEqual(decimal("0.9")) &&
  ["api.read", "api.write.draft"].containsAll(context.scopes)
};

@id("contributor")
permit (principal, action == Action::"verify", resource)
when { principal.role == "contributor" && ["api.read", "api.write.draft"].containsAll(context.scopes) };

@id("contributor-advanced")
permit (principal, action == Action::"verify", resource)
when {
  principal.role == "contributor" && principal.reputation.greaterThanOrEqual(decimal("0.9")) &&
  ["api.read", "api.write.draft", "api.write"].containsAll(context.scopes)
};

@id("deployer")
permit (principal, action == Action::"verify", resource)
when { principal.role == "deployer" && ["api.read", "api.write", "api.deploy.staging"].containsAll(context.scopes) };

@id("deployer-advanced")
permit (principal, action == Action::"verify", resource)
when {
  principal.role == "deployer" && principal.reputation.greaterThanOrEqual(decimal("0.9")) &&
  ["api.read", "api.write", "api.deploy.staging", "api.deploy.production"].containsAll(context.scopes)
};

// api.* covers every scope.
@id("admin")
permit (principal, action == Action::"verify", resource)
when { principal.role == "admin" };

// ABAC and prohibitions.
@id("nothing-requested")
forbid (principal, action, resource) when { context.scopes.isEmpty() };

@id("minimum-stake-100-mic")
forbid (principal, action, resource) when { principal.stake_shards < 100000000 };

@id("production-needs-10000-mic")
forbid (principal, action, resource)
when { context.scopes.containsAny(["api.deploy.production", "api.*"]) && principal.stake_shards < 10000000000 };

@id("wildcard-alone")
forbid (principal, action, resource) when { context.scopes.contains("api.*") && context.scopes != ["api.*"] };

@id("write-not-with-production")
forbid (principal, action, resource) when { context.scopes.containsAll(["api.write", "api.deploy.production"]) };

@id("admin-additional-attestation")
forbid (principal, action, resource) when { principal.role == "admin" && !context.cosigned };

@id("drift")
forbid (principal, action, resource) when { principal.drift.greaterThan(decimal("0.1")) };

// Risk ceilings (0 low, 1 medium, 2 high, 3 critical).
@id("risk-critical")
forbid (principal, action, resource) when { context.risk >= 3 };

@id("risk-high")
forbid (principal, action, resource)
when { context.risk >= 2 && context.scopes.containsAny(["api.write", "api.deploy.staging", "api.deploy.production", "api.*"]) };

@id("risk-medium")
forbid (principal, action, resource) when { context.risk >= 1 && context.scopes.contains("api.*") };
`;

const POLICY_SET_ID = "avm-policy";
let prepared = false;

/** Parses the Cedar policy once per process (cedar-wasm keeps it in thread-local storage). */
export function prepareCedar(): void {
  if (prepared) return;
  const answer = cedar.preparsePolicySet(POLICY_SET_ID, { staticPolicies: CEDAR_POLICY });
  if (answer.type !== "success") throw new Error(`the Cedar policy does not parse: ${JSON.stringify(answer.errors)}`);
  prepared = true;
}

/** A request for the policy in both worlds. Reputation and drift in ten-thousandths. */
export interface PolicyCase {
  role: Role;
  reputation10k: number;
  stakeShards: bigint;
  drift10k: number;
  scopes: Scope[];
  riskLevel: RiskLevel;
  cosigned: boolean;
}

export function toPolicyInput(c: PolicyCase): { subject: PolicySubject; request: PolicyRequest } {
  return {
    subject: {
      role: c.role,
      reputation: c.reputation10k / 10_000,
      bondedStakeShards: c.stakeShards,
      driftScore: c.drift10k / 10_000,
    },
    request: { scopes: c.scopes, riskLevel: c.riskLevel, additionalAttestation: c.cosigned },
  };
}

/** The Cedar call of a case; build it outside a timed loop to time Cedar alone. */
export function toCedarCall(c: PolicyCase): cedar.StatefulAuthorizationCall {
  const principal = { type: "Identity", id: "requester" };
  return {
    principal,
    action: { type: "Action", id: "verify" },
    resource: { type: "Grant", id: "request" },
    context: { scopes: c.scopes, risk: RISK_LEVELS.indexOf(c.riskLevel), cosigned: c.cosigned },
    preparsedPolicySetId: POLICY_SET_ID,
    entities: [
      {
        uid: principal,
        attrs: {
          role: c.role,
          reputation: { __extn: { fn: "decimal", arg: decimal10k(c.reputation10k) } },
          stake_shards: Number(c.stakeShards),
          drift: { __extn: { fn: "decimal", arg: decimal10k(c.drift10k) } },
        },
        parents: [],
      },
    ],
  };
}

export interface CedarDecision {
  allowed: boolean;
  /** Ids of the policies that decided. */
  reasons: string[];
  errors: string[];
}

export function cedarDecide(call: cedar.StatefulAuthorizationCall): CedarDecision {
  const answer = cedar.statefulIsAuthorized(call);
  if (answer.type !== "success") throw new Error(`Cedar failed: ${JSON.stringify(answer.errors)}`);
  const { decision, diagnostics } = answer.response;
  return {
    allowed: decision === "allow",
    reasons: diagnostics.reason,
    errors: diagnostics.errors.map((e) => JSON.stringify(e)),
  };
}

export function validateCedarPolicy(): cedar.ValidationAnswer {
  return cedar.validate({
    schema: CEDAR_SCHEMA,
    policies: { staticPolicies: CEDAR_POLICY },
    validationSettings: { mode: "strict" },
  });
}

function decimal10k(n: number): string {
  return `${Math.floor(n / 10_000)}.${String(n % 10_000).padStart(4, "0")}`;
}

const MIC = 1_000_000n;

/** Every scope a role could be granted (its base and advanced scopes; all of them for admin). */
const REACHABLE: Readonly<Record<Role, readonly Scope[]>> = {
  viewer: ["api.read", "api.write.draft"],
  contributor: ["api.read", "api.write.draft", "api.write"],
  deployer: ["api.read", "api.write", "api.deploy.staging", "api.deploy.production"],
  admin: SCOPES,
};

/**
 * Random requests weighted toward the policy's edges and toward grants: reputations and drifts
 * around their thresholds, stakes at and next to 100 and 10,000 MIC, one to three scopes — mostly
 * ones the role could be granted, sometimes any.
 */
export const policyCaseArbitrary: fc.Arbitrary<PolicyCase> = fc.constantFrom(...ROLES).chain((role) =>
  fc.record({
    role: fc.constant(role),
    reputation10k: fc.oneof(
      fc.integer({ min: 0, max: 10_000 }),
      fc.integer({ min: 8_990, max: 9_010 }),
      fc.constantFrom(0, 8_999, 9_000, 10_000),
    ),
    stakeShards: fc.oneof(
      fc.constantFrom(0n, 100n * MIC - 1n, 100n * MIC, 10_000n * MIC - 1n, 10_000n * MIC, 25_000n * MIC),
      fc.bigInt({ min: 0n, max: 50_000n * MIC }),
    ),
    drift10k: fc.oneof(
      { weight: 3, arbitrary: fc.integer({ min: 0, max: 1_000 }) },
      { weight: 1, arbitrary: fc.integer({ min: 990, max: 1_010 }) },
      { weight: 1, arbitrary: fc.integer({ min: 0, max: 10_000 }) },
    ),
    scopes: fc.oneof(
      { weight: 2, arbitrary: fc.uniqueArray(fc.constantFrom(...REACHABLE[role]), { minLength: 1, maxLength: 3 }) },
      { weight: 1, arbitrary: fc.uniqueArray(fc.constantFrom(...SCOPES), { minLength: 1, maxLength: 3 }) },
    ),
    riskLevel: fc.oneof(
      { weight: 3, arbitrary: fc.constant<RiskLevel>("low") },
      { weight: 3, arbitrary: fc.constant<RiskLevel>("medium") },
      { weight: 1, arbitrary: fc.constantFrom<RiskLevel>("high", "critical") },
    ),
    cosigned: fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
  }),
);
