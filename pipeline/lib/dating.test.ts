import { describe, expect, it } from "vitest";
import { makePulseHistory } from "../../test/support/pipeline/areas/helpers.ts";
import { documentInstant, latestPulse, pulseWindow } from "./dating.ts";

describe("document dating", () => {
  const pulse = makePulseHistory(
    [
      [0.9, 0.9],
      [0.95, 0.96],
    ],
    "2025-12-01T06:00:00.000Z",
  );

  it("is the later of the ledger's last entry and the newest pulse, with its cycle", () => {
    expect(documentInstant({ asOf: "2025-12-05T00:00:00.000Z" }, pulse)).toEqual({
      timestamp: "2025-12-05T00:00:00.000Z",
      cycle: "C-155",
      ms: Date.parse("2025-12-05T00:00:00.000Z"),
    });
    expect(documentInstant({ asOf: "2025-12-01T00:00:00.000Z" }, pulse).timestamp).toBe("2025-12-02T06:00:00.000Z");
    expect(documentInstant({ asOf: null }, pulse).cycle).toBe("C-152");
    expect(documentInstant({ asOf: "2025-11-30T23:59:59.999Z" }, []).cycle).toBe("C-150");
    expect(() => documentInstant({ asOf: null }, [])).toThrow(/cannot date/);
    expect(latestPulse(pulse)?.generatedAt).toBe("2025-12-02T06:00:00.000Z");
    expect(latestPulse([])).toBeNull();
  });

  it("selects the pulses of the window, both ends included", () => {
    const end = Date.parse("2025-12-31T06:00:00.000Z");
    expect(pulseWindow(pulse, end).map((p) => p.generatedAt)).toEqual([
      "2025-12-01T06:00:00.000Z",
      "2025-12-02T06:00:00.000Z",
    ]);
    expect(pulseWindow(pulse, end + 1).map((p) => p.generatedAt)).toEqual(["2025-12-02T06:00:00.000Z"]);
    expect(pulseWindow(pulse, Date.parse("2025-12-02T05:59:59.999Z")).length).toBe(1);
  });
});
