/**
 * The AVM's operator operations as pure functions: parsed input and the caught-up registry in, the
 * ledger events to append (with their automatic revocations) or a clear refusal out. The
 * `npm run avm` commands and the API's operator routes both call these, so both refuse and record
 * alike. Input schemas are strict (unknown fields refused) and double as the HTTP bodies.
 */
import { z } from "zod";
import { formatMicDecimal, parseMic, type MicParseError } from "../money/units.ts";
import { digestOf } from "../digest.ts";
import type { NewEvent } from "../ledger/store.ts";
import { uuidFromDigest } from "../pulse/record.ts";
import { AvmRevokeRequest, Role, TokenPermission, type RevokeReason } from "../schemas/avm.ts";
import {
  Digest,
  Identifier,
  NonEmptyString,
  PublicKeyHex,
  Score01,
  SignatureAlgorithm,
  Uuid,
} from "../schemas/common.ts";
import { isValidPublicKey } from "../signature.ts";
import { currentGrant, keyIndex, stakeFor, type AvmRegistry } from "./registry.ts";
import { automaticRevocations } from "./revocation.ts";
import { TOKEN_DEFAULT_TTL_S, TOKEN_MAX_TTL_S, tokenClaims, tokenIssuedEvent, type TokenClaims } from "./token.ts";
import type { Decision } from "../ledger/decision.ts";

export type OperationErrorCode = "invalid" | "not_found" | "conflict";
/** An operation's outcome: the one decision shape (core/ledger/decision.ts), refusing with a code and a message. */
export type Operation<T> = Decision<T, { code: OperationErrorCode; message: string }>;

/** The most one lock or withdrawal may move: 1,000,000,000 MIC. */
export const MAX_STAKE_OPERATION_SHARDS = 1_000_000_000n * 1_000_000n;

/** A MIC amount as exact decimal text ("10000", "0.5"), converted by parseMic. */
const MicText = z.string().max(64);

export const RegisterIdentityInput = z.strictObject({
  algorithm: SignatureAlgorithm,
  public_key: PublicKeyHex,
  role: Role,
  reputation: Score01,
});
export const RegisterCompanionInput = z.strictObject({
  companion_id: Identifier,
  algorithm: SignatureAlgorithm,
  public_key: PublicKeyHex,
});
export const LockStakeInput = z.strictObject({
  ledger_id: Uuid,
  amount: MicText,
  slashing_conditions_accepted: z.boolean(),
});
export const WithdrawStakeInput = z.strictObject({ ledger_id: Uuid, amount: MicText });
export const RecordDriftInput = z.strictObject({ ledger_id: Uuid, drift_score: Score01, source: Identifier });
export const ReportViolationInput = z.strictObject({ ledger_id: Uuid, evidence_hash: Digest, detected_by: Identifier });
export const SignalConcernInput = z.strictObject({ companion_id: Identifier, ledger_id: Uuid, evidence_hash: Digest });
export const IssueTokenInput = z.strictObject({
  jti: Uuid,
  subject: Identifier,
  permissions: z.array(TokenPermission).min(1).max(16),
  ttl_seconds: z.int().min(1).max(TOKEN_MAX_TTL_S).default(TOKEN_DEFAULT_TTL_S),
});
export const RevokeTokenInput = z.strictObject({ jti: Uuid, reason: NonEmptyString.max(500) });

type In<S extends z.ZodType> = z.input<S>;

/**
 * The ledger_id of a key: a UUIDv8 made from SHA-256 of the JCS of {algorithm, public_key, purpose}.
 * Deterministic on purpose: one key is one identity (registering a key twice is refused), and a
 * wallet can compute its own ledger_id from its key.
 */
export function ledgerIdForKey(algorithm: string, publicKey: string): string {
  return uuidFromDigest(digestOf({ algorithm, public_key: publicKey, purpose: "integrity-platform/avm identity" }));
}

export function registerIdentity(
  registry: AvmRegistry,
  input: In<typeof RegisterIdentityInput>,
): Operation<{ ledger_id: string }> {
  const parsed = parse(RegisterIdentityInput, input);
  if (!parsed.ok) return parsed;
  const p = parsed.value;
  if (!isValidPublicKey(p.algorithm, p.public_key))
    return refuse("invalid", `public key is not a valid ${p.algorithm} public key`);
  const existing = registry.identityByKey.get(keyIndex(p.algorithm, p.public_key));
  if (existing) return refuse("conflict", `this key is already registered as ${existing}`);
  const ledger_id = ledgerIdForKey(p.algorithm, p.public_key);
  if (registry.identities.has(ledger_id)) return refuse("conflict", `${ledger_id} is already registered`);
  return { ok: true, events: [{ type: "identity.registered", payload: { ledger_id, ...p } }], result: { ledger_id } };
}

export function registerCompanion(
  registry: AvmRegistry,
  input: In<typeof RegisterCompanionInput>,
): Operation<{ companion_id: string }> {
  const parsed = parse(RegisterCompanionInput, input);
  if (!parsed.ok) return parsed;
  const p = parsed.value;
  if (!isValidPublicKey(p.algorithm, p.public_key))
    return refuse("invalid", `public key is not a valid ${p.algorithm} public key`);
  if (registry.companions.has(p.companion_id))
    return refuse("conflict", `companion ${p.companion_id} is already registered`);
  return {
    ok: true,
    events: [{ type: "companion.registered", payload: { ...p } }],
    result: { companion_id: p.companion_id },
  };
}

export interface StakeResult {
  ledger_id: string;
  amount_shards: string;
  /** Bonded and unbonded stake after the operation, in shards. */
  bonded_shards: string;
  unbonded_shards: string;
}

export function lockStake(registry: AvmRegistry, input: In<typeof LockStakeInput>): Operation<StakeResult> {
  const parsed = parse(LockStakeInput, input);
  if (!parsed.ok) return parsed;
  const { ledger_id, slashing_conditions_accepted } = parsed.value;
  const amount = stakeAmount(parsed.value.amount);
  if (!amount.ok) return amount;
  if (!registry.identities.has(ledger_id)) return refuse("not_found", `no identity is registered as ${ledger_id}`);
  const before = stakeFor(registry, ledger_id);
  const bonded = before.bondedShards + (slashing_conditions_accepted ? amount.shards : 0n);
  const unbonded = before.unbondedShards + (slashing_conditions_accepted ? 0n : amount.shards);
  return {
    ok: true,
    events: [
      {
        type: "stake.locked",
        payload: { ledger_id, amount_shards: amount.shards.toString(), slashing_conditions_accepted },
      },
    ],
    result: {
      ledger_id,
      amount_shards: amount.shards.toString(),
      bonded_shards: bonded.toString(),
      unbonded_shards: unbonded.toString(),
    },
  };
}

export function withdrawStake(
  registry: AvmRegistry,
  input: In<typeof WithdrawStakeInput>,
  nowMs: number,
): Operation<StakeResult & { revoked: boolean }> {
  const parsed = parse(WithdrawStakeInput, input);
  if (!parsed.ok) return parsed;
  const { ledger_id } = parsed.value;
  const amount = stakeAmount(parsed.value.amount);
  if (!amount.ok) return amount;
  if (!registry.identities.has(ledger_id)) return refuse("not_found", `no identity is registered as ${ledger_id}`);
  const before = stakeFor(registry, ledger_id);
  const total = before.bondedShards + before.unbondedShards;
  if (amount.shards > total)
    return refuse(
      "invalid",
      `cannot withdraw ${formatMicDecimal(amount.shards)} MIC: ${formatMicDecimal(total)} MIC is locked`,
    );
  const event: NewEvent = { type: "stake.withdrawn", payload: { ledger_id, amount_shards: amount.shards.toString() } };
  const follow = automaticRevocations(registry, event, nowMs);
  const fromUnbonded = amount.shards < before.unbondedShards ? amount.shards : before.unbondedShards;
  return {
    ok: true,
    events: [event, ...follow],
    result: {
      ledger_id,
      amount_shards: amount.shards.toString(),
      bonded_shards: (before.bondedShards - (amount.shards - fromUnbonded)).toString(),
      unbonded_shards: (before.unbondedShards - fromUnbonded).toString(),
      revoked: follow.length > 0,
    },
  };
}

export function recordDrift(
  registry: AvmRegistry,
  input: In<typeof RecordDriftInput>,
  nowMs: number,
): Operation<{ revoked: boolean }> {
  return withTrigger(registry, RecordDriftInput, input, "identity.drift", nowMs);
}

export function reportViolation(
  registry: AvmRegistry,
  input: In<typeof ReportViolationInput>,
  nowMs: number,
): Operation<{ revoked: boolean }> {
  return withTrigger(registry, ReportViolationInput, input, "integrity.violation", nowMs);
}

export function signalConcern(
  registry: AvmRegistry,
  input: In<typeof SignalConcernInput>,
  nowMs: number,
): Operation<{ revoked: boolean }> {
  const parsed = parse(SignalConcernInput, input);
  if (!parsed.ok) return parsed;
  if (!registry.companions.has(parsed.value.companion_id))
    return refuse("not_found", `no companion is registered as ${parsed.value.companion_id}`);
  return withTrigger(registry, SignalConcernInput, input, "companion.concern", nowMs);
}

/**
 * POST /avm/revoke: always recorded (it also bars the identity for integrity_violation and
 * key_compromise); `revoked` says whether a grant in force ended.
 */
export function revokeAuthority(
  registry: AvmRegistry,
  input: In<typeof AvmRevokeRequest>,
  nowMs: number,
): Operation<{ revoked: boolean; revoked_at: string }> {
  const parsed = parse(AvmRevokeRequest, input);
  if (!parsed.ok) return parsed;
  const { ledger_id, reason, evidence_hash } = parsed.value;
  if (!registry.identities.has(ledger_id)) return refuse("not_found", `no identity is registered as ${ledger_id}`);
  const revoked_at = new Date(nowMs).toISOString();
  const revoked = currentGrant(registry, ledger_id, nowMs) !== null;
  const payload: { ledger_id: string; reason: RevokeReason; evidence_hash: string; revoked_at: string } = {
    ledger_id,
    reason,
    evidence_hash,
    revoked_at,
  };
  return { ok: true, events: [{ type: "avm.revoke", payload }], result: { revoked, revoked_at } };
}

/** `issuedBy`: the jti of the token whose holder asks (over HTTP); the new token falls with it. */
export function issueToken(
  registry: AvmRegistry,
  input: In<typeof IssueTokenInput>,
  nowMs: number,
  issuedBy?: string,
): Operation<{ claims: TokenClaims }> {
  const parsed = parse(IssueTokenInput, input);
  if (!parsed.ok) return parsed;
  const p = parsed.value;
  if (registry.tokens.has(p.jti)) return refuse("conflict", `token ${p.jti} was already issued`);
  const claims = tokenClaims(
    { jti: p.jti, subject: p.subject, permissions: p.permissions, ttlSeconds: p.ttl_seconds },
    nowMs,
  );
  return { ok: true, events: [tokenIssuedEvent(claims, issuedBy)], result: { claims } };
}

export function revokeToken(registry: AvmRegistry, input: In<typeof RevokeTokenInput>): Operation<{ jti: string }> {
  const parsed = parse(RevokeTokenInput, input);
  if (!parsed.ok) return parsed;
  const token = registry.tokens.get(parsed.value.jti);
  if (!token) return refuse("not_found", `no token ${parsed.value.jti} was issued`);
  if (token.revoked) return refuse("conflict", `token ${parsed.value.jti} is already revoked`);
  return {
    ok: true,
    events: [{ type: "token.revoked", payload: { ...parsed.value } }],
    result: { jti: parsed.value.jti },
  };
}

// ---------------------------------------------------------------------------------------------
// helpers

function withTrigger<S extends typeof RecordDriftInput | typeof ReportViolationInput | typeof SignalConcernInput>(
  registry: AvmRegistry,
  schema: S,
  input: In<S>,
  type: "identity.drift" | "integrity.violation" | "companion.concern",
  nowMs: number,
): Operation<{ revoked: boolean }> {
  const parsed = parse(schema, input);
  if (!parsed.ok) return parsed;
  const payload = parsed.value as z.output<S>;
  if (!registry.identities.has(payload.ledger_id))
    return refuse("not_found", `no identity is registered as ${payload.ledger_id}`);
  const event: NewEvent = { type, payload: { ...payload } };
  const follow = automaticRevocations(registry, event, nowMs);
  return { ok: true, events: [event, ...follow], result: { revoked: follow.length > 0 } };
}

function parse<S extends z.ZodType>(
  schema: S,
  input: unknown,
): { ok: true; value: z.output<S> } | { ok: false; code: "invalid"; message: string } {
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, value: result.data };
  const fields = result.error.issues.map((i) => `${i.path.length ? i.path.join(".") : "(input)"}: ${i.message}`);
  return { ok: false, code: "invalid", message: fields.join("; ") };
}

function refuse(code: OperationErrorCode, message: string): { ok: false; code: OperationErrorCode; message: string } {
  return { ok: false, code, message };
}

const MIC_ERRORS: Record<MicParseError, string> = {
  "not-a-number": "is not a decimal number",
  negative: "is negative",
  "too-precise": "has more than 6 decimals (1 shard = 0.000001 MIC)",
  "too-large": `is above ${formatMicDecimal(MAX_STAKE_OPERATION_SHARDS)} MIC`,
};

function stakeAmount(text: string): { ok: true; shards: bigint } | { ok: false; code: "invalid"; message: string } {
  const parsed = parseMic(text, MAX_STAKE_OPERATION_SHARDS);
  if (!parsed.ok)
    return { ok: false, code: "invalid", message: `amount ${JSON.stringify(text)} ${MIC_ERRORS[parsed.error]}` };
  if (parsed.shards === 0n) return { ok: false, code: "invalid", message: "amount must be more than 0 MIC" };
  return parsed;
}
