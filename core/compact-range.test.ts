import { describe, expect, it } from "vitest";
import { CompactRange } from "./compact-range.ts";
import { leafHash, rangeHasher, rootHash } from "./merkle.ts";

const leaves = Array.from({ length: 130 }, (_, i) => leafHash(new Uint8Array([i, i >> 8])));
const hex = (h: Uint8Array) => Buffer.from(h).toString("hex");

describe("CompactRange", () => {
  it("gives the RFC 9162 root after every append", () => {
    const range = CompactRange.empty();
    expect(hex(range.root())).toBe(hex(rootHash([])));
    leaves.forEach((leaf, i) => {
      range.append(leaf);
      expect(range.size).toBe(i + 1);
      expect(hex(range.root()), `size ${i + 1}`).toBe(hex(rootHash(leaves.slice(0, i + 1))));
    });
  });

  it("reports every perfect subtree it completes, with its level and index", () => {
    const range = CompactRange.empty();
    const seen: string[] = [];
    const subtree = rangeHasher(leaves);
    for (const leaf of leaves.slice(0, 8)) {
      range.append(leaf, (level, index, hash) => {
        seen.push(`${level}/${index}`);
        expect(hex(hash)).toBe(hex(subtree(index * 2 ** level, (index + 1) * 2 ** level)));
      });
    }
    expect(seen).toEqual(["1/0", "1/1", "2/0", "1/2", "1/3", "2/1", "3/0"]);
  });

  it("rebuilds from perfect subtrees and carries on identically; clones are independent", () => {
    const subtree = rangeHasher(leaves);
    for (const size of [0, 1, 5, 64, 100]) {
      const rebuilt = CompactRange.fromPerfect(size, (level, index) =>
        subtree(index * 2 ** level, (index + 1) * 2 ** level),
      );
      expect(hex(rebuilt.root())).toBe(hex(rootHash(leaves.slice(0, size))));
      const copy = rebuilt.clone();
      rebuilt.append(leaves[size]!);
      expect(hex(rebuilt.root())).toBe(hex(rootHash(leaves.slice(0, size + 1))));
      expect(copy.size).toBe(size);
    }
    expect(() => CompactRange.fromPerfect(-1, () => new Uint8Array(32))).toThrow(/bad tree size/);
  });
});
