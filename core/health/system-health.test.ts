import { describe, expect, it } from "vitest";
import {
  healthSummary,
  systemHealth,
  systemHealthWord,
  worse,
  type HealthInputs,
  type SentinelState,
} from "./system-health.ts";

const sentinels = (states: SentinelState[]) => states.map((status, i) => ({ id: `S${i}`, status }));
const base = (over: Partial<HealthInputs> = {}): HealthInputs => ({
  asOf: "2026-11-23T14:05:00.000Z",
  sentinels: sentinels(Array(12).fill("operational")),
  minting: { active: true, mii: 0.97, threshold: 0.95 },
  compliance: { status: "compliant", nextAudit: "2027-01-15" },
  ...over,
});

describe("systemHealth", () => {
  it("is operational when every part is", () => {
    const report = systemHealth(base());
    expect(report.status).toBe("operational");
    expect(report.reasons).toEqual([]);
    expect(report.sentinels).toEqual({ total: 12, operational: 12, degraded: 0, offline: 0 });
    expect(report.compliance).toMatchObject({ daysToAudit: 53, overdue: false });
    expect(healthSummary(report)).toBe(
      "Operational: 12 of 12 sentinels operational; MIC minting active; compliant with every regulation.",
    );
  });

  it("grades the sentinels by their operational share", () => {
    const eleven = systemHealth(base({ sentinels: sentinels([...Array(11).fill("operational"), "degraded"]) }));
    expect(eleven.status).toBe("operational"); // 11/12 = 91.7 % ≥ 90 %
    const ten = systemHealth(base({ sentinels: sentinels([...Array(10).fill("operational"), "degraded", "offline"]) }));
    expect(ten.status).toBe("degraded");
    expect(ten.reasons.map((r) => r.code)).toEqual(["sentinels-down"]);
    expect(ten.reasons[0]!.text).toBe("2 sentinels of 12 not operational (83% operational; 90% needed).");
    const none = systemHealth(base({ sentinels: sentinels(Array(12).fill("offline")) }));
    expect(none.status).toBe("critical");
    expect(systemHealth(base({ sentinels: [] })).reasons.map((r) => r.code)).toEqual(["no-sentinels"]);
  });

  it("degrades on paused minting, review and an overdue audit; non-compliance is critical", () => {
    expect(systemHealth(base({ minting: { active: false, mii: 0.9, threshold: 0.95 } })).status).toBe("degraded");
    expect(systemHealth(base({ compliance: { status: "partially_compliant", nextAudit: "2027-01-15" } })).status).toBe(
      "degraded",
    );
    const overdue = systemHealth(base({ compliance: { status: "compliant", nextAudit: "2026-04-15" } }));
    expect(overdue.status).toBe("degraded");
    expect(overdue.reasons[0]!.text).toBe("The compliance audit due 15 Apr 2026 is overdue by 222 days.");
    expect(systemHealth(base({ compliance: { status: "non_compliant", nextAudit: "2027-01-15" } })).status).toBe(
      "critical",
    );
    expect(systemHealth(base({ minting: null, compliance: null })).status).toBe("operational");
  });

  it("maps to the sentinel-status file's word and orders statuses", () => {
    expect(systemHealthWord("operational")).toBe("healthy");
    expect(systemHealthWord("critical")).toBe("critical");
    expect(worse("degraded", "operational")).toBe("degraded");
    expect(worse("degraded", "critical")).toBe("critical");
  });
});
