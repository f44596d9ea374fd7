import { describe, expect, it } from "vitest";
import { addressOrder, compareAddresses, isAddress } from "./address.ts";

describe("addresses", () => {
  it("are ledger account names", () => {
    for (const a of ["ATLAS", "atlas", "3f0e8a52-9c1b-4d7e-8f2a-1b2c3d4e5f60", "sample-legacy-0001", "a.b_c:d-e", "x".repeat(128)]) expect(isAddress(a), a).toBe(true);
    for (const a of ["", "-x", "a b", "é", "x".repeat(129), "a/b", 7, null]) expect(isAddress(a), String(a)).toBe(false);
  });

  it("sort by code unit: shorter first, upper case before lower case", () => {
    expect(["b", "a-1", "B", "a", "10", "9"].sort(compareAddresses)).toEqual(["10", "9", "B", "a", "a-1", "b"]);
  });
});

describe("addressOrder", () => {
  const sorted = (list: string[]) => [...addressOrder(list)].map((i) => list[i]!);

  it("orders like comparing the strings, for random sets with shared prefixes, repeats and every length", () => {
    // mulberry32: a small seeded generator, so the sets are the same on every run.
    let seed = 0x5eed;
    const next = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const rng = { next, int: (n: number) => Math.floor(next() * n) };
    const alphabet = "-.0123456789:ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz";
    for (const size of [0, 1, 2, 25, 26, 300, 5_000, 40_000]) {
      const list: string[] = [];
      for (let i = 0; i < size; i++) {
        const r = rng.next();
        if (r < 0.1 && list.length > 0) list.push(list[rng.int(list.length)]!); // a repeat
        else if (r < 0.3 && list.length > 0) list.push(list[rng.int(list.length)]!.slice(0, rng.int(12))); // a prefix of another
        else {
          const prefix = r < 0.7 ? "acct-0000" : "";
          let s = prefix + alphabet[rng.int(62) + 1];
          for (let k = rng.int(20); k > 0; k--) s += alphabet[rng.int(alphabet.length)];
          list.push(s);
        }
      }
      expect(sorted(list), `size ${size}`).toEqual([...list].sort(compareAddresses));
    }
  });

  it("puts equal addresses next to each other and handles code units beyond ASCII", () => {
    const list = ["b", "a", "b", "ä", "a", "A", "ab", "a", "a\u0000", "a\u0000\u0000"];
    expect(sorted(list)).toEqual([...list].sort(compareAddresses));
    const many = Array.from({ length: 1000 }, (_, i) => (i % 3 === 0 ? "same-address-beyond-the-first-chunk" : i % 3 === 1 ? `x${i}` : `a\u0000${i % 7}`));
    expect(sorted(many)).toEqual([...many].sort(compareAddresses));
  });
});
