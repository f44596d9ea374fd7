import { beforeAll, describe, expect, it } from "vitest";
import { ledgerIdForKey } from "../../core/avm/operations.ts";
import { avmRegistry, checkAuthority, currentGrant } from "../../core/avm/registry.ts";
import { digestOf } from "../../core/digest.ts";
import type { LedgerEntry } from "../../core/ledger/entry.ts";
import type { EventPayload, EventType } from "../../core/events/registry.ts";
import type { NewEvent } from "../../core/ledger/store.ts";
import { AVM_STAGES, REVOKE_REASONS, ROLES } from "../../core/schemas/avm.ts";
import { SAMPLE_COMPANIONS } from "./authority.ts";
import { DEFAULT_SEED, simulate } from "./simulate.ts";

const NOW = new Date("2025-12-06T12:00:00.000Z");
const p = <T extends EventType>(e: NewEvent) => e.payload as unknown as EventPayload<T>;

let events: NewEvent[];
beforeAll(() => {
  events = [...simulate({ seed: DEFAULT_SEED, size: 6000, now: NOW })];
});

describe("the sample's authority activity", () => {
  it("registers the companions, identities of every role with their stakes", () => {
    const companions = events
      .filter((e) => e.type === "companion.registered")
      .map((e) => p<"companion.registered">(e).companion_id);
    expect(companions).toEqual([...SAMPLE_COMPANIONS]);
    const identities = events.filter((e) => e.type === "identity.registered").map((e) => p<"identity.registered">(e));
    expect(new Set(identities.map((i) => i.role))).toEqual(new Set(ROLES));
    for (const i of identities) expect(i.ledger_id).toBe(ledgerIdForKey(i.algorithm, i.public_key));
    const staked = new Set(events.filter((e) => e.type === "stake.locked").map((e) => p<"stake.locked">(e).ledger_id));
    for (const i of identities) expect(staked.has(i.ledger_id)).toBe(true);
  });

  it("has attempts that fail at each of the five stages, and grants each preceded by its verified attempt", () => {
    const attempts = events.filter((e) => e.type === "avm.attempt").map((e) => p<"avm.attempt">(e));
    const failedAt = new Set(attempts.filter((a) => !a.verified).map((a) => a.failed_at_stage));
    expect(failedAt).toEqual(new Set(AVM_STAGES));
    const codes = new Set(attempts.map((a) => a.code));
    for (const code of ["AVM_001", "AVM_002", "AVM_003", "AVM_004", "AVM_005", "AVM_006", "AVM_007", "AVM_008"])
      expect(codes).toContain(code);
    events.forEach((e, i) => {
      if (e.type !== "avm.grant") return;
      const before = p<"avm.attempt">(events[i - 1]!);
      expect(events[i - 1]!.type).toBe("avm.attempt");
      expect(before.verified).toBe(true);
      expect(before.attestation_hash).toBe(p<"avm.grant">(e).attestation_hash);
    });
  });

  it("has renewals, and revocations by each trigger, each automatic one right after the event that triggered it", () => {
    const registry = avmRegistry.initial();
    let renewals = 0;
    let inForceBefore = false; // whether the previous event's holder had a grant in force before it
    const reasons = new Set<string>();
    events.forEach((e, seq) => {
      const nowMs = Date.parse(e.ts!);
      if (e.type === "avm.grant" && currentGrant(registry, p<"avm.grant">(e).ledger_id, nowMs) !== null) renewals++;
      if (e.type === "avm.revoke") {
        const revoke = p<"avm.revoke">(e);
        reasons.add(revoke.reason);
        if (revoke.reason === "requested_by_holder")
          expect(currentGrant(registry, revoke.ledger_id, nowMs)).not.toBeNull();
        else {
          const trigger = events[seq - 1]!;
          expect(revoke.evidence_hash).toBe(digestOf({ type: trigger.type, payload: trigger.payload }));
          expect(inForceBefore).toBe(true);
        }
      }
      const holder = (e.payload as { ledger_id?: unknown }).ledger_id;
      inForceBefore = typeof holder === "string" && currentGrant(registry, holder, nowMs) !== null;
      avmRegistry.apply(registry, {
        seq,
        type: e.type,
        payload: e.payload,
        ts: e.ts!,
        prev: null,
        hash: "",
      } as LedgerEntry);
      if (e.type === "avm.revoke")
        expect(checkAuthority(registry, p<"avm.revoke">(e).ledger_id, nowMs).scopes).toEqual([]);
    });
    expect(renewals).toBeGreaterThan(0);
    expect(reasons).toEqual(new Set(REVOKE_REASONS.filter((r) => r !== "key_compromise")));
  });
});
