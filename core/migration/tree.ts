/**
 * An RFC 9162 Merkle tree held whole in memory, for the migration snapshot: every level's hashes
 * back to back in one Buffer (2n × 32 bytes for n leaves, no object per hash), so a tree of a
 * million leaves is built in one pass and then answers inclusion and consistency proofs for any
 * leaf or size in O(log n) lookups (core/merkle.ts builds the proofs; this only supplies subtrees).
 */
import { hash } from "node:crypto";
import {
  HASH_SIZE,
  consistencyProofWith,
  inclusionProofWith,
  nodeHash,
  splitPoint,
  type RangeHasher,
} from "../merkle.ts";

/** Hashes of ranges that are not perfect subtrees (the right edge), kept for repeated proofs. */
const MEMO_LIMIT = 4096;

export class LeafTree {
  /** levels[0] = leaf hashes; levels[k][i] = hash of the perfect subtree of 2^k leaves at i·2^k. */
  readonly #levels: Buffer[];
  readonly #range: RangeHasher;
  readonly size: number;

  private constructor(levels: Buffer[], size: number) {
    this.#levels = levels;
    this.size = size;
    // Perfect subtrees are read from the levels; the others (along the right edge of a tree whose
    // size is not a power of two) are computed once and remembered, so every proof of a big tree
    // costs O(log n) lookups instead of rehashing the right edge each time.
    const memo = new Map<string, Uint8Array>();
    const range: RangeHasher = (start, end) => {
      const n = end - start;
      if (n <= 0) throw new RangeError(`empty subtree [${start}, ${end})`);
      if ((n & (n - 1)) === 0 && n <= 2 ** 30 && start % n === 0) {
        const buffer = levels[Math.log2(n)]!;
        const at = (start / n) * HASH_SIZE;
        return buffer.subarray(at, at + HASH_SIZE);
      }
      const key = `${start}:${end}`;
      let hash = memo.get(key);
      if (hash === undefined) {
        const k = splitPoint(n);
        hash = nodeHash(range(start, start + k), range(start + k, end));
        if (memo.size >= MEMO_LIMIT) memo.clear();
        memo.set(key, hash);
      }
      return hash;
    };
    this.#range = range;
  }

  /** The tree whose leaves are the UTF-8 bytes of each text (0x00 ‖ text hashed per RFC 9162). */
  static fromTexts(texts: readonly string[]): LeafTree {
    const n = texts.length;
    const leaves = Buffer.allocUnsafe(n * HASH_SIZE);
    for (let i = 0; i < n; i++)
      leaves.write(hash("sha256", `\u0000${texts[i]!}`, "binary"), i * HASH_SIZE, HASH_SIZE, "latin1");
    return LeafTree.fromLeafHashes(leaves);
  }

  /** The tree over leaf hashes given back to back (32 bytes each). */
  static fromLeafHashes(leaves: Buffer): LeafTree {
    if (leaves.length % HASH_SIZE !== 0) throw new RangeError("leaf hashes must be 32 bytes each");
    const levels = [leaves];
    const scratch = Buffer.alloc(1 + 2 * HASH_SIZE);
    scratch[0] = 0x01;
    for (let below = leaves; below.length >= 2 * HASH_SIZE;) {
      const count = Math.floor(below.length / (2 * HASH_SIZE));
      const above = Buffer.allocUnsafe(count * HASH_SIZE);
      for (let i = 0; i < count; i++) {
        below.copy(scratch, 1, i * 2 * HASH_SIZE, (i + 1) * 2 * HASH_SIZE);
        above.write(hash("sha256", scratch, "binary"), i * HASH_SIZE, HASH_SIZE, "latin1");
      }
      levels.push(above);
      below = above;
    }
    return new LeafTree(levels, leaves.length / HASH_SIZE);
  }

  leafHash(index: number): Uint8Array {
    if (!Number.isSafeInteger(index) || index < 0 || index >= this.size)
      throw new RangeError(`leaf ${index} is out of range [0, ${this.size})`);
    return new Uint8Array(this.#levels[0]!.subarray(index * HASH_SIZE, (index + 1) * HASH_SIZE));
  }

  /** The root of the first `size` leaves (default all). */
  rootHash(size = this.size): Uint8Array {
    if (!Number.isSafeInteger(size) || size < 0 || size > this.size)
      throw new RangeError(`tree size ${size} is out of range [0, ${this.size}]`);
    if (size === 0) return new Uint8Array(hash("sha256", new Uint8Array(0), "buffer"));
    return new Uint8Array(this.#range(0, size));
  }

  inclusionProof(index: number, size = this.size): Uint8Array[] {
    if (size > this.size) throw new RangeError(`tree size ${size} is beyond ${this.size}`);
    return inclusionProofWith(this.#range, index, size).map((h) => new Uint8Array(h));
  }

  consistencyProof(oldSize: number, newSize = this.size): Uint8Array[] {
    if (newSize > this.size) throw new RangeError(`tree size ${newSize} is beyond ${this.size}`);
    return consistencyProofWith(this.#range, oldSize, newSize).map((h) => new Uint8Array(h));
  }
}
