/**
 * The ledger's tree folded on the pass helper thread, continued from a watermark's edge; it answers
 * the root the pass must reproduce. The main thread sends each entry it reads as one of two
 * elements, back to back:
 *
 *     0x01 ‖ the leaf hash (32 bytes)          the main thread hashed the entry
 *     0x00 ‖ the entry's JCS text (UTF-8)      the leaf input, hashed here
 *
 * A leaf input runs to the next 0x00 or 0x01 byte, or to the end of the piece: JCS text escapes every
 * control character, so an entry's text holds neither. (An entry changed behind the store's back that
 * held one would be cut into other leaves, and the root would not match.) The main thread hashes
 * while this thread is busy and sends the text while it has room (ledger-pass.ts).
 */
import { hash } from "node:crypto";
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
export const LEAF_HASH_TAG = 0x01;
export const LEAF_INPUT_TAG = 0x00;

export class LeafTree {
  readonly #tree: StreamingRoot;

  constructor(start?: TreeStart) {
    this.#tree = start ? StreamingRoot.resume(start.size, start.edge) : new StreamingRoot();
  }

  /** Appends the leaves of the whole elements `bytes` holds. */
  write(bytes: Buffer): void {
    // Where the next tag byte of each kind is after the current element (-1: none): each found once.
    let nextInput = -2;
    let nextHash = -2;
    for (let at = 0; at < bytes.length;) {
      const tag = bytes[at];
      if (tag === LEAF_HASH_TAG) {
        if (at + 1 + LEAF_HASH_BYTES > bytes.length) throw new Error("a leaf hash cut short");
        this.#tree.appendLeafHash(bytes.toString("latin1", at + 1, at + 1 + LEAF_HASH_BYTES));
        at += 1 + LEAF_HASH_BYTES;
      } else if (tag === LEAF_INPUT_TAG) {
        if (nextInput !== -1 && nextInput <= at) nextInput = bytes.indexOf(LEAF_INPUT_TAG, at + 1);
        if (nextHash !== -1 && nextHash <= at) nextHash = bytes.indexOf(LEAF_HASH_TAG, at + 1);
        const end = Math.min(nextInput === -1 ? bytes.length : nextInput, nextHash === -1 ? bytes.length : nextHash);
        this.#tree.appendLeafHash(hash("sha256", bytes.subarray(at, end), "binary"));
        at = end;
      } else throw new Error(`a leaf element starts with byte ${tag}`);
    }
  }

  /** A tree has no file to remove. */
  abort(): void {}

  finish(): TreeEnd {
    return { size: this.#tree.size, root: formatDigest(this.#tree.root()), edge: this.#tree.edge };
  }
}
