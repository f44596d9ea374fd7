/**
 * The request limits counted in this process (store/limits.ts), the embedded default: each API
 * instance enforces its own. Quotas are exact for `maxClients` anonymous clients a day and beyond
 * them counted in a count-min sketch that never under-counts, so memory stays bounded whatever the
 * number of addresses (docs/decisions.md, "Data areas over HTTP").
 */
import { createHash } from "node:crypto";
import type { ConnectionCap, LimitsStore, QuotaCounter } from "./limits.ts";

export const MAX_CLIENTS = 200_000;
export const SKETCH_WIDTH = 1 << 16;
const SKETCH_DEPTH = 4;

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
    return Array.from(
      { length: SKETCH_DEPTH },
      (_, row) => row * this.#width + (h.readUInt32LE(row * 4) % this.#width),
    );
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

/** Anonymous clients (`ip:…`) beyond `maxClients` a day go to the sketch; keys are always exact. */
export class MemoryQuotaCounter implements QuotaCounter {
  readonly #maxClients: number;
  #day = "";
  readonly #counts = new Map<string, number>();
  readonly #overflow: CountMinSketch;
  #anonymousClients = 0;

  /** `maxClients`: anonymous clients counted exactly per day; `sketchWidth`: counters per sketch row beyond them. */
  constructor(options: { maxClients?: number; sketchWidth?: number } = {}) {
    this.#maxClients = options.maxClients ?? MAX_CLIENTS;
    this.#overflow = new CountMinSketch(options.sketchWidth ?? SKETCH_WIDTH);
  }

  take(day: string, bucket: string, client: string, quota: number): Promise<{ allowed: boolean; used: number }> {
    return Promise.resolve(this.takeNow(day, bucket, client, quota));
  }

  peek(day: string, bucket: string, client: string): Promise<number> {
    return Promise.resolve(this.peekNow(day, bucket, client));
  }

  /** `take` without the promise. */
  takeNow(day: string, bucket: string, client: string, quota: number): { allowed: boolean; used: number } {
    this.#turnTo(day);
    const key = `${bucket}\n${client}`;
    const used = this.#counts.get(key);
    const anonymous = client.startsWith("ip:");
    if (used === undefined && anonymous && this.#anonymousClients >= this.#maxClients) {
      const { added, estimate } = this.#overflow.addUpTo(key, quota);
      return { allowed: added, used: estimate };
    }
    if (used === undefined && anonymous) this.#anonymousClients += 1;
    const count = (used ?? 0) + 1;
    if (count > quota) return { allowed: false, used: used ?? 0 };
    this.#counts.set(key, count);
    return { allowed: true, used: count };
  }

  peekNow(day: string, bucket: string, client: string): number {
    this.#turnTo(day);
    const key = `${bucket}\n${client}`;
    const overflowing = client.startsWith("ip:") && this.#anonymousClients >= this.#maxClients;
    return this.#counts.get(key) ?? (overflowing ? this.#overflow.estimate(key) : 0);
  }

  /** A new UTC day starts every count from zero. */
  #turnTo(day: string): void {
    if (day === this.#day) return;
    this.#day = day;
    this.#counts.clear();
    this.#overflow.clear();
    this.#anonymousClients = 0;
  }
}

/** Open connections per client, in this process. */
export class MemoryConnectionCap implements ConnectionCap {
  readonly #open = new Map<string, number>();

  open(client: string, max: number): Promise<(() => void) | null> {
    const count = this.#open.get(client) ?? 0;
    if (count >= max) return Promise.resolve(null);
    this.#open.set(client, count + 1);
    let closed = false;
    return Promise.resolve(() => {
      if (closed) return;
      closed = true;
      const left = (this.#open.get(client) ?? 1) - 1;
      if (left > 0) this.#open.set(client, left);
      else this.#open.delete(client);
    });
  }
}

export function memoryLimits(options: { maxClients?: number; sketchWidth?: number } = {}): LimitsStore {
  return {
    kind: "memory",
    quotas: new MemoryQuotaCounter(options),
    connections: new MemoryConnectionCap(),
    health: () => Promise.resolve({ ok: true }),
    close: () => Promise.resolve(),
  };
}
