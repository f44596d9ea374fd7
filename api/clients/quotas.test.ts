import { describe, expect, it } from "vitest";
import { clientOfAddress, DailyQuotas, quotaOf, rateLimitHeaders } from "./quotas.ts";

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

  it("counts per client and bucket, resets at 00:00 UTC and says when", async () => {
    let now = new Date("2026-05-01T12:00:00.000Z");
    const quotas = new DailyQuotas({ now: () => now });
    for (let i = 0; i < 100; i++)
      expect(await quotas.take("economy", "anonymous", "10.0.0.1")).toMatchObject({ allowed: true, remaining: 99 - i });
    expect(await quotas.take("economy", "anonymous", "10.0.0.1")).toEqual({
      limited: true,
      allowed: false,
      quota: 100,
      remaining: 0,
      resetSeconds: 43_200,
    });
    expect(await quotas.take("economy", "anonymous", "10.0.0.2")).toMatchObject({ allowed: true, remaining: 99 });
    // A key and an address with the same text are different clients.
    expect(await quotas.take("economy", "economist", "10.0.0.1")).toMatchObject({ allowed: true, remaining: 1999 });
    expect(await quotas.take("economy", "institutional", "k")).toEqual({ limited: false });
    now = new Date("2026-05-02T00:00:00.000Z");
    expect(await quotas.take("economy", "anonymous", "10.0.0.1")).toMatchObject({
      allowed: true,
      remaining: 99,
      resetSeconds: 86_400,
    });
  });

  it("counts an IPv6 client by its /64 and an IPv4-mapped address as the IPv4 one", async () => {
    expect(clientOfAddress("203.0.113.9")).toBe("203.0.113.9");
    expect(clientOfAddress("::ffff:203.0.113.9")).toBe("203.0.113.9");
    expect(clientOfAddress("::ffff:cb00:7109")).toBe("203.0.113.9");
    expect(clientOfAddress("2001:db8:1:2:3:4:5:6")).toBe("2001:db8:1:2::/64");
    expect(clientOfAddress("2001:0DB8:0001:0002:ffff::1")).toBe("2001:db8:1:2::/64");
    expect(clientOfAddress("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(clientOfAddress("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(clientOfAddress("::1")).toBe("0:0:0:0::/64");
    expect(clientOfAddress("64:ff9b::192.0.2.33")).toBe("64:ff9b:0:0::/64");
    expect(clientOfAddress("unknown")).toBe("unknown");
    const quotas = new DailyQuotas({ now: () => new Date("2026-05-01T00:00:00.000Z") });
    for (let i = 0; i < 100; i++)
      expect(await quotas.take("economy", "anonymous", `2001:db8:1:2::${(i + 1).toString(16)}`)).toMatchObject({
        allowed: true,
        remaining: 99 - i,
      });
    // A fresh address in the same /64 does not buy a fresh quota.
    expect(await quotas.take("economy", "anonymous", "2001:db8:1:2:ffff:ffff:ffff:ffff")).toMatchObject({
      allowed: false,
    });
    expect(await quotas.take("economy", "anonymous", "2001:db8:1:3::1")).toMatchObject({
      allowed: true,
      remaining: 99,
    });
  });

  it("cannot be turned into a lock-out: clients beyond the exact table still get their quota, counted in the sketch", async () => {
    const quotas = new DailyQuotas({
      now: () => new Date("2026-05-01T00:00:00.000Z"),
      maxClients: 2,
      sketchWidth: 1024,
    });
    expect(await quotas.take("government", "anonymous", "10.0.0.1")).toMatchObject({ allowed: true });
    expect(await quotas.take("government", "anonymous", "10.0.0.2")).toMatchObject({ allowed: true });
    // An attacker with 200 /64s sends a full quota from each: 20,000 requests beyond the table.
    let attacker = 0;
    for (let n = 0; n < 200; n++) {
      for (let i = 0; i < 101; i++)
        if (
          (
            (await quotas.take("government", "anonymous", `2001:db8:${n.toString(16)}::${i + 1}`)) as {
              allowed: boolean;
            }
          ).allowed
        )
          attacker++;
    }
    expect(attacker).toBeLessThanOrEqual(200 * 100);
    expect(attacker).toBeGreaterThan(200 * 90);
    // Each attacker client was held to its quota …
    expect(await quotas.take("government", "anonymous", "2001:db8:7::1")).toMatchObject({ allowed: false });
    // … and a new client still gets nearly all of its own.
    let served = 0;
    for (let i = 0; i < 100; i++)
      if (((await quotas.take("government", "anonymous", "198.51.100.7")) as { allowed: boolean }).allowed) served++;
    expect(served).toBeGreaterThanOrEqual(80);
    expect(await quotas.take("government", "anonymous", "198.51.100.7")).toMatchObject({ allowed: false });
    // The exact table is untouched.
    expect(await quotas.take("government", "anonymous", "10.0.0.1")).toMatchObject({ allowed: true, remaining: 98 });
  });

  it("never under-counts a client beyond the table, however the sketch is shared", async () => {
    const quotas = new DailyQuotas({ now: () => new Date("2026-05-01T00:00:00.000Z"), maxClients: 0, sketchWidth: 8 });
    for (let c = 0; c < 50; c++) {
      let served = 0;
      for (let i = 0; i < 120; i++)
        if (((await quotas.take("economy", "anonymous", `192.0.2.${c}`)) as { allowed: boolean }).allowed) served++;
      expect(served).toBeLessThanOrEqual(100);
    }
  });

  it("announces a quota with the IETF RateLimit fields, and nothing for unlimited tiers", () => {
    expect(rateLimitHeaders({ limited: true, allowed: true, quota: 100, remaining: 7, resetSeconds: 60 })).toEqual({
      "RateLimit-Policy": '"daily";q=100;w=86400',
      RateLimit: '"daily";r=7;t=60',
    });
    expect(rateLimitHeaders({ limited: false })).toEqual({});
  });
});
