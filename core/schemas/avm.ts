/**
 * Authority verification (AVM): the verify/check/revoke records.
 *
 * Input schemas check shape only. Business rules (90-day bounds, scope permissions, signature
 * validity, stake) are decided by the verification stages so that they answer with the failure
 * output and its AVM_00x code instead of a generic 400.
 */
import { z } from "zod";
import { isCanonicalizableJson } from "../canonical.ts";
import {
  Cycle,
  Digest,
  HexString,
  Identifier,
  IsoTimestamp,
  NonEmptyString,
  NonNegativeInt,
  NonNegativeNumber,
  PublicKeyHex,
  SignatureAlgorithm,
  ShardString,
  SignatureHex,
  Uuid,
} from "./common.ts";

/** Maximum authority duration and maximum companion-attestation expiry: 90 days, in milliseconds. */
export const MAX_AUTHORITY_DURATION_MS = 90 * 24 * 60 * 60 * 1000;

/**
 * Scope strings. The spec shows api.read, api.write.draft, api.write, api.deploy.staging and the
 * wildcard api.*; the production-deployment scope is "not shown" and is named api.deploy.production.
 */
export const SCOPES = [
  "api.read",
  "api.write.draft",
  "api.write",
  "api.deploy.staging",
  "api.deploy.production",
  "api.*",
] as const;
export const Scope = z.enum(SCOPES);
export type Scope = z.infer<typeof Scope>;

/** RBAC roles. */
export const ROLES = ["viewer", "contributor", "deployer", "admin"] as const;
export const Role = z.enum(ROLES);
export type Role = z.infer<typeof Role>;

/** Base scopes of each role (spec "Roles (RBAC)"); admin additionally requires extra attestation. */
export const ROLE_BASE_SCOPES: Readonly<Record<Role, readonly Scope[]>> = {
  viewer: ["api.read"],
  contributor: ["api.read", "api.write.draft"],
  deployer: ["api.read", "api.write", "api.deploy.staging"],
  admin: ["api.*"],
};

/** Risk levels (the spec observes "medium"; the full set is decided here). */
export const RISK_LEVELS = ["low", "medium", "high", "critical"] as const;
export const RiskLevel = z.enum(RISK_LEVELS);
export type RiskLevel = z.infer<typeof RiskLevel>;

/** Verification stages, in the order they run. */
export const AVM_STAGES = ["identity", "stake", "attestation", "scope", "temporal"] as const;
export const AvmStage = z.enum(AVM_STAGES);
export type AvmStage = z.infer<typeof AvmStage>;

/** AVM error codes (spec "AVM error codes"). */
export const AVM_ERROR_CODES = [
  "AVM_001",
  "AVM_002",
  "AVM_003",
  "AVM_004",
  "AVM_005",
  "AVM_006",
  "AVM_007",
  "AVM_008",
] as const;
export const AvmErrorCode = z.enum(AVM_ERROR_CODES);
export type AvmErrorCode = z.infer<typeof AvmErrorCode>;

/** Meaning and remediation of each code, verbatim from the spec. */
export const AVM_ERROR_TABLE: Readonly<Record<AvmErrorCode, { meaning: string; remediation: string }>> = {
  AVM_001: { meaning: "Ledger ID not found", remediation: "Register identity first" },
  AVM_002: { meaning: "Wallet signature invalid", remediation: "Re-sign with the correct key" },
  AVM_003: { meaning: "Attestation expired", remediation: "Request a new companion attestation" },
  AVM_004: { meaning: "Attestation signature invalid", remediation: "Verify companion registration" },
  AVM_005: { meaning: "Scope not permitted", remediation: "Request an appropriate role" },
  AVM_006: { meaning: "Duration exceeds maximum", remediation: "Request at most 90 days" },
  AVM_007: { meaning: "Insufficient stake", remediation: "Lock additional stake" },
  AVM_008: { meaning: "Drift threshold exceeded", remediation: "Address drift before renewal" },
};

/**
 * The additional attestation an admin grant needs (core/avm/policy.ts): a second registered companion,
 * other than the issuer, co-signs the attestation. It signs the JCS of the attestation without
 * `signature` and without `cosignature`; the issuing companion then signs the JCS of the attestation
 * without `signature` only, so the issuer's signature covers the co-signature too.
 */
export const CompanionCosignature = z.strictObject({
  /** Registered identifier of the co-signing companion; differs from the attestation's companion_id. */
  companion_id: Identifier,
  algorithm: SignatureAlgorithm,
  /** The co-signer's registered public key, lowercase hex. */
  public_key: PublicKeyHex,
  /** Signature over JCS(attestation without `signature` and `cosignature`), lowercase hex, 64 bytes. */
  signature: SignatureHex,
});
export type CompanionCosignature = z.infer<typeof CompanionCosignature>;

/**
 * Companion attestation (the spec lists only its requirements; the fields are decided here).
 *
 * The signature covers the RFC 8785 (JCS) bytes of this object without its `signature` key, made
 * with `algorithm` by the companion key `public_key` (which must be registered for `companion_id`).
 */
export const CompanionAttestation = z.strictObject({
  /** Registered identifier of the AI companion that issues the attestation. */
  companion_id: Identifier,
  /** The ledger_id the attestation is about; must equal the request's ledger_id. */
  subject: Uuid,
  /** Scopes the companion attests to; must cover the request's requested_scopes. */
  scopes: z.array(Scope).min(1),
  /** EJ hash: sha256 digest of the companion's ethics-justification document for this grant. */
  ej_hash: Digest,
  /** Risk level the companion assigns to the requester and the requested scopes. */
  risk_level: RiskLevel,
  /** When the attestation was issued. */
  issued_at: IsoTimestamp,
  /** When it stops being valid: at most 90 days after issued_at (checked by the temporal stage). */
  expires_at: IsoTimestamp,
  /** Signature algorithm of `signature`. */
  algorithm: SignatureAlgorithm,
  /** Companion public key, lowercase hex (Ed25519 32 bytes or compressed secp256k1 33 bytes). */
  public_key: PublicKeyHex,
  /** The additional attestation (a second companion's co-signature); required for admin grants. */
  cosignature: CompanionCosignature.optional(),
  /** Signature over JCS(attestation without `signature`), lowercase hex, 64 bytes. */
  signature: SignatureHex,
});
export type CompanionAttestation = z.infer<typeof CompanionAttestation>;

/**
 * Proof of infrastructure/API control ("only if applicable"; fields not shown in the spec, decided
 * here). The requester proves control of `resource` by signing the `challenge` the platform issued
 * with the key published at that resource (DNS TXT record or HTTPS well-known file).
 * The signature covers JCS(proof without `signature`).
 */
export const ProofOfControl = z.strictObject({
  /** How the key is published at the resource. */
  method: z.enum(["dns_txt", "https_well_known"]),
  /** Host name (dns_txt) or https URL (https_well_known) under the requester's control. */
  resource: NonEmptyString,
  /** Challenge nonce issued by the platform, lowercase hex. */
  challenge: HexString,
  /** When the challenge was signed. */
  signed_at: IsoTimestamp,
  algorithm: SignatureAlgorithm,
  public_key: PublicKeyHex,
  signature: SignatureHex,
});
export type ProofOfControl = z.infer<typeof ProofOfControl>;

/**
 * POST /avm/verify request body. The spec lists ledger_id, wallet_signature, companion_attestation
 * and requested_scopes; proof_of_control is accepted as an optional fifth key ("only if applicable").
 * Risk level comes from the attestation; the granted duration is bounded by the attestation expiry
 * and 90 days (no separate requested_duration field).
 *
 * `companion_attestation` is any JSON object here: its content (CompanionAttestation, including a
 * missing or invalid EJ hash and unknown keys) is judged by the attestation stage, which answers
 * with the failure output and logs the attempt like every other stage failure. Its JCS must exist,
 * since the wallet signs its hash.
 */
export const AvmVerifyRequest = z.strictObject({
  /** Registered identity on the ledger. */
  ledger_id: Uuid,
  /** Signature from the bonded wallet (64 bytes, lowercase hex); must match ledger_id. */
  wallet_signature: SignatureHex,
  /** The companion attestation as sent; its hash is what the wallet signs. */
  companion_attestation: z
    .record(z.string(), z.json())
    .refine(isCanonicalizableJson, { message: "must be a JSON object that RFC 8785 can encode" }),
  /** Permissions requested. */
  requested_scopes: z.array(Scope).min(1),
  proof_of_control: ProofOfControl.optional(),
});
export type AvmVerifyRequest = z.infer<typeof AvmVerifyRequest>;

/** `validation_chain` of a successful verification: every stage passed, in order. */
export const ValidationChain = z.tuple([
  z.literal("identity:pass"),
  z.literal("stake:pass"),
  z.literal("attestation:pass"),
  z.literal("scope:pass"),
  z.literal("temporal:pass"),
]);
export type ValidationChain = z.infer<typeof ValidationChain>;

/**
 * authority_context (success output). zod additionally checks that expires_at is after created_at
 * and at most 90 days later (not expressible in JSON Schema).
 */
export const AuthorityContext = z
  .strictObject({
    verified: z.literal(true),
    ledger_id: Uuid,
    /** Granted scopes. */
    scopes: z.array(Scope),
    expires_at: IsoTimestamp,
    risk_level: RiskLevel,
    attestation_hash: Digest,
    /** Stake locked by the wallet, in MIC. */
    stake_locked: NonNegativeNumber,
    /** The same stake exactly, in shards (a number read as a double is not exact past 2^53 shards). */
    stake_locked_shards: ShardString,
    created_at: IsoTimestamp,
    validation_chain: ValidationChain,
  })
  .refine(
    (c) => {
      const span = Date.parse(c.expires_at) - Date.parse(c.created_at);
      return span > 0 && span <= MAX_AUTHORITY_DURATION_MS;
    },
    { message: "expires_at must be after created_at and at most 90 days later", path: ["expires_at"] },
  );
export type AuthorityContext = z.infer<typeof AuthorityContext>;

/** Successful POST /avm/verify response: verified true and the authority_context. */
export const AvmVerifySuccess = z.strictObject({
  verified: z.literal(true),
  authority_context: AuthorityContext,
});
export type AvmVerifySuccess = z.infer<typeof AvmVerifySuccess>;

/**
 * Failure output. `code` (AVM_001…AVM_008) is an addition to the spec's fields so the failure maps
 * to the AVM error table; `error` is the machine-readable snake_case reason (e.g. attestation_invalid).
 */
export const AvmFailure = z.strictObject({
  verified: z.literal(false),
  code: AvmErrorCode,
  error: z.string().regex(/^[a-z][a-z0-9_]*$/),
  error_detail: NonEmptyString,
  failed_at_stage: AvmStage,
  remediation: NonEmptyString,
});
export type AvmFailure = z.infer<typeof AvmFailure>;

/** POST /avm/verify response: success or failure, discriminated by `verified`. */
export const AvmVerifyResponse = z.discriminatedUnion("verified", [AvmVerifySuccess, AvmFailure]);
export type AvmVerifyResponse = z.infer<typeof AvmVerifyResponse>;

/**
 * GET /avm/check/{ledger_id} response. When there is no current authority, scopes is empty and
 * expires_at is null (decided here; the spec types expires_at as a timestamp only).
 */
export const AvmCheckResponse = z.strictObject({
  has_authority: z.boolean(),
  scopes: z.array(Scope),
  expires_at: IsoTimestamp.nullable(),
});
export type AvmCheckResponse = z.infer<typeof AvmCheckResponse>;

/** Revocation reasons: the spec observes integrity_violation; the rest mirror the revocation triggers. */
export const REVOKE_REASONS = [
  "integrity_violation",
  "stake_withdrawn",
  "drift_exceeded",
  "companion_concern",
  "requested_by_holder",
  "key_compromise",
] as const;
export const RevokeReason = z.enum(REVOKE_REASONS);
export type RevokeReason = z.infer<typeof RevokeReason>;

/** POST /avm/revoke request body. */
export const AvmRevokeRequest = z.strictObject({
  ledger_id: Uuid,
  reason: RevokeReason,
  evidence_hash: Digest,
});
export type AvmRevokeRequest = z.infer<typeof AvmRevokeRequest>;

/** POST /avm/revoke response. */
export const AvmRevokeResponse = z.strictObject({
  revoked: z.boolean(),
  revoked_at: IsoTimestamp,
});
export type AvmRevokeResponse = z.infer<typeof AvmRevokeResponse>;

/**
 * Permissions an operator token can carry (core/avm/token.ts): `avm.revoke` for POST /avm/revoke,
 * `avm.operate` for the operator operations over HTTP (register identities and companions, stakes,
 * tokens), `consensus.write` for the consensus write routes.
 */
export const TOKEN_PERMISSIONS = ["avm.revoke", "avm.operate", "consensus.write"] as const;
export const TokenPermission = z.enum(TOKEN_PERMISSIONS);
export type TokenPermission = z.infer<typeof TokenPermission>;

/** Counts per stage, per code and per revocation reason: every key present (zero when none). */
const countsOf = <K extends string>(keys: readonly K[]) =>
  z.strictObject(Object.fromEntries(keys.map((k) => [k, NonNegativeInt])) as Record<K, typeof NonNegativeInt>);

/** One calendar month (UTC) of authority activity. */
export const AuthorityMonth = z.strictObject({
  month: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/),
  attempts: NonNegativeInt,
  grants: NonNegativeInt,
  denials: NonNegativeInt,
  revocations: NonNegativeInt,
});
export type AuthorityMonth = z.infer<typeof AuthorityMonth>;

/**
 * /government/authority-activity.json: authority verification as the ledger records it (core/avm/activity.ts):
 * every `avm.attempt` (grants, renewals, denials by stage and by code; `malformed` = bodies that did
 * not parse, which reach no stage), every `avm.revoke` by reason, and the registered identities by
 * role and companions, with the months charted.
 */
export const AuthorityActivity = z.strictObject({
  cycle: Cycle,
  timestamp: IsoTimestamp,
  attempts: NonNegativeInt,
  grants: NonNegativeInt,
  /** Grants made while an earlier grant of the same identity was in force. */
  renewals: NonNegativeInt,
  denials: NonNegativeInt,
  denials_by_stage: countsOf(AVM_STAGES),
  denials_by_code: countsOf(AVM_ERROR_CODES),
  malformed: NonNegativeInt,
  revocations: NonNegativeInt,
  revocations_by_reason: countsOf(REVOKE_REASONS),
  identities_by_role: countsOf(ROLES),
  companions: NonNegativeInt,
  /** Oldest first; the months from the first authority event to the data's instant. */
  months: z.array(AuthorityMonth),
});
export type AuthorityActivity = z.infer<typeof AuthorityActivity>;
