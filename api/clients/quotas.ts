/**
 * Daily request quotas of the data areas (interface spec, "Request rate limits"), announced with the
 * IETF RateLimit header fields and refused with 429 `rate-limited` and `Retry-After` once spent. A
 * client is its valid key or else its address (an IPv6 one by its /64). The counts live where the
 * limits store keeps them (store/limits.ts): in this process by default (exact for MAX_CLIENTS
 * anonymous clients a day, a count-min sketch beyond them), or in PostgreSQL shared by every API
 * instance. The decisions are in docs/decisions.md ("Data areas over HTTP", "Shared limits").
 */
import { isIPv4, isIPv6 } from "node:net";
import { AREA_DECLARATIONS, type Quota, type RateTier } from "../../core/areas/index.ts";
import type { QuotaCounter } from "../../store/limits.ts";
import { MemoryQuotaCounter } from "../../store/memory-limits.ts";

export type Tier = RateTier;
export type { Quota };

/**
 * The quota buckets, as the areas declare them (core/areas/<area>.ts `rate`): each area counts in
 * one bucket; areas that share a bucket share one count per client and declare the same quotas.
 */
const BUCKET_OF: Readonly<Record<string, string>> = Object.fromEntries(
  AREA_DECLARATIONS.map((d) => [d.name, d.rate.bucket]),
);
const BUCKETS: Readonly<Record<string, Readonly<Partial<Record<Tier, Quota>>>>> = Object.fromEntries(
  AREA_DECLARATIONS.map((d) => [d.rate.bucket, d.rate.quotas]),
);
for (const d of AREA_DECLARATIONS)
  if (JSON.stringify(BUCKETS[d.rate.bucket]) !== JSON.stringify(d.rate.quotas))
    throw new Error(`area ${d.name}: bucket ${d.rate.bucket} is declared with other quotas by another area`);

const DAY_SECONDS = 86_400;

/** The 8 hextets of an IPv6 address (zone dropped, a dotted IPv4 tail converted), or null. */
function hextets(address: string): number[] | null {
  let text = address.replace(/%.*$/, "").toLowerCase();
  if (!isIPv6(text)) return null;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, null];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const zeros = tail === null ? [] : new Array<string>(8 - left.length - right.length).fill("0");
  const all = [...left, ...zeros, ...right].map((h) => parseInt(h, 16));
  return all.length === 8 && all.every((h) => h >= 0 && h <= 0xffff) ? all : null;
}

/**
 * The client an address counts as: IPv4 as it is (also when IPv4-mapped, `::ffff:a.b.c.d`), IPv6
 * by its /64 prefix (`2001:db8:1:2::/64`); anything else as it is.
 */
export function clientOfAddress(address: string): string {
  if (isIPv4(address)) return address;
  const h = hextets(address);
  if (!h) return address;
  if (h.slice(0, 5).every((x) => x === 0) && h[5] === 0xffff)
    return `${h[6]! >> 8}.${h[6]! & 0xff}.${h[7]! >> 8}.${h[7]! & 0xff}`;
  return `${h
    .slice(0, 4)
    .map((x) => x.toString(16))
    .join(":")}::/64`;
}

/** The bucket an area's requests count in, and the quota a tier has there. */
export function quotaOf(area: string, tier: Tier): { bucket: string; quota: Quota } {
  const bucket = Object.hasOwn(BUCKET_OF, area) ? BUCKET_OF[area] : undefined;
  if (!bucket) throw new Error(`no quota for area ${area}`);
  const quotas: Partial<Record<Tier, Quota>> = BUCKETS[bucket]!;
  const quota = quotas[tier];
  return { bucket, quota: quota === undefined ? quotas.anonymous! : quota };
}

export type QuotaDecision =
  | { limited: false }
  | { limited: true; allowed: boolean; quota: number; remaining: number; resetSeconds: number; reason?: string };

export class DailyQuotas {
  readonly #now: () => Date;
  readonly #counter: QuotaCounter;

  /**
   * `counter`: where the counts live (default: this process, store/memory-limits.ts, with
   * `maxClients` exact anonymous clients a day and `sketchWidth` counters per sketch row beyond them).
   */
  constructor(options: { now: () => Date; counter?: QuotaCounter; maxClients?: number; sketchWidth?: number }) {
    this.#now = options.now;
    this.#counter = options.counter ?? new MemoryQuotaCounter(options);
  }

  /**
   * Counts one request of `client` (a key id, or an IP address: see clientOfAddress) at `tier` for
   * `area`. Rejects with LimitsUnavailableError when a shared store cannot be reached.
   */
  take(area: string, tier: Tier, client: string): Promise<QuotaDecision> {
    const { bucket, quota } = quotaOf(area, tier);
    return this.#take(bucket, quota, tier === "anonymous", client);
  }

  /**
   * Where `client` stands without counting a request: for answers without a body (HEAD, 304), which
   * are free and allowed even once the quota is spent. Their RateLimit fields show the remaining
   * quota unchanged.
   */
  async peek(area: string, tier: Tier, client: string): Promise<QuotaDecision> {
    const { bucket, quota } = quotaOf(area, tier);
    if (quota === null) return { limited: false };
    const { day, resetSeconds } = this.#position();
    const used = await this.#counter.peek(day, bucket, counted(tier === "anonymous", client));
    return { limited: true, allowed: true, quota, remaining: Math.max(0, quota - used), resetSeconds };
  }

  /**
   * Counts one request of an anonymous `client` (an IP address) against a daily quota of its own,
   * for an endpoint outside the data areas (POST /avm/verify): `bucket` names the quota.
   */
  takeOwn(bucket: string, quota: Quota, client: string): Promise<QuotaDecision> {
    if (Object.hasOwn(BUCKETS, bucket)) throw new Error(`${bucket} is a data-area quota`);
    return this.#take(bucket, quota, true, client);
  }

  /** The UTC day now, and the seconds to the next one (the counts reset then). */
  #position(): { day: string; resetSeconds: number } {
    const now = this.#now();
    const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    return {
      day: now.toISOString().slice(0, 10),
      resetSeconds: Math.max(1, Math.ceil((midnight - now.getTime()) / 1000)),
    };
  }

  async #take(bucket: string, quota: Quota, anonymous: boolean, client: string): Promise<QuotaDecision> {
    if (quota === null) return { limited: false };
    const { day, resetSeconds } = this.#position();
    const { allowed, used } = await this.#counter.take(day, bucket, counted(anonymous, client), quota);
    return { limited: true, allowed, quota, remaining: Math.max(0, quota - used), resetSeconds };
  }
}

/** The client as counted: `ip:` and its address (IPv6 by its /64), or `key:` and the key id. */
function counted(anonymous: boolean, client: string): string {
  return anonymous ? `ip:${clientOfAddress(client)}` : `key:${client}`;
}

/** The RateLimit-Policy and RateLimit fields of a decision (none when unlimited). */
export function rateLimitHeaders(decision: QuotaDecision): Record<string, string> {
  if (!decision.limited) return {};
  return {
    "RateLimit-Policy": `"daily";q=${decision.quota};w=${DAY_SECONDS}`,
    RateLimit: `"daily";r=${decision.remaining};t=${decision.resetSeconds}`,
  };
}
