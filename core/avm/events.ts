/**
 * The ledger events of authority verification: identities, stakes, attempts, grants and
 * revocations, companions and their concerns, operator tokens. They join the ledger's event
 * registry (core/events/registry.ts), as every domain's do: an append with an invalid payload is
 * refused before anything is written, and `verify` checks every stored entry against the same
 * schemas. The README lists these types.
 */
import { z } from "zod";
import { AvmErrorCode, AvmStage, RevokeReason, RiskLevel, Role, Scope, TokenPermission } from "../schemas/avm.ts";
import {
  Digest,
  Identifier,
  IsoTimestamp,
  NonEmptyString,
  PublicKeyHex,
  Score01,
  ShardString,
  SignatureAlgorithm,
  Uuid,
} from "../schemas/common.ts";

export const avmEventSchemas = {
  // Identities, stakes and authority (AVM).
  "identity.registered": z.strictObject({
    ledger_id: Uuid,
    algorithm: SignatureAlgorithm,
    public_key: PublicKeyHex,
    role: Role,
    reputation: Score01,
  }),
  "identity.reputation": z.strictObject({ ledger_id: Uuid, reputation: Score01, reason: NonEmptyString }),
  "identity.revoked": z.strictObject({ ledger_id: Uuid, reason: NonEmptyString }),
  "stake.locked": z.strictObject({
    ledger_id: Uuid,
    amount_shards: ShardString,
    slashing_conditions_accepted: z.boolean(),
  }),
  "stake.withdrawn": z.strictObject({ ledger_id: Uuid, amount_shards: ShardString }),
  "stake.slashed": z.strictObject({ ledger_id: Uuid, amount_shards: ShardString, reason: NonEmptyString }),
  "avm.attempt": z.strictObject({
    ledger_id: Uuid.nullable(),
    requested_scopes: z.array(z.string().max(128)).max(64),
    verified: z.boolean(),
    failed_at_stage: AvmStage.nullable(),
    code: AvmErrorCode.nullable(),
    attestation_hash: Digest.nullable(),
    // The failure's machine-readable `error` (core/avm/rules.ts); absent on success and on entries
    // written before it was recorded.
    error: z
      .string()
      .regex(/^[a-z][a-z0-9_]*$/)
      .max(64)
      .optional(),
  }),
  "avm.grant": z.strictObject({
    ledger_id: Uuid,
    scopes: z.array(Scope).min(1),
    risk_level: RiskLevel,
    attestation_hash: Digest,
    created_at: IsoTimestamp,
    expires_at: IsoTimestamp,
  }),
  "avm.revoke": z.strictObject({
    ledger_id: Uuid,
    reason: RevokeReason,
    evidence_hash: Digest,
    revoked_at: IsoTimestamp,
  }),
  // AI companions whose attestations the AVM accepts: one key per companion_id.
  "companion.registered": z.strictObject({
    companion_id: Identifier,
    algorithm: SignatureAlgorithm,
    public_key: PublicKeyHex,
  }),
  // The three automatic-revocation triggers besides a stake withdrawal (core/avm/revocation.ts):
  // a measured drift score of the holder, a detected integrity violation, a companion's concern.
  "identity.drift": z.strictObject({ ledger_id: Uuid, drift_score: Score01, source: Identifier }),
  "integrity.violation": z.strictObject({ ledger_id: Uuid, evidence_hash: Digest, detected_by: Identifier }),
  "companion.concern": z.strictObject({ companion_id: Identifier, ledger_id: Uuid, evidence_hash: Digest }),
  // Operator tokens for write routes (core/avm/token.ts): what was issued — never the token — and
  // revocations. A token is valid only while its jti is issued here and not revoked.
  // `issued_by`: the jti of the token that issued this one over HTTP (absent: issued with the key,
  // `npm run avm -- issue-token`). A token holds only while no token of its chain is revoked.
  "token.issued": z.strictObject({
    jti: Uuid,
    subject: Identifier,
    permissions: z.array(TokenPermission).min(1),
    issued_at: IsoTimestamp,
    expires_at: IsoTimestamp,
    issued_by: Uuid.optional(),
  }),
  "token.revoked": z.strictObject({ jti: Uuid, reason: NonEmptyString }),
} as const satisfies Record<string, z.ZodType>;

/** The avm event types, and the payload of each as its schema reads it. */
export type AvmEventType = keyof typeof avmEventSchemas;
export type AvmEventPayload<T extends AvmEventType> = z.infer<(typeof avmEventSchemas)[T]>;
