// @ts-check
/**
 * Reading a C2SP tlog-tiles log (https://c2sp.org/tlog-tiles) and proving an entry's inclusion from it.
 *
 * Tiles have height 8: the tile at level L, index N holds the hashes of the tree's nodes at level 8·L
 * from 256·N on (32 bytes each), 256 of them in a full tile `tile/<L>/<N>`, W < 256 in the partial tile
 * `tile/<L>/<N>.p/<W>` of a tree whose size ends there. N is written in groups of three digits, all but
 * the last prefixed with "x" (1234067 → x001/x234/067). Entry bundles `tile/entries/<N>[.p/<W>]` hold
 * the entries 256·N on, each as a big-endian uint16 length and the entry's bytes, which are its Merkle
 * leaf data: leaf hash SHA-256(0x00 ‖ data), node hash SHA-256(0x01 ‖ left ‖ right) (RFC 9162).
 * A log whose bundles hold another encoding must serve them at another URL (C2SP); this project's
 * ledger serves its entries' public envelopes at `envelopes/<N>[.p/<W>]` (same index encoding,
 * format and partial widths), which cannot be hashed to the leaves.
 *
 * A log may remove a partial tile once it publishes a newer checkpoint (this project keeps only the
 * latest checkpoint's partial tiles), so a client holding an older checkpoint reads the full tile or,
 * failing that, the current checkpoint's wider partial tile, and uses its first W records: C2SP lets
 * a client use a prefix of a wider tile. Those records are still checked against the older signed root.
 */
import { runAsync, webCrypto } from "../../../core/tlog/crypto.js";
import {
  consistencyCheck,
  consistencyRanges,
  inclusionCheck,
  inclusionRanges,
  HASH_SIZE,
  leafHash as leafHashCheck,
  perfectSubtree,
  splitPoint,
} from "../../../core/tlog/merkle.js";
import { decodeUtf8 } from "./bytes.js";
import { VerifyError } from "./errors.js";
import { bundleLimit, CHECKPOINT_LIMIT, hashTileLimit } from "./limits.js";

export const TILE_HEIGHT = 8;
export const CHECKPOINT_FILE = "checkpoint";
const TILE_WIDTH = 1 << TILE_HEIGHT;

/**
 * The path element of a tile index: groups of three digits, all but the last prefixed with "x".
 * @param {number} index
 */
export function tileIndexPath(index) {
  let n = Math.floor(index / 1000);
  let path = String(index % 1000).padStart(3, "0");
  while (n > 0) {
    path = `x${String(n % 1000).padStart(3, "0")}/${path}`;
    n = Math.floor(n / 1000);
  }
  return path;
}

/**
 * `tile/<level>/<N>[.p/<W>]`; level "entries" for entry bundles.
 * @param {number | "entries"} level
 * @param {number} index
 * @param {number} width
 */
export function tilePath(level, index, width) {
  return `tile/${level}/${tileIndexPath(index)}${width < TILE_WIDTH ? `.p/${width}` : ""}`;
}

/** Where envelope bundles are served, beside `tile/` (not a C2SP path: C2SP leaves other encodings to the log). */
export const ENVELOPES_DIR = "envelopes";

/**
 * A tile's or bundle's path: `tile/<level>/…` for a hash tile (a number) or an entry bundle
 * ("entries"); `envelopes/<N>[.p/<W>]` for an envelope bundle ("envelopes").
 * @param {number | "entries" | "envelopes"} level
 * @param {number} index
 * @param {number} width
 */
function pathOf(level, index, width) {
  return level === "envelopes"
    ? `${ENVELOPES_DIR}/${tileIndexPath(index)}${width < TILE_WIDTH ? `.p/${width}` : ""}`
    : tilePath(level, index, width);
}

/**
 * The size cap of a tile or bundle of `width` records.
 * @param {number | "entries" | "envelopes"} level
 * @param {number} width
 */
const limitOf = (level, width) => (typeof level === "number" ? hashTileLimit(width) : bundleLimit(width));

/** @param {Uint8Array} data */
export const leafHash = (data) => runAsync(leafHashCheck(data), webCrypto);
export const nodeHash = webCrypto.nodeHash;

/** Reads the tiles of a tree of one size from a source, each tile once. */
export class TileReader {
  /**
   * @param {import("./source.js").Source} source the log's base (holding `tile/`)
   * @param {number} size the tree size of the checkpoint the tiles are read for
   */
  constructor(source, size) {
    this.source = source;
    this.size = size;
    /** @type {Map<string, Promise<Uint8Array>>} */
    this.tiles = new Map();
    /** @type {Promise<number | null> | undefined} */
    this.current = undefined;
  }

  /**
   * The tile at (level, index) holding at least `width` records, and how many it holds: fetched at the
   * partial path when the tree ends inside the tile; if that is gone (the log has grown since), the
   * full tile, else the wider partial tile of the log's current checkpoint, whose first `width`
   * records are this tree's.
   * @param {number | "entries" | "envelopes"} level
   * @param {number} index
   * @param {number} width
   * @returns {Promise<{ bytes: Uint8Array; width: number }>}
   */
  async #tile(level, index, width) {
    const partial = pathOf(level, index, width);
    const bytes = await this.source.read(partial, limitOf(level, width));
    if (bytes !== null) return { bytes, width };
    if (width < TILE_WIDTH) {
      const full = await this.source.read(pathOf(level, index, TILE_WIDTH), limitOf(level, TILE_WIDTH));
      if (full !== null) return { bytes: full, width: TILE_WIDTH };
      const size = await this.#currentSize();
      const current =
        size === null
          ? 0
          : Math.min(
              TILE_WIDTH,
              Math.floor(size / 2 ** (typeof level === "number" ? level * TILE_HEIGHT : 0)) - index * TILE_WIDTH,
            );
      if (current > width && current < TILE_WIDTH) {
        const wider = await this.source.read(pathOf(level, index, current), limitOf(level, current));
        if (wider !== null) return { bytes: wider, width: current };
      }
    }
    throw new VerifyError("missing", `${this.source.describe(partial)}: missing`);
  }

  /**
   * The tree size of the log's checkpoint as served now, read again (it may be newer than the one
   * verified) only to know which wider partial tiles exist; null when there is none or it is unreadable.
   * Nothing else of it is used: what the tiles give is checked against the verified root.
   * @returns {Promise<number | null>}
   */
  #currentSize() {
    this.current ??= this.source.read(CHECKPOINT_FILE, CHECKPOINT_LIMIT).then((bytes) => {
      const sizeLine = (bytes === null ? null : decodeUtf8(bytes))?.split("\n")[1] ?? "";
      const size = Number(sizeLine);
      return /^(?:0|[1-9][0-9]*)$/.test(sizeLine) && Number.isSafeInteger(size) ? size : null;
    });
    return this.current;
  }

  /**
   * How many nodes the tree has at `nodeLevel` (complete subtrees of 2^nodeLevel leaves).
   * @param {number} nodeLevel
   */
  #nodesAt(nodeLevel) {
    return Math.floor(this.size / 2 ** nodeLevel);
  }

  /**
   * The hashes in the hash tile at (tile level, index), checked for length.
   * @param {number} level
   * @param {number} index
   */
  hashTile(level, index) {
    const width = Math.min(TILE_WIDTH, this.#nodesAt(level * TILE_HEIGHT) - index * TILE_WIDTH);
    const key = `${level}/${index}`;
    let tile = this.tiles.get(key);
    if (!tile) {
      tile = this.#tile(level, index, width).then(({ bytes, width: read }) => {
        if (bytes.length !== read * HASH_SIZE) {
          throw new VerifyError(
            "tile-malformed",
            `${this.source.describe(tilePath(level, index, read))}: ${bytes.length} bytes, not ${read} hashes`,
          );
        }
        return bytes.subarray(0, width * HASH_SIZE);
      });
      this.tiles.set(key, tile);
    }
    return tile;
  }

  /**
   * The hash of the complete subtree at `nodeLevel`, position `index` (its leaves index·2^nodeLevel …),
   * from the tile at level ⌊nodeLevel/8⌋, hashed up within the tile when nodeLevel is not a multiple of 8.
   * @param {number} nodeLevel
   * @param {number} index
   * @returns {Promise<Uint8Array>}
   */
  async hashAt(nodeLevel, index) {
    const level = Math.floor(nodeLevel / TILE_HEIGHT);
    const within = nodeLevel - level * TILE_HEIGHT;
    const first = index * 2 ** within;
    const tile = await this.hashTile(level, Math.floor(first / TILE_WIDTH));
    const offset = first % TILE_WIDTH;
    /** @type {Uint8Array[]} */
    let hashes = [];
    for (let i = 0; i < 2 ** within; i++)
      hashes.push(tile.subarray((offset + i) * HASH_SIZE, (offset + i + 1) * HASH_SIZE));
    while (hashes.length > 1) {
      /** @type {Uint8Array[]} */
      const up = [];
      for (let i = 0; i < hashes.length; i += 2)
        up.push(await nodeHash(/** @type {Uint8Array} */ (hashes[i]), /** @type {Uint8Array} */ (hashes[i + 1])));
      hashes = up;
    }
    return /** @type {Uint8Array} */ (hashes[0]);
  }

  /**
   * RFC 9162 MTH of the leaves [start, end): complete aligned subtrees from the tiles, the rest split.
   * @param {number} start
   * @param {number} end
   * @returns {Promise<Uint8Array>}
   */
  async rangeHash(start, end) {
    const subtree = perfectSubtree(start, end);
    if (subtree) return this.hashAt(subtree.level, subtree.index);
    const k = splitPoint(end - start);
    return nodeHash(await this.rangeHash(start, start + k), await this.rangeHash(start + k, end));
  }

  /**
   * The RFC 9162 inclusion proof (PATH) of leaf `index` in the tree, built from the tiles.
   * @param {number} index
   * @returns {Promise<Uint8Array[]>}
   */
  inclusionProof(index) {
    return Promise.all(inclusionRanges(index, this.size).map(([start, end]) => this.rangeHash(start, end)));
  }

  /**
   * The RFC 9162 consistency proof PROOF(oldSize, D[0:size]) (§2.1.4.1), built from the tiles of this
   * tree: every subtree hash it needs lies inside the tree of this size. Empty when oldSize is 0 or
   * this tree's size; a RangeError unless 0 ≤ oldSize ≤ size.
   * @param {number} oldSize
   * @returns {Promise<Uint8Array[]>}
   */
  async consistencyProof(oldSize) {
    return Promise.all(consistencyRanges(oldSize, this.size).map(([start, end]) => this.rangeHash(start, end)));
  }

  /**
   * Entry `index`'s bytes, from its C2SP entry bundle (`tile/entries/`): its leaf data.
   * @param {number} index
   */
  entry(index) {
    return this.#bundleEntry("entries", index);
  }

  /**
   * Entry `index`'s public envelope, from its envelope bundle (`envelopes/`): not leaf data.
   * @param {number} index
   */
  envelope(index) {
    return this.#bundleEntry("envelopes", index);
  }

  /**
   * @param {"entries" | "envelopes"} kind
   * @param {number} index
   */
  async #bundleEntry(kind, index) {
    const bundle = Math.floor(index / TILE_WIDTH);
    const width = Math.min(TILE_WIDTH, this.size - bundle * TILE_WIDTH);
    const { bytes, width: read } = await this.#tile(kind, bundle, width);
    const name = this.source.describe(pathOf(kind, bundle, read));
    const entries = splitBundle(bytes, name);
    if (entries.length !== read)
      throw new VerifyError("tile-malformed", `${name}: ${entries.length} entries, not ${read}`);
    return /** @type {Uint8Array} */ (entries[index % TILE_WIDTH]);
  }
}

/**
 * The entries of a bundle: each a big-endian uint16 length and that many bytes, nothing left over.
 * @param {Uint8Array} bytes
 * @param {string} name
 */
function splitBundle(bytes, name) {
  /** @type {Uint8Array[]} */
  const entries = [];
  let at = 0;
  while (at < bytes.length) {
    if (at + 2 > bytes.length) throw new VerifyError("tile-malformed", `${name}: a truncated entry length`);
    const length = ((bytes[at] ?? 0) << 8) | (bytes[at + 1] ?? 0);
    if (at + 2 + length > bytes.length) throw new VerifyError("tile-malformed", `${name}: an entry runs past the end`);
    entries.push(bytes.subarray(at + 2, at + 2 + length));
    at += 2 + length;
  }
  return entries;
}

/**
 * RFC 9162 §2.1.3.2: whether `proof` leads from the leaf hash at `index` to `root` in a tree of `size`.
 * @param {Uint8Array} leaf
 * @param {number} index
 * @param {number} size
 * @param {Uint8Array[]} proof
 * @param {Uint8Array} root
 */
export const verifyInclusion = (leaf, index, size, proof, root) =>
  runAsync(inclusionCheck(leaf, index, size, proof, root), webCrypto);

/**
 * RFC 9162 §2.1.4.2: whether `proof` shows that the tree of `oldSize` with root `oldRoot` is a prefix
 * of the tree of `newSize` with root `newRoot`. Equal sizes need equal roots and an empty proof; the
 * empty tree (oldSize 0) is a prefix of every tree, its root being SHA-256 of nothing.
 * @param {number} oldSize
 * @param {number} newSize
 * @param {Uint8Array} oldRoot
 * @param {Uint8Array} newRoot
 * @param {Uint8Array[]} proof
 */
export const verifyConsistency = (oldSize, newSize, oldRoot, newRoot, proof) =>
  runAsync(consistencyCheck(oldSize, newSize, oldRoot, newRoot, proof), webCrypto);
