import { describe, expect, it } from "vitest";
import { serverClock } from "./clock.ts";

describe("serverClock", () => {
  it("is the real clock without NOW", () => {
    expect(serverClock({}, () => 1_000)().getTime()).toBe(1_000);
  });

  it("starts at NOW and advances with the real clock", () => {
    let real = 5_000;
    const now = serverClock({ NOW: "2025-12-01T00:00:00.000Z" }, () => real);
    expect(now().toISOString()).toBe("2025-12-01T00:00:00.000Z");
    real += 90_000;
    expect(now().toISOString()).toBe("2025-12-01T00:01:30.000Z");
  });

  it("refuses a NOW that is not an ISO 8601 instant", () => {
    expect(() => serverClock({ NOW: "tomorrow" })).toThrow(/NOW must be an ISO 8601 instant/);
    expect(() => serverClock({ NOW: "2025-13-01T00:00:00Z" })).toThrow(/NOW/);
  });
});
