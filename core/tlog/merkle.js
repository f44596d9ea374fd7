// @ts-check
/**
 * RFC 9162 (Certificate Transparency v2) Merkle trees as a reader checks them: which subtrees an
 * inclusion proof (§2.1.3.1 PATH) or a consistency proof (§2.1.4.1 PROOF) holds, and the
 * verification of both (§2.1.3.2, §2.1.4.2). Leaf hash SHA-256(0x00 ‖ data), node hash
 * SHA-256(0x01 ‖ left ‖ right); a tree of n leaves splits at the largest power of two below n.
 * Tree sizes and indices are safe integers, so no bitwise operator (they truncate to 32 bits)
 * touches them. Hashing is asked of the runner (./crypto.js), so the checks run sync or async.
 */
import { concat, equalBytes } from "./bytes.js";
import { nodeHash, sha256 } from "./crypto.js";

export const HASH_SIZE = 32;

/** @typedef {import("./crypto.js").Step} Step */
/**
 * @template T
 * @typedef {import("./crypto.js").Check<T>} Check
 */

/**
 * Largest power of two strictly less than n (n >= 2).
 * @param {number} n
 * @returns {number}
 */
export function splitPoint(n) {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * Whether n (>= 1) is a power of two, for any safe integer.
 * @param {number} n
 * @returns {boolean}
 */
export function isPowerOfTwo(n) {
  let p = 1;
  while (p < n) p *= 2;
  return n >= 1 && p === n;
}

/**
 * The perfect subtree [start, end) is, as (level, index): 2^level leaves from index·2^level; null
 * when the range is not one aligned power of two.
 * @param {number} start
 * @param {number} end
 * @returns {{ level: number; index: number } | null}
 */
export function perfectSubtree(start, end) {
  const n = end - start;
  return isPowerOfTwo(n) && start % n === 0 ? { level: Math.log2(n), index: start / n } : null;
}

/**
 * @param {string} name
 * @param {number} value
 * @param {number} max
 */
function checkIndex(name, value, max) {
  if (!Number.isSafeInteger(value) || value < 0 || value > max) {
    throw new RangeError(`${name} ${value} is out of range [0, ${max}]`);
  }
}

/**
 * The subtrees whose hashes make the inclusion proof PATH(index, D[size]) (RFC 9162 §2.1.3.1), leaf
 * side first, each as its range of leaves [start, end). Throws a RangeError on an index outside the tree.
 * @param {number} index
 * @param {number} size
 * @returns {[number, number][]}
 */
export function inclusionRanges(index, size) {
  checkIndex("tree size", size, Number.MAX_SAFE_INTEGER);
  checkIndex("leaf index", index, size - 1);
  /** @type {[number, number][]} */
  const ranges = [];
  let start = 0;
  let end = size;
  // Walk down from the root, noting the sibling subtree at each split; PATH lists them from the leaf up.
  while (end - start > 1) {
    const k = splitPoint(end - start);
    if (index < start + k) {
      ranges.push([start + k, end]);
      end = start + k;
    } else {
      ranges.push([start, start + k]);
      start += k;
    }
  }
  return ranges.reverse();
}

/**
 * The subtrees whose hashes make the consistency proof PROOF(oldSize, D[newSize]) (RFC 9162
 * §2.1.4.1), bottom first, as ranges of leaves; none when oldSize is 0 or newSize. Throws a
 * RangeError unless 0 ≤ oldSize ≤ newSize.
 * @param {number} oldSize
 * @param {number} newSize
 * @returns {[number, number][]}
 */
export function consistencyRanges(oldSize, newSize) {
  checkIndex("new size", newSize, Number.MAX_SAFE_INTEGER);
  checkIndex("old size", oldSize, newSize);
  if (oldSize === 0 || oldSize === newSize) return [];
  /** @type {[number, number][]} */
  const ranges = [];
  let start = 0;
  let end = newSize;
  let m = oldSize;
  let complete = true; // SUBPROOF's b: is the old tree's part a whole subtree of the new one?
  while (m !== end - start) {
    const k = splitPoint(end - start);
    if (m <= k) {
      ranges.push([start + k, end]);
      end = start + k;
    } else {
      ranges.push([start, start + k]);
      start += k;
      m -= k;
      complete = false;
    }
  }
  if (!complete) ranges.push([start, end]);
  return ranges.reverse();
}

/**
 * @param {unknown[]} hashes
 * @returns {hashes is Uint8Array[]}
 */
function allHashes(hashes) {
  return hashes.every((h) => h instanceof Uint8Array && h.length === HASH_SIZE);
}

/**
 * Leaf hash: SHA-256(0x00 ‖ data).
 * @param {Uint8Array} data
 * @returns {Check<Uint8Array>}
 */
export function* leafHash(data) {
  return yield* sha256(concat(Uint8Array.of(0), data));
}

/**
 * While fn is even and not 0, halve fn and sn: the climb of §2.1.3.2 step 5 and §2.1.4.2 step 6.
 * @param {number} fn
 * @param {number} sn
 * @returns {[number, number]}
 */
function climb(fn, sn) {
  while (fn % 2 === 0 && fn !== 0) {
    fn /= 2;
    sn = Math.floor(sn / 2);
  }
  return [fn, sn];
}

/**
 * RFC 9162 §2.1.3.2: whether `proof` leads from the leaf hash at `index` to `root` in a tree of
 * `size`. False on any malformed input; never throws.
 * @param {Uint8Array} leaf
 * @param {number} index
 * @param {number} size
 * @param {readonly Uint8Array[]} proof
 * @param {Uint8Array} root
 * @returns {Check<boolean>}
 */
export function* inclusionCheck(leaf, index, size, proof, root) {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return false;
  if (!Array.isArray(proof) || !allHashes([leaf, root, ...proof])) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = yield* nodeHash(p, r);
      [fn, sn] = climb(fn, sn);
    } else {
      r = yield* nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equalBytes(r, root);
}

/**
 * RFC 9162 §2.1.4.2: whether `proof` shows that the tree of `oldSize` with root `oldRoot` is a prefix
 * of the tree of `newSize` with root `newRoot`. Equal sizes need equal roots and an empty proof; the
 * empty tree (oldSize 0) is a prefix of every tree, its root being SHA-256 of nothing, with an empty
 * proof (callers to whom that proves too little refuse oldSize 0 first). False on any malformed
 * input; never throws.
 * @param {number} oldSize
 * @param {number} newSize
 * @param {Uint8Array} oldRoot
 * @param {Uint8Array} newRoot
 * @param {readonly Uint8Array[]} proof
 * @returns {Check<boolean>}
 */
export function* consistencyCheck(oldSize, newSize, oldRoot, newRoot, proof) {
  if (!Number.isSafeInteger(oldSize) || !Number.isSafeInteger(newSize) || oldSize < 0 || newSize < oldSize)
    return false;
  if (!Array.isArray(proof)) return false;
  if (oldSize === 0) {
    const empty = yield* sha256(new Uint8Array(0));
    return proof.length === 0 && equalBytes(oldRoot, empty) && (newSize > 0 || equalBytes(newRoot, empty));
  }
  if (oldSize === newSize) return proof.length === 0 && equalBytes(oldRoot, newRoot);
  if (proof.length === 0 || !allHashes([oldRoot, newRoot, ...proof])) return false;
  // When the old tree is a power of two its root is the proof's implicit first hash.
  const path = isPowerOfTwo(oldSize) ? [oldRoot, ...proof] : proof;
  let fn = oldSize - 1;
  let sn = newSize - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = /** @type {Uint8Array} */ (path[0]);
  let sr = fr;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = yield* nodeHash(c, fr);
      sr = yield* nodeHash(c, sr);
      [fn, sn] = climb(fn, sn);
    } else {
      sr = yield* nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equalBytes(fr, oldRoot) && equalBytes(sr, newRoot);
}
