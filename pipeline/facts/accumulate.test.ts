import { afterAll, describe, expect, it } from "vitest";
import { canonicalize } from "../../core/canonical.ts";
import { cycleLabel } from "../../core/cycle.ts";
import { formatDigest } from "../../core/digest.ts";
import { sealEntry, type JsonObject, type LedgerEntry } from "../../core/ledger/entry.ts";
import type { EventPayload } from "../../core/events/registry.ts";
import type { NewEvent } from "../../core/ledger/store.ts";
import { leafHash, rootHash } from "../../core/merkle.ts";
import { CATHEDRALS, type Cathedral } from "../../core/schemas/common.ts";
import { openLedgerStore } from "../../store/open-ledger.ts";
import { simulate } from "../seed/simulate.ts";
import { createFactsAccumulator, factsOf } from "./accumulate.ts";

const DAY = 86_400_000;
const PK_A = "a1".repeat(32);
const PK_E = "e1".repeat(32);
const SIG = "5a".repeat(64);
const DIGEST = `sha256:${"0d".repeat(32)}`;

/** A hash-chained ledger from [ts, type, payload] rows, as the store would seal them. */
function chain(rows: [string, string, JsonObject][]): LedgerEntry[] {
  const out: LedgerEntry[] = [];
  for (const [ts, type, payload] of rows) {
    out.push(sealEntry({ seq: out.length, type, payload, ts, prev: out.at(-1)?.hash ?? null }).entry);
  }
  return out;
}

const vote = (session_id: string, participant: string, v: string): JsonObject => ({
  session_id,
  participant,
  vote: v,
  signature: SIG,
});
const participants = ["ATLAS", "EVE", "X-UNREGISTERED", "Y-UNREGISTERED"];

const HAND = chain([
  ["2025-12-01T00:00:00.000Z", "sample.generated", { generator: "test", seed: "hand", notice: "SAMPLE DATA (test)" }],
  [
    "2025-12-01T00:00:00.001Z",
    "sentinel.registered",
    { sentinel: "ATLAS", cathedral: "FOR-GOVERNMENTS", algorithm: "ed25519", public_key: PK_A },
  ],
  [
    "2025-12-01T06:00:00.000Z",
    "sentinel.heartbeat",
    { sentinel: "ATLAS", status: "operational", gi_score: 0.98, apps: 3, packages: 5, workflows: 2, drift: 0.5 },
  ],
  [
    "2025-12-01T12:00:00.000Z",
    "sentinel.registered",
    { sentinel: "EVE", cathedral: "FOR-PHILOSOPHERS", algorithm: "ed25519", public_key: PK_E },
  ],
  [
    "2025-12-01T13:00:00.000Z",
    "multiplier.changed",
    { cathedral: "FOR-GOVERNMENTS", multiplier: 1.5, reason: "review" },
  ],
  [
    "2025-12-01T23:55:00.000Z",
    "mic_mint",
    {
      sentinel: "ATLAS",
      cycle: "C-151",
      cathedral: "FOR-GOVERNMENTS",
      amount_shards: "100000000",
      coordination_score: 10.5,
      multiplier: 1.5,
    },
  ],
  ["2025-12-02T01:00:00.000Z", "mic_lock", { account: "ATLAS", amount_shards: "30000000", contract: "stake-pool" }],
  ["2025-12-02T02:00:00.000Z", "mic_burn", { account: "ATLAS", amount_shards: "1000000", reason: "fees" }],
  [
    "2025-12-02T03:00:00.000Z",
    "sentinel.heartbeat",
    { sentinel: "EVE", status: "degraded", gi_score: 0.94, apps: 1, packages: 2, workflows: 3, drift: 1.25 },
  ],
  [
    "2025-12-02T04:00:00.000Z",
    "attestation",
    {
      agent: "ATLAS",
      subject: "government/x.json",
      attestation_hash: DIGEST,
      algorithm: "ed25519",
      public_key: PK_A,
      signature: SIG,
    },
  ],
  [
    "2025-12-02T05:00:00.000Z",
    "consensus.opened",
    { session_id: "S-1", cycle: "C-152", room: "policy", gi_baseline: 0.97, participants },
  ],
  ["2025-12-02T05:40:00.000Z", "consensus.vote", vote("S-1", "ATLAS", "APPROVE")],
  ["2025-12-02T05:41:00.000Z", "consensus.vote", vote("S-1", "EVE", "REJECT")],
  ["2025-12-02T05:42:00.000Z", "consensus.vote", vote("S-1", "X-UNREGISTERED", "APPROVE")],
  ["2025-12-02T05:43:00.000Z", "consensus.vote", vote("S-1", "Y-UNREGISTERED", "APPROVE")],
  [
    "2025-12-02T05:45:00.000Z",
    "consensus.evaluated",
    { session_id: "S-1", delibproof_id: "DP-1", outcome: "APPROVED", gi_delta: 0.004 },
  ],
  [
    "2025-12-02T05:46:00.000Z",
    "delibproof.sealed",
    { delibproof_id: "DP-1", proof_digest: DIGEST, merkle_root: DIGEST },
  ],
  [
    "2025-12-02T08:00:00.000Z",
    "consensus.opened",
    { session_id: "S-2", cycle: "C-152", room: "ethics", gi_baseline: 0.96, participants },
  ],
  ["2025-12-02T08:40:00.000Z", "consensus.vote", vote("S-2", "ATLAS", "APPROVE")],
  ["2025-12-02T08:41:00.000Z", "consensus.vote", vote("S-2", "EVE", "ABSTAIN")],
  [
    "2025-12-02T08:45:00.000Z",
    "consensus.evaluated",
    { session_id: "S-2", delibproof_id: "DP-2", outcome: "NO_QUORUM", gi_delta: -0.002 },
  ],
  [
    "2025-12-02T10:00:00.000Z",
    "consensus.opened",
    { session_id: "S-3", cycle: "C-152", room: "markets", gi_baseline: 0.97, participants },
  ],
  ["2025-12-02T10:40:00.000Z", "consensus.vote", vote("S-3", "ATLAS", "REJECT")],
  [
    "2025-12-02T11:00:00.000Z",
    "deliberation.recorded",
    {
      id: "D-1",
      topic: "Publish the drift analysis",
      sentinels: [{ id: "EVE", position: "support", reasoning: "Transparency first.", virtue_tags: ["integrity"] }],
      consensus: 1,
      outcome: "approved",
    },
  ],
  ["2025-12-02T12:00:00.000Z", "custom.unknown", { anything: [1, 2, 3] }],
  [
    "2025-12-02T23:55:00.000Z",
    "mic_mint",
    {
      sentinel: "EVE",
      cycle: "C-152",
      cathedral: "FOR-PHILOSOPHERS",
      amount_shards: "50000000",
      coordination_score: 3.25,
      multiplier: 1,
    },
  ],
  ["2025-12-03T00:10:00.000Z", "mic_unlock", { account: "ATLAS", amount_shards: "10000000", contract: "stake-pool" }],
  [
    "2025-12-03T08:00:00.000Z",
    "multiplier.changed",
    { cathedral: "FOR-GOVERNMENTS", multiplier: 1.25, reason: "rebalancing" },
  ],
]);

describe("facts of a hand-written ledger", () => {
  const facts = factsOf(HAND);

  it("identity of the input: size, root over the entries' JCS leaves, first and last instant, sample marker", async () => {
    expect(facts.size).toBe(28);
    expect(facts.rootHash).toBe(
      formatDigest(rootHash(HAND.map((e) => leafHash(new TextEncoder().encode(canonicalize(e)))))),
    );
    expect(facts.firstTs).toBe("2025-12-01T00:00:00.000Z");
    expect(facts.asOf).toBe("2025-12-03T08:00:00.000Z");
    expect(facts.sample).toEqual({ generator: "test", seed: "hand", notice: "SAMPLE DATA (test)" });
    expect(facts.eventCounts).toEqual({
      attestation: 1,
      "consensus.evaluated": 2,
      "consensus.opened": 3,
      "consensus.vote": 7,
      "custom.unknown": 1,
      "delibproof.sealed": 1,
      "deliberation.recorded": 1,
      mic_burn: 1,
      mic_lock: 1,
      mic_mint: 2,
      mic_unlock: 1,
      "multiplier.changed": 2,
      "sample.generated": 1,
      "sentinel.heartbeat": 2,
      "sentinel.registered": 2,
    });
    expect(Object.keys(facts.eventCounts)).toEqual(Object.keys(facts.eventCounts).sort());
  });

  it("supply in shards, and cumulative per cycle with supply events", async () => {
    expect(facts.supply).toEqual({ mintedShards: 150_000_000n, burnedShards: 1_000_000n, lockedShards: 20_000_000n });
    expect(facts.supplyByCycle).toEqual([
      {
        cycle: "C-151",
        ts: "2025-12-01T23:55:00.000Z",
        mintedShards: 100_000_000n,
        burnedShards: 0n,
        lockedShards: 0n,
      },
      {
        cycle: "C-152",
        ts: "2025-12-02T23:55:00.000Z",
        mintedShards: 150_000_000n,
        burnedShards: 1_000_000n,
        lockedShards: 30_000_000n,
      },
      {
        cycle: "C-153",
        ts: "2025-12-03T00:10:00.000Z",
        mintedShards: 150_000_000n,
        burnedShards: 1_000_000n,
        lockedShards: 20_000_000n,
      },
    ]);
  });

  it("multipliers start at 1.0 and follow the changes", async () => {
    expect(facts.multipliers).toEqual({
      "FOR-GOVERNMENTS": 1.25,
      "FOR-ACADEMICS": 1,
      "FOR-PHILOSOPHERS": 1,
      "FOR-ECONOMISTS": 1,
      DIPLOMACY: 1,
    });
    expect(facts.multiplierChanges).toEqual([
      {
        ts: "2025-12-01T13:00:00.000Z",
        cycle: "C-151",
        cathedral: "FOR-GOVERNMENTS",
        multiplier: 1.5,
        reason: "review",
      },
      {
        ts: "2025-12-03T08:00:00.000Z",
        cycle: "C-153",
        cathedral: "FOR-GOVERNMENTS",
        multiplier: 1.25,
        reason: "rebalancing",
      },
    ]);
  });

  it("consensus counts and deliberations", async () => {
    expect(facts.consensus).toEqual({
      opened: 3,
      evaluated: 2,
      approved: 1,
      rejected: 0,
      noQuorum: 1,
      open: 1,
      sealedProofs: 1,
    });
    expect(facts.deliberations).toEqual([
      {
        ts: "2025-12-02T11:00:00.000Z",
        id: "D-1",
        topic: "Publish the drift analysis",
        sentinels: [{ id: "EVE", position: "support", reasoning: "Transparency first.", virtue_tags: ["integrity"] }],
        consensus: 1,
        outcome: "approved",
      },
    ]);
  });

  it("per sentinel: registration, last heartbeat, uptime, rewards, attestations, votes agreeing with the outcome", async () => {
    expect(facts.sentinels.map((s) => s.id)).toEqual(["ATLAS", "EVE"]); // unregistered voters are not sentinels
    const [atlas, eve] = facts.sentinels;
    expect(atlas).toEqual({
      id: "ATLAS",
      cathedral: "FOR-GOVERNMENTS",
      algorithm: "ed25519",
      publicKey: PK_A,
      registeredAt: "2025-12-01T00:00:00.001Z",
      lastHeartbeat: {
        ts: "2025-12-01T06:00:00.000Z",
        status: "operational",
        gi_score: 0.98,
        apps: 3,
        packages: 5,
        workflows: 2,
        drift: 0.5,
      },
      heartbeatCount: 1,
      uptimeDays: (2 * DAY + 8 * 3_600_000 - 1) / DAY,
      rewardsShards: 100_000_000n,
      mintCount: 1,
      lastMintCoordination: 10.5,
      attestationCount: 1,
      votes: 3,
      votesWithOutcome: 1, // S-1 APPROVE = APPROVED; S-2 had no quorum; S-3 is not evaluated yet
    });
    expect(eve).toMatchObject({
      registeredAt: "2025-12-01T12:00:00.000Z",
      uptimeDays: (DAY + 20 * 3_600_000) / DAY,
      heartbeatCount: 1,
      lastHeartbeat: { status: "degraded", gi_score: 0.94, drift: 1.25 },
      rewardsShards: 50_000_000n,
      lastMintCoordination: 3.25,
      attestationCount: 0,
      votes: 2,
      votesWithOutcome: 0, // REJECT against APPROVED, ABSTAIN without quorum
    });
  });

  it("answers at any point of the stream, and an empty ledger has the empty tree's root", async () => {
    const acc = createFactsAccumulator();
    HAND.slice(0, 6).forEach((e) => acc.add(e));
    const early = acc.result(facts.rootHash);
    expect(early.size).toBe(6);
    expect(early.supplyByCycle).toEqual([
      {
        cycle: "C-151",
        ts: "2025-12-01T23:55:00.000Z",
        mintedShards: 100_000_000n,
        burnedShards: 0n,
        lockedShards: 0n,
      },
    ]);
    HAND.slice(6).forEach((e) => acc.add(e));
    expect(acc.result(facts.rootHash)).toEqual(facts);

    const empty = factsOf([]);
    expect(empty.rootHash).toBe("sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(empty).toMatchObject({ size: 0, firstTs: null, asOf: null, sample: null, sentinels: [], supplyByCycle: [] });
    expect(empty.multipliers).toEqual(Object.fromEntries(CATHEDRALS.map((c) => [c, 1])));
  });
});

describe("facts of a seeded sample ledger", async () => {
  const ledger = await openLedgerStore({ path: ":memory:", origin: "facts-test" });
  const NOW = new Date("2025-12-06T12:00:00.000Z");
  let batch: NewEvent[] = [];
  for (const event of simulate({ seed: "facts-test", size: 6000, now: NOW })) {
    batch.push(event);
    if (batch.length === 500) {
      await ledger.append(batch);
      batch = [];
    }
  }
  await ledger.append(batch);
  const entries = await Array.fromAsync(ledger.entries());
  const facts = factsOf(entries);
  afterAll(async () => await ledger.close());

  it("has the store's size and RFC 9162 root", async () => {
    expect(facts.size).toBe(await ledger.size());
    expect(facts.rootHash).toBe(formatDigest(await ledger.rootHash()));
    expect(facts.asOf).toBe(entries.at(-1)!.ts);
    expect(facts.sample?.seed).toBe("facts-test");
  });

  it("agrees with an independent recount of supply, rewards, multipliers, consensus and votes", async () => {
    const pay = <T>(e: LedgerEntry) => e.payload as unknown as T;
    let minted = 0n;
    let burned = 0n;
    let locked = 0n;
    const rewards = new Map<string, bigint>();
    const multipliers = Object.fromEntries(CATHEDRALS.map((c) => [c, 1])) as Record<Cathedral, number>;
    const votes = new Map<string, [string, string][]>();
    const agree = new Map<string, number>();
    const cast = new Map<string, number>();
    const counts: Record<string, number> = {};
    const byCycle = new Map<string, bigint>();
    let opened = 0;
    let approved = 0;
    for (const e of entries) {
      counts[e.type] = (counts[e.type] ?? 0) + 1;
      if (e.type === "mic_mint") {
        const m = pay<EventPayload<"mic_mint">>(e);
        minted += BigInt(m.amount_shards);
        rewards.set(m.sentinel, (rewards.get(m.sentinel) ?? 0n) + BigInt(m.amount_shards));
        byCycle.set(cycleLabel(new Date(e.ts)), minted);
      }
      if (e.type === "mic_burn") burned += BigInt(pay<EventPayload<"mic_burn">>(e).amount_shards);
      if (e.type === "mic_lock") locked += BigInt(pay<EventPayload<"mic_lock">>(e).amount_shards);
      if (e.type === "mic_unlock") locked -= BigInt(pay<EventPayload<"mic_unlock">>(e).amount_shards);
      if (e.type === "multiplier.changed")
        multipliers[pay<EventPayload<"multiplier.changed">>(e).cathedral] =
          pay<EventPayload<"multiplier.changed">>(e).multiplier;
      if (e.type === "consensus.opened") opened += 1;
      if (e.type === "consensus.vote") {
        const v = pay<EventPayload<"consensus.vote">>(e);
        cast.set(v.participant, (cast.get(v.participant) ?? 0) + 1);
        votes.set(v.session_id, [...(votes.get(v.session_id) ?? []), [v.participant, v.vote]]);
      }
      if (e.type === "consensus.evaluated") {
        const x = pay<EventPayload<"consensus.evaluated">>(e);
        if (x.outcome === "APPROVED") approved += 1;
        for (const [who, v] of votes.get(x.session_id) ?? []) {
          if ((v === "APPROVE" && x.outcome === "APPROVED") || (v === "REJECT" && x.outcome === "REJECTED"))
            agree.set(who, (agree.get(who) ?? 0) + 1);
        }
      }
    }
    expect(facts.supply).toEqual({ mintedShards: minted, burnedShards: burned, lockedShards: locked });
    expect(minted > 0n && burned > 0n && locked > 0n).toBe(true);
    expect(facts.eventCounts).toEqual(Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : 1))));
    expect(facts.multipliers).toEqual(multipliers);
    expect(facts.consensus.opened).toBe(opened);
    expect(facts.consensus.approved).toBe(approved);
    expect(facts.consensus.evaluated + facts.consensus.open).toBe(opened);
    expect(facts.consensus.sealedProofs).toBe(facts.consensus.evaluated);
    expect(facts.sentinels.length).toBe(12);
    for (const s of facts.sentinels) {
      expect(s.rewardsShards).toBe(rewards.get(s.id) ?? 0n);
      expect(s.votes).toBe(cast.get(s.id) ?? 0);
      expect(s.votesWithOutcome).toBe(agree.get(s.id) ?? 0);
      expect(s.uptimeDays).toBe((Date.parse(facts.asOf!) - Date.parse(s.registeredAt)) / DAY);
      expect(s.lastHeartbeat).not.toBeNull();
    }
    // Cumulative per cycle: minted never decreases, cycles in order, the last row is the total.
    const rows = facts.supplyByCycle;
    for (let i = 1; i < rows.length; i++) {
      expect(rows[i]!.mintedShards >= rows[i - 1]!.mintedShards).toBe(true);
      expect(Number(rows[i]!.cycle.slice(2))).toBeGreaterThan(Number(rows[i - 1]!.cycle.slice(2)));
    }
    for (const row of rows) if (byCycle.has(row.cycle)) expect(row.mintedShards).toBe(byCycle.get(row.cycle));
    expect(rows.at(-1)).toMatchObject({ mintedShards: minted, burnedShards: burned, lockedShards: locked });
    expect(facts.deliberations.length).toBe(counts["deliberation.recorded"]);
  });
});
