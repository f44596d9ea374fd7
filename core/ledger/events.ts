/**
 * The typed events of the ledger: each type and the strict schema of its payload. An append with an
 * unknown type or an invalid payload is refused before anything is written, and `verify` checks
 * every stored entry against the same registry. The README lists these types.
 */
import { z } from "zod";
import { freezeRefusal } from "../migration/phases.ts";
import { accessEventSchemas } from "../access/events.ts";
import { AvmErrorCode, AvmStage, RevokeReason, RiskLevel, Role, Scope, TokenPermission } from "../schemas/avm.ts";
import { OfficePriority, ProofInputs } from "../schemas/consensus.ts";
import {
  Cathedral,
  Cycle,
  Digest,
  Identifier,
  IsoDate,
  IsoTimestamp,
  IsoTimestampMs,
  NonEmptyString,
  PublicKeyHex,
  Score01,
  ShardString,
  SignatureAlgorithm,
  SignatureHex,
  Uuid,
} from "../schemas/common.ts";
import { formatIssues } from "../zod-issues.ts";

const Multiplier = z.number().min(1).max(2);
const Vote = z.enum(["APPROVE", "REJECT", "ABSTAIN"]);
const Outcome = z.enum(["APPROVED", "REJECTED", "NO_QUORUM"]);

export const eventSchemas = {
  // Marks a ledger written by the sample simulator: every output fed by it says it is sample data.
  "sample.generated": z.strictObject({ generator: NonEmptyString, seed: NonEmptyString, notice: NonEmptyString }),

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
  "stake.locked": z.strictObject({ ledger_id: Uuid, amount_shards: ShardString, slashing_conditions_accepted: z.boolean() }),
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
    error: z.string().regex(/^[a-z][a-z0-9_]*$/).max(64).optional(),
  }),
  "avm.grant": z.strictObject({
    ledger_id: Uuid,
    scopes: z.array(Scope).min(1),
    risk_level: RiskLevel,
    attestation_hash: Digest,
    created_at: IsoTimestamp,
    expires_at: IsoTimestamp,
  }),
  "avm.revoke": z.strictObject({ ledger_id: Uuid, reason: RevokeReason, evidence_hash: Digest, revoked_at: IsoTimestamp }),
  // AI companions whose attestations the AVM accepts: one key per companion_id.
  "companion.registered": z.strictObject({ companion_id: Identifier, algorithm: SignatureAlgorithm, public_key: PublicKeyHex }),
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

  // Sentinels and their work.
  // With a `priority`, the sentinel is a consensus office (core/consensus/state.ts says when it counts).
  "sentinel.registered": z.strictObject({
    sentinel: Identifier,
    cathedral: Cathedral,
    algorithm: SignatureAlgorithm,
    public_key: PublicKeyHex,
    priority: OfficePriority.optional(),
  }),
  // A heartbeat carries what the coordination score is computed from (spec: apps, packages,
  // workflows the sentinel looks after, and its drift); uptime comes from the heartbeat history.
  "sentinel.heartbeat": z.strictObject({
    sentinel: Identifier,
    status: z.enum(["operational", "degraded", "offline"]),
    gi_score: Score01,
    apps: z.int().nonnegative(),
    packages: z.int().nonnegative(),
    workflows: z.int().nonnegative(),
    drift: z.number().min(0).max(10),
  }),
  attestation: z.strictObject({
    agent: Identifier,
    subject: NonEmptyString,
    attestation_hash: Digest,
    algorithm: SignatureAlgorithm,
    public_key: PublicKeyHex,
    signature: SignatureHex,
  }),
  "deliberation.recorded": z.strictObject({
    id: Identifier,
    topic: NonEmptyString,
    sentinels: z
      .array(
        z.strictObject({
          id: Identifier,
          position: z.enum(["support", "oppose", "abstain"]),
          reasoning: NonEmptyString,
          virtue_tags: z.array(Identifier),
        }),
      )
      .min(1),
    consensus: Score01,
    outcome: z.enum(["approved", "rejected", "deferred"]),
  }),

  // MIC economy.
  mic_mint: z.strictObject({
    sentinel: Identifier,
    cycle: Cycle,
    cathedral: Cathedral,
    amount_shards: ShardString,
    coordination_score: z.number().nonnegative(),
    multiplier: Multiplier,
  }),
  mic_burn: z.strictObject({ account: Identifier, amount_shards: ShardString, reason: NonEmptyString }),
  mic_lock: z.strictObject({ account: Identifier, amount_shards: ShardString, contract: Identifier }),
  mic_unlock: z.strictObject({ account: Identifier, amount_shards: ShardString, contract: Identifier }),
  "multiplier.changed": z.strictObject({ cathedral: Cathedral, multiplier: Multiplier, reason: NonEmptyString }),

  // Consensus sessions and deliberation proofs.
  "consensus.opened": z.strictObject({
    session_id: Identifier,
    cycle: Cycle,
    room: NonEmptyString,
    gi_baseline: Score01,
    participants: z.array(Identifier).min(1),
  }),
  "consensus.vote": z.strictObject({ session_id: Identifier, participant: Identifier, vote: Vote, signature: SignatureHex }),
  "consensus.evaluated": z.strictObject({ session_id: Identifier, delibproof_id: Identifier, outcome: Outcome, gi_delta: z.number() }),
  // The deliberation proof's lifecycle (core/consensus): generated → signed by each participant →
  // validated → sealed (appended with consensus.evaluated in one transaction).
  "delibproof.generated": ProofInputs.extend({ session_id: Identifier }),
  "delibproof.signed": z.strictObject({ delib_id: Identifier, participant: Identifier, signature: SignatureHex }),
  "delibproof.validated": z.strictObject({ delib_id: Identifier, validator: Identifier, gi: Score01, signature: SignatureHex }),
  "delibproof.sealed": z.strictObject({ delibproof_id: Identifier, proof_digest: Digest, merkle_root: Digest }),
  // The current cycle and its GI (POST /api/cycle/current).
  "cycle.updated": z.strictObject({ cycle: Cycle, gi: Score01 }),

  // Compliance: an audit of one jurisdiction's regulations, and when the next one is due.
  "compliance.audited": z
    .strictObject({
      jurisdiction: z.enum(["USA", "EU", "UK", "International"]),
      auditor: NonEmptyString,
      audited_on: IsoDate,
      next_audit: IsoDate,
    })
    .refine((a) => a.next_audit > a.audited_on, { message: "next_audit must be after audited_on", path: ["next_audit"] }),

  // Integrity pulse.
  "pulse.recorded": z.strictObject({
    id: Uuid,
    cycle: Cycle,
    hash: Digest,
    giScore: Score01,
    miiScore: Score01,
    generatedAt: IsoTimestampMs,
  }),

  // Access ledger (core/access/events.ts): API keys issued and revoked, every keyed access.
  ...accessEventSchemas,
} as const satisfies Record<string, z.ZodType>;

export type EventType = keyof typeof eventSchemas;
export type EventPayload<T extends EventType> = z.infer<(typeof eventSchemas)[T]>;
export const EVENT_TYPES = Object.keys(eventSchemas).sort() as EventType[];

export function isEventType(type: unknown): type is EventType {
  return typeof type === "string" && Object.hasOwn(eventSchemas, type);
}

/** Null when the payload is valid for the type; otherwise a message naming the fields at fault. */
export function validateEvent(type: unknown, payload: unknown): string | null {
  if (!isEventType(type)) return `unknown event type ${JSON.stringify(type)}`;
  const result = eventSchemas[type].safeParse(payload);
  if (result.success) return null;
  return `invalid ${type} payload: ${formatIssues(result.error.issues, "(payload)")}`;
}

/**
 * The rules on when an event may be dated, for a store to apply once the entry's `ts` is known (the
 * event's own, or the store clock's): today one, the migration freeze window — no monetary event
 * between 2025-11-30T23:59:59Z and 2025-12-02T00:00:01Z (core/migration/phases.ts). Null when the
 * event may be recorded at `ts`; otherwise the refusal, with a code.
 */
export function validateEventTime(type: string, ts: string): { code: "migration-freeze"; message: string } | null {
  return freezeRefusal(type, ts);
}
