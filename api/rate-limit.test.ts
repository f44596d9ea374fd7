import { describe, expect, it } from "vitest";
import { DailyQuotas, quotaOf, rateLimitHeaders } from "./rate-limit.ts";

describe("daily quotas", () => {
  it("follow the spec's table, with the documented decisions where it is silent", () => {
    expect(quotaOf("government", "anonymous").quota).toBe(100);
    expect(quotaOf("government", "government").quota).toBeNull();
    expect(quotaOf("academics", "academic")).toEqual({ bucket: "academics-philosophy", quota: 1000 });
    expect(quotaOf("philosophy", "institutional")).toEqual({ bucket: "academics-philosophy", quota: 10_000 });
    expect(quotaOf("economy", "economist").quota).toBe(2000);
    expect(quotaOf("economy", "institutional").quota).toBeNull();
    expect(quotaOf("diplomacy", "anonymous").quota).toBe(100);
    expect(quotaOf("diplomacy", "economist").quota).toBe(1000);
    // A tier the area does not list has its anonymous quota.
    expect(quotaOf("economy", "academic").quota).toBe(100);
    expect(quotaOf("government", "economist").quota).toBe(100);
    expect(() => quotaOf("astrology", "anonymous")).toThrow(/no quota/);
  });

  it("counts per client and bucket, resets at 00:00 UTC and says when", () => {
    let now = new Date("2026-05-01T12:00:00.000Z");
    const quotas = new DailyQuotas({ now: () => now });
    for (let i = 0; i < 100; i++) expect(quotas.take("economy", "anonymous", "10.0.0.1")).toMatchObject({ allowed: true, remaining: 99 - i });
    expect(quotas.take("economy", "anonymous", "10.0.0.1")).toEqual({ limited: true, allowed: false, quota: 100, remaining: 0, resetSeconds: 43_200 });
    expect(quotas.take("economy", "anonymous", "10.0.0.2")).toMatchObject({ allowed: true, remaining: 99 });
    // A key and an address with the same text are different clients.
    expect(quotas.take("economy", "economist", "10.0.0.1")).toMatchObject({ allowed: true, remaining: 1999 });
    expect(quotas.take("economy", "institutional", "k")).toEqual({ limited: false });
    now = new Date("2026-05-02T00:00:00.000Z");
    expect(quotas.take("economy", "anonymous", "10.0.0.1")).toMatchObject({ allowed: true, remaining: 99, resetSeconds: 86_400 });
  });

  it("refuses new anonymous clients beyond its memory bound instead of leaving them unlimited", () => {
    const quotas = new DailyQuotas({ now: () => new Date("2026-05-01T00:00:00.000Z"), maxClients: 2 });
    expect(quotas.take("government", "anonymous", "a")).toMatchObject({ allowed: true });
    expect(quotas.take("government", "anonymous", "b")).toMatchObject({ allowed: true });
    expect(quotas.take("government", "anonymous", "c")).toMatchObject({ allowed: false, reason: expect.stringMatching(/too many anonymous clients/) });
    expect(quotas.take("government", "anonymous", "a")).toMatchObject({ allowed: true, remaining: 98 });
  });

  it("announces a quota with the IETF RateLimit fields, and nothing for unlimited tiers", () => {
    expect(rateLimitHeaders({ limited: true, allowed: true, quota: 100, remaining: 7, resetSeconds: 60 })).toEqual({
      "RateLimit-Policy": '"daily";q=100;w=86400',
      RateLimit: '"daily";r=7;t=60',
    });
    expect(rateLimitHeaders({ limited: false })).toEqual({});
  });
});
