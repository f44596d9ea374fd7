/**
 * Daily request quotas of the data areas (interface spec, "Request rate limits"), announced with
 * the IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers-10):
 *
 *   RateLimit-Policy: "daily";q=100;w=86400
 *   RateLimit: "daily";r=42;t=3600
 *
 * and refused with 429 `rate-limited` problem details and `Retry-After` once spent.
 *
 * Decisions where the spec is silent:
 * - A day is a UTC calendar day: every quota resets at 00:00 UTC, and `t` / `Retry-After` count
 *   the seconds until then.
 * - A client is its key (when it presents a valid one) or else its IP address; a request with an
 *   invalid key counts as anonymous, so guessing keys spends the anonymous quota.
 * - Academics and philosophy share one quota, as the spec lists them together; diplomacy (not
 *   shown) has 100 a day anonymous and 1,000 with any key. A key of a tier the area does not list
 *   has that area's anonymous quota, counted for the key.
 * - "Unlimited" tiers get no quota and no RateLimit fields.
 * - Every request for an area file counts, whatever its answer (401, 403 and 503 included).
 * - Counts live in this process's memory (one API instance); at most MAX_CLIENTS anonymous
 *   clients are tracked per day, and further ones are refused rather than left unlimited.
 */
import type { KeyTier } from "./api-keys.ts";

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

const BUCKET_OF: Record<string, Bucket> = {
  government: "government",
  academics: "academics-philosophy",
  philosophy: "academics-philosophy",
  economy: "economy",
  diplomacy: "diplomacy",
};

const DAY_SECONDS = 86_400;
export const MAX_CLIENTS = 200_000;

/** The bucket an area's requests count in, and the quota a tier has there. */
export function quotaOf(area: string, tier: Tier): { bucket: string; quota: Quota } {
  const bucket = BUCKET_OF[area];
  if (!bucket) throw new Error(`no quota for area ${area}`);
  const quotas: Partial<Record<Tier, Quota>> = BUCKETS[bucket];
  const quota = quotas[tier];
  return { bucket, quota: quota === undefined ? quotas.anonymous! : quota };
}

export type Decision =
  | { limited: false }
  | { limited: true; allowed: boolean; quota: number; remaining: number; resetSeconds: number; reason?: string };

export class DailyQuotas {
  readonly #now: () => Date;
  readonly #maxClients: number;
  #day = "";
  readonly #counts = new Map<string, number>();
  #anonymousClients = 0;

  constructor(options: { now: () => Date; maxClients?: number }) {
    this.#now = options.now;
    this.#maxClients = options.maxClients ?? MAX_CLIENTS;
  }

  /** Counts one request of `client` (a key id or an IP) at `tier` for `area`. */
  take(area: string, tier: Tier, client: string): Decision {
    const { bucket, quota } = quotaOf(area, tier);
    if (quota === null) return { limited: false };
    const now = this.#now();
    const day = now.toISOString().slice(0, 10);
    if (day !== this.#day) {
      this.#day = day;
      this.#counts.clear();
      this.#anonymousClients = 0;
    }
    const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    const resetSeconds = Math.max(1, Math.ceil((midnight - now.getTime()) / 1000));
    const key = `${bucket}\n${tier === "anonymous" ? "ip" : "key"}\n${client}`;
    const used = this.#counts.get(key);
    if (used === undefined && tier === "anonymous") {
      if (this.#anonymousClients >= this.#maxClients) {
        return { limited: true, allowed: false, quota, remaining: 0, resetSeconds, reason: "too many anonymous clients today; use a key or try after the reset" };
      }
      this.#anonymousClients += 1;
    }
    const count = (used ?? 0) + 1;
    if (count > quota) return { limited: true, allowed: false, quota, remaining: 0, resetSeconds };
    this.#counts.set(key, count);
    return { limited: true, allowed: true, quota, remaining: quota - count, resetSeconds };
  }
}

/** The RateLimit-Policy and RateLimit fields of a decision (none when unlimited). */
export function rateLimitHeaders(decision: Decision): Record<string, string> {
  if (!decision.limited) return {};
  return {
    "RateLimit-Policy": `"daily";q=${decision.quota};w=${DAY_SECONDS}`,
    RateLimit: `"daily";r=${decision.remaining};t=${decision.resetSeconds}`,
  };
}
