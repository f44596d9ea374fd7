/**
 * The simulator's only source of randomness: sfc32 (Chris Doty-Humphrey's Small Fast Counting
 * generator, 128-bit state), seeded from SHA-256 of the seed string. Same seed → same stream on
 * every platform: the state is four uint32 words and every step is 32-bit integer arithmetic.
 */
import { hash } from "node:crypto";

export class Prng {
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  constructor(seed: string) {
    const h = hash("sha256", `prng:${seed}`, "buffer");
    this.#a = h.readUInt32BE(0);
    this.#b = h.readUInt32BE(4);
    this.#c = h.readUInt32BE(8);
    this.#d = h.readUInt32BE(12);
    // Discard the first outputs so that nearby seeds decorrelate (the reference implementation's advice).
    for (let i = 0; i < 15; i++) this.nextUint32();
  }

  nextUint32(): number {
    const t = (((this.#a + this.#b) | 0) + this.#d) | 0;
    this.#d = (this.#d + 1) | 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) | 0;
    this.#c = (this.#c << 21) | (this.#c >>> 11);
    this.#c = (this.#c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextUint32() / 4_294_967_296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Uniform integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  /** Uniform number in [min, max). */
  uniform(min: number, max: number): number {
    return min + this.next() * (max - min);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("pick from an empty list");
    return items[this.int(items.length)]!;
  }

  /** `count` distinct items in random order (partial Fisher–Yates on a copy). */
  sample<T>(items: readonly T[], count: number): T[] {
    const pool = items.slice();
    const n = Math.min(count, pool.length);
    for (let i = 0; i < n; i++) {
      const j = i + this.int(pool.length - i);
      [pool[i], pool[j]] = [pool[j]!, pool[i]!];
    }
    return pool.slice(0, n);
  }

  /** A whole count with mean `rate`: floor(rate) plus one more with probability frac(rate). */
  count(rate: number): number {
    const whole = Math.floor(rate);
    return whole + (this.chance(rate - whole) ? 1 : 0);
  }

  /** Approximately normal (Irwin–Hall of 4 uniforms), mean 0, standard deviation `sd`. */
  gaussian(sd: number): number {
    return (this.next() + this.next() + this.next() + this.next() - 2) * sd * Math.sqrt(3);
  }
}
