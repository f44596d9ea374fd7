import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { vectorsPath } from "../test/support/vectors.ts";
import {
  EMPTY_ROOT,
  consistencyProof,
  consistencyProofWith,
  inclusionProof,
  inclusionProofWith,
  leafHash,
  leafHashOfText,
  nodeHash,
  rangeHasher,
  rootHash,
  verifyConsistency,
  verifyInclusion,
} from "./merkle.ts";

const vectors = vectorsPath("merkle");

function jsonFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? jsonFiles(path) : name.endsWith(".json") ? [path] : [];
  });
}

const b64 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, "base64"));
const hex = (h: Uint8Array): string => Buffer.from(h).toString("hex");

interface InclusionVector {
  leafIdx: number;
  treeSize: number;
  root: string;
  leafHash: string;
  proof: string[] | null;
  desc: string;
  wantErr: boolean;
}
interface ConsistencyVector {
  size1: number;
  size2: number;
  root1: string;
  root2: string;
  proof: string[] | null;
  desc: string;
  wantErr: boolean;
}

describe("transparency-dev vectors", () => {
  const inclusion = jsonFiles(join(vectors, "inclusion"));
  const consistency = jsonFiles(join(vectors, "consistency"));

  it("finds the vector files", () => {
    expect(inclusion.length).toBe(98);
    expect(consistency.length).toBe(98);
  });

  it.each(inclusion.map((f) => [f.slice(vectors.length + 1), f]))("inclusion %s", (_name, file) => {
    const v = JSON.parse(readFileSync(file, "utf8")) as InclusionVector;
    const ok = verifyInclusion(b64(v.leafHash), v.leafIdx, v.treeSize, (v.proof ?? []).map(b64), b64(v.root));
    expect(ok, v.desc).toBe(!v.wantErr);
  });

  it.each(consistency.map((f) => [f.slice(vectors.length + 1), f]))("consistency %s", (_name, file) => {
    const v = JSON.parse(readFileSync(file, "utf8")) as ConsistencyVector;
    const ok = verifyConsistency(v.size1, v.size2, b64(v.root1), b64(v.root2), (v.proof ?? []).map(b64));
    expect(ok, v.desc).toBe(!v.wantErr);
  });
});

describe("tree hashing", () => {
  it("hashes the empty tree, leaves and nodes as RFC 9162 says", () => {
    expect(hex(EMPTY_ROOT)).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(hex(rootHash([]))).toBe(hex(EMPTY_ROOT));
    // SHA-256(0x00) — the hash of an empty leaf.
    expect(hex(leafHash(new Uint8Array()))).toBe("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d");
  });

  // Reference MTH straight from the RFC's recursive definition.
  function mth(leaves: Uint8Array[]): Uint8Array {
    if (leaves.length === 0) return EMPTY_ROOT;
    if (leaves.length === 1) return leaves[0]!;
    let k = 1;
    while (k * 2 < leaves.length) k *= 2;
    return nodeHash(mth(leaves.slice(0, k)), mth(leaves.slice(k)));
  }

  it("matches the recursive definition for every size up to 70", () => {
    const leaves = Array.from({ length: 70 }, (_, i) => leafHash(new TextEncoder().encode(`leaf ${i}`)));
    for (let n = 0; n <= 70; n++) {
      expect(hex(rootHash(leaves.slice(0, n))), `size ${n}`).toBe(hex(mth(leaves.slice(0, n))));
    }
  });

  it("matches the RFC 6962 reference tree of 8 leaves (transparency-dev)", () => {
    // The eight inputs of the CT reference test and the root the vectors' happy paths use.
    const inputs = ["", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f"];
    const leaves = inputs.map((h) => leafHash(new Uint8Array(Buffer.from(h, "hex"))));
    expect(Buffer.from(rootHash(leaves)).toString("base64")).toBe("XcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=");
  });
});

/** A small deterministic PRNG (mulberry32) so the property test is reproducible. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function flipBit(h: Uint8Array, bit: number): Uint8Array {
  const copy = new Uint8Array(h); // a copy: Buffer#slice would be a view and corrupt the original
  copy[bit >> 3] = copy[bit >> 3]! ^ (1 << (bit & 7));
  return copy;
}

describe("property: every proof the module builds verifies, and no single flipped bit does", () => {
  const random = prng(9162);
  const sizes = [1, 2, 3, 4, 5, 7, 8, 9, 255, 256, 257, 1023, 2000];
  for (let i = 0; i < 8; i++) sizes.push(1 + Math.floor(random() * 2000));

  it.each(sizes)("tree of %i leaves", (size) => {
    const leaves = Array.from({ length: size }, (_, i) => leafHash(new TextEncoder().encode(`entry ${size}/${i}`)));
    const root = rootHash(leaves);
    const range = rangeHasher(leaves);
    const roots = [EMPTY_ROOT];
    for (let n = 1; n <= size; n++) roots.push(range(0, n));
    expect(hex(roots[size]!)).toBe(hex(root));

    // Exhaustive flips for a few indices, one random flip for every other index.
    const exhaustive = new Set([0, size - 1, Math.floor(random() * size)]);
    for (let index = 0; index < size; index++) {
      const proof = inclusionProofWith(range, index, size);
      expect(verifyInclusion(leaves[index]!, index, size, proof, root)).toBe(true);
      const targets = exhaustive.has(index)
        ? proof.flatMap((_, e) => Array.from({ length: 256 }, (_, bit) => [e, bit] as const))
        : proof.length > 0
          ? [[Math.floor(random() * proof.length), Math.floor(random() * 256)] as const]
          : [];
      for (const [e, bit] of targets) {
        const bad = proof.map((h, j) => (j === e ? flipBit(h, bit) : h));
        expect(verifyInclusion(leaves[index]!, index, size, bad, root)).toBe(false);
      }
      const bit = Math.floor(random() * 256);
      expect(verifyInclusion(flipBit(leaves[index]!, bit), index, size, proof, root)).toBe(false);
      expect(verifyInclusion(leaves[index]!, index, size, proof, flipBit(root, bit))).toBe(false);
    }

    for (let oldSize = 1; oldSize <= size; oldSize++) {
      const proof = consistencyProofWith(range, oldSize, size);
      expect(verifyConsistency(oldSize, size, roots[oldSize]!, root, proof), `${oldSize}→${size}`).toBe(true);
      if (proof.length === 0) continue;
      const e = Math.floor(random() * proof.length);
      const bit = Math.floor(random() * 256);
      const bad = proof.map((h, j) => (j === e ? flipBit(h, bit) : h));
      expect(verifyConsistency(oldSize, size, roots[oldSize]!, root, bad)).toBe(false);
      expect(verifyConsistency(oldSize, size, flipBit(roots[oldSize]!, bit), root, proof)).toBe(false);
      expect(verifyConsistency(oldSize, size, roots[oldSize]!, flipBit(root, bit), proof)).toBe(false);
    }
  });

  it("the list-based helpers agree with the range-based ones", () => {
    const leaves = Array.from({ length: 37 }, (_, i) => leafHash(new Uint8Array([i])));
    const range = rangeHasher(leaves);
    expect(inclusionProof(leaves, 20).map(hex)).toEqual(inclusionProofWith(range, 20, 37).map(hex));
    expect(consistencyProof(leaves, 13).map(hex)).toEqual(consistencyProofWith(range, 13, 37).map(hex));
  });

  it("refuses out-of-range requests with a clear error", () => {
    const leaves = [leafHash(new Uint8Array([1]))];
    expect(() => inclusionProof(leaves, 1)).toThrow(/out of range/);
    expect(() => consistencyProof(leaves, 2)).toThrow(/out of range/);
    expect(() => inclusionProof([], 0)).toThrow(/out of range/);
  });
});

describe("leafHashOfText", () => {
  it("equals leafHash of the UTF-8 bytes, for ASCII and beyond", () => {
    for (const text of ["", "abc", '{"a":"€ 😀 \\u0000"}', "\u0000"]) {
      expect(hex(leafHashOfText(text))).toBe(hex(leafHash(new TextEncoder().encode(text))));
    }
  });
});
