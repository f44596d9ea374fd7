/**
 * The sample-ledger simulator: SAMPLE DATA, deterministic, pure.
 *
 * `simulate({seed, size, now})` lazily yields the events of a realistic ledger history from C-1
 * (2025-07-04) up to `now`, each with an explicit `ts`, in non-decreasing time order; nothing here
 * reads the clock or the OS random source. The same seed, size and now give the same events, and
 * therefore — appended to an empty ledger — a byte-identical ledger and export.
 *
 * What a simulated day (cycle) holds, at the default size:
 * - each active sentinel sends heartbeats (status mostly operational, GI ≈ 0.95–0.995; its apps,
 *   packages, workflows and drift drift slowly) and now and then a signed `attestation` of a
 *   published file; in the last days before `now` every few hours, up to `now`, with the few
 *   degraded, offline or silent sentinels liveness.ts chooses (so the sample is alive at `now`);
 * - at 23:55 each active sentinel whose last heartbeat was not offline mints: `coordination_score`
 *   = coordinationScore(last heartbeat's apps/packages/workflows/drift, uptime in days since its
 *   registration at the mint's instant), rounded to 4 decimals; `multiplier` = its cathedral's
 *   current multiplier; `amount_shards` = rewardShards(that score, that multiplier) — so every mint
 *   can be recomputed from its own payload;
 * - about twice a year per jurisdiction a `compliance.audited` with the next due date (audits.ts);
 * - occasionally a burn, a lock or an unlock (an account never locks or burns more than it has
 *   free: minted − burned − locked), a multiplier change (values in [1.0, 2.0]), a standalone
 *   deliberation, a new AVM identity with its stake (roles in turn), and about four consensus sessions a week, run
 *   through the consensus decisions (consensus.ts): opened (two critical- and two high-priority
 *   offices, each with GI >= 0.95), a `deliberation.recorded`, the signed votes, the deliberation
 *   proof generated, signed by the four, validated by a fifth office, and the close that seals it;
 * - at the start of each cycle a `cycle.updated` with the offices' mean GI;
 * - authority activity (authority.ts), through the AVM's own operations and verifier: companions
 *   registered in C-1, verify attempts that grant, renew or fail at each of the five stages, and
 *   revocations by each trigger.
 * Every sentinel registers as a consensus office (its priority is in tables.ts).
 *
 * The migration freeze window (core/migration/phases.ts) holds money: no mint, burn, lock or unlock
 * happens inside it (so the snapshot day C-151 mints nothing), and no identity registers when its
 * stake would fall inside it.
 *
 * `size` is the approximate number of events: it scales the high-volume kinds (heartbeats,
 * attestations, burns/locks/unlocks, identities) per cycle; mints (one per sentinel per cycle),
 * sessions, deliberations and multiplier changes keep their realistic rates. Below that floor
 * (about 21 events per simulated day) the ledger comes out larger than asked. Memory is bounded by
 * one cycle's events, so `size: 1_000_000` streams.
 *
 * `simulate` is one generator whose local state (the schedule of the day, the accounts, the random
 * stream) every kind of event reads and advances in one fixed order, on which the byte-identical
 * sample rests. The parts that stand alone live beside it: the plan (plan.ts), the day's schedule
 * (schedule.ts), the consensus sessions (consensus.ts), the authority (authority.ts), the audits
 * (audits.ts), liveness (liveness.ts) and the tables (tables.ts).
 */
import { digestOf } from "../../core/digest.ts";
import { coordinationScore, rewardShards, MULTIPLIER_MAX, MULTIPLIER_MIN } from "../../core/economy/formulas.ts";
import { cycleStart } from "../../core/cycle.ts";
import type { NewEvent } from "../../core/ledger/store.ts";
import { inFreezeWindow } from "../../core/migration/phases.ts";
import { CATHEDRALS, type Cathedral } from "../../core/schemas/common.ts";
import { planAudits } from "./audits.ts";
import { forcedStatus, isSilenced, liveHeartbeats, planLiveness } from "./liveness.ts";
import { Prng } from "./prng.ts";
import { AUTHORITY_STEPS_PER_DAY, SAMPLE_COMPANIONS, SampleAuthority } from "./authority.ts";
import { SampleConsensus, type ActionResult } from "./consensus.ts";
import { attestationMessage } from "./proof.ts";
import { sampleSigner, type SampleSigner } from "./sample-keys.ts";
import {
  ATTESTATION_SUBJECTS,
  BURN_REASONS,
  GENESIS_MULTIPLIERS,
  IDENTITY_ROLES,
  LOCK_CONTRACTS,
  MULTIPLIER_REASONS_DOWN,
  MULTIPLIER_REASONS_UP,
  REASONING_CLAUSES,
  REASONING_CLOSERS,
  REASONING_OPENERS,
  TOPICS,
  VIRTUES,
  type SentinelSpec,
} from "./tables.ts";
import { DAY_MS } from "../../core/time.ts";
import { SAMPLE_SEED } from "../../core/sample-key.ts";
import { RATE, planSimulation, type SimulationOptions } from "./plan.ts";
import { Schedule } from "./schedule.ts";

export const GENERATOR = "pipeline/seed";

export const SAMPLE_NOTICE =
  "SAMPLE DATA — generated by the deterministic simulator in pipeline/seed; not real activity";

export const DEFAULT_SEED = SAMPLE_SEED;

export const DEFAULT_SIZE = 6000;

const MINUTE = 60_000;

/** Mints happen at 23:55 of each cycle; everything else of the day is scheduled before. */
const MINT_OFFSET = 23 * 3_600_000 + 55 * MINUTE;

const LAST_ACTIVITY = 23 * 3_600_000 + 50 * MINUTE;

const MIC = 1_000_000n;

interface Heartbeat {
  status: "operational" | "degraded" | "offline";
  gi_score: number;
  apps: number;
  packages: number;
  workflows: number;
  drift: number;
}

interface SentinelState {
  spec: SentinelSpec;
  index: number;
  registerCycle: number;
  /** First cycle in which it works (the one after a late registration). */
  activeFrom: number;
  signer: SampleSigner;
  registeredMs: number | null;
  giBase: number;
  shape: { apps: number; packages: number; workflows: number; drift: number };
  last: Heartbeat | null;
}

interface Account {
  minted: bigint;
  burned: bigint;
  locks: Map<string, bigint>;
}

type Position = "support" | "oppose" | "abstain";

type Statement = { id: string; position: Position; reasoning: string; virtue_tags: string[] };

const round = (x: number, digits: number): number => {
  const f = 10 ** digits;
  return Math.round(x * f) / f + 0; // + 0 turns -0 into 0
};

const clamp = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, x));

const iso = (ms: number): string => new Date(ms).toISOString();

// ---------------------------------------------------------------------------------------------

/** The sample ledger's events, lazily, oldest first. */
export function* simulate(options: SimulationOptions): Generator<NewEvent, void, undefined> {
  const plan = planSimulation(options);
  const { seed, nowMs, scale } = plan;
  const rng = new Prng(seed);

  const sentinels: SentinelState[] = plan.sentinels.map(({ spec, registerCycle }, index) => ({
    spec,
    index,
    registerCycle,
    activeFrom: registerCycle === 1 ? 1 : registerCycle + 1,
    signer: sampleSigner(seed, spec.id),
    registeredMs: null,
    giBase: round(rng.uniform(0.968, 0.985), 4),
    shape: {
      apps: rng.between(3, 9),
      packages: rng.between(5, 16),
      workflows: rng.between(2, 7),
      drift: round(rng.uniform(0.3, 1.5), 2),
    },
    last: null,
  }));
  const multipliers: Record<Cathedral, number> = {
    "FOR-GOVERNMENTS": 1,
    "FOR-ACADEMICS": 1,
    "FOR-PHILOSOPHERS": 1,
    "FOR-ECONOMISTS": 1,
    DIPLOMACY: 1,
  };
  const accounts = new Map<string, Account>();
  const account = (id: string): Account => {
    let a = accounts.get(id);
    if (!a) accounts.set(id, (a = { minted: 0n, burned: 0n, locks: new Map() }));
    return a;
  };
  const lockedOf = (a: Account): bigint => [...a.locks.values()].reduce((x, y) => x + y, 0n);
  const freeOf = (a: Account): bigint => a.minted - a.burned - lockedOf(a);
  let identities = 0;
  // The instant of the action being run: actions read it instead of a clock.
  let current = 0;
  // The consensus registry, folded from every event yielded so far.
  const consensus = new SampleConsensus();
  const signers = new Map(sentinels.map((s) => [s.spec.id, s.signer]));
  // The authority registry, folded the same way; its own stream, so its choices leave the rest alone.
  const authorityRng = new Prng(`${seed}/authority`);
  const authority = new SampleAuthority(seed, authorityRng);

  const hbPerDay = RATE.heartbeatsPerSentinel * scale;
  // Alive at `now`: regular heartbeats in the last days, and the few unwell sentinels (liveness.ts).
  const live = planLiveness(
    seed,
    sentinels.map((s) => s.spec.id),
    nowMs,
  );
  const silenced = (s: SentinelState) => isSilenced(live, s.spec.id, current);
  // Compliance audits of the four jurisdictions (audits.ts).
  const audits = planAudits(seed, cycleStart(plan.firstCycle).getTime(), nowMs);
  // Money does not move inside the migration freeze window.
  const frozen = (): boolean => inFreezeWindow(current);

  for (let n = plan.firstCycle; n <= plan.lastCycle; n++) {
    const start = cycleStart(n).getTime();
    const cycle = `C-${n}`;
    const schedule = new Schedule();
    const at = (offset: number, run: () => ActionResult) => schedule.add(start + offset, run);
    const active = sentinels.filter((s) => s.activeFrom <= n);

    // --- Genesis: the sample marker, the founding roster and the founding multipliers.
    if (n === 1) {
      at(0, () => ({ type: "sample.generated", payload: { generator: GENERATOR, seed, notice: SAMPLE_NOTICE } }));
      CATHEDRALS.forEach((c, i) => {
        at(100 + i, () => setMultiplier(c, GENESIS_MULTIPLIERS[c], "genesis allocation from the charter schedule"));
      });
    }
    if (n === 1) SAMPLE_COMPANIONS.forEach((id, i) => at(200 + i, () => authority.registerCompanion(id)));
    for (const s of sentinels) {
      if (s.registerCycle !== n) continue;
      at(n === 1 ? 1 + s.index : rng.int(3_600_000), () => {
        s.registeredMs = current;
        return consensus.registerOffice(s.spec, s.signer);
      });
    }
    at(30_000, () => consensus.updateCycle(cycle));

    // --- Heartbeats and attestations of the active sentinels.
    for (const s of active) {
      const beats = Math.max(s.last === null ? 1 : 0, rng.count(hbPerDay));
      for (let i = 0; i < beats; i++) at(rng.between(MINUTE, LAST_ACTIVITY), () => heartbeat(s));
      for (const t of liveHeartbeats(live, s.spec.id, start, start + DAY_MS)) schedule.add(t, () => heartbeat(s));
      const attestations = rng.count(RATE.attestationsPerSentinel * scale);
      for (let i = 0; i < attestations; i++) {
        at(rng.between(MINUTE, LAST_ACTIVITY), () => {
          const subject = `${rng.pick(ATTESTATION_SUBJECTS[s.spec.cathedral])}@${cycle}`;
          // Stand-in for the digest of the attested file's bytes (the sample has no such file).
          const attestation_hash = digestOf({ subject, agent: s.spec.id, content: rng.nextUint32() });
          return silenced(s) ? null : attest(s, subject, attestation_hash);
        });
      }
      // --- The mint at the end of the day.
      at(MINT_OFFSET + s.index * 1000 + rng.int(1000), () => mint(s, cycle));
    }

    for (const a of audits) {
      if (a.ms < start || a.ms >= start + DAY_MS) continue;
      const { jurisdiction, auditor, audited_on, next_audit } = a;
      schedule.add(a.ms, () => ({
        type: "compliance.audited",
        payload: { jurisdiction, auditor, audited_on, next_audit },
      }));
    }

    // --- Money movements, multipliers, identities, deliberations, sessions.
    for (let i = rng.count(RATE.burns * scale); i > 0; i--) at(rng.between(MINUTE, LAST_ACTIVITY), burn);
    for (let i = rng.count(RATE.locks * scale); i > 0; i--) at(rng.between(MINUTE, LAST_ACTIVITY), lock);
    for (let i = rng.count(RATE.unlocks * scale); i > 0; i--) at(rng.between(MINUTE, LAST_ACTIVITY), unlock);
    if (n > 1) {
      for (const c of CATHEDRALS) {
        if (rng.chance(RATE.multiplierChangePerCathedral))
          at(rng.between(MINUTE, LAST_ACTIVITY), () => changeMultiplier(c));
      }
    }
    const newIdentities = Math.max(n === 1 ? 1 : 0, rng.count(RATE.identities));
    for (let i = 0; i < newIdentities; i++) {
      const t = rng.between(MINUTE, LAST_ACTIVITY - 31 * MINUTE);
      // Its stake follows within 1–30 minutes: no identity registers when that falls in the freeze.
      if (inFreezeWindow(start + t + MINUTE) || inFreezeWindow(start + t + 30 * MINUTE)) continue;
      at(t, () => registerIdentity(schedule, start + t));
    }
    // Authority: verify attempts and revocations (authority.ts), and the drift and stake that come back.
    for (let i = authorityRng.count(AUTHORITY_STEPS_PER_DAY); i > 0; i--)
      at(authorityRng.between(MINUTE, LAST_ACTIVITY), () => authority.step(current, frozen()));
    if (authorityRng.chance(RATE.driftRecoveries))
      at(authorityRng.between(MINUTE, LAST_ACTIVITY), () => authority.driftRecoveries(current));
    if (authorityRng.chance(RATE.restakes))
      at(authorityRng.between(MINUTE, LAST_ACTIVITY), () => authority.restake(frozen()));
    let deliberationNo = 0;
    for (let i = rng.count(RATE.deliberations); i > 0; i--) {
      at(rng.between(MINUTE, LAST_ACTIVITY), () => standaloneDeliberation(`D-${n}-${++deliberationNo}`));
    }
    const sessionContext = {
      rng,
      at: (ms: number, run: () => ActionResult) => schedule.add(ms, run),
      statement,
      signer: (id: string) => signers.get(id)!,
      available: (id: string) => {
        const s = sentinels.find((x) => x.spec.id === id);
        return s !== undefined && !silenced(s);
      },
    };
    for (let i = rng.count(RATE.sessions); i > 0; i--) {
      const t = rng.between(30 * MINUTE, 22 * 3_600_000);
      at(t, () => consensus.openSession(sessionContext, n, start + t));
    }

    // Run the day in time order; what falls after `now` does not happen (yet).
    for (let action = schedule.pop(); action; action = schedule.pop()) {
      if (action.ms > nowMs) break;
      current = action.ms;
      const ran = action.run();
      for (const event of ran === null ? [] : Array.isArray(ran) ? ran : [ran]) {
        const stamped: NewEvent = { ...event, ts: iso(action.ms) };
        consensus.observe(stamped);
        authority.observe(stamped);
        yield stamped;
      }
    }
  }

  // ------------------------------------------------------------------------------------------
  // Actions. Each runs at its scheduled instant (`current`) and returns the event it records.

  function heartbeat(s: SentinelState): NewEvent | null {
    if (silenced(s)) return null;
    const r = rng.next();
    const status: Heartbeat["status"] =
      forcedStatus(live, s.spec.id, current) ?? (r < 0.965 ? "operational" : r < 0.99 ? "degraded" : "offline");
    // Daily probabilities of a change, spread over the day's heartbeats.
    const per = 1 / Math.max(hbPerDay, 1);
    const shape = s.shape;
    if (rng.chance(0.03 * per)) shape.apps = Math.min(30, shape.apps + 1);
    if (rng.chance(0.01 * per)) shape.apps = Math.max(1, shape.apps - 1);
    if (rng.chance(0.05 * per)) shape.packages = Math.min(60, shape.packages + 1);
    if (rng.chance(0.015 * per)) shape.packages = Math.max(1, shape.packages - 1);
    if (rng.chance(0.02 * per)) shape.workflows = Math.min(20, shape.workflows + 1);
    if (rng.chance(0.008 * per)) shape.workflows = Math.max(1, shape.workflows - 1);
    shape.drift = round(
      clamp(shape.drift + rng.gaussian(0.04 * Math.sqrt(per)) + (status === "operational" ? 0 : 0.05), 0, 3),
      2,
    );
    const gi =
      status === "operational"
        ? clamp(s.giBase + rng.gaussian(0.008), 0.95, 0.995)
        : status === "degraded"
          ? rng.uniform(0.92, 0.95)
          : rng.uniform(0.88, 0.93);
    const hb: Heartbeat = { status, gi_score: round(gi, 4), ...shape };
    s.last = hb;
    return { type: "sentinel.heartbeat", payload: { sentinel: s.spec.id, ...hb } };
  }

  function attest(s: SentinelState, subject: string, attestation_hash: string): NewEvent {
    const signature = s.signer.sign(attestationMessage({ agent: s.spec.id, subject, attestation_hash }));
    return {
      type: "attestation",
      payload: {
        agent: s.spec.id,
        subject,
        attestation_hash,
        algorithm: s.signer.algorithm,
        public_key: s.signer.publicKey,
        signature,
      },
    };
  }

  function mint(s: SentinelState, cycle: string): NewEvent | null {
    const hb = s.last;
    if (hb === null || hb.status === "offline" || s.registeredMs === null || silenced(s) || frozen()) return null;
    const uptimeDays = (current - s.registeredMs) / DAY_MS;
    const coordination_score = round(coordinationScore({ ...hb, uptimeDays }), 4);
    const multiplier = multipliers[s.spec.cathedral];
    const amount = rewardShards(coordination_score, multiplier);
    account(s.spec.id).minted += amount;
    return {
      type: "mic_mint",
      payload: {
        sentinel: s.spec.id,
        cycle,
        cathedral: s.spec.cathedral,
        amount_shards: amount.toString(),
        coordination_score,
        multiplier,
      },
    };
  }

  function withFree(): { id: string; a: Account; free: bigint }[] {
    const out: { id: string; a: Account; free: bigint }[] = [];
    for (const s of sentinels) {
      const a = accounts.get(s.spec.id);
      if (!a) continue;
      const free = freeOf(a);
      if (free > 0n) out.push({ id: s.spec.id, a, free });
    }
    return out;
  }

  function burn(): NewEvent | null {
    if (frozen()) return null;
    const candidates = withFree();
    if (candidates.length === 0) return null;
    const { id, a, free } = rng.pick(candidates);
    const amount = (free * BigInt(rng.between(1, 3))) / 100n;
    if (amount === 0n) return null;
    a.burned += amount;
    return {
      type: "mic_burn",
      payload: { account: id, amount_shards: amount.toString(), reason: rng.pick(BURN_REASONS) },
    };
  }

  function lock(): NewEvent | null {
    if (frozen()) return null;
    const candidates = withFree();
    if (candidates.length === 0) return null;
    const { id, a, free } = rng.pick(candidates);
    // Whole MIC, 10–40 % of what is free.
    const amount = ((free * BigInt(rng.between(10, 40))) / 100n / MIC) * MIC;
    if (amount === 0n) return null;
    const contract = rng.pick(LOCK_CONTRACTS);
    a.locks.set(contract, (a.locks.get(contract) ?? 0n) + amount);
    return { type: "mic_lock", payload: { account: id, amount_shards: amount.toString(), contract } };
  }

  function unlock(): NewEvent | null {
    if (frozen()) return null;
    const positions: { id: string; a: Account; contract: string; locked: bigint }[] = [];
    for (const s of sentinels) {
      const a = accounts.get(s.spec.id);
      if (!a) continue;
      for (const contract of LOCK_CONTRACTS) {
        const locked = a.locks.get(contract) ?? 0n;
        if (locked > 0n) positions.push({ id: s.spec.id, a, contract, locked });
      }
    }
    if (positions.length === 0) return null;
    const { id, a, contract, locked } = rng.pick(positions);
    const half = (locked / 2n / MIC) * MIC;
    const amount = rng.chance(0.5) || half === 0n ? locked : half;
    a.locks.set(contract, locked - amount);
    return { type: "mic_unlock", payload: { account: id, amount_shards: amount.toString(), contract } };
  }

  function setMultiplier(c: Cathedral, value: number, reason: string): NewEvent {
    multipliers[c] = value;
    return { type: "multiplier.changed", payload: { cathedral: c, multiplier: value, reason } };
  }

  function changeMultiplier(c: Cathedral): NewEvent | null {
    const old = multipliers[c];
    let delta = round(rng.gaussian(0.08), 2);
    if (delta === 0) delta = rng.chance(0.5) ? 0.05 : -0.05;
    const value = round(clamp(old + delta, MULTIPLIER_MIN, MULTIPLIER_MAX), 2);
    if (value === old) return null;
    return setMultiplier(c, value, rng.pick(value > old ? MULTIPLIER_REASONS_UP : MULTIPLIER_REASONS_DOWN));
  }

  /** An identity of the next role, registered through the AVM's operation; its stake follows. */
  function registerIdentity(schedule: Schedule, t: number): NewEvent[] {
    const k = identities++;
    const algorithm = k % 3 === 2 ? "secp256k1" : "ed25519";
    const role = IDENTITY_ROLES[k % IDENTITY_ROLES.length]!;
    const mic = role === "deployer" || role === "admin" ? rng.between(10_000, 25_000) : rng.between(500, 5_000);
    const stakeAt = t + rng.between(MINUTE, 30 * MINUTE);
    const { events, ledgerId } = authority.registerIdentity(k, algorithm, role, round(rng.uniform(0.82, 0.99), 2));
    schedule.add(stakeAt, () => authority.lockStake(ledgerId, mic));
    return events;
  }

  function statement(id: string, position: Position): Statement {
    const closer = rng.pick(REASONING_CLOSERS);
    const reasoning = `${rng.pick(REASONING_OPENERS[position])} ${rng.pick(REASONING_CLAUSES[position])}.${closer ? ` ${closer}` : ""}`;
    const virtue_tags = rng.sample(VIRTUES, rng.between(1, 2)).sort();
    return { id, position, reasoning, virtue_tags };
  }

  function standaloneDeliberation(id: string): NewEvent | null {
    const pool = sentinels.filter((s) => s.registeredMs !== null && !silenced(s));
    if (pool.length < 3) return null;
    const philosophers = pool.filter((s) => s.spec.cathedral === "FOR-PHILOSOPHERS");
    const chosen = rng.sample(pool, rng.between(3, 5));
    if (philosophers.length > 0 && !chosen.some((s) => s.spec.cathedral === "FOR-PHILOSOPHERS"))
      chosen[0] = rng.pick(philosophers);
    const c = rng.pick(CATHEDRALS);
    const statements = chosen.map((s) => {
      const r = rng.next();
      return statement(s.spec.id, r < 0.7 ? "support" : r < 0.9 ? "oppose" : "abstain");
    });
    const supports = statements.filter((x) => x.position === "support").length;
    const opposes = statements.filter((x) => x.position === "oppose").length;
    const consensus = round(supports / statements.length, 4);
    const outcome = supports * 3 >= statements.length * 2 ? "approved" : opposes >= supports ? "rejected" : "deferred";
    return {
      type: "deliberation.recorded",
      payload: { id, topic: rng.pick(TOPICS[c]), sentinels: statements, consensus, outcome },
    };
  }
}
