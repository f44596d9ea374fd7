/**
 * The AVM registry: identities, companions, stakes, grants, revocations, used attestations,
 * attestation counts, drift, integrity violations, companion concerns and operator tokens — all
 * derived from ledger events by a Projection, so any process folding the same ledger decides the
 * same, and nothing outlives a revocation once the registry is caught up to the ledger's tail.
 *
 * Registry semantics (README "Authority verification"):
 * - An identity's authority is its newest grant: a later grant (a renewal) supersedes earlier ones.
 *   It holds while not revoked, not expired (injected clock) and the identity is not barred.
 * - `avm.revoke` ends the identity's grant for good and resets its attestation count. Reasons
 *   integrity_violation and key_compromise also bar the identity, as do `identity.revoked` and
 *   `integrity.violation`: a barred identity fails the identity stage for good.
 * - Stake is kept in two buckets: bonded (locked accepting the slashing conditions) and unbonded.
 *   Withdrawals take from unbonded stake first; slashing takes bonded stake. Only bonded stake backs
 *   authority. Amounts never go below zero.
 * - The first registration of a ledger_id, key or companion_id counts; later ones are ignored
 *   (the operations refuse them).
 */
import type { LedgerEntry } from "../ledger/entry.ts";
import type { AvmEventPayload as EventPayload } from "./events.ts";
import type { Projection } from "../ledger/projection.ts";
import type { AvmCheckResponse, RevokeReason, RiskLevel, Role, Scope, TokenPermission } from "../schemas/avm.ts";
import { grantCovers } from "./policy.ts";
import type { SignatureAlgorithm } from "../signature.ts";

export interface RevocationRecord {
  reason: RevokeReason;
  revoked_at: string;
  evidence_hash: string;
  seq: number;
}

export interface GrantRecord {
  seq: number;
  scopes: Scope[];
  risk_level: RiskLevel;
  attestation_hash: string;
  created_at: string;
  expires_at: string;
  expiresAtMs: number;
  /** Set once an `avm.revoke` ended this grant. */
  revocation: RevocationRecord | null;
}

export interface IdentityRecord {
  ledger_id: string;
  algorithm: SignatureAlgorithm;
  public_key: string;
  role: Role;
  reputation: number;
  seq: number;
  /** Why the identity can no longer be granted anything, or null. */
  barred: { cause: string; seq: number } | null;
  /** The newest measured drift score (0 until one is recorded). */
  driftScore: number;
  /** Attestations that produced a grant since the last revocation. */
  attestationCount: number;
  /** The newest grant (it supersedes earlier ones), or null. */
  grant: GrantRecord | null;
  lastRevocation: RevocationRecord | null;
  integrityViolations: number;
  concerns: number;
}

export interface StakeRecord {
  /** Locked accepting the slashing conditions. */
  bondedShards: bigint;
  /** Locked without accepting them. */
  unbondedShards: bigint;
}

export interface CompanionRecord {
  companion_id: string;
  algorithm: SignatureAlgorithm;
  public_key: string;
  seq: number;
}

export interface TokenRecord {
  jti: string;
  subject: string;
  permissions: TokenPermission[];
  issuedAtMs: number;
  expiresAtMs: number;
  revoked: boolean;
  /** The token that issued this one (its jti), or null when it was issued with the key. */
  issuedBy: string | null;
}

export interface AvmRegistry {
  identities: Map<string, IdentityRecord>;
  /** `<algorithm>:<public key>` → ledger_id: one identity per key. */
  identityByKey: Map<string, string>;
  stakes: Map<string, StakeRecord>;
  companions: Map<string, CompanionRecord>;
  /** Attestation hash → seq of the grant that used it: an attestation grants once. */
  usedAttestations: Map<string, number>;
  tokens: Map<string, TokenRecord>;
  /** Entries applied: the registry describes the ledger up to this size. */
  size: number;
}

/**
 * Where a token stands by its chain: `not_issued` when it (or an issuer of its chain) is not on
 * the ledger, `revoked` when it or any token that issued it, directly or not, is revoked, else
 * `held`. A loop, not recursion: an issuer is always recorded before the tokens it issues, so the
 * chain ends; the visited set guards against a ledger that says otherwise.
 */
export function tokenChainStanding(registry: AvmRegistry, jti: string): "held" | "revoked" | "not_issued" {
  const visited = new Set<string>();
  for (let at: string | null = jti; at !== null;) {
    const token = registry.tokens.get(at);
    if (!token || visited.has(at)) return "not_issued";
    if (token.revoked) return "revoked";
    visited.add(at);
    at = token.issuedBy;
  }
  return "held";
}

/** avm.revoke reasons that bar the identity besides ending its grant. */
export const BARRING_REVOKE_REASONS: readonly RevokeReason[] = ["integrity_violation", "key_compromise"];

export function keyIndex(algorithm: string, publicKey: string): string {
  return `${algorithm}:${publicKey}`;
}

type P<T extends AvmEventType> = EventPayload<T>;

function applyTyped(state: AvmRegistry, type: AvmEventType, payload: unknown, seq: number): void {
  switch (type) {
    case "identity.registered": {
      const p = payload as P<"identity.registered">;
      const key = keyIndex(p.algorithm, p.public_key);
      if (state.identities.has(p.ledger_id) || state.identityByKey.has(key)) return;
      state.identities.set(p.ledger_id, {
        ledger_id: p.ledger_id,
        algorithm: p.algorithm,
        public_key: p.public_key,
        role: p.role,
        reputation: p.reputation,
        seq,
        barred: null,
        driftScore: 0,
        attestationCount: 0,
        grant: null,
        lastRevocation: null,
        integrityViolations: 0,
        concerns: 0,
      });
      state.identityByKey.set(key, p.ledger_id);
      return;
    }
    case "identity.reputation": {
      const p = payload as P<"identity.reputation">;
      const identity = state.identities.get(p.ledger_id);
      if (identity) identity.reputation = p.reputation;
      return;
    }
    case "identity.revoked": {
      const p = payload as P<"identity.revoked">;
      const identity = state.identities.get(p.ledger_id);
      if (identity && !identity.barred) identity.barred = { cause: `identity revoked: ${p.reason}`, seq };
      return;
    }
    case "identity.drift": {
      const p = payload as P<"identity.drift">;
      const identity = state.identities.get(p.ledger_id);
      if (identity) identity.driftScore = p.drift_score;
      return;
    }
    case "integrity.violation": {
      const p = payload as P<"integrity.violation">;
      const identity = state.identities.get(p.ledger_id);
      if (!identity) return;
      identity.integrityViolations++;
      if (!identity.barred) identity.barred = { cause: `integrity violation detected by ${p.detected_by}`, seq };
      return;
    }
    case "companion.concern": {
      const p = payload as P<"companion.concern">;
      const identity = state.identities.get(p.ledger_id);
      if (identity) identity.concerns++;
      return;
    }
    case "stake.locked": {
      const p = payload as P<"stake.locked">;
      const stake = stakeOf(state, p.ledger_id);
      if (p.slashing_conditions_accepted) stake.bondedShards += BigInt(p.amount_shards);
      else stake.unbondedShards += BigInt(p.amount_shards);
      return;
    }
    case "stake.withdrawn": {
      const p = payload as P<"stake.withdrawn">;
      withdraw(stakeOf(state, p.ledger_id), BigInt(p.amount_shards));
      return;
    }
    case "stake.slashed": {
      const p = payload as P<"stake.slashed">;
      const stake = stakeOf(state, p.ledger_id);
      const amount = BigInt(p.amount_shards);
      stake.bondedShards = stake.bondedShards > amount ? stake.bondedShards - amount : 0n;
      return;
    }
    case "avm.grant": {
      const p = payload as P<"avm.grant">;
      state.usedAttestations.set(p.attestation_hash, seq);
      const identity = state.identities.get(p.ledger_id);
      if (!identity) return;
      identity.grant = {
        seq,
        scopes: p.scopes,
        risk_level: p.risk_level,
        attestation_hash: p.attestation_hash,
        created_at: p.created_at,
        expires_at: p.expires_at,
        expiresAtMs: Date.parse(p.expires_at),
        revocation: null,
      };
      identity.attestationCount++;
      return;
    }
    case "avm.revoke": {
      const p = payload as P<"avm.revoke">;
      const identity = state.identities.get(p.ledger_id);
      if (!identity) return;
      const revocation: RevocationRecord = {
        reason: p.reason,
        revoked_at: p.revoked_at,
        evidence_hash: p.evidence_hash,
        seq,
      };
      if (identity.grant && !identity.grant.revocation) identity.grant.revocation = revocation;
      identity.lastRevocation = revocation;
      identity.attestationCount = 0;
      if (BARRING_REVOKE_REASONS.includes(p.reason) && !identity.barred)
        identity.barred = { cause: `authority revoked: ${p.reason}`, seq };
      return;
    }
    case "companion.registered": {
      const p = payload as P<"companion.registered">;
      if (!state.companions.has(p.companion_id)) {
        state.companions.set(p.companion_id, {
          companion_id: p.companion_id,
          algorithm: p.algorithm,
          public_key: p.public_key,
          seq,
        });
      }
      return;
    }
    case "token.issued": {
      const p = payload as P<"token.issued">;
      if (!state.tokens.has(p.jti)) {
        state.tokens.set(p.jti, {
          jti: p.jti,
          subject: p.subject,
          permissions: p.permissions,
          issuedAtMs: Date.parse(p.issued_at),
          expiresAtMs: Date.parse(p.expires_at),
          revoked: false,
          issuedBy: p.issued_by ?? null,
        });
      }
      return;
    }
    case "token.revoked": {
      const p = payload as P<"token.revoked">;
      const token = state.tokens.get(p.jti);
      if (token) token.revoked = true;
      return;
    }
  }
}

const AVM_EVENT_TYPES = [
  "identity.registered",
  "identity.reputation",
  "identity.revoked",
  "identity.drift",
  "integrity.violation",
  "companion.concern",
  "stake.locked",
  "stake.withdrawn",
  "stake.slashed",
  "avm.grant",
  "avm.revoke",
  "companion.registered",
  "token.issued",
  "token.revoked",
] as const;
type AvmEventType = (typeof AVM_EVENT_TYPES)[number];
const AVM_EVENTS: ReadonlySet<string> = new Set(AVM_EVENT_TYPES);

function stakeOf(state: AvmRegistry, ledgerId: string): StakeRecord {
  let stake = state.stakes.get(ledgerId);
  if (!stake) {
    stake = { bondedShards: 0n, unbondedShards: 0n };
    state.stakes.set(ledgerId, stake);
  }
  return stake;
}

/** Takes `amount` from unbonded stake first, then bonded; never below zero. */
export function withdraw(stake: StakeRecord, amount: bigint): void {
  const fromUnbonded = amount < stake.unbondedShards ? amount : stake.unbondedShards;
  stake.unbondedShards -= fromUnbonded;
  const rest = amount - fromUnbonded;
  stake.bondedShards = stake.bondedShards > rest ? stake.bondedShards - rest : 0n;
}

/** The registry as a projection of the ledger (payloads were validated on append). */
export const avmRegistry: Projection<AvmRegistry> = {
  initial: () => ({
    identities: new Map(),
    identityByKey: new Map(),
    stakes: new Map(),
    companions: new Map(),
    usedAttestations: new Map(),
    tokens: new Map(),
    size: 0,
  }),
  apply(state, entry: LedgerEntry) {
    if (AVM_EVENTS.has(entry.type)) applyTyped(state, entry.type as AvmEventType, entry.payload, entry.seq);
    state.size = entry.seq + 1;
    return state;
  },
};

/** The identity's stake (zero when none was ever locked). */
export function stakeFor(registry: AvmRegistry, ledgerId: string): StakeRecord {
  return registry.stakes.get(ledgerId) ?? { bondedShards: 0n, unbondedShards: 0n };
}

/** The grant in force at `nowMs`: the newest, if not revoked, not expired, and the identity not barred. */
export function currentGrant(registry: AvmRegistry, ledgerId: string, nowMs: number): GrantRecord | null {
  const identity = registry.identities.get(ledgerId);
  if (!identity || identity.barred) return null;
  const grant = identity.grant;
  if (!grant || grant.revocation || !(nowMs < grant.expiresAtMs)) return null;
  return grant;
}

/** GET /avm/check/{ledger_id}: expired, revoked or barred authority is no authority. */
export function checkAuthority(registry: AvmRegistry, ledgerId: string, nowMs: number): AvmCheckResponse {
  const grant = currentGrant(registry, ledgerId, nowMs);
  return grant
    ? { has_authority: true, scopes: [...grant.scopes], expires_at: grant.expires_at }
    : { has_authority: false, scopes: [], expires_at: null };
}

/** Whether the identity holds `scope` at `nowMs` (what a service relying on the AVM asks). */
export function authorizes(registry: AvmRegistry, ledgerId: string, scope: Scope, nowMs: number): boolean {
  const grant = currentGrant(registry, ledgerId, nowMs);
  return grant !== null && grantCovers(grant.scopes, scope);
}
