/**
 * RFC 9162 (Certificate Transparency v2) Merkle tree hashing, inclusion and consistency proofs.
 *
 * Leaf hash: SHA-256(0x00 ‖ data); node hash: SHA-256(0x01 ‖ left ‖ right). A tree of n leaves splits
 * at the largest power of two below n. Hashes are 32-byte `Uint8Array`s. Tree sizes and indices are
 * safe integers, so no bitwise operators (they truncate to 32 bits) are used on them.
 */
import { hash } from "node:crypto";

export const HASH_SIZE = 32;

const LEAF_PREFIX = 0x00;
const NODE_PREFIX = 0x01;

// One scratch buffer per prefix: hashing a node copies 64 bytes instead of allocating a concatenation.
const nodeScratch = new Uint8Array(1 + 2 * HASH_SIZE);
nodeScratch[0] = NODE_PREFIX;

// Hashes come back as Node Buffers (a Uint8Array subclass) to keep the hot path allocation-light;
// copy with `new Uint8Array(h)`, never `h.slice()`, which on a Buffer is a view.
function sha256(data: Uint8Array): Uint8Array {
  return hash("sha256", data, "buffer");
}

export function leafHash(data: Uint8Array): Uint8Array {
  const input = new Uint8Array(1 + data.length);
  input[0] = LEAF_PREFIX;
  input.set(data, 1);
  return sha256(input);
}

/** Leaf hash of a string's UTF-8 bytes without building the byte array first (the ledger's hot path). */
export function leafHashOfText(text: string): Uint8Array {
  // U+0000 encodes as the single byte 0x00: the RFC 9162 leaf prefix.
  return hash("sha256", `\u0000${text}`, "buffer");
}

export function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  nodeScratch.set(left, 1);
  nodeScratch.set(right, 1 + HASH_SIZE);
  return sha256(nodeScratch);
}

const latin1Scratch = Buffer.alloc(1 + 2 * HASH_SIZE);
latin1Scratch[0] = NODE_PREFIX;

/**
 * nodeHash over hashes held as 32-character latin1 strings: node:crypto returns a string about 3×
 * faster than a Buffer (no ArrayBuffer per hash), which is what a whole-tree fold spends its time on.
 */
export function nodeHashLatin1(left: string, right: string): string {
  latin1Scratch.write(left, 1, HASH_SIZE, "latin1");
  latin1Scratch.write(right, 1 + HASH_SIZE, HASH_SIZE, "latin1");
  return hash("sha256", latin1Scratch, "binary");
}

/** The root of the empty tree: SHA-256 of the empty string. */
export const EMPTY_ROOT: Uint8Array = sha256(new Uint8Array(0));

/** Largest power of two strictly less than n (n >= 2). */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

function isPowerOfTwo(n: number): boolean {
  return n >= 1 && splitPoint(n + 1) === n;
}

/** Merkle Tree Hash of a list of leaf hashes. */
export function rootHash(leafHashes: readonly Uint8Array[]): Uint8Array {
  const n = leafHashes.length;
  if (n === 0) return EMPTY_ROOT;
  // Fold level by level; an odd node at the end of a level is carried up unchanged, which is exactly
  // the RFC's split at the largest power of two. Inner hashes are latin1 strings (nodeHashLatin1).
  const level = leafHashes.map((h) => Buffer.from(h.buffer, h.byteOffset, h.byteLength).toString("latin1"));
  let width = n;
  while (width > 1) {
    let w = 0;
    for (let i = 0; i + 1 < width; i += 2) level[w++] = nodeHashLatin1(level[i]!, level[i + 1]!);
    if (width % 2 === 1) level[w++] = level[width - 1]!;
    width = w;
  }
  return Buffer.from(level[0]!, "latin1");
}

/**
 * Hash of the subtree over leaves [start, end). The store answers from its stored perfect subtrees;
 * the in-memory builder from a level cache. Proof construction is written against this function only.
 */
export type RangeHasher = (start: number, end: number) => Uint8Array;

/** A RangeHasher over an in-memory list: builds every perfect subtree once, then answers in O(log n). */
export function rangeHasher(leafHashes: readonly Uint8Array[]): RangeHasher {
  const levels: Uint8Array[][] = [leafHashes.slice()];
  for (let below = levels[0]!; below.length >= 2;) {
    const above: Uint8Array[] = [];
    for (let i = 0; i + 1 < below.length; i += 2) above.push(nodeHash(below[i]!, below[i + 1]!));
    levels.push(above);
    below = above;
  }
  const perfect = (level: number, index: number): Uint8Array | undefined => levels[level]?.[index];
  return composeRange(perfect);
}

/**
 * Builds a RangeHasher from a lookup of perfect subtrees: `perfect(level, index)` is the hash of the
 * 2^level leaves starting at index·2^level, or undefined when it is not available.
 */
export function composeRange(perfect: (level: number, index: number) => Uint8Array | undefined): RangeHasher {
  const range = (start: number, end: number): Uint8Array => {
    const n = end - start;
    if (n <= 0) throw new RangeError(`empty subtree [${start}, ${end})`);
    if (isPowerOfTwo(n) && start % n === 0) {
      const level = Math.log2(n);
      const stored = perfect(level, start / n);
      if (stored) return stored;
      if (n === 1) throw new RangeError(`leaf ${start} is not available`);
    }
    const k = splitPoint(n);
    return nodeHash(range(start, start + k), range(start + k, end));
  };
  return range;
}

function checkIndex(name: string, value: number, max: number): void {
  if (!Number.isSafeInteger(value) || value < 0 || value > max) {
    throw new RangeError(`${name} ${value} is out of range [0, ${max}]`);
  }
}

/** RFC 9162 §2.1.3.1 PATH(m, D[n]), leaf-side first. */
export function inclusionProofWith(range: RangeHasher, index: number, treeSize: number): Uint8Array[] {
  checkIndex("tree size", treeSize, Number.MAX_SAFE_INTEGER);
  checkIndex("leaf index", index, treeSize - 1);
  const proof: Uint8Array[] = [];
  let start = 0;
  let end = treeSize;
  let m = index;
  // Walk down from the root, recording the sibling subtree at each split; reverse at the end.
  while (end - start > 1) {
    const k = splitPoint(end - start);
    if (m < k) {
      proof.push(range(start + k, end));
      end = start + k;
    } else {
      proof.push(range(start, start + k));
      start += k;
      m -= k;
    }
  }
  return proof.reverse();
}

/** RFC 9162 §2.1.4.1 PROOF(m, D[n]). */
export function consistencyProofWith(range: RangeHasher, oldSize: number, newSize: number): Uint8Array[] {
  checkIndex("new size", newSize, Number.MAX_SAFE_INTEGER);
  checkIndex("old size", oldSize, newSize);
  if (oldSize === 0 || oldSize === newSize) return [];
  const proof: Uint8Array[] = [];
  let start = 0;
  let end = newSize;
  let m = oldSize;
  let complete = true; // SUBPROOF's b: is the old tree's subtree a whole subtree of the new one?
  while (m !== end - start) {
    const k = splitPoint(end - start);
    if (m <= k) {
      proof.push(range(start + k, end));
      end = start + k;
    } else {
      proof.push(range(start, start + k));
      start += k;
      m -= k;
      complete = false;
    }
  }
  if (!complete) proof.push(range(start, end));
  return proof.reverse();
}

export function inclusionProof(leafHashes: readonly Uint8Array[], index: number): Uint8Array[] {
  return inclusionProofWith(rangeHasher(leafHashes), index, leafHashes.length);
}

export function consistencyProof(leafHashes: readonly Uint8Array[], oldSize: number): Uint8Array[] {
  return consistencyProofWith(rangeHasher(leafHashes), oldSize, leafHashes.length);
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

function allHashes(hashes: readonly Uint8Array[]): boolean {
  return hashes.every((h) => h instanceof Uint8Array && h.length === HASH_SIZE);
}

/** RFC 9162 §2.1.3.2. Returns false on any malformed input; never throws. */
export function verifyInclusion(
  leaf: Uint8Array,
  index: number,
  treeSize: number,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): boolean {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(treeSize) || index < 0 || index >= treeSize) return false;
  if (!allHashes([leaf, root]) || !allHashes(proof)) return false;
  let fn = index;
  let sn = treeSize - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn /= 2;
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equalBytes(r, root);
}

/**
 * RFC 9162 §2.1.4.2. Returns false on any malformed input; never throws.
 * Consistency with an empty old tree proves nothing, so oldSize 0 is refused (as transparency-dev does).
 */
export function verifyConsistency(
  oldSize: number,
  newSize: number,
  oldRoot: Uint8Array,
  newRoot: Uint8Array,
  proof: readonly Uint8Array[],
): boolean {
  if (!Number.isSafeInteger(oldSize) || !Number.isSafeInteger(newSize)) return false;
  if (oldSize <= 0 || newSize < oldSize) return false;
  if (oldSize === newSize) return proof.length === 0 && equalBytes(oldRoot, newRoot);
  if (proof.length === 0 || !allHashes([oldRoot, newRoot]) || !allHashes(proof)) return false;

  const path = isPowerOfTwo(oldSize) ? [oldRoot, ...proof] : proof;
  let fn = oldSize - 1;
  let sn = newSize - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = path[0]!;
  let sr = path[0]!;
  for (let i = 1; i < path.length; i++) {
    const c = path[i]!;
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn /= 2;
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equalBytes(fr, oldRoot) && equalBytes(sr, newRoot);
}
