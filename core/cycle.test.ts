import { describe, expect, it } from "vitest";
import { cycleLabel, cycleNumber, cycleStart, parseCycle } from "./cycle.ts";

describe("cycles", () => {
  it("counts one cycle per UTC day from 2025-12-01 = C-151", () => {
    expect(cycleLabel(new Date("2025-12-01T00:00:00.000Z"))).toBe("C-151");
    expect(cycleLabel(new Date("2025-12-01T23:59:59.999Z"))).toBe("C-151");
    expect(cycleLabel(new Date("2025-12-02T00:00:00.000Z"))).toBe("C-152");
    expect(cycleLabel(new Date("2025-11-30T23:59:59.999Z"))).toBe("C-150");
    expect(cycleLabel(new Date("2025-07-04T00:00:00.000Z"))).toBe("C-1");
    expect(cycleStart(156).toISOString()).toBe("2025-12-06T00:00:00.000Z");
  });

  it("refuses instants before C-1 and malformed labels", () => {
    expect(() => cycleNumber(new Date("2025-07-03T23:59:59.999Z"))).toThrow(/before cycle C-1/);
    expect(parseCycle("C-151")).toBe(151);
    for (const bad of ["C-0", "C-01", "c-1", "C-1.5", "151"])
      expect(() => parseCycle(bad)).toThrow(/not a cycle label/);
  });
});
