/**
 * RFC 9162 (Certificate Transparency v2) Merkle trees as the project builds them: hashing, roots,
 * and the inclusion and consistency proofs a store hands out, over node:crypto. What a proof holds
 * and how one is verified is written once, in core/tlog/merkle.js (which the published verifier and
 * the portal run too); this module runs it synchronously (`nodeCrypto`).
 *
 * Leaf hash: SHA-256(0x00 ‖ data); node hash: SHA-256(0x01 ‖ left ‖ right). A tree of n leaves splits
 * at the largest power of two below n. Hashes are 32-byte `Uint8Array`s. Tree sizes and indices are
 * safe integers, so no bitwise operators (they truncate to 32 bits) are used on them.
 */
import { hash } from "node:crypto";
import { toHex } from "./digest.ts";
import { verify } from "./signature.ts";
import { runSync, type SyncCrypto } from "./tlog/crypto.js";
import {
  consistencyCheck,
  consistencyRanges,
  HASH_SIZE,
  inclusionCheck,
  inclusionRanges,
  perfectSubtree,
  splitPoint,
} from "./tlog/merkle.js";

export { equalBytes } from "./tlog/bytes.js";
export { HASH_SIZE, splitPoint };

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
    if (end - start <= 0) throw new RangeError(`empty subtree [${start}, ${end})`);
    const subtree = perfectSubtree(start, end);
    if (subtree) {
      const stored = perfect(subtree.level, subtree.index);
      if (stored) return stored;
      if (end - start === 1) throw new RangeError(`leaf ${start} is not available`);
    }
    const k = splitPoint(end - start);
    return nodeHash(range(start, start + k), range(start + k, end));
  };
  return range;
}

/** RFC 9162 §2.1.3.1 PATH(m, D[n]), leaf-side first. Throws a RangeError on an index outside the tree. */
export function inclusionProofWith(range: RangeHasher, index: number, treeSize: number): Uint8Array[] {
  return inclusionRanges(index, treeSize).map(([start, end]) => range(start, end));
}

/** RFC 9162 §2.1.4.1 PROOF(m, D[n]). Throws a RangeError unless 0 ≤ oldSize ≤ newSize. */
export function consistencyProofWith(range: RangeHasher, oldSize: number, newSize: number): Uint8Array[] {
  return consistencyRanges(oldSize, newSize).map(([start, end]) => range(start, end));
}

export function inclusionProof(leafHashes: readonly Uint8Array[], index: number): Uint8Array[] {
  return inclusionProofWith(rangeHasher(leafHashes), index, leafHashes.length);
}

export function consistencyProof(leafHashes: readonly Uint8Array[], oldSize: number): Uint8Array[] {
  return consistencyProofWith(rangeHasher(leafHashes), oldSize, leafHashes.length);
}

/** node:crypto's SHA-256 and strict Ed25519 (./signature.ts), for the checks of core/tlog/. */
export const nodeCrypto: SyncCrypto = {
  sha256,
  nodeHash,
  verifyEd25519: (publicKey, message, signature) => verify("ed25519", toHex(publicKey), message, toHex(signature)),
};

/** RFC 9162 §2.1.3.2. Returns false on any malformed input; never throws. */
export function verifyInclusion(
  leaf: Uint8Array,
  index: number,
  treeSize: number,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): boolean {
  return runSync(inclusionCheck(leaf, index, treeSize, proof, root), nodeCrypto);
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
  if (!(oldSize > 0)) return false;
  return runSync(consistencyCheck(oldSize, newSize, oldRoot, newRoot, proof), nodeCrypto);
}
