/**
 * Automatic revocation as pure rules: the `avm.revoke` events that follow from an event about to be
 * appended, given the registry before it and the injected clock. Whoever appends a trigger (the
 * operator commands, the API, `ledger append`) appends these with it, in the same transaction, so
 * no process ever sees the trigger without its revocation.
 *
 *   trigger                                              reason
 *   stake.withdrawn / stake.slashed leaving the bonded   stake_withdrawn
 *     stake below what the grant needs (policy.ts)
 *   identity.drift with drift_score > 0.1                drift_exceeded
 *   integrity.violation                                  integrity_violation
 *   companion.concern from a registered companion        companion_concern
 *
 * Only a grant in force is revoked (an expired or already revoked one needs nothing). The revoke's
 * `evidence_hash` is `sha256:` of the JCS of `{type, payload}` of the trigger, so it names the entry
 * it follows; `revoked_at` is now.
 */
import { digestOf } from "../digest.ts";
import type { AvmEventPayload as EventPayload } from "./events.ts";
import type { NewEvent } from "../ledger/store.ts";
import type { RevokeReason } from "../schemas/avm.ts";
import { AVM_POLICY, requiredStakeShards } from "./policy.ts";
import { currentGrant, stakeFor, withdraw, type AvmRegistry } from "./registry.ts";

/** The revocations that `event` triggers (none for most events). */
export function automaticRevocations(registry: AvmRegistry, event: NewEvent, nowMs: number): NewEvent[] {
  const reason = triggeredReason(registry, event, nowMs);
  if (!reason) return [];
  const ledgerId = (event.payload as { ledger_id: string }).ledger_id;
  return [
    {
      type: "avm.revoke",
      payload: {
        ledger_id: ledgerId,
        reason,
        evidence_hash: digestOf({ type: event.type, payload: event.payload }),
        revoked_at: new Date(nowMs).toISOString(),
      },
    },
  ];
}

function triggeredReason(registry: AvmRegistry, event: NewEvent, nowMs: number): RevokeReason | null {
  switch (event.type) {
    case "stake.withdrawn":
    case "stake.slashed": {
      const p = event.payload as EventPayload<"stake.withdrawn">;
      const grant = currentGrant(registry, p.ledger_id, nowMs);
      if (!grant) return null;
      const after = { ...stakeFor(registry, p.ledger_id) };
      const amount = BigInt(p.amount_shards);
      if (event.type === "stake.withdrawn") withdraw(after, amount);
      else after.bondedShards = after.bondedShards > amount ? after.bondedShards - amount : 0n;
      return after.bondedShards < requiredStakeShards(grant.scopes) ? "stake_withdrawn" : null;
    }
    case "identity.drift": {
      const p = event.payload as EventPayload<"identity.drift">;
      return p.drift_score > AVM_POLICY.maxDriftScore && currentGrant(registry, p.ledger_id, nowMs)
        ? "drift_exceeded"
        : null;
    }
    case "integrity.violation": {
      const p = event.payload as EventPayload<"integrity.violation">;
      return currentGrant(registry, p.ledger_id, nowMs) ? "integrity_violation" : null;
    }
    case "companion.concern": {
      const p = event.payload as EventPayload<"companion.concern">;
      return registry.companions.has(p.companion_id) && currentGrant(registry, p.ledger_id, nowMs)
        ? "companion_concern"
        : null;
    }
    default:
      return null;
  }
}
