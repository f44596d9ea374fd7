/**
 * The ledger's tree folded on the pass helper thread: the main thread hashes every entry it reads
 * into its leaf and sends the leaf hashes (32 bytes each, back to back); the helper folds the inner
 * nodes, continued from a watermark's edge, and answers the root the pass must reproduce.
 */
import { formatDigest } from "../../core/digest.ts";
import { StreamingRoot } from "../../core/merkle-stream.ts";

/** Where the tree goes on from: a watermark's size and right edge. */
export interface TreeStart {
  size: number;
  edge: Uint8Array[];
}

/** The tree of every leaf given: its size, root (`sha256:<hex>`) and right edge. */
export interface TreeEnd {
  size: number;
  root: string;
  edge: Uint8Array[];
}

export const LEAF_HASH_BYTES = 32;

export class LeafTree {
  readonly #tree: StreamingRoot;

  constructor(start?: TreeStart) {
    this.#tree = start ? StreamingRoot.resume(start.size, start.edge) : new StreamingRoot();
  }

  /** Appends the leaves whose hashes `bytes` holds, whole ones only. */
  write(bytes: Buffer): void {
    if (bytes.length % LEAF_HASH_BYTES !== 0)
      throw new Error(`${bytes.length} bytes are not a whole number of leaf hashes`);
    for (let at = 0; at < bytes.length; at += LEAF_HASH_BYTES)
      this.#tree.appendLeafHash(bytes.toString("latin1", at, at + LEAF_HASH_BYTES));
  }

  /** A tree has no file to remove. */
  abort(): void {}

  finish(): TreeEnd {
    return { size: this.#tree.size, root: formatDigest(this.#tree.root()), edge: this.#tree.edge };
  }
}
