/**
 * The AVM's authorization policy as data: RBAC (role → base scopes) and ABAC (attribute conditions)
 * in one declarative table, `AVM_POLICY`, and the decision over it. The verifier consults it stage
 * by stage (minimum stake at the stake stage, risk ceilings at the attestation stage, the rest at
 * the scope stage); `decidePolicy` is the whole decision at once — what the Cedar transcription in
 * `policy.cedar` is checked against, request by request.
 *
 * What the spec leaves open, decided here (README "Authority verification"):
 * - Advanced scopes: the rung just above a role's highest base scope on the ladder
 *   read < write.draft < write < deploy.staging < deploy.production; reputation ≥ 0.9 unlocks them.
 *   That is also the whole escalation rule: one rung, by reputation, never more; `api.*` only
 *   through the admin role.
 * - Stake ≥ 10,000 MIC is needed for `api.deploy.production` and for `api.*`, which covers it.
 * - The additional attestation: every grant to an admin needs a co-signature of the attestation
 *   by a second registered companion (CompanionAttestation.cosignature).
 * - Prohibited combinations: `api.*` with any other scope (the wildcard stands alone), and
 *   `api.write` with `api.deploy.production` (who writes a change does not ship it to production
 *   under the same grant).
 * - Risk ceilings: the attestation's risk level may be at most `maxRisk` for every requested scope;
 *   critical never grants.
 * - Reduced verification frequency: with ≥ 5 attestations since the last revocation a grant may
 *   last the full 90 days, otherwise at most 30.
 * - Drift ≤ 0.1 is needed for every grant, first or renewal (AVM_008): drift above 0.1 revokes a
 *   grant, so without the check a "first" verification would undo that revocation.
 */
import { SHARDS_PER_MIC } from "../money/units.ts";
import {
  MAX_AUTHORITY_DURATION_MS,
  RISK_LEVELS,
  ROLE_BASE_SCOPES,
  type RiskLevel,
  type Role,
  type Scope,
} from "../schemas/avm.ts";
import { DAY_MS } from "../time.ts";

const MIC = SHARDS_PER_MIC;

interface RolePolicy {
  /** Spec "Roles (RBAC)". `api.*` covers every scope. */
  readonly base: readonly Scope[];
  /** Unlocked by reputation ≥ advancedScopesMinReputation: one rung above the highest base scope. */
  readonly advanced: readonly Scope[];
  /** Grants need the additional attestation (a second companion's co-signature). */
  readonly additionalAttestation: boolean;
}

interface ScopePolicy {
  /** Highest attestation risk level this scope may be granted at. */
  readonly maxRisk: RiskLevel;
  /** Bonded stake this scope needs (besides the minimum every grant needs). */
  readonly minStakeShards: bigint;
}

/** RBAC: each role's base scopes (spec) and the advanced scopes reputation unlocks. */
const ROLE_POLICY: Readonly<Record<Role, RolePolicy>> = {
  viewer: { base: ROLE_BASE_SCOPES.viewer, advanced: ["api.write.draft"], additionalAttestation: false },
  contributor: { base: ROLE_BASE_SCOPES.contributor, advanced: ["api.write"], additionalAttestation: false },
  deployer: { base: ROLE_BASE_SCOPES.deployer, advanced: ["api.deploy.production"], additionalAttestation: false },
  admin: { base: ROLE_BASE_SCOPES.admin, advanced: [], additionalAttestation: true },
};

/** ABAC per scope: the risk ceiling and the stake it needs. */
const SCOPE_POLICY: Readonly<Record<Scope, ScopePolicy>> = {
  "api.read": { maxRisk: "high", minStakeShards: 0n },
  "api.write.draft": { maxRisk: "high", minStakeShards: 0n },
  "api.write": { maxRisk: "medium", minStakeShards: 0n },
  "api.deploy.staging": { maxRisk: "medium", minStakeShards: 0n },
  "api.deploy.production": { maxRisk: "medium", minStakeShards: 10_000n * MIC },
  "api.*": { maxRisk: "low", minStakeShards: 10_000n * MIC },
};

export const AVM_POLICY = {
  roles: ROLE_POLICY,
  scopes: SCOPE_POLICY,
  /** Scopes that must be requested alone. */
  exclusiveScopes: ["api.*"] as readonly Scope[],
  /** Pairs that may not be requested together. */
  prohibitedPairs: [["api.write", "api.deploy.production"]] as readonly (readonly [Scope, Scope])[],
  /** ABAC: reputation ≥ 0.9 unlocks advanced scopes. */
  advancedScopesMinReputation: 0.9,
  /** Bonded stake every grant needs (the spec does not show one; 100 MIC). */
  minimumStakeShards: 100n * MIC,
  /** ABAC: drift score ≤ 0.1 to be granted (and so renewed). */
  maxDriftScore: 0.1,
  /** Identity stage: reputation must be above this. */
  minimumReputationExclusive: 0,
  /** ABAC: attestation_count ≥ 5 → reduced verification frequency (longer grants). */
  verificationInterval: {
    defaultMaxMs: 30 * DAY_MS,
    reducedAtAttestationCount: 5,
    reducedMaxMs: MAX_AUTHORITY_DURATION_MS,
  },
} as const;

/** What the policy knows about the requester (from the registry). */
export interface PolicySubject {
  role: Role;
  reputation: number;
  /** Stake locked with the slashing conditions accepted, in shards. */
  bondedStakeShards: bigint;
  driftScore: number;
}

/** What the policy knows about the request (from the request and its verified attestation). */
export interface PolicyRequest {
  scopes: readonly Scope[];
  riskLevel: RiskLevel;
  /** A valid co-signature by a second registered companion is present. */
  additionalAttestation: boolean;
}

export type PolicyRule =
  | "stake.below_minimum"
  | "attestation.risk_inappropriate"
  | "scope.not_permitted_for_role"
  | "scope.escalation_needs_reputation"
  | "scope.prohibited_combination"
  | "scope.production_stake_insufficient"
  | "scope.additional_attestation_required"
  | "scope.drift_exceeded";

export type PolicyDecision = { allowed: true } | { allowed: false; rule: PolicyRule; detail: string };

const ALLOW: PolicyDecision = { allowed: true };
const RISK_RANK: Readonly<Record<RiskLevel, number>> = Object.fromEntries(RISK_LEVELS.map((r, i) => [r, i])) as Record<
  RiskLevel,
  number
>;

function deny(rule: PolicyRule, detail: string): PolicyDecision {
  return { allowed: false, rule, detail };
}

/** True when a grant of `granted` includes `scope` (`api.*` includes every scope). */
export function grantCovers(granted: readonly Scope[], scope: Scope): boolean {
  return granted.includes(scope) || granted.includes("api.*");
}

/** Stake stage: the bonded stake every grant needs. */
export function decideStake(subject: PolicySubject): PolicyDecision {
  const min = AVM_POLICY.minimumStakeShards;
  return subject.bondedStakeShards >= min
    ? ALLOW
    : deny(
        "stake.below_minimum",
        `bonded stake ${subject.bondedStakeShards} shards is below the minimum of ${min} shards`,
      );
}

/** Attestation stage: the attestation's risk level is within every requested scope's ceiling. */
export function decideRisk(request: PolicyRequest): PolicyDecision {
  const rank = RISK_RANK[request.riskLevel];
  for (const scope of request.scopes) {
    const ceiling = AVM_POLICY.scopes[scope].maxRisk;
    if (rank > RISK_RANK[ceiling]) {
      return deny(
        "attestation.risk_inappropriate",
        `risk level ${request.riskLevel} is above ${ceiling}, the most ${scope} is granted at`,
      );
    }
  }
  return ALLOW;
}

/** Scope stage: RBAC, escalation, combinations, the stake-unlocked scopes, additional attestation, drift. */
export function decideScopes(subject: PolicySubject, request: PolicyRequest): PolicyDecision {
  const { scopes } = request;
  if (scopes.length === 0) return deny("scope.not_permitted_for_role", "no scope was requested");
  const role = AVM_POLICY.roles[subject.role];
  for (const scope of scopes) {
    if (grantCovers(role.base, scope)) continue;
    if (!role.advanced.includes(scope))
      return deny("scope.not_permitted_for_role", `${scope} is outside the ${subject.role} role`);
    if (!(subject.reputation >= AVM_POLICY.advancedScopesMinReputation)) {
      return deny(
        "scope.escalation_needs_reputation",
        `${scope} is an advanced scope of the ${subject.role} role and needs reputation ≥ ${AVM_POLICY.advancedScopesMinReputation} (has ${subject.reputation})`,
      );
    }
  }
  for (const exclusive of AVM_POLICY.exclusiveScopes) {
    if (scopes.includes(exclusive) && scopes.some((s) => s !== exclusive)) {
      return deny("scope.prohibited_combination", `${exclusive} must be requested alone`);
    }
  }
  for (const [a, b] of AVM_POLICY.prohibitedPairs) {
    if (scopes.includes(a) && scopes.includes(b))
      return deny("scope.prohibited_combination", `${a} and ${b} may not be granted together`);
  }
  for (const scope of scopes) {
    const need = AVM_POLICY.scopes[scope].minStakeShards;
    if (subject.bondedStakeShards < need) {
      return deny(
        "scope.production_stake_insufficient",
        `${scope} needs a bonded stake of ${need} shards (has ${subject.bondedStakeShards})`,
      );
    }
  }
  if (role.additionalAttestation && !request.additionalAttestation) {
    return deny(
      "scope.additional_attestation_required",
      `a ${subject.role} grant needs the attestation co-signed by a second registered companion`,
    );
  }
  if (!(subject.driftScore <= AVM_POLICY.maxDriftScore)) {
    return deny("scope.drift_exceeded", `drift score ${subject.driftScore} is above ${AVM_POLICY.maxDriftScore}`);
  }
  return ALLOW;
}

/** The whole policy decision, in the verifier's order: stake, risk, scope. */
export function decidePolicy(subject: PolicySubject, request: PolicyRequest): PolicyDecision {
  const stake = decideStake(subject);
  if (!stake.allowed) return stake;
  const risk = decideRisk(request);
  if (!risk.allowed) return risk;
  return decideScopes(subject, request);
}

/** The bonded stake a grant of `scopes` needs to stay in force (minimum and scope requirements). */
export function requiredStakeShards(scopes: readonly Scope[]): bigint {
  let need = AVM_POLICY.minimumStakeShards;
  for (const scope of scopes)
    if (AVM_POLICY.scopes[scope].minStakeShards > need) need = AVM_POLICY.scopes[scope].minStakeShards;
  return need;
}

/** The longest grant an identity with `attestationCount` attestations since its last revocation gets. */
export function maxGrantDurationMs(attestationCount: number): number {
  const v = AVM_POLICY.verificationInterval;
  return attestationCount >= v.reducedAtAttestationCount ? v.reducedMaxMs : v.defaultMaxMs;
}
