/**
 * The right edge of an RFC 9162 Merkle tree: the hashes of the perfect subtrees that make up the
 * leaves [0, size), largest first (one per set bit of size). Enough to append a leaf and to compute
 * the root in O(log n) without rereading the log.
 */
import { EMPTY_ROOT, nodeHash } from "./merkle.ts";

/** Called for every perfect subtree an append completes: 2^level leaves starting at index·2^level. */
export type SubtreeListener = (level: number, index: number, hash: Uint8Array) => void;

export class CompactRange {
  #size: number;
  readonly #levels: number[];
  readonly #hashes: Uint8Array[];

  private constructor(size: number, levels: number[], hashes: Uint8Array[]) {
    this.#size = size;
    this.#levels = levels;
    this.#hashes = hashes;
  }

  static empty(): CompactRange {
    return new CompactRange(0, [], []);
  }

  /** The perfect subtrees that make up the right edge of a tree of `size` leaves, largest first (the order of `edge`). */
  static edgeNodes(size: number): { level: number; index: number }[] {
    if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`bad tree size ${size}`);
    const nodes: { level: number; index: number }[] = [];
    let start = 0;
    for (let level = Math.floor(Math.log2(Math.max(size, 1))); level >= 0; level--) {
      const width = 2 ** level;
      if (size - start >= width) {
        nodes.push({ level, index: start / width });
        start += width;
      }
    }
    return nodes;
  }

  /** Rebuilds the range of a tree of `size` leaves from its perfect subtrees. */
  static fromPerfect(size: number, perfect: (level: number, index: number) => Uint8Array): CompactRange {
    const nodes = CompactRange.edgeNodes(size);
    return new CompactRange(
      size,
      nodes.map((n) => n.level),
      nodes.map((n) => perfect(n.level, n.index)),
    );
  }

  get size(): number {
    return this.#size;
  }

  /** The hashes of the right edge, largest subtree first (their heights follow from `size`). */
  get edge(): readonly Uint8Array[] {
    return this.#hashes.slice();
  }

  clone(): CompactRange {
    return new CompactRange(this.#size, this.#levels.slice(), this.#hashes.slice());
  }

  append(leafHash: Uint8Array, onComplete?: SubtreeListener): void {
    let level = 0;
    let hash = leafHash;
    this.#size += 1;
    // Merge with the last subtree while it has the same height: that is a binary carry.
    while (this.#levels.length > 0 && this.#levels[this.#levels.length - 1] === level) {
      this.#levels.pop();
      hash = nodeHash(this.#hashes.pop()!, hash);
      level += 1;
      onComplete?.(level, this.#size / 2 ** level - 1, hash);
    }
    this.#levels.push(level);
    this.#hashes.push(hash);
  }

  root(): Uint8Array {
    const n = this.#hashes.length;
    if (n === 0) return EMPTY_ROOT;
    let root = this.#hashes[n - 1]!;
    for (let i = n - 2; i >= 0; i--) root = nodeHash(this.#hashes[i]!, root);
    return root;
  }
}
