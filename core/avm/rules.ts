/**
 * Every rule the verifier can fail on, in the order it checks them: stage, AVM code, the failure
 * output's `error` string and `remediation`. This table is the contract of POST /avm/verify's
 * failures; docs/authority.md mirrors it row for row (a test compares the two). The failure output's
 * `error_detail` starts with the rule's name.
 */
import { AVM_ERROR_TABLE, type AvmErrorCode, type AvmFailure, type AvmStage } from "../schemas/avm.ts";
import { CodedError } from "../errors.ts";

export interface RuleSpec {
  stage: AvmStage;
  code: AvmErrorCode;
  /** The failure output's machine-readable `error`. */
  error: string;
  remediation: string;
  /** When the rule fails (the manual's wording). */
  when: string;
}

const remedy = (code: AvmErrorCode): string => AVM_ERROR_TABLE[code].remediation;

export const AVM_RULES = {
  "identity.not_found": {
    stage: "identity",
    code: "AVM_001",
    error: "identity_not_found",
    remediation: remedy("AVM_001"),
    when: "no `identity.registered` for the ledger_id",
  },
  "identity.revoked": {
    stage: "identity",
    code: "AVM_001",
    error: "identity_revoked",
    remediation: "Register a new identity with a new key",
    when: "`identity.revoked`, an `integrity.violation`, or an `avm.revoke` for integrity_violation or key_compromise",
  },
  "identity.reputation_not_positive": {
    stage: "identity",
    code: "AVM_001",
    error: "reputation_not_positive",
    remediation: "Restore a positive reputation",
    when: "reputation ≤ 0",
  },
  "stake.wallet_signature_invalid": {
    stage: "stake",
    code: "AVM_002",
    error: "wallet_signature_invalid",
    remediation: remedy("AVM_002"),
    when: "the registered key's signature over the wallet message does not verify",
  },
  "stake.missing": {
    stage: "stake",
    code: "AVM_007",
    error: "insufficient_stake",
    remediation: remedy("AVM_007"),
    when: "no stake locked",
  },
  "stake.slashing_not_accepted": {
    stage: "stake",
    code: "AVM_007",
    error: "slashing_not_accepted",
    remediation: "Lock stake accepting the slashing conditions",
    when: "the bonded stake (locked accepting slashing) is below 100 MIC but all stake together is not",
  },
  "stake.below_minimum": {
    stage: "stake",
    code: "AVM_007",
    error: "insufficient_stake",
    remediation: remedy("AVM_007"),
    when: "bonded stake below 100 MIC",
  },
  "attestation.malformed": {
    stage: "attestation",
    code: "AVM_004",
    error: "attestation_invalid",
    remediation: remedy("AVM_003"),
    when: "the attestation is not a valid CompanionAttestation (missing or unknown fields, bad values)",
  },
  "attestation.ej_hash_invalid": {
    stage: "attestation",
    code: "AVM_004",
    error: "attestation_invalid",
    remediation: remedy("AVM_003"),
    when: "EJ hash missing, not `sha256:<hex>`, or a placeholder (all zeros, or the hash of nothing)",
  },
  "attestation.companion_not_registered": {
    stage: "attestation",
    code: "AVM_004",
    error: "attestation_signature_invalid",
    remediation: remedy("AVM_004"),
    when: "no `companion.registered` for companion_id",
  },
  "attestation.companion_key_mismatch": {
    stage: "attestation",
    code: "AVM_004",
    error: "attestation_signature_invalid",
    remediation: remedy("AVM_004"),
    when: "algorithm or public_key differ from the companion's registered key",
  },
  "attestation.signature_invalid": {
    stage: "attestation",
    code: "AVM_004",
    error: "attestation_signature_invalid",
    remediation: remedy("AVM_004"),
    when: "the companion's signature does not verify",
  },
  "attestation.cosignature_invalid": {
    stage: "attestation",
    code: "AVM_004",
    error: "attestation_signature_invalid",
    remediation: remedy("AVM_004"),
    when: "a co-signature is present but its companion is unregistered, is the issuer, has another key, or its signature does not verify",
  },
  "attestation.not_yet_valid": {
    stage: "attestation",
    code: "AVM_003",
    error: "attestation_not_yet_valid",
    remediation: remedy("AVM_003"),
    when: "now < issued_at",
  },
  "attestation.expired": {
    stage: "attestation",
    code: "AVM_003",
    error: "attestation_expired",
    remediation: remedy("AVM_003"),
    when: "now ≥ expires_at",
  },
  "attestation.replayed": {
    stage: "attestation",
    code: "AVM_003",
    error: "attestation_replayed",
    remediation: remedy("AVM_003"),
    when: "an `avm.grant` already used this attestation hash",
  },
  "attestation.subject_mismatch": {
    stage: "attestation",
    code: "AVM_004",
    error: "attestation_invalid",
    remediation: remedy("AVM_003"),
    when: "subject ≠ ledger_id",
  },
  "attestation.scopes_not_covered": {
    stage: "attestation",
    code: "AVM_004",
    error: "attestation_invalid",
    remediation: remedy("AVM_003"),
    when: "a requested scope is not among the attestation's scopes (`api.*` there covers all)",
  },
  "attestation.risk_inappropriate": {
    stage: "attestation",
    code: "AVM_004",
    error: "attestation_invalid",
    remediation: remedy("AVM_003"),
    when: "risk_level above the ceiling of a requested scope (policy table)",
  },
  "scope.not_permitted_for_role": {
    stage: "scope",
    code: "AVM_005",
    error: "scope_not_permitted",
    remediation: remedy("AVM_005"),
    when: "a requested scope is neither a base nor an advanced scope of the role",
  },
  "scope.escalation_needs_reputation": {
    stage: "scope",
    code: "AVM_005",
    error: "scope_not_permitted",
    remediation: "Raise reputation to at least 0.9",
    when: "an advanced scope requested with reputation < 0.9",
  },
  "scope.prohibited_combination": {
    stage: "scope",
    code: "AVM_005",
    error: "scope_not_permitted",
    remediation: "Request the scopes in separate grants",
    when: "`api.*` with another scope, or `api.write` with `api.deploy.production`",
  },
  "scope.production_stake_insufficient": {
    stage: "scope",
    code: "AVM_007",
    error: "insufficient_stake",
    remediation: remedy("AVM_007"),
    when: "`api.deploy.production` or `api.*` with bonded stake below 10,000 MIC",
  },
  "scope.additional_attestation_required": {
    stage: "scope",
    code: "AVM_005",
    error: "additional_attestation_required",
    remediation: "Have a second registered companion co-sign the attestation",
    when: "an admin grant without a valid co-signature",
  },
  "scope.drift_exceeded": {
    stage: "scope",
    code: "AVM_008",
    error: "drift_threshold_exceeded",
    remediation: remedy("AVM_008"),
    when: "the identity's drift score > 0.1",
  },
  "temporal.duration_exceeds_maximum": {
    stage: "temporal",
    code: "AVM_006",
    error: "duration_exceeds_maximum",
    remediation: remedy("AVM_006"),
    when: "the attestation's validity (issued_at to expires_at) is longer than 90 days",
  },
} as const satisfies Record<string, RuleSpec>;

export type AvmRule = keyof typeof AVM_RULES;
export const AVM_RULE_NAMES = Object.keys(AVM_RULES) as AvmRule[];

/** A failed rule, thrown by a verification stage and turned into the failure output. */
export class AvmRuleFailure extends CodedError<AvmRule> {
  readonly detail: string;
  constructor(rule: AvmRule, detail: string) {
    super(rule, `${rule}: ${detail}`);
    this.detail = detail;
  }

  /** The rule that failed: the error's code. */
  get rule(): AvmRule {
    return this.code;
  }
}

/** The failure output of a rule (core/schemas/avm.ts AvmFailure). */
export function failureOutput(rule: AvmRule, detail: string): AvmFailure {
  const spec: RuleSpec = AVM_RULES[rule];
  return {
    verified: false,
    code: spec.code,
    error: spec.error,
    error_detail: `${rule}: ${detail}`,
    failed_at_stage: spec.stage,
    remediation: spec.remediation,
  };
}
