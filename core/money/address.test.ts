import { describe, expect, it } from "vitest";
import { addressOrder, addressOrderOfBytes, compareAddresses, isAddress } from "./address.ts";

describe("addresses", () => {
  it("are ledger account names", () => {
    for (const a of [
      "ATLAS",
      "atlas",
      "3f0e8a52-9c1b-4d7e-8f2a-1b2c3d4e5f60",
      "sample-legacy-0001",
      "a.b_c:d-e",
      "x".repeat(128),
    ])
      expect(isAddress(a), a).toBe(true);
    for (const a of ["", "-x", "a b", "é", "x".repeat(129), "a/b", 7, null])
      expect(isAddress(a), String(a)).toBe(false);
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
        if (r < 0.1 && list.length > 0)
          list.push(list[rng.int(list.length)]!); // a repeat
        else if (r < 0.3 && list.length > 0)
          list.push(list[rng.int(list.length)]!.slice(0, rng.int(12))); // a prefix of another
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
    const many = Array.from({ length: 1000 }, (_, i) =>
      i % 3 === 0 ? "same-address-beyond-the-first-chunk" : i % 3 === 1 ? `x${i}` : `a\u0000${i % 7}`,
    );
    expect(sorted(many)).toEqual([...many].sort(compareAddresses));
  });
});

describe("addressOrderOfBytes", () => {
  /** The addresses packed into one buffer, as the export scanner holds them. */
  function packed(list: readonly string[]) {
    const bytes = Buffer.from(list.join(""), "latin1");
    const starts = new Uint32Array(list.length);
    const lengths = new Uint8Array(list.length);
    let at = 0;
    list.forEach((a, i) => {
      starts[i] = at;
      lengths[i] = a.length;
      at += a.length;
    });
    return { bytes, starts, lengths };
  }
  function check(list: readonly string[]) {
    const { bytes, starts, lengths } = packed(list);
    const { order, sameAsPrevious } = addressOrderOfBytes(bytes, starts, lengths, list.length);
    const sorted = [...order].map((i) => list[i]!);
    expect(sorted).toEqual([...list].sort(compareAddresses));
    expect([...sameAsPrevious]).toEqual(sorted.map((a, i) => (i > 0 && sorted[i - 1] === a ? 1 : 0)));
  }

  it("orders as compareAddresses does and marks equal neighbours, on random addresses of every alphabet byte", () => {
    const alphabet = "-.0123456789:ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz";
    let seed = 7;
    const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (const size of [0, 1, 2, 17, 300, 5_000]) {
      const list: string[] = [];
      for (let i = 0; i < size; i++) {
        const roll = next(10);
        if (roll === 0 && list.length > 0)
          list.push(list[next(list.length)]!); // a duplicate
        else if (roll === 1 && list.length > 0)
          list.push(list[next(list.length)]!.slice(0, 1 + next(8))); // a prefix of another
        else {
          const prefix = roll < 6 ? "acct-" : "";
          let a = prefix + "ABCabc019"[next(9)]!;
          for (let k = next(roll === 2 ? 127 : 14); k > 0 && a.length < 128; k--) a += alphabet[next(alphabet.length)]!;
          list.push(a);
        }
      }
      check(list);
    }
  });

  it("handles long shared prefixes, addresses of 128 bytes and runs of one address", () => {
    const long = "x".repeat(120);
    check([`${long}b`, `${long}a`, `${long}`, `${long}a`, `${long}ab`, "x".repeat(128), "x".repeat(128), "y"]);
    check(Array.from({ length: 40 }, () => "same"));
    check(
      Array.from(
        { length: 3000 },
        (_, i) =>
          `acct-${((i * 2_654_435_761) % 4_294_967_296).toString(16).padStart(8, "0")}-${(i % 500).toString(36)}`,
      ),
    );
  });
});
