/**
 * Daily request quotas of the data areas (interface spec, "Request rate limits"), announced with the
 * IETF RateLimit header fields and refused with 429 `rate-limited` and `Retry-After` once spent. A
 * client is its valid key or else its address (an IPv6 one by its /64); counts live in this
 * process, exactly for MAX_CLIENTS anonymous clients a day and beyond them in a count-min sketch that
 * never under-counts. The decisions are in docs/decisions.md ("Data areas over HTTP").
 */
import { createHash } from "node:crypto";
import { isIPv4, isIPv6 } from "node:net";
import type { Area, KeyTier } from "../../core/datapackage/contract.ts";

export type Tier = "anonymous" | KeyTier;
/** Requests per UTC day; null: unlimited. */
export type Quota = number | null;

const BUCKETS = {
  government: { anonymous: 100, government: null },
  "academics-philosophy": { anonymous: 100, academic: 1_000, institutional: 10_000 },
  economy: { anonymous: 100, economist: 2_000, institutional: null },
  diplomacy: { anonymous: 100, government: 1_000, academic: 1_000, institutional: 1_000, economist: 1_000 },
} as const satisfies Record<string, Partial<Record<Tier, Quota>>>;

type Bucket = keyof typeof BUCKETS;

/** Complete by type: every area of the contract counts in one bucket. */
const BUCKET_OF: Readonly<Record<Area, Bucket>> = {
  government: "government",
  academics: "academics-philosophy",
  philosophy: "academics-philosophy",
  economy: "economy",
  diplomacy: "diplomacy",
};

const DAY_SECONDS = 86_400;
export const MAX_CLIENTS = 200_000;
export const SKETCH_WIDTH = 1 << 16;
const SKETCH_DEPTH = 4;

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
  if (h.slice(0, 5).every((x) => x === 0) && h[5] === 0xffff) return `${h[6]! >> 8}.${h[6]! & 0xff}.${h[7]! >> 8}.${h[7]! & 0xff}`;
  return `${h.slice(0, 4).map((x) => x.toString(16)).join(":")}::/64`;
}

/** The bucket an area's requests count in, and the quota a tier has there. */
export function quotaOf(area: string, tier: Tier): { bucket: string; quota: Quota } {
  const bucket = Object.hasOwn(BUCKET_OF, area) ? BUCKET_OF[area as Area] : undefined;
  if (!bucket) throw new Error(`no quota for area ${area}`);
  const quotas: Partial<Record<Tier, Quota>> = BUCKETS[bucket];
  const quota = quotas[tier];
  return { bucket, quota: quota === undefined ? quotas.anonymous! : quota };
}

export type QuotaDecision =
  | { limited: false }
  | { limited: true; allowed: boolean; quota: number; remaining: number; resetSeconds: number; reason?: string };

/**
 * A count-min sketch of 16-bit saturating counters with conservative update: `estimate` never
 * under-counts what was added, and `add` raises only the counters at the current minimum.
 */
class CountMinSketch {
  readonly #width: number;
  readonly #rows: Uint16Array;
  constructor(width: number) {
    this.#width = width;
    this.#rows = new Uint16Array(width * SKETCH_DEPTH);
  }

  #cells(key: string): number[] {
    const h = createHash("sha256").update(key).digest();
    return Array.from({ length: SKETCH_DEPTH }, (_, row) => row * this.#width + (h.readUInt32LE(row * 4) % this.#width));
  }

  /** The current estimate (never under what was added). */
  estimate(key: string): number {
    return Math.min(...this.#cells(key).map((i) => this.#rows[i]!));
  }

  /** The estimate after adding one, unless that would exceed `limit` (then nothing is added). */
  addUpTo(key: string, limit: number): { added: boolean; estimate: number } {
    const cells = this.#cells(key);
    const min = Math.min(...cells.map((i) => this.#rows[i]!));
    if (min + 1 > limit) return { added: false, estimate: min };
    for (const i of cells) if (this.#rows[i] === min && min < 0xffff) this.#rows[i] = min + 1;
    return { added: true, estimate: min + 1 };
  }

  clear(): void {
    this.#rows.fill(0);
  }
}

export class DailyQuotas {
  readonly #now: () => Date;
  readonly #maxClients: number;
  #day = "";
  readonly #counts = new Map<string, number>();
  readonly #overflow: CountMinSketch;
  #anonymousClients = 0;

  /** `maxClients`: anonymous clients counted exactly per day; `sketchWidth`: counters per sketch row beyond them. */
  constructor(options: { now: () => Date; maxClients?: number; sketchWidth?: number }) {
    this.#now = options.now;
    this.#maxClients = options.maxClients ?? MAX_CLIENTS;
    this.#overflow = new CountMinSketch(options.sketchWidth ?? SKETCH_WIDTH);
  }

  /** Counts one request of `client` (a key id, or an IP address: see clientOfAddress) at `tier` for `area`. */
  take(area: string, tier: Tier, client: string): QuotaDecision {
    const { bucket, quota } = quotaOf(area, tier);
    return this.#take(bucket, quota, tier === "anonymous", client);
  }

  /**
   * Where `client` stands without counting a request: for answers without a body (HEAD, 304), which
   * are free and allowed even once the quota is spent. Their RateLimit fields show the remaining
   * quota unchanged.
   */
  peek(area: string, tier: Tier, client: string): QuotaDecision {
    const { bucket, quota } = quotaOf(area, tier);
    if (quota === null) return { limited: false };
    const { key, resetSeconds } = this.#position(bucket, tier === "anonymous", client);
    const used = this.#counts.get(key) ?? (tier === "anonymous" && this.#anonymousClients >= this.#maxClients ? this.#overflow.estimate(key) : 0);
    return { limited: true, allowed: true, quota, remaining: Math.max(0, quota - used), resetSeconds };
  }

  /**
   * Counts one request of an anonymous `client` (an IP address) against a daily quota of its own,
   * for an endpoint outside the data areas (POST /avm/verify): `bucket` names the quota.
   */
  takeOwn(bucket: string, quota: Quota, client: string): QuotaDecision {
    if (Object.hasOwn(BUCKETS, bucket)) throw new Error(`${bucket} is a data-area quota`);
    return this.#take(bucket, quota, true, client);
  }

  /** The counting key of a client in a bucket, and the seconds to the next UTC day (the counts reset then). */
  #position(bucket: string, anonymous: boolean, client: string): { key: string; resetSeconds: number } {
    const now = this.#now();
    const day = now.toISOString().slice(0, 10);
    if (day !== this.#day) {
      this.#day = day;
      this.#counts.clear();
      this.#overflow.clear();
      this.#anonymousClients = 0;
    }
    const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    const resetSeconds = Math.max(1, Math.ceil((midnight - now.getTime()) / 1000));
    const key = `${bucket}\n${anonymous ? "ip" : "key"}\n${anonymous ? clientOfAddress(client) : client}`;
    return { key, resetSeconds };
  }

  #take(bucket: string, quota: Quota, anonymous: boolean, client: string): QuotaDecision {
    if (quota === null) return { limited: false };
    const { key, resetSeconds } = this.#position(bucket, anonymous, client);
    const used = this.#counts.get(key);
    if (used === undefined && anonymous && this.#anonymousClients >= this.#maxClients) {
      const { added, estimate } = this.#overflow.addUpTo(key, quota);
      return { limited: true, allowed: added, quota, remaining: Math.max(0, quota - estimate), resetSeconds };
    }
    if (used === undefined && anonymous) this.#anonymousClients += 1;
    const count = (used ?? 0) + 1;
    if (count > quota) return { limited: true, allowed: false, quota, remaining: 0, resetSeconds };
    this.#counts.set(key, count);
    return { limited: true, allowed: true, quota, remaining: quota - count, resetSeconds };
  }
}

/** The RateLimit-Policy and RateLimit fields of a decision (none when unlimited). */
export function rateLimitHeaders(decision: QuotaDecision): Record<string, string> {
  if (!decision.limited) return {};
  return {
    "RateLimit-Policy": `"daily";q=${decision.quota};w=${DAY_SECONDS}`,
    RateLimit: `"daily";r=${decision.remaining};t=${decision.resetSeconds}`,
  };
}
