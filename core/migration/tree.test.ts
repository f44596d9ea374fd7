import { describe, expect, it } from "vitest";
import { consistencyProof, inclusionProof, leafHashOfText, rootHash } from "../merkle.ts";
import { LeafTree } from "./tree.ts";

const texts = (n: number) => Array.from({ length: n }, (_, i) => `{"address":"a${i}","balance_shards":"${i}"}`);

describe("LeafTree", () => {
  it("has core/merkle's root and proofs for every size and index up to 70", () => {
    for (let n = 0; n <= 70; n++) {
      const leaves = texts(n);
      const hashes = leaves.map(leafHashOfText);
      const tree = LeafTree.fromTexts(leaves);
      expect(tree.size).toBe(n);
      expect(Buffer.from(tree.rootHash()).toString("hex"), `root of ${n}`).toBe(
        Buffer.from(rootHash(hashes)).toString("hex"),
      );
      for (let i = 0; i < n; i++)
        expect(tree.inclusionProof(i), `inclusion ${i}/${n}`).toEqual(
          inclusionProof(hashes, i).map((h) => new Uint8Array(h)),
        );
      for (let m = 1; m <= n; m++) {
        expect(tree.consistencyProof(m), `consistency ${m}/${n}`).toEqual(
          consistencyProof(hashes, m).map((h) => new Uint8Array(h)),
        );
        expect(Buffer.from(tree.rootHash(m)).equals(Buffer.from(rootHash(hashes.slice(0, m))))).toBe(true);
      }
    }
  });

  it("hashes a leaf's UTF-8 bytes", () => {
    const tree = LeafTree.fromTexts(['{"correction":"réglé"}']);
    expect(tree.leafHash(0)).toEqual(new Uint8Array(leafHashOfText('{"correction":"réglé"}')));
  });

  it("refuses indices and sizes outside the tree", () => {
    const tree = LeafTree.fromTexts(texts(5));
    expect(() => tree.inclusionProof(5)).toThrow(RangeError);
    expect(() => tree.rootHash(6)).toThrow(RangeError);
    expect(() => tree.consistencyProof(2, 6)).toThrow(RangeError);
    expect(() => tree.leafHash(-1)).toThrow(RangeError);
  });
});
