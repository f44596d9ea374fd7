import { describe, expect, it } from "vitest";
import { makeSentinel } from "../../test/support/pipeline/areas/helpers.ts";
import { meanOf, sentinelCoordination } from "./coordination.ts";

describe("sentinel coordination", () => {
  it("applies the spec formula to the last heartbeat and the uptime", () => {
    const hb = {
      ts: "2025-12-02T00:00:00.000Z",
      status: "operational",
      gi_score: 0.97,
      apps: 5,
      packages: 3,
      workflows: 2,
      drift: 0.5,
    } as const;
    const s = makeSentinel({ id: "a", cathedral: "FOR-ACADEMICS", lastHeartbeat: hb, uptimeDays: Math.E });
    // (0.4·5 + 0.3·3 + 0.2·2 + 0.1·9.5) × (1 + ln e) = 4.25 × 2
    expect(sentinelCoordination(s)).toBeCloseTo(8.5, 12);
    expect(sentinelCoordination({ ...s, lastHeartbeat: null })).toBeNull();
  });

  it("averages the scores that exist", () => {
    expect(meanOf([1, null, 2])).toBe(1.5);
    expect(meanOf([null])).toBeNull();
    expect(meanOf([])).toBeNull();
  });
});
