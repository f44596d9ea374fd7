import { describe, expect, it } from "vitest";
import { ConsensusMonitoring } from "../schemas/consensus.ts";
import { isoWeekLabel, weeklyMonitoring, weekStart } from "./monitoring.ts";
import type { SessionSummary } from "./views.ts";

const s = (
  opened: string,
  minutes: number | null,
  outcome: SessionSummary["outcome"] = "APPROVED",
  agreement = 0.75,
  gi_delta = 0.002,
): SessionSummary => ({
  session_id: opened,
  opened_at: opened,
  closed_at: minutes === null ? null : new Date(Date.parse(opened) + minutes * 60_000).toISOString(),
  outcome: minutes === null ? null : outcome,
  agreement: minutes === null ? null : agreement,
  gi_delta: minutes === null ? null : gi_delta,
});

describe("ISO weeks", () => {
  it("start on Monday 00:00 UTC and are labelled by their Thursday's year", () => {
    expect(new Date(weekStart(Date.parse("2025-12-04T13:00:00Z"))).toISOString()).toBe("2025-12-01T00:00:00.000Z");
    expect(new Date(weekStart(Date.parse("2025-12-01T00:00:00Z"))).toISOString()).toBe("2025-12-01T00:00:00.000Z");
    expect(new Date(weekStart(Date.parse("2025-11-30T23:59:59Z"))).toISOString()).toBe("2025-11-24T00:00:00.000Z");
    expect(isoWeekLabel(Date.parse("2025-12-01T00:00:00Z"))).toBe("2025-W49");
    expect(isoWeekLabel(Date.parse("2025-12-29T00:00:00Z"))).toBe("2026-W01"); // Thursday is 2026-01-01
    expect(isoWeekLabel(Date.parse("2026-12-28T00:00:00Z"))).toBe("2026-W53");
    expect(isoWeekLabel(Date.parse("2021-01-04T00:00:00Z"))).toBe("2021-W01");
  });
});

describe("weekly monitoring", () => {
  it("measures each week against the spec's targets", () => {
    const weeks = weeklyMonitoring(
      [
        // Week 2025-W49: four sessions, 40/50/45 minutes, one open; agreement (0.75 + 1 + 0.5) / 3.
        s("2025-12-01T10:00:00.000Z", 40, "APPROVED", 0.75, 0.004),
        s("2025-12-02T10:00:00.000Z", 50, "APPROVED", 1, -0.012),
        s("2025-12-03T10:00:00.000Z", 45, "NO_QUORUM", 0.5, 0),
        s("2025-12-07T23:00:00.000Z", null),
        // 2025-W51 (W50 has none): one session.
        s("2025-12-16T10:00:00.000Z", 30, "APPROVED", 1, 0.001),
      ],
      "2025-12-17T12:00:00.000Z",
    );
    expect(weeks.map((w) => [w.week, w.starts, w.ends, w.complete])).toEqual([
      ["2025-W49", "2025-12-01", "2025-12-07", true],
      ["2025-W50", "2025-12-08", "2025-12-14", true],
      ["2025-W51", "2025-12-15", "2025-12-21", false],
    ]);
    const [w49, w50, w51] = weeks;
    expect(w49).toMatchObject({
      sessions_closed: 3,
      sessions_open: 1,
      sessions: { measured: 4, target_min: 3, target_max: 5, met: true },
      average_duration_minutes: { measured: 45, target_max: 45, met: true },
      agreement_rate: { measured: 0.75, target_min: 0.85, met: false },
      gi_drift_per_session: { measured: 0.012, target_max: 0.01, met: false },
      quorum_failure_rate: { measured: 0.3333, target_below: 0.05, met: false },
    });
    expect(w50).toMatchObject({
      sessions: { measured: 0, met: false },
      average_duration_minutes: { measured: null, met: null },
      agreement_rate: { measured: null, met: null },
      quorum_failure_rate: { measured: null, met: null },
    });
    // The week the data ends in is not judged on its count yet.
    expect(w51).toMatchObject({
      sessions: { measured: 1, met: null },
      average_duration_minutes: { measured: 30, met: true },
      quorum_failure_rate: { measured: 0, met: true },
    });
    expect(
      ConsensusMonitoring.safeParse({ cycle: "C-151", timestamp: "2025-12-17T12:00:00.000Z", weeks }).success,
    ).toBe(true);
  });

  it("has no weeks before the first session", () => {
    expect(weeklyMonitoring([], "2025-12-17T12:00:00.000Z")).toEqual([]);
  });
});
