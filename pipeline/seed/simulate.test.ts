import { beforeAll, describe, expect, it } from "vitest";
import { canonicalBytes, canonicalize } from "../../core/canonical.ts";
import { cycleLabel, cycleStart } from "../../core/cycle.ts";
import { coordinationScore, rewardShards } from "../../core/economy/formulas.ts";
import { isLedgerTimestamp } from "../../core/ledger/entry.ts";
import { validateEvent, type EventPayload, type EventType } from "../../core/events/registry.ts";
import type { NewEvent } from "../../core/ledger/store.ts";
import { CATHEDRALS, type Cathedral } from "../../core/schemas/common.ts";
import { publicKeyFromSecret, verify, type SignatureAlgorithm } from "../../core/signature.ts";
import { ledgerIdForKey } from "../../core/avm/operations.ts";
import { sampleSecretKey } from "./sample-keys.ts";
import { planSimulation } from "./plan.ts";
import { DEFAULT_SEED, SAMPLE_NOTICE, simulate } from "./simulate.ts";
import { SENTINELS } from "./tables.ts";

const NOW = new Date("2025-12-06T12:00:00.000Z");
const DAY = 86_400_000;
const run = (seed = DEFAULT_SEED, size = 6000, now = NOW): NewEvent[] => [...simulate({ seed, size, now })];
const of = (list: NewEvent[], type: EventType) => list.filter((e) => e.type === type);
const p = <T extends EventType>(e: NewEvent) => e.payload as unknown as EventPayload<T>;

let events: NewEvent[];
beforeAll(() => {
  events = run();
});

describe("simulate: determinism", () => {
  it("gives identical events for the same seed, size and now, and different ones for another seed", () => {
    const again = run();
    expect(again.length).toBe(events.length);
    expect(canonicalize(again)).toBe(canonicalize(events));
    const other = run("another-seed");
    expect(canonicalize(other)).not.toBe(canonicalize(events));
    expect(other[0]!.payload).toMatchObject({ seed: "another-seed" });
  });

  it("is lazy: the first events of a million-event run come without generating the rest", () => {
    const it = simulate({ seed: DEFAULT_SEED, size: 1_000_000, now: NOW });
    const first: NewEvent[] = [];
    for (const e of it) {
      first.push(e);
      if (first.length === 5000) break;
    }
    expect(first.length).toBe(5000);
    expect(first[0]!.type).toBe("sample.generated");
    // Far more heartbeats per day than at the default size: the size scales the events per cycle.
    const day1 = first.filter((e) => e.ts!.startsWith("2025-07-04") && e.type === "sentinel.heartbeat").length;
    expect(day1).toBeGreaterThan(1000);
  });
});

describe("simulate: the sample ledger", () => {
  it("starts with sample.generated", () => {
    expect(events[0]).toEqual({
      type: "sample.generated",
      payload: { generator: "pipeline/seed", seed: DEFAULT_SEED, notice: SAMPLE_NOTICE },
      ts: "2025-07-04T00:00:00.000Z",
    });
    expect(SAMPLE_NOTICE).toMatch(/^SAMPLE DATA/);
    expect(of(events, "sample.generated")).toHaveLength(1);
  });

  it("has the asked-for size, approximately", () => {
    expect(events.length).toBeGreaterThan(6000 * 0.9);
    expect(events.length).toBeLessThan(6000 * 1.1);
    const bigger = [...simulate({ seed: DEFAULT_SEED, size: 30_000, now: NOW })].length;
    expect(bigger).toBeGreaterThan(30_000 * 0.9);
    expect(bigger).toBeLessThan(30_000 * 1.1);
  });

  it("passes the event registry, with ledger timestamps non-decreasing from C-1 to now", () => {
    let last = "";
    for (const e of events) {
      expect(validateEvent(e.type, e.payload), e.type).toBeNull();
      expect(isLedgerTimestamp(e.ts)).toBe(true);
      expect(e.ts! >= last).toBe(true);
      last = e.ts!;
    }
    expect(events[0]!.ts).toBe(cycleStart(1).toISOString());
    expect(Date.parse(last)).toBeLessThanOrEqual(NOW.getTime());
    expect(cycleLabel(new Date(last))).toBe("C-156"); // the cycle of now, 2025-12-06
  });

  it("holds every kind of event the portal shows", () => {
    const counts = new Map<string, number>();
    for (const e of events) counts.set(e.type, (counts.get(e.type) ?? 0) + 1);
    for (const type of [
      "sentinel.registered",
      "sentinel.heartbeat",
      "attestation",
      "mic_mint",
      "mic_burn",
      "mic_lock",
      "mic_unlock",
      "multiplier.changed",
      "deliberation.recorded",
      "consensus.opened",
      "consensus.vote",
      "consensus.evaluated",
      "delibproof.sealed",
      "identity.registered",
      "stake.locked",
    ]) {
      expect(counts.get(type) ?? 0, type).toBeGreaterThan(0);
    }
    const outcomes = new Set(of(events, "consensus.evaluated").map((e) => p<"consensus.evaluated">(e).outcome));
    expect([...outcomes].sort()).toEqual(["APPROVED", "NO_QUORUM", "REJECTED"]);
  });

  it("registers at least 10 sentinels covering all five cathedrals, each with its own sample key", () => {
    const registered = of(events, "sentinel.registered").map((e) => p<"sentinel.registered">(e));
    expect(registered.length).toBeGreaterThanOrEqual(10);
    expect(new Set(registered.map((r) => r.cathedral))).toEqual(new Set(CATHEDRALS));
    expect(new Set(registered.map((r) => r.public_key)).size).toBe(registered.length);
    for (const r of registered) {
      expect(r.public_key).toBe(publicKeyFromSecret("ed25519", sampleSecretKey(DEFAULT_SEED, r.sentinel)));
    }
  });

  it("signs attestations over JCS {agent, subject, attestation_hash} with the agent's registered key", () => {
    const keys = registeredKeys(events);
    const attestations = of(events, "attestation");
    expect(attestations.length).toBeGreaterThan(100);
    for (const e of attestations) {
      const a = p<"attestation">(e);
      expect(a.public_key).toBe(keys.get(a.agent));
      const message = canonicalBytes({ agent: a.agent, subject: a.subject, attestation_hash: a.attestation_hash });
      expect(verify(a.algorithm as SignatureAlgorithm, keys.get(a.agent)!, message, a.signature)).toBe(true);
      // Any other subject does not verify.
      expect(verify("ed25519", a.public_key, canonicalBytes({ ...a, subject: `${a.subject}x` }), a.signature)).toBe(
        false,
      );
    }
  });

  it("signs votes over JCS {session_id, participant, vote} with the participant's key", () => {
    const keys = registeredKeys(events);
    for (const e of of(events, "consensus.vote")) {
      const v = p<"consensus.vote">(e);
      const message = canonicalBytes({ session_id: v.session_id, participant: v.participant, vote: v.vote });
      expect(verify("ed25519", keys.get(v.participant)!, message, v.signature)).toBe(true);
      const flipped = v.vote === "APPROVE" ? "REJECT" : "APPROVE";
      expect(
        verify(
          "ed25519",
          keys.get(v.participant)!,
          canonicalBytes({ session_id: v.session_id, participant: v.participant, vote: flipped }),
          v.signature,
        ),
      ).toBe(false);
    }
  });

  it("mints by the formula: score from the last heartbeat and uptime, the cathedral's multiplier, rewardShards", () => {
    const registeredAt = new Map<string, number>();
    const lastBeat = new Map<string, EventPayload<"sentinel.heartbeat">>();
    const multiplier = Object.fromEntries(CATHEDRALS.map((c) => [c, 1])) as Record<Cathedral, number>;
    const mintedIn = new Set<string>();
    let mints = 0;
    for (const e of events) {
      if (e.type === "sentinel.registered") registeredAt.set(p<"sentinel.registered">(e).sentinel, Date.parse(e.ts!));
      if (e.type === "sentinel.heartbeat")
        lastBeat.set(p<"sentinel.heartbeat">(e).sentinel, p<"sentinel.heartbeat">(e));
      if (e.type === "multiplier.changed")
        multiplier[p<"multiplier.changed">(e).cathedral] = p<"multiplier.changed">(e).multiplier;
      if (e.type !== "mic_mint") continue;
      const m = p<"mic_mint">(e);
      mints += 1;
      expect(BigInt(m.amount_shards)).toBe(rewardShards(m.coordination_score, m.multiplier));
      expect(m.multiplier).toBe(multiplier[m.cathedral]);
      expect(m.cycle).toBe(cycleLabel(new Date(e.ts!)));
      const hb = lastBeat.get(m.sentinel)!;
      expect(hb.status).not.toBe("offline");
      const uptimeDays = (Date.parse(e.ts!) - registeredAt.get(m.sentinel)!) / DAY;
      expect(m.coordination_score).toBeCloseTo(coordinationScore({ ...hb, uptimeDays }), 4);
      const key = `${m.sentinel}/${m.cycle}`;
      expect(mintedIn.has(key), `two mints for ${key}`).toBe(false);
      mintedIn.add(key);
      expect(SENTINELS.find((s) => s.id === m.sentinel)!.cathedral).toBe(m.cathedral);
    }
    expect(mints).toBeGreaterThan(1000);
  });

  it("never burns or locks more than an account holds, nor unlocks more than it locked", () => {
    const minted = new Map<string, bigint>();
    const burned = new Map<string, bigint>();
    const locked = new Map<string, bigint>();
    const get = (m: Map<string, bigint>, k: string) => m.get(k) ?? 0n;
    for (const e of events) {
      if (e.type === "mic_mint") {
        const m = p<"mic_mint">(e);
        minted.set(m.sentinel, get(minted, m.sentinel) + BigInt(m.amount_shards));
      } else if (e.type === "mic_burn" || e.type === "mic_lock" || e.type === "mic_unlock") {
        const x = e.payload as { account: string; amount_shards: string; contract?: string };
        const amount = BigInt(x.amount_shards);
        expect(amount > 0n).toBe(true);
        if (e.type === "mic_burn") burned.set(x.account, get(burned, x.account) + amount);
        const key = `${x.account}/${x.contract}`;
        if (e.type === "mic_lock") locked.set(key, get(locked, key) + amount);
        if (e.type === "mic_unlock") locked.set(key, get(locked, key) - amount);
        expect(get(locked, key) >= 0n).toBe(true);
        const totalLocked = [...locked].filter(([k]) => k.startsWith(`${x.account}/`)).reduce((s, [, v]) => s + v, 0n);
        expect(get(burned, x.account) + totalLocked <= get(minted, x.account)).toBe(true);
      }
    }
  });

  it("changes multipliers within [1.0, 2.0], with a reason, starting from the genesis allocation", () => {
    const changes = of(events, "multiplier.changed").map((e) => p<"multiplier.changed">(e));
    expect(changes.length).toBeGreaterThan(CATHEDRALS.length);
    for (const c of changes) {
      expect(c.multiplier).toBeGreaterThanOrEqual(1);
      expect(c.multiplier).toBeLessThanOrEqual(2);
      expect(c.reason.length).toBeGreaterThan(5);
    }
  });

  it("records AVM identities whose ledger_ids follow from their sample keys, and their stakes", () => {
    const ids = of(events, "identity.registered").map((e) => p<"identity.registered">(e));
    const stakes = of(events, "stake.locked").map((e) => p<"stake.locked">(e));
    expect(ids.length).toBeGreaterThanOrEqual(4);
    expect(new Set(ids.map((i) => i.algorithm))).toEqual(new Set(["ed25519", "secp256k1"]));
    const keys = ids.map((_, k) =>
      publicKeyFromSecret(k % 3 === 2 ? "secp256k1" : "ed25519", sampleSecretKey(DEFAULT_SEED, `identity:${k}`)),
    );
    for (const i of ids) {
      expect(i.ledger_id).toBe(ledgerIdForKey(i.algorithm, i.public_key));
      expect(keys).toContain(i.public_key);
      expect(stakes.some((s) => s.ledger_id === i.ledger_id)).toBe(true);
    }
  });

  it("stops at now, and refuses a present before C-1, an empty seed, a zero size", () => {
    const short = run(DEFAULT_SEED, 2000, new Date("2025-07-10T09:30:00.000Z"));
    expect(Date.parse(short.at(-1)!.ts!)).toBeLessThanOrEqual(Date.parse("2025-07-10T09:30:00.000Z"));
    expect(short.filter((e) => e.type === "sentinel.registered").length).toBeGreaterThanOrEqual(10);
    expect(() => planSimulation({ seed: "x", size: 10, now: new Date("2025-07-03T23:59:59.999Z") })).toThrow(
      /before cycle C-1/,
    );
    expect(() => planSimulation({ seed: "", size: 10, now: NOW })).toThrow(/seed/);
    expect(() => planSimulation({ seed: "x", size: 0, now: NOW })).toThrow(/size/);
  });
});

function registeredKeys(list: NewEvent[]): Map<string, string> {
  const keys = new Map<string, string>();
  for (const e of list)
    if (e.type === "sentinel.registered")
      keys.set(p<"sentinel.registered">(e).sentinel, p<"sentinel.registered">(e).public_key);
  return keys;
}
