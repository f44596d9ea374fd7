/**
 * The ledger facts every document step reads (./types.ts), accumulated in one streaming pass:
 * entries go in through `add` in ledger order, `result()` answers at any point, and memory grows
 * with sentinels, cycles and open sessions, never with entries. The accumulator does no hashing —
 * the pass rehashes what it reads, and nothing made from the facts is published or kept until the
 * root of what it read is the ledger's. How each figure is counted: README "Ledger facts".
 */
import { activityFigures, authorityActivity } from "../../core/avm/activity.ts";
import { canonicalize } from "../../core/canonical.ts";
import { consensusProjection } from "../../core/consensus/state.ts";
import { registrySnapshot, sessionSummaries } from "../../core/consensus/views.ts";
import { CompactRange } from "../../core/compact-range.ts";
import { cycleNumber } from "../../core/cycle.ts";
import { isSupplyEvent, supplyProjection } from "../../core/economy/supply.ts";
import { formatDigest } from "../../core/digest.ts";
import type { LedgerEntry } from "../../core/ledger/entry.ts";
import type { EventPayload } from "../../core/events/registry.ts";
import { leafHashOfText } from "../../core/merkle.ts";
import { CATHEDRALS, type Cathedral } from "../../core/schemas/common.ts";
import type {
  ConsensusFacts,
  CycleSupply,
  DeliberationFacts,
  LedgerFacts,
  MultiplierChange,
  SentinelFacts,
} from "./types.ts";
import { DAY_MS } from "../../core/time.ts";

export interface FactsAccumulator {
  add(entry: LedgerEntry): void;
  /** The facts so far, for the entries whose RFC 9162 root (`sha256:<hex>`) is `rootHash`. */
  result(rootHash: string): LedgerFacts;
  /**
   * Everything the accumulator holds, for `createFactsAccumulator(snapshot)` to continue from
   * (pipeline/pass/fold-state.ts keeps it between runs): plain data, Maps, Sets and bigints, which
   * node:v8's serializer keeps whole, shared references included. Absent: it cannot be continued.
   */
  snapshot?(): FactsSnapshot;
}

/** The accumulator's state between two entries (opaque to callers). */
export type FactsSnapshot = { readonly facts: unique symbol };

type SentinelState = Omit<SentinelFacts, "uptimeDays">;

/** The cycle label of a ledger timestamp; instants before C-1 count in C-1. */
function cycleOf(ts: string): string {
  const ms = Date.parse(ts);
  try {
    return `C-${cycleNumber(new Date(ms))}`;
  } catch {
    return "C-1";
  }
}

function initialState() {
  return {
    size: 0,
    firstTs: null as string | null,
    asOf: null as string | null,
    sample: null as LedgerFacts["sample"],
    eventCounts: new Map<string, number>(),
    sentinels: new Map<string, SentinelState>(),
    supply: supplyProjection.initial(),
    supplyByCycle: [] as CycleSupply[],
    // The cycle whose supply row is being accumulated (pushed when a later cycle starts or at the end).
    supplyCycle: null as { cycle: string; ts: string } | null,
    multipliers: Object.fromEntries(CATHEDRALS.map((c) => [c, 1])) as Record<Cathedral, number>,
    multiplierChanges: [] as MultiplierChange[],
    audits: {} as LedgerFacts["audits"],
    deliberations: [] as DeliberationFacts[],
    consensus: {
      opened: 0,
      evaluated: 0,
      approved: 0,
      rejected: 0,
      noQuorum: 0,
      open: 0,
      sealedProofs: 0,
    } as ConsensusFacts,
    openSessions: new Set<string>(),
    // Votes waiting for their session's evaluation: session_id → [participant, vote][].
    pendingVotes: new Map<string, [string, string][]>(),
    evaluatedSessions: new Set<string>(),
    registry: consensusProjection.initial(),
    authority: authorityActivity.initial(),
    // The cycle label is the same for a whole day: the last one computed.
    lastDay: "",
    lastCycle: "C-1",
  };
}

/** A new accumulator, or one that continues from `from` (a `snapshot()` of an accumulator of this code). */
export function createFactsAccumulator(from?: FactsSnapshot): FactsAccumulator {
  const state = (from as unknown as ReturnType<typeof initialState> | undefined) ?? initialState();
  let { size, firstTs, asOf, sample, supplyCycle, lastDay, lastCycle } = state;
  const { eventCounts, sentinels, supply, supplyByCycle, multipliers, multiplierChanges, audits } = state;
  const { deliberations, consensus, openSessions, pendingVotes, evaluatedSessions, registry, authority } = state;
  const cycleAt = (ts: string): string => {
    const day = ts.slice(0, 10);
    if (day !== lastDay) {
      lastDay = day;
      lastCycle = cycleOf(ts);
    }
    return lastCycle;
  };

  function supplyEvent(ts: string): void {
    const cycle = cycleAt(ts);
    if (supplyCycle !== null && supplyCycle.cycle !== cycle) flushSupply();
    supplyCycle = { cycle, ts };
  }

  function flushSupply(): void {
    if (supplyCycle === null) return;
    supplyByCycle.push({ cycle: supplyCycle.cycle, ts: supplyCycle.ts, ...supply });
    supplyCycle = null;
  }

  function add(entry: LedgerEntry): void {
    size += 1;
    const { type, ts } = entry;
    if (firstTs === null) firstTs = ts;
    asOf = ts;
    eventCounts.set(type, (eventCounts.get(type) ?? 0) + 1);
    const payload = entry.payload as unknown;
    consensusProjection.apply(registry, entry);
    authorityActivity.apply(authority, entry);
    if (isSupplyEvent(type)) {
      supplyEvent(ts);
      supplyProjection.apply(supply, entry);
    }

    switch (type) {
      case "sample.generated": {
        const p = payload as EventPayload<"sample.generated">;
        if (sample === null) sample = { generator: p.generator, seed: p.seed, notice: p.notice };
        break;
      }
      case "sentinel.registered": {
        const p = payload as EventPayload<"sentinel.registered">;
        const known = sentinels.get(p.sentinel);
        if (known) {
          known.cathedral = p.cathedral;
          known.algorithm = p.algorithm;
          known.publicKey = p.public_key;
        } else {
          sentinels.set(p.sentinel, {
            id: p.sentinel,
            cathedral: p.cathedral,
            algorithm: p.algorithm,
            publicKey: p.public_key,
            registeredAt: ts,
            lastHeartbeat: null,
            heartbeatCount: 0,
            rewardsShards: 0n,
            mintCount: 0,
            lastMintCoordination: null,
            attestationCount: 0,
            votes: 0,
            votesWithOutcome: 0,
          });
        }
        break;
      }
      case "sentinel.heartbeat": {
        const p = payload as EventPayload<"sentinel.heartbeat">;
        const s = sentinels.get(p.sentinel);
        if (s) {
          s.heartbeatCount += 1;
          s.lastHeartbeat = {
            ts,
            status: p.status,
            gi_score: p.gi_score,
            apps: p.apps,
            packages: p.packages,
            workflows: p.workflows,
            drift: p.drift,
          };
        }
        break;
      }
      case "attestation": {
        const s = sentinels.get((payload as EventPayload<"attestation">).agent);
        if (s) s.attestationCount += 1;
        break;
      }
      case "deliberation.recorded": {
        const p = payload as EventPayload<"deliberation.recorded">;
        deliberations.push({
          ts,
          id: p.id,
          topic: p.topic,
          sentinels: p.sentinels.map((x) => ({
            id: x.id,
            position: x.position,
            reasoning: x.reasoning,
            virtue_tags: [...x.virtue_tags],
          })),
          consensus: p.consensus,
          outcome: p.outcome,
        });
        break;
      }
      case "mic_mint": {
        const p = payload as EventPayload<"mic_mint">;
        const s = sentinels.get(p.sentinel);
        if (s) {
          s.rewardsShards += BigInt(p.amount_shards);
          s.mintCount += 1;
          s.lastMintCoordination = p.coordination_score;
        }
        break;
      }
      case "multiplier.changed": {
        const p = payload as EventPayload<"multiplier.changed">;
        multipliers[p.cathedral] = p.multiplier;
        multiplierChanges.push({
          ts,
          cycle: cycleAt(ts),
          cathedral: p.cathedral,
          multiplier: p.multiplier,
          reason: p.reason,
        });
        break;
      }
      case "compliance.audited": {
        const p = payload as EventPayload<"compliance.audited">;
        audits[p.jurisdiction] = { ts, auditor: p.auditor, auditedOn: p.audited_on, nextAudit: p.next_audit };
        break;
      }
      case "consensus.opened": {
        const p = payload as EventPayload<"consensus.opened">;
        consensus.opened += 1;
        openSessions.add(p.session_id);
        break;
      }
      case "consensus.vote": {
        const p = payload as EventPayload<"consensus.vote">;
        const s = sentinels.get(p.participant);
        if (s) s.votes += 1;
        if (evaluatedSessions.has(p.session_id)) break;
        let list = pendingVotes.get(p.session_id);
        if (!list) pendingVotes.set(p.session_id, (list = []));
        list.push([p.participant, p.vote]);
        break;
      }
      case "consensus.evaluated": {
        const p = payload as EventPayload<"consensus.evaluated">;
        consensus.evaluated += 1;
        if (p.outcome === "APPROVED") consensus.approved += 1;
        else if (p.outcome === "REJECTED") consensus.rejected += 1;
        else consensus.noQuorum += 1;
        openSessions.delete(p.session_id);
        evaluatedSessions.add(p.session_id);
        const agreeing = p.outcome === "APPROVED" ? "APPROVE" : p.outcome === "REJECTED" ? "REJECT" : null;
        for (const [participant, vote] of pendingVotes.get(p.session_id) ?? []) {
          const s = sentinels.get(participant);
          if (s && vote === agreeing) s.votesWithOutcome += 1;
        }
        pendingVotes.delete(p.session_id);
        break;
      }
      case "delibproof.sealed":
        consensus.sealedProofs += 1;
        break;
      default:
        break;
    }
  }

  function result(rootHash: string): LedgerFacts {
    const supplyRows =
      supplyCycle === null
        ? supplyByCycle.slice()
        : [...supplyByCycle, { cycle: supplyCycle.cycle, ts: supplyCycle.ts, ...supply }];
    const asOfMs = asOf === null ? NaN : Date.parse(asOf);
    const sentinelFacts: SentinelFacts[] = [...sentinels.values()]
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((s) => ({
        ...s,
        lastHeartbeat: s.lastHeartbeat ? { ...s.lastHeartbeat } : null,
        uptimeDays: (asOfMs - Date.parse(s.registeredAt)) / DAY_MS,
      }));
    const counts: Record<string, number> = {};
    for (const key of [...eventCounts.keys()].sort()) counts[key] = eventCounts.get(key)!;
    return {
      size,
      rootHash,
      firstTs,
      asOf,
      sample: sample === null ? null : { ...sample },
      eventCounts: counts,
      sentinels: sentinelFacts,
      supply: { ...supply },
      supplyByCycle: supplyRows,
      multipliers: { ...multipliers },
      multiplierChanges: multiplierChanges.slice(),
      audits: { ...audits },
      deliberations: deliberations.slice(),
      consensus: { ...consensus, open: openSessions.size },
      consensusSessions: sessionSummaries(registry),
      consensusRegistry: registrySnapshot(registry),
      authorityActivity: activityFigures(authority),
    };
  }

  function snapshot(): FactsSnapshot {
    Object.assign(state, { size, firstTs, asOf, sample, supplyCycle, lastDay, lastCycle });
    return state as unknown as FactsSnapshot;
  }

  return { add, result, snapshot };
}

/** Facts of a whole sequence of entries, with their root computed here (tests and small callers). */
export function factsOf(entries: Iterable<LedgerEntry>): LedgerFacts {
  const accumulator = createFactsAccumulator();
  const range = CompactRange.empty();
  for (const entry of entries) {
    range.append(leafHashOfText(canonicalize(entry)));
    accumulator.add(entry);
  }
  return accumulator.result(formatDigest(range.root()));
}
