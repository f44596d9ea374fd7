import { describe, expect, it } from "vitest";
import { formatPercent } from "../pulse/badge.ts";
import {
  age,
  clockTime,
  count,
  dateTime,
  dateTimeSeconds,
  day,
  daysUntil,
  decimal,
  duration,
  mic,
  micAmount,
  micOfNumber,
  percent,
  plural,
  shardsOfMicNumber,
  withArticle,
  words,
} from "./text.ts";

describe("withArticle", () => {
  it("says a or an by the first letter", () => {
    expect([
      withArticle("academic key"),
      withArticle("government key"),
      withArticle("commercial key"),
      withArticle("Open key"),
    ]).toEqual(["an academic key", "a government key", "a commercial key", "an Open key"]);
  });
});

describe("numbers", () => {
  it("groups counts and fixes decimals", () => {
    expect(count(0)).toBe("0");
    expect(count(12345)).toBe("12,345");
    expect(count(3558171n)).toBe("3,558,171");
    expect(decimal(1234.5)).toBe("1,234.50");
    expect(decimal(0.25, 1)).toBe("0.3");
    expect(() => count(Number.NaN)).toThrow(RangeError);
  });

  it("chooses singular and plural with Intl.PluralRules", () => {
    expect(plural(1, "pulse")).toBe("1 pulse");
    expect(plural(0, "pulse")).toBe("0 pulses");
    expect(plural(12345, "entry", "entries")).toBe("12,345 entries");
  });
});

describe("MIC", () => {
  it("rounds shards half up to fixed decimals, in integers, and groups", () => {
    expect(micAmount(3_558_171_516_452n)).toBe("3,558,171.52");
    expect(micAmount(7_269_274_849n, 2)).toBe("7,269.27");
    expect(micAmount(1_005_000n, 2)).toBe("1.01");
    expect(micAmount(1_004_999n, 2)).toBe("1.00");
    expect(micAmount(999_999_500_000n, 0)).toBe("1,000,000");
    expect(micAmount(123n, 6)).toBe("0.000123");
    expect(micAmount(-1_500_000n, 0)).toBe("-2");
    expect(mic(0n)).toBe("0.00 MIC");
    expect(() => micAmount(1n, 7)).toThrow(RangeError);
  });

  it("reads a published MIC number through its six-decimal text", () => {
    expect(shardsOfMicNumber(3558171.516452)).toBe(3_558_171_516_452n);
    expect(shardsOfMicNumber(0.000001)).toBe(1n);
    expect(micOfNumber(7269.274849)).toBe("7,269.27 MIC");
  });
});

describe("percent", () => {
  it("agrees with the pulse badge for one decimal", () => {
    for (const v of [0, 0.0005, 0.9005, 0.95, 0.9725, 0.99949, 0.9995, 1, 0.123456])
      expect(percent(v)).toBe(`${formatPercent(v)}%`);
  });

  it("takes other precisions", () => {
    expect(percent(0.5, 0)).toBe("50%");
    expect(percent(0.8436, 2)).toBe("84.36%");
    expect(percent(12.5, 0)).toBe("1,250%");
    expect(percent(-0.05)).toBe("-5.0%");
  });
});

describe("instants and durations", () => {
  it("writes an instant to the minute in UTC, without milliseconds", () => {
    expect(dateTime("2026-11-23T14:05:59.999Z")).toBe("23 Nov 2026, 14:05 UTC");
    expect(dateTime("2026-01-02T03:04:00Z")).toBe("2 Jan 2026, 03:04 UTC");
    expect(dateTimeSeconds("2025-11-30T23:59:59.000Z")).toBe("30 Nov 2025, 23:59:59 UTC");
    expect(dateTimeSeconds("2025-12-02T00:00:01.999Z")).toBe("2 Dec 2025, 00:00:01 UTC");
    expect(clockTime("2026-11-23T14:05:09.999Z")).toBe("14:05:09 UTC");
    expect(clockTime(new Date("2026-01-02T03:04:00Z"))).toBe("03:04:00 UTC");
    expect(day("2026-04-15")).toBe("15 Apr 2026");
    expect(day("2026-11-23T23:59:00.000Z")).toBe("23 Nov 2026");
    expect(() => dateTime("yesterday")).toThrow(RangeError);
  });

  it("writes durations in their largest sensible unit", () => {
    expect(duration(0)).toBe("0 minutes");
    expect(duration(60_000)).toBe("1 minute");
    expect(duration(119 * 60_000)).toBe("119 minutes");
    expect(duration(5 * 3_600_000)).toBe("5 hours");
    expect(duration(52 * 3_600_000)).toBe("2 days, 4 hours");
    expect(duration(49 * 3_600_000)).toBe("2 days, 1 hour");
    expect(duration(48 * 3_600_000)).toBe("2 days");
    expect(duration(1621.8 * 3_600_000)).toBe("67 days");
    expect(age("2026-11-20T14:05:00.000Z", "2026-11-23T14:05:00.000Z")).toBe("3 days");
    expect(age("2026-11-24T00:00:00.000Z", "2026-11-23T00:00:00.000Z")).toBe("0 minutes");
  });

  it("counts days to a date", () => {
    expect(daysUntil("2026-11-25", "2026-11-23T14:00:00.000Z")).toBe(2);
    expect(daysUntil("2026-04-15", "2026-11-21T01:08:43.174Z")).toBe(-220);
    expect(words("under_review")).toBe("under review");
  });
});
