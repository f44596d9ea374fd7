import { describe, expect, it } from "vitest";
import {
  FREEZE_ENDS,
  FREEZE_STARTS,
  V1_DEPRECATION_FIELD,
  V1_SUNSET_FIELD,
  balanceInterface,
  freezeRefusal,
  inFreezeWindow,
  migrationPhase,
  migrationTimeline,
} from "./phases.ts";
import { MONETARY_EVENT_TYPES } from "../balance/ledger-balances.ts";

describe("migration phases", () => {
  it.each([
    ["2025-01-01T00:00:00.000Z", "announcement"],
    ["2025-11-30T23:59:59.999Z", "announcement"],
    ["2025-12-01T00:00:00.000Z", "snapshot"],
    ["2025-12-01T23:59:59.000Z", "snapshot"],
    ["2025-12-01T23:59:59.999Z", "snapshot"],
    ["2025-12-02T00:00:00.000Z", "transition"],
    ["2026-02-28T23:59:59.000Z", "transition"],
    ["2026-02-28T23:59:59.999Z", "transition"],
    ["2026-03-01T00:00:00.000Z", "sunset"],
    ["2030-01-01T00:00:00.000Z", "sunset"],
  ])("%s is %s", (instant, phase) => {
    expect(migrationPhase(instant)).toBe(phase);
    expect(migrationPhase(new Date(instant))).toBe(phase);
  });

  it("change exactly on the second", () => {
    const second = 1000;
    expect(migrationPhase(Date.parse("2025-12-01T00:00:00Z") - second)).toBe("announcement");
    expect(migrationPhase(Date.parse("2025-12-02T00:00:00Z") - second)).toBe("snapshot");
    expect(migrationPhase(Date.parse("2026-03-01T00:00:00Z") - second)).toBe("transition");
    expect(migrationPhase(Date.parse("2026-03-01T00:00:00Z"))).toBe("sunset");
  });

  it("refuse what is not an instant", () => {
    expect(() => migrationPhase("yesterday")).toThrow(RangeError);
    expect(() => migrationPhase(new Date(Number.NaN))).toThrow(RangeError);
  });

  it("form a timeline without gaps", () => {
    const t = migrationTimeline();
    expect(t.map((p) => p.phase)).toEqual(["announcement", "snapshot", "transition", "sunset"]);
    for (let i = 1; i < t.length; i++) expect(t[i]!.from).toBe(t[i - 1]!.until);
    for (const p of t) if (p.from) expect(migrationPhase(p.from)).toBe(p.phase);
  });

  it("say which balance interface answers", () => {
    expect(balanceInterface("announcement")).toEqual({ v1: "live", v2: "absent", current: "v1" });
    expect(balanceInterface("snapshot")).toEqual({ v1: "frozen", v2: "absent", current: "v1" });
    expect(balanceInterface("transition")).toEqual({ v1: "forwarded", v2: "live", current: "v2" });
    expect(balanceInterface("sunset")).toEqual({ v1: "gone", v2: "live", current: "v2" });
  });

  it("give v1's Deprecation (RFC 9745) and Sunset (RFC 8594) fields", () => {
    expect(V1_DEPRECATION_FIELD).toBe("@1764633600"); // 2025-12-02T00:00:00Z
    expect(V1_SUNSET_FIELD).toBe("Sun, 01 Mar 2026 00:00:00 GMT");
  });
});

describe("the freeze window", () => {
  it.each([
    ["2025-11-30T23:59:58.000Z", false],
    ["2025-11-30T23:59:58.999Z", false],
    ["2025-11-30T23:59:59.000Z", true],
    ["2025-12-01T12:00:00.000Z", true],
    ["2025-12-02T00:00:00.000Z", true],
    ["2025-12-02T00:00:00.999Z", true],
    ["2025-12-02T00:00:01.000Z", false],
  ])("%s frozen: %s", (instant, frozen) => {
    expect(inFreezeWindow(instant)).toBe(frozen);
  });

  it("refuses every monetary event inside it with a code, and nothing else", () => {
    for (const type of MONETARY_EVENT_TYPES) {
      const refusal = freezeRefusal(type, "2025-12-01T08:00:00.000Z");
      expect(refusal?.code).toBe("migration-freeze");
      expect(refusal?.message).toContain(FREEZE_STARTS);
      expect(refusal?.message).toContain(`resume at ${FREEZE_ENDS}`);
      expect(freezeRefusal(type, FREEZE_ENDS)).toBeNull();
    }
    expect(freezeRefusal("sentinel.heartbeat", "2025-12-01T08:00:00.000Z")).toBeNull();
    expect(freezeRefusal("pulse.recorded", FREEZE_STARTS)).toBeNull();
  });
});
