import { describe, expect, it } from "vitest";
import type { EventPayload } from "../../core/events/registry.ts";
import type { NewEvent } from "../../core/ledger/store.ts";
import { JURISDICTIONS, planAudits } from "./audits.ts";
import { LIVE_INTERVAL_HOURS, LIVE_WINDOW_DAYS, MAX_UNWELL, liveHeartbeats, planLiveness } from "./liveness.ts";
import { DEFAULT_SEED, simulate } from "./simulate.ts";
import { SENTINELS } from "./tables.ts";

const HOUR = 3_600_000;
const NOW = new Date("2026-11-23T14:05:00.000Z");
const IDS = SENTINELS.map((s) => s.id);

/** A seed whose plan has at least one sentinel in each unwell condition (found once, deterministic). */
function seedWithEveryCondition(): string {
  for (let i = 0; i < 500; i++) {
    const plan = planLiveness(`s${i}`, IDS, NOW.getTime());
    const conditions = new Set([...plan.bySentinel.values()].map((v) => v.condition));
    if (conditions.has("degraded") && conditions.has("silent")) return `s${i}`;
  }
  throw new Error("no such seed in 500");
}

describe("liveness plan", () => {
  it("does not make the sentinels beat in step", () => {
    const plan = planLiveness(DEFAULT_SEED, IDS, NOW.getTime());
    const lastBeats = IDS.map((id) => Math.max(...liveHeartbeats(plan, id, 0, Number.MAX_SAFE_INTEGER)));
    expect(new Set(lastBeats).size).toBeGreaterThan(IDS.length / 2);
  });

  it("is deterministic, keeps most sentinels well and at most MAX_UNWELL unwell", () => {
    const a = planLiveness(DEFAULT_SEED, IDS, NOW.getTime());
    expect([...planLiveness(DEFAULT_SEED, IDS, NOW.getTime()).bySentinel]).toEqual([...a.bySentinel]);
    for (let i = 0; i < 200; i++) {
      const plan = planLiveness(`seed-${i}`, IDS, NOW.getTime());
      const unwell = [...plan.bySentinel.values()].filter((v) => v.condition !== "operational");
      expect(unwell.length).toBeLessThanOrEqual(MAX_UNWELL);
      for (const v of unwell) expect(v.sinceMs).toBeLessThan(NOW.getTime());
    }
  });

  it("beats every few hours up to now, and not at all after a silent sentinel's since", () => {
    const plan = planLiveness(seedWithEveryCondition(), IDS, NOW.getTime());
    for (const id of IDS) {
      const beats = liveHeartbeats(plan, id, 0, Number.MAX_SAFE_INTEGER);
      const state = plan.bySentinel.get(id)!;
      for (const t of beats) expect(t).toBeLessThanOrEqual(NOW.getTime());
      if (state.condition === "silent") {
        expect(Math.max(...beats)).toBeLessThan(state.sinceMs);
      } else {
        expect(beats.length).toBeGreaterThanOrEqual((LIVE_WINDOW_DAYS * 24) / LIVE_INTERVAL_HOURS - 1);
        expect(NOW.getTime() - Math.max(...beats)).toBeLessThanOrEqual(LIVE_INTERVAL_HOURS * HOUR);
        for (let i = 1; i < beats.length; i++)
          expect(beats[i]! - beats[i - 1]!).toBeGreaterThan((LIVE_INTERVAL_HOURS - 1) * HOUR);
      }
    }
  });
});

describe("simulated sample at its present", () => {
  it("has every sentinel's last heartbeat within hours of now, in the condition the plan chose", () => {
    const seed = seedWithEveryCondition();
    const plan = planLiveness(seed, IDS, NOW.getTime());
    const last = new Map<string, { ts: string; status: string }>();
    let lastMint = new Map<string, string>();
    for (const e of simulate({ seed, size: 6000, now: NOW }) as Iterable<NewEvent>) {
      if (e.type === "sentinel.heartbeat") {
        const p = e.payload as unknown as EventPayload<"sentinel.heartbeat">;
        last.set(p.sentinel, { ts: e.ts!, status: p.status });
      }
      if (e.type === "mic_mint")
        lastMint = new Map(lastMint).set((e.payload as unknown as EventPayload<"mic_mint">).sentinel, e.ts!);
    }
    for (const id of IDS) {
      const state = plan.bySentinel.get(id)!;
      const hb = last.get(id)!;
      const ageHours = (NOW.getTime() - Date.parse(hb.ts)) / HOUR;
      if (state.condition === "silent") {
        expect(ageHours, id).toBeGreaterThan(48);
        // Nothing minted after it fell silent.
        expect(Date.parse(lastMint.get(id) ?? "1970-01-01T00:00:00Z")).toBeLessThan(state.sinceMs);
      } else {
        expect(ageHours, id).toBeLessThanOrEqual(LIVE_INTERVAL_HOURS);
        expect(hb.status, id).toBe(state.condition);
      }
    }
  });
});

describe("simulated compliance audits", () => {
  it("audits each jurisdiction about twice a year, each audit naming the next, deterministically", () => {
    const audits = planAudits(DEFAULT_SEED, Date.parse("2025-07-04T00:00:00.000Z"), NOW.getTime());
    expect(planAudits(DEFAULT_SEED, Date.parse("2025-07-04T00:00:00.000Z"), NOW.getTime())).toEqual(audits);
    for (const j of JURISDICTIONS) {
      const mine = audits.filter((a) => a.jurisdiction === j);
      expect(mine.length, j).toBeGreaterThanOrEqual(2);
      mine.forEach((a, i) => {
        expect(a.next_audit > a.audited_on).toBe(true);
        if (i > 0)
          expect(Date.parse(a.audited_on) - Date.parse(mine[i - 1]!.audited_on)).toBeGreaterThan(150 * 24 * HOUR);
      });
    }
    for (const a of audits) expect(a.ms).toBeLessThanOrEqual(NOW.getTime());
    // The simulated ledger records them.
    const recorded = [...simulate({ seed: DEFAULT_SEED, size: 6000, now: NOW })].filter(
      (e) => e.type === "compliance.audited",
    );
    expect(recorded.map((e) => e.payload)).toEqual(
      audits.map(({ jurisdiction, auditor, audited_on, next_audit }) => ({
        jurisdiction,
        auditor,
        audited_on,
        next_audit,
      })),
    );
  });
});
