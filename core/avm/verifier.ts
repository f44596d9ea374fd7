/**
 * POST /avm/verify as named stages, in the spec's order — identity, stake, attestation, scope,
 * temporal — each a function of the request, the caught-up registry and the injected clock. The
 * first failed rule ends the attempt (rules.ts lists them in the order they are checked). The
 * result carries the response and the ledger events the caller appends in one transaction: the
 * `avm.attempt` always, and the `avm.grant` on success.
 *
 * Concurrency: two requests with one attestation must not both grant. The caller decides and
 * appends under the ledger's write lock with the registry caught up to the tail, so the second one
 * sees the first grant and fails `attestation.replayed`.
 */
import { formatMicDecimal, shardsToMicNumber } from "../money/units.ts";
import { isDigest, sha256Hex } from "../digest.ts";
import type { NewEvent } from "../ledger/store.ts";
import {
  AvmVerifyRequest,
  CompanionAttestation,
  MAX_AUTHORITY_DURATION_MS,
  SCOPES,
  type AuthorityContext,
  type AvmFailure,
  type AvmVerifySuccess,
  type CompanionCosignature,
  type Scope,
} from "../schemas/avm.ts";
import { Uuid } from "../schemas/common.ts";
import { SignatureVerdicts, type SignatureQuestion } from "../signature-verdicts.ts";
import { attestationHash, signedForms, type SignedForms } from "./messages.ts";
import {
  decideRisk,
  decideScopes,
  decideStake,
  grantCovers,
  maxGrantDurationMs,
  type PolicyRequest,
  type PolicySubject,
} from "./policy.ts";
import { currentGrant, stakeFor, type AvmRegistry, type IdentityRecord } from "./registry.ts";
import { AVM_RULES, AvmRuleFailure, failureOutput, type AvmRule } from "./rules.ts";
import { AVM_POLICY } from "./policy.ts";

export type VerifyOutcome =
  | { verified: true; response: AvmVerifySuccess; renewal: boolean; events: NewEvent[] }
  | { verified: false; response: AvmFailure; rule: AvmRule; events: NewEvent[] };

const VALIDATION_CHAIN: AuthorityContext["validation_chain"] = [
  "identity:pass",
  "stake:pass",
  "attestation:pass",
  "scope:pass",
  "temporal:pass",
];

/** EJ hashes that prove nothing: all zeros, and the SHA-256 of empty input. */
const PLACEHOLDER_EJ_HASHES = new Set([`sha256:${"0".repeat(64)}`, `sha256:${sha256Hex("")}`]);

/** The attempt log keeps at most this many requested scopes (the event schema's bound). */
const MAX_LOGGED_SCOPES = 64;

/** What a caller computed ahead (`signatureQuestions`): the request's signed forms and verdicts on its signatures. */
export interface VerifiedAhead {
  forms: SignedForms;
  signatures: SignatureVerdicts;
}

/**
 * Verifies a parsed request against the registry at `nowMs`. Never throws for a bad request.
 * `ahead` may carry the signed forms and signature verdicts computed before (a signature without a
 * verdict is verified here): the outcome is the same either way.
 */
export function verifyAuthority(
  request: AvmVerifyRequest,
  registry: AvmRegistry,
  nowMs: number,
  ahead?: VerifiedAhead,
): VerifyOutcome {
  const forms = ahead?.forms ?? signedForms(request);
  const signatures = ahead?.signatures ?? SignatureVerdicts.none();
  const A = forms.attestationHash;
  const requested = unique(request.requested_scopes);
  try {
    const identity = identityStage(request, registry);
    const bonded = stakeStage(request, identity, registry, forms, signatures);
    const subject: PolicySubject = {
      role: identity.role,
      reputation: identity.reputation,
      bondedStakeShards: bonded,
      driftScore: identity.driftScore,
    };
    const attestation = attestationStage(request, registry, forms, requested, nowMs, signatures);
    scopeStage(subject, {
      scopes: requested,
      riskLevel: attestation.risk_level,
      additionalAttestation: attestation.cosignature !== undefined,
    });
    const { createdAt, expiresAt } = temporalStage(attestation, identity, nowMs);

    const context: AuthorityContext = {
      verified: true,
      ledger_id: request.ledger_id,
      scopes: requested,
      expires_at: expiresAt,
      risk_level: attestation.risk_level,
      attestation_hash: A,
      stake_locked: shardsToMicNumber(bonded),
      stake_locked_shards: bonded.toString(),
      created_at: createdAt,
      validation_chain: VALIDATION_CHAIN,
    };
    const renewal = currentGrant(registry, request.ledger_id, nowMs) !== null;
    return {
      verified: true,
      response: { verified: true, authority_context: context },
      renewal,
      events: [attemptEvent(request, A, null), grantEvent(context)],
    };
  } catch (error) {
    if (!(error instanceof AvmRuleFailure)) throw error;
    return {
      verified: false,
      response: failureOutput(error.rule, error.detail),
      rule: error.rule,
      events: [attemptEvent(request, A, error.rule)],
    };
  }
}

/**
 * The signatures `verifyAuthority` will ask about, for a caller that verifies them ahead (on other
 * threads, before it takes the ledger's write lock; core/signature-verdicts.ts): the wallet
 * signature under the key `registry` holds for the ledger_id (fixed: the ledger_id is derived from
 * the key), and the companion's signature and co-signature under the keys the attestation names
 * (the stage checks those are the registered ones). Anything not foreseen is verified in the stages.
 */
export function signatureQuestions(
  request: AvmVerifyRequest,
  forms: SignedForms,
  registry: AvmRegistry,
): SignatureQuestion[] {
  const questions: SignatureQuestion[] = [];
  const att = request.companion_attestation;
  const identity = registry.identities.get(request.ledger_id);
  if (identity)
    questions.push({
      algorithm: identity.algorithm,
      publicKeyHex: identity.public_key,
      message: forms.wallet,
      signatureHex: request.wallet_signature,
    });
  const signer = signerOf(att);
  if (signer) questions.push({ ...signer, message: forms.attestation });
  const cosigner = isPlainObject(att.cosignature) && forms.cosignature ? signerOf(att.cosignature) : null;
  if (cosigner) questions.push({ ...cosigner, message: forms.cosignature! });
  return questions;
}

function signerOf(fields: Record<string, unknown>): Omit<SignatureQuestion, "message"> | null {
  const { algorithm, public_key, signature } = fields;
  if (
    (algorithm !== "ed25519" && algorithm !== "secp256k1") ||
    typeof public_key !== "string" ||
    typeof signature !== "string"
  )
    return null;
  return { algorithm, publicKeyHex: public_key, signatureHex: signature };
}

// ---------------------------------------------------------------------------------------------
// The stages

/** 1 identity: the ledger_id is registered, not barred, with a positive reputation. */
function identityStage(request: AvmVerifyRequest, registry: AvmRegistry): IdentityRecord {
  const identity = registry.identities.get(request.ledger_id);
  if (!identity) fail("identity.not_found", `no identity is registered as ${request.ledger_id}`);
  if (identity.barred) fail("identity.revoked", identity.barred.cause);
  if (!(identity.reputation > AVM_POLICY.minimumReputationExclusive))
    fail("identity.reputation_not_positive", `reputation is ${identity.reputation}`);
  return identity;
}

/** 2 stake: the wallet signature matches the ledger_id's key; enough stake bonded. Returns the bonded shards. */
function stakeStage(
  request: AvmVerifyRequest,
  identity: IdentityRecord,
  registry: AvmRegistry,
  forms: SignedForms,
  signatures: SignatureVerdicts,
): bigint {
  if (!signatures.verify(identity.algorithm, identity.public_key, forms.wallet, request.wallet_signature)) {
    fail(
      "stake.wallet_signature_invalid",
      `the wallet signature does not verify under the ${identity.algorithm} key registered for ${identity.ledger_id}`,
    );
  }
  const stake = stakeFor(registry, identity.ledger_id);
  const total = stake.bondedShards + stake.unbondedShards;
  if (total === 0n) fail("stake.missing", "no stake is locked for this identity");
  const decision = decideStake({
    role: identity.role,
    reputation: identity.reputation,
    bondedStakeShards: stake.bondedShards,
    driftScore: identity.driftScore,
  });
  if (!decision.allowed) {
    const held = `${formatMicDecimal(stake.bondedShards)} MIC bonded, ${formatMicDecimal(stake.unbondedShards)} MIC locked without accepting slashing`;
    const min = `${formatMicDecimal(AVM_POLICY.minimumStakeShards)} MIC`;
    if (total >= AVM_POLICY.minimumStakeShards)
      fail("stake.slashing_not_accepted", `${held}; a grant needs ${min} locked accepting the slashing conditions`);
    fail("stake.below_minimum", `${held}; a grant needs ${min}`);
  }
  return stake.bondedShards;
}

/** 3 attestation: well formed, signed by its registered companion (and co-signer), current, unused, about this request. */
function attestationStage(
  request: AvmVerifyRequest,
  registry: AvmRegistry,
  forms: SignedForms,
  requested: readonly Scope[],
  nowMs: number,
  signatures: SignatureVerdicts,
): CompanionAttestation {
  const parsed = CompanionAttestation.safeParse(request.companion_attestation);
  if (!parsed.success) {
    const issues = parsed.error.issues;
    const other = issues.filter((i) => i.path[0] !== "ej_hash");
    if (other.length > 0) fail("attestation.malformed", describeIssues(other));
    fail("attestation.ej_hash_invalid", `ej_hash: ${issues[0]!.message}`);
  }
  const att = parsed.data;
  if (!isDigest(att.ej_hash) || PLACEHOLDER_EJ_HASHES.has(att.ej_hash))
    fail("attestation.ej_hash_invalid", `ej_hash ${att.ej_hash} is a placeholder`);

  const companion = registry.companions.get(att.companion_id);
  if (!companion) fail("attestation.companion_not_registered", `no companion is registered as ${att.companion_id}`);
  if (companion.algorithm !== att.algorithm || companion.public_key !== att.public_key) {
    fail(
      "attestation.companion_key_mismatch",
      `the attestation's ${att.algorithm} key is not the one registered for ${att.companion_id}`,
    );
  }
  // The signed forms are of the attestation as sent: the strict schema admits exactly its fields,
  // unchanged (no defaults, no transforms), so they are the forms of `att`.
  if (!signatures.verify(att.algorithm, att.public_key, forms.attestation, att.signature)) {
    fail("attestation.signature_invalid", `the signature of ${att.companion_id} does not verify`);
  }
  if (att.cosignature) checkCosignature(att, att.cosignature, registry, forms.cosignature!, signatures);

  const issuedMs = Date.parse(att.issued_at);
  const expiresMs = Date.parse(att.expires_at);
  if (nowMs < issuedMs) fail("attestation.not_yet_valid", `issued_at ${att.issued_at} is after now (${iso(nowMs)})`);
  if (nowMs >= expiresMs) fail("attestation.expired", `expired at ${att.expires_at} (now ${iso(nowMs)})`);
  const A = forms.attestationHash;
  const usedAt = registry.usedAttestations.get(A);
  if (usedAt !== undefined)
    fail("attestation.replayed", `attestation ${A} already granted authority (ledger seq ${usedAt})`);

  if (att.subject !== request.ledger_id)
    fail(
      "attestation.subject_mismatch",
      `the attestation is about ${att.subject}, the request about ${request.ledger_id}`,
    );
  const uncovered = requested.filter((s) => !grantCovers(att.scopes, s));
  if (uncovered.length > 0)
    fail("attestation.scopes_not_covered", `the attestation does not cover ${uncovered.join(", ")}`);
  const risk = decideRisk({ scopes: requested, riskLevel: att.risk_level, additionalAttestation: false });
  if (!risk.allowed) fail(risk.rule, risk.detail);
  return att;
}

function checkCosignature(
  att: CompanionAttestation,
  co: CompanionCosignature,
  registry: AvmRegistry,
  signed: Uint8Array,
  signatures: SignatureVerdicts,
): void {
  const cosigner = registry.companions.get(co.companion_id);
  if (!cosigner) fail("attestation.cosignature_invalid", `no companion is registered as ${co.companion_id}`);
  if (co.companion_id === att.companion_id)
    fail("attestation.cosignature_invalid", "the co-signer is the issuing companion");
  if (cosigner.algorithm !== co.algorithm || cosigner.public_key !== co.public_key) {
    fail(
      "attestation.cosignature_invalid",
      `the co-signature's ${co.algorithm} key is not the one registered for ${co.companion_id}`,
    );
  }
  if (!signatures.verify(co.algorithm, co.public_key, signed, co.signature)) {
    fail("attestation.cosignature_invalid", `the co-signature of ${co.companion_id} does not verify`);
  }
}

/** 4 scope: RBAC/ABAC, escalation, combinations, stake-unlocked scopes, additional attestation, drift. */
function scopeStage(subject: PolicySubject, request: PolicyRequest): void {
  const decision = decideScopes(subject, request);
  if (!decision.allowed) fail(decision.rule, decision.detail);
}

/** 5 temporal: at most 90 days, never past the attestation; shorter below 5 attestations. */
function temporalStage(
  att: CompanionAttestation,
  identity: IdentityRecord,
  nowMs: number,
): { createdAt: string; expiresAt: string } {
  const validity = Date.parse(att.expires_at) - Date.parse(att.issued_at);
  if (validity > MAX_AUTHORITY_DURATION_MS) {
    fail(
      "temporal.duration_exceeds_maximum",
      `the attestation is valid for ${days(validity)} days (${att.issued_at} to ${att.expires_at}); at most 90`,
    );
  }
  const expiresMs = Math.min(Date.parse(att.expires_at), nowMs + maxGrantDurationMs(identity.attestationCount));
  // Both bounds are checked above; this guards the invariant against a future edit.
  if (!(expiresMs > nowMs && expiresMs - nowMs <= MAX_AUTHORITY_DURATION_MS))
    fail("temporal.duration_exceeds_maximum", "no valid expiry");
  return { createdAt: iso(nowMs), expiresAt: iso(expiresMs) };
}

/**
 * The `avm.grant` that records an authority_context: its payload is the context's ledger_id,
 * scopes, risk_level, attestation_hash, created_at and expires_at, so a client holding the context
 * can rebuild the ledger entry and check its inclusion proof (GET /ledger/entries/{seq}/inclusion).
 */
export function grantEvent(context: AuthorityContext): NewEvent {
  const { ledger_id, scopes, risk_level, attestation_hash, created_at, expires_at } = context;
  return {
    type: "avm.grant",
    payload: { ledger_id, scopes: [...scopes], risk_level, attestation_hash, created_at, expires_at },
  };
}

// ---------------------------------------------------------------------------------------------
// The attempt log

function attemptEvent(request: AvmVerifyRequest, A: string, rule: AvmRule | null): NewEvent {
  const spec = rule ? AVM_RULES[rule] : null;
  return {
    type: "avm.attempt",
    payload: {
      ledger_id: request.ledger_id,
      requested_scopes: request.requested_scopes.slice(0, MAX_LOGGED_SCOPES),
      verified: rule === null,
      failed_at_stage: spec ? spec.stage : null,
      code: spec ? spec.code : null,
      attestation_hash: A,
      ...(spec ? { error: spec.error } : {}),
    },
  };
}

/** The `error` of an attempt whose body did not parse (answered with a 400 problem, no stage ran). */
export const MALFORMED_REQUEST_ERROR = "request_malformed";

/**
 * The `avm.attempt` of a body that is not a valid verify request: bounded, never the raw body —
 * the ledger_id when it is a UUID, the recognised scope names (at most 64), the attestation hash
 * when the attestation is a JSON object it can hash. `error` says why it was refused (default
 * `request_malformed`; the API also records `request_too_large` and `origin_not_allowed`).
 */
export function malformedAttempt(body: unknown, error: string = MALFORMED_REQUEST_ERROR): NewEvent {
  const fields = isPlainObject(body) ? body : {};
  const ledgerId = Uuid.safeParse(fields.ledger_id);
  const scopes = Array.isArray(fields.requested_scopes)
    ? fields.requested_scopes
        .filter((s): s is Scope => (SCOPES as readonly unknown[]).includes(s))
        .slice(0, MAX_LOGGED_SCOPES)
    : [];
  const attestation = AvmVerifyRequest.shape.companion_attestation.safeParse(fields.companion_attestation);
  return {
    type: "avm.attempt",
    payload: {
      ledger_id: ledgerId.success ? ledgerId.data : null,
      requested_scopes: scopes,
      verified: false,
      failed_at_stage: null,
      code: null,
      attestation_hash: attestation.success ? attestationHash(attestation.data) : null,
      error,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// helpers

function fail(rule: AvmRule, detail: string): never {
  throw new AvmRuleFailure(rule, detail);
}

function unique(scopes: readonly Scope[]): Scope[] {
  return scopes.length < 2 ? [...scopes] : [...new Set(scopes)];
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function days(ms: number): string {
  return (ms / 86_400_000).toFixed(2).replace(/\.?0+$/, "");
}

function describeIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  const parts = issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.map(String).join(".") : "(attestation)"}: ${i.message}`);
  return parts.join("; ") + (issues.length > 5 ? `; and ${issues.length - 5} more` : "");
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
