/**
 * C2SP tlog-tiles (https://c2sp.org/tlog-tiles): an RFC 9162 Merkle tree published as static files.
 * Pure: tile coordinates and paths, entry bundle encoding, and a builder that turns appended leaves
 * into the tiles they complete. No I/O (pipeline/ledger-tiles.ts reads and writes the files).
 *
 * A tile at level L, index N is 256 consecutive hashes of height-8 subtrees: at level 0 leaf
 * hashes, at level L ≥ 1 the roots of the full tiles of level L−1. The rightmost tile of a level is
 * partial (1–255 hashes, path suffix `.p/<W>`) and is never hashed into the level above. Entry
 * bundles hold the entries of the level-0 tile N, each prefixed by its length as a big-endian
 * uint16. Where a bundle is served follows what it holds: C2SP's entry bundle URL
 * `tile/entries/<N>[.p/<W>]` only for the entries' leaf data (each hashes to its level-0 leaf), and
 * any other encoding at a URL of its own (C2SP: a log serving entries in another encoding MUST serve
 * them elsewhere) — here `envelopes/<N>[.p/<W>]`, same index encoding, format and partial widths.
 * Tree sizes and indices are safe integers: no bitwise operators.
 */
import { EMPTY_ROOT, HASH_SIZE, leafHash, nodeHashLatin1 } from "./merkle.ts";
import { CodedError } from "./errors.ts";

/** Height of a tile: each tile spans 8 levels of the tree. */
export const TILE_HEIGHT = 8;
/** Hashes in a full tile. */
export const TILE_WIDTH = 256;
/** The largest entry a bundle can hold (uint16 length prefix). */
export const MAX_BUNDLE_ENTRY = 0xffff;

/** Why tiles cannot be built or read; callers branch on `code`. */
export type TileErrorCode = "bad-coordinate" | "bad-tile" | "bad-bundle" | "entry-too-large";

export class TileError extends CodedError<TileErrorCode> {}

/** A tile's place: level (0 = leaf hashes), index within the level, width (256 = full). */
export interface TileCoordinate {
  level: number;
  index: number;
  width: number;
}

function checkCoordinate({ level, index, width }: TileCoordinate): void {
  if (!Number.isInteger(level) || level < 0 || level > 63)
    throw new TileError("bad-coordinate", `tile level ${level} is not in [0, 63]`);
  if (!Number.isSafeInteger(index) || index < 0)
    throw new TileError("bad-coordinate", `tile index ${index} is not a non-negative safe integer`);
  if (!Number.isInteger(width) || width < 1 || width > TILE_WIDTH)
    throw new TileError("bad-coordinate", `tile width ${width} is not in [1, 256]`);
}

/** `<N>` of a tile path: 3-digit groups, all but the last prefixed with `x` (1234067 → x001/x234/067). */
export function encodeTileIndex(index: number): string {
  if (!Number.isSafeInteger(index) || index < 0)
    throw new TileError("bad-coordinate", `tile index ${index} is not a non-negative safe integer`);
  const groups: string[] = [];
  let n = index;
  do {
    groups.unshift(String(n % 1000).padStart(3, "0"));
    n = Math.floor(n / 1000);
  } while (n > 0);
  return groups.map((g, i) => (i < groups.length - 1 ? `x${g}` : g)).join("/");
}

function suffix(width: number): string {
  return width === TILE_WIDTH ? "" : `.p/${width}`;
}

/** `tile/<L>/<N>[.p/<W>]`, relative to the log's prefix. */
export function tilePath(tile: TileCoordinate): string {
  checkCoordinate(tile);
  return `tile/${tile.level}/${encodeTileIndex(tile.index)}${suffix(tile.width)}`;
}

/**
 * What a bundle holds, which decides where it is served: `entries`, the entries' Merkle leaf data (the
 * C2SP entry bundle, each entry hashing to its level-0 leaf); `envelopes`, another encoding of them
 * (this project's public envelopes), which C2SP requires at a URL other than the entry bundle's.
 */
export type BundleKind = "entries" | "envelopes";

/** The folder, under the log's prefix, a kind of bundle is served from: `tile/entries` or `envelopes`. */
export function bundleRoot(kind: BundleKind): string {
  return kind === "entries" ? "tile/entries" : "envelopes";
}

/** `tile/entries/<N>[.p/<W>]` (leaf data) or `envelopes/<N>[.p/<W>]` (envelopes): the entries of level-0 tile N. */
export function bundlePath(index: number, width: number, kind: BundleKind = "entries"): string {
  checkCoordinate({ level: 0, index, width });
  return `${bundleRoot(kind)}/${encodeTileIndex(index)}${suffix(width)}`;
}

/** The directory that holds every partial version of a tile: `tile/<L>/<N>.p` (or `tile/entries/<N>.p`, `envelopes/<N>.p` for bundles). */
export function partialDir(level: number | BundleKind, index: number): string {
  return typeof level === "number"
    ? `tile/${level}/${encodeTileIndex(index)}.p`
    : `${bundleRoot(level)}/${encodeTileIndex(index)}.p`;
}

/**
 * The partial tiles a tree of `size` leaves has: at each level L with floor(size / 256^L) mod 256 > 0,
 * the tile of that width at index floor(size / 256^(L+1)). Lowest level first.
 */
export function partialTiles(size: number): TileCoordinate[] {
  if (!Number.isSafeInteger(size) || size < 0)
    throw new TileError("bad-coordinate", `tree size ${size} is not a non-negative safe integer`);
  const partials: TileCoordinate[] = [];
  for (let level = 0, span = 1; span <= size; level++, span *= TILE_WIDTH) {
    const count = Math.floor(size / span);
    const width = count % TILE_WIDTH;
    if (width > 0) partials.push({ level, index: Math.floor(count / TILE_WIDTH), width });
  }
  return partials;
}

/** Number of full tiles at `level` in a tree of `size` leaves. */
export function fullTileCount(size: number, level: number): number {
  return Math.floor(size / TILE_WIDTH ** (level + 1));
}

/** Entries, each as a big-endian uint16 length and its bytes, back to back. */
export function encodeBundle(entries: readonly Uint8Array[]): Uint8Array {
  let total = 0;
  for (const e of entries) {
    if (e.length > MAX_BUNDLE_ENTRY)
      throw new TileError(
        "entry-too-large",
        `an entry of ${e.length} bytes does not fit a bundle (at most ${MAX_BUNDLE_ENTRY})`,
      );
    total += 2 + e.length;
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const e of entries) {
    out[at] = Math.floor(e.length / 256);
    out[at + 1] = e.length % 256;
    out.set(e, at + 2);
    at += 2 + e.length;
  }
  return out;
}

export function decodeBundle(bytes: Uint8Array): Uint8Array[] {
  const entries: Uint8Array[] = [];
  let at = 0;
  while (at < bytes.length) {
    if (at + 2 > bytes.length) throw new TileError("bad-bundle", `a length prefix is cut off at byte ${at}`);
    const length = bytes[at]! * 256 + bytes[at + 1]!;
    if (at + 2 + length > bytes.length)
      throw new TileError("bad-bundle", `entry ${entries.length} runs past the end of the bundle`);
    entries.push(bytes.subarray(at + 2, at + 2 + length));
    at += 2 + length;
  }
  return entries;
}

/** The hashes of a tile's bytes (32 bytes each), checked against the width its path says. */
export function tileHashes(bytes: Uint8Array, width: number): Uint8Array[] {
  if (bytes.length !== width * HASH_SIZE)
    throw new TileError("bad-tile", `a tile of width ${width} has ${width * HASH_SIZE} bytes, not ${bytes.length}`);
  return Array.from({ length: width }, (_, i) => bytes.subarray(i * HASH_SIZE, (i + 1) * HASH_SIZE));
}

/** MTH of a full tile: the root of the height-8 subtree its 256 hashes are the bottom of. */
export function fullTileRoot(tile: Uint8Array): Uint8Array {
  if (tile.length !== TILE_WIDTH * HASH_SIZE)
    throw new TileError("bad-tile", `a full tile has ${TILE_WIDTH * HASH_SIZE} bytes, not ${tile.length}`);
  return Buffer.from(
    perfectRoot(
      Array.from({ length: TILE_WIDTH }, (_, i) =>
        Buffer.from(tile.buffer, tile.byteOffset + i * HASH_SIZE, HASH_SIZE).toString("latin1"),
      ),
    ),
    "latin1",
  );
}

/** A tile or entry bundle to publish at `path` (relative to the log's prefix). */
export interface TileFile {
  path: string;
  bytes: Uint8Array;
  /** Full files are immutable once written; partial ones are replaced as they fill. */
  full: boolean;
  /** The tile's place (for an entry bundle, level 0 and the bundle's index and width). */
  tile: TileCoordinate;
  /** `hashes` for a tile; for a bundle, what it holds (and so where it is served). */
  kind: "hashes" | BundleKind;
}

/** The rightmost partial tile of each level and the partial entry bundle of a tree, as read back. */
export interface TileEdge {
  /** Hashes of the partial tile of each level present in `partialTiles(size)`, by level. */
  hashes: ReadonlyMap<number, Uint8Array>;
  /** The entries of the partial bundle (when size is not a multiple of 256). */
  entries: readonly Uint8Array[];
}

/**
 * Builds tiles leaf by leaf from a tree's right edge: `append` hands over every full tile and full
 * bundle it completes (written once, never again); `partials` gives the partial ones of the current
 * size. Memory: one tile per level and one bundle. `bundles` says what the entries handed to `append`
 * are — leaf data (`entries`, the default) or another encoding (`envelopes`) — and so where the
 * bundles go (`bundlePath`).
 */
export class TileBuilder {
  #size: number;
  readonly #kind: BundleKind;
  /** Per level: the current (partial) tile's hashes as latin1 strings. */
  readonly #levels: string[][] = [];
  /** The current bundle, encoded as entries arrive (each entry written once, straight into it); reused. */
  #bundle: Buffer = Buffer.allocUnsafeSlow(1 << 16);
  #bundleLength = 0;

  private constructor(size: number, kind: BundleKind) {
    this.#size = size;
    this.#kind = kind;
  }

  static empty(bundles: BundleKind = "entries"): TileBuilder {
    return new TileBuilder(0, bundles);
  }

  /** Continues a tree of `size` leaves from its partial tiles and partial bundle. */
  static resume(size: number, edge: TileEdge, bundles: BundleKind = "entries"): TileBuilder {
    const builder = new TileBuilder(size, bundles);
    for (const p of partialTiles(size)) {
      const bytes = edge.hashes.get(p.level);
      if (!bytes) throw new TileError("bad-tile", `the partial tile ${tilePath(p)} is missing`);
      builder.#levelAt(p.level).push(...tileHashes(bytes, p.width).map((h) => Buffer.from(h).toString("latin1")));
    }
    const width = size % TILE_WIDTH;
    if (edge.entries.length !== width)
      throw new TileError(
        "bad-bundle",
        `the partial bundle of a tree of ${size} holds ${width} entries, not ${edge.entries.length}`,
      );
    for (const entry of edge.entries) builder.#addToBundle(entry);
    return builder;
  }

  get size(): number {
    return this.#size;
  }

  #levelAt(level: number): string[] {
    while (this.#levels.length <= level) this.#levels.push([]);
    return this.#levels[level]!;
  }

  /** Makes room for `bytes` more bytes in the bundle. */
  #reserve(bytes: number): void {
    if (this.#bundleLength + bytes <= this.#bundle.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(2 * this.#bundle.length, this.#bundleLength + bytes));
    this.#bundle.copy(grown, 0, 0, this.#bundleLength);
    this.#bundle = grown;
  }

  /** Adds an entry (bytes, or text written as UTF-8) with its length prefix; throws `entry-too-large` having added nothing. */
  #addToBundle(entry: Uint8Array | string): void {
    const at = this.#bundleLength;
    let length: number;
    if (typeof entry === "string") {
      // UTF-8 takes at most 3 bytes per UTF-16 code unit.
      this.#reserve(2 + 3 * entry.length);
      length = this.#bundle.write(entry, at + 2, "utf8");
    } else {
      if (entry.length <= MAX_BUNDLE_ENTRY) this.#reserve(2 + entry.length);
      length = entry.length;
    }
    if (length > MAX_BUNDLE_ENTRY)
      throw new TileError(
        "entry-too-large",
        `entry ${this.#size} has ${length} bytes; a bundle entry has at most ${MAX_BUNDLE_ENTRY}`,
      );
    if (typeof entry !== "string") this.#bundle.set(entry, at + 2);
    this.#bundle[at] = Math.floor(length / 256);
    this.#bundle[at + 1] = length % 256;
    this.#bundleLength = at + 2 + length;
  }

  /** The bundle's bytes so far, in a buffer of their own (a file writer may take it over). */
  #bundleBytes(): Uint8Array {
    const bytes = Buffer.allocUnsafeSlow(this.#bundleLength);
    this.#bundle.copy(bytes, 0, 0, this.#bundleLength);
    return bytes;
  }

  /** Appends one leaf (its hash as 32 bytes or a 32-character latin1 string) and its bundle entry (bytes, or text to write as UTF-8). */
  append(leafHash: Uint8Array | string, entry: Uint8Array | string, onFull: (file: TileFile) => void): void {
    const leaf =
      typeof leafHash === "string"
        ? leafHash
        : Buffer.from(leafHash.buffer, leafHash.byteOffset, leafHash.byteLength).toString("latin1");
    if (leaf.length !== HASH_SIZE)
      throw new TileError("bad-tile", `a leaf hash has ${HASH_SIZE} bytes, not ${leaf.length}`);
    this.#addToBundle(entry);
    this.#size += 1;
    if (this.#size % TILE_WIDTH === 0) {
      const index = this.#size / TILE_WIDTH - 1;
      onFull({
        path: bundlePath(index, TILE_WIDTH, this.#kind),
        bytes: this.#bundleBytes(),
        full: true,
        tile: { level: 0, index, width: TILE_WIDTH },
        kind: this.#kind,
      });
      this.#bundleLength = 0;
    }
    let hash = leaf;
    for (let level = 0; ; level++) {
      const tile = this.#levelAt(level);
      tile.push(hash);
      if (tile.length < TILE_WIDTH) return;
      const bytes = ownBytes(tile);
      const index = this.#size / TILE_WIDTH ** (level + 1) - 1;
      onFull({
        path: tilePath({ level, index, width: TILE_WIDTH }),
        bytes,
        full: true,
        tile: { level, index, width: TILE_WIDTH },
        kind: "hashes",
      });
      hash = perfectRoot(tile);
      this.#levels[level] = [];
    }
  }

  /** The partial tiles and the partial bundle of the current size (none at a level whose tile is empty). */
  partials(): TileFile[] {
    const files: TileFile[] = [];
    for (const p of partialTiles(this.#size)) {
      files.push({ path: tilePath(p), bytes: ownBytes(this.#levels[p.level]!), full: false, tile: p, kind: "hashes" });
    }
    const width = this.#size % TILE_WIDTH;
    if (width > 0) {
      const index = Math.floor(this.#size / TILE_WIDTH);
      files.push({
        path: bundlePath(index, width, this.#kind),
        bytes: this.#bundleBytes(),
        full: false,
        tile: { level: 0, index, width },
        kind: this.#kind,
      });
    }
    return files;
  }
}

/** A tile's hashes (latin1 strings) as bytes in a buffer of their own (Buffer.from would cut them from a shared slab). */
function ownBytes(hashes: readonly string[]): Buffer {
  const bytes = Buffer.allocUnsafeSlow(hashes.length * HASH_SIZE);
  bytes.write(hashes.join(""), 0, "latin1");
  return bytes;
}

/**
 * The RFC 9162 root of a tree of `size` leaves from its partial tiles alone (each level's partial
 * tile holds the roots of the full subtrees left of the next level down): the tiles agree with a
 * checkpoint when this equals its root. Hashes as in `TileEdge.hashes`.
 */
export function rootFromPartials(size: number, hashes: ReadonlyMap<number, Uint8Array>): Uint8Array {
  if (size === 0) return new Uint8Array(EMPTY_ROOT);
  // The perfect subtrees of the tree's right edge, largest first: per level (top down) the binary
  // decomposition of the partial tile's width over its hashes.
  const edge: string[] = [];
  for (const p of partialTiles(size).reverse()) {
    const bytes = hashes.get(p.level);
    if (!bytes) throw new TileError("bad-tile", `the partial tile ${tilePath(p)} is missing`);
    const tile = tileHashes(bytes, p.width).map((h) => Buffer.from(h).toString("latin1"));
    let start = 0;
    for (let k = TILE_HEIGHT - 1; k >= 0; k--) {
      const group = 2 ** k;
      if (p.width - start >= group) {
        edge.push(perfectRoot(tile.slice(start, start + group)));
        start += group;
      }
    }
  }
  let root = edge[edge.length - 1]!;
  for (let i = edge.length - 2; i >= 0; i--) root = nodeHashLatin1(edge[i]!, root);
  return Buffer.from(root, "latin1");
}

/** Root of a perfect tree over 2^k hashes held as latin1 strings. */
function perfectRoot(hashes: readonly string[]): string {
  const level = hashes.slice();
  for (let width = level.length; width > 1; width /= 2) {
    for (let i = 0; i < width / 2; i++) level[i] = nodeHashLatin1(level[2 * i]!, level[2 * i + 1]!);
  }
  return level[0]!;
}

/**
 * Checks a published tiles folder against a checkpoint (size, root) without the entries: every
 * tile present with its width, every full tile hashing to its hash in the level above, the partial
 * tiles giving the root, and every entry bundle holding as many entries as its tile. The bundles
 * checked are the C2SP entry bundles (`tile/entries/`) when the log serves the first of them, and
 * then every entry must also hash to its leaf in the level-0 tile; otherwise the envelope bundles
 * (`envelopes/`), which cannot be bound to the leaves. `read` returns a file's bytes by its path
 * under the log's prefix, or null. `files`, when given, lists every file under `tile/` and
 * `envelopes/` (paths under the log's prefix): each that is not one of the tree of `size` entries
 * (`publishedTilePaths`) is a problem too — so a checked folder holds exactly those files. Returns
 * the problems, naming files.
 */
export function tilesProblems(
  size: number,
  root: Uint8Array,
  read: (path: string) => Uint8Array | null,
  files?: readonly string[],
): string[] {
  const problems: string[] = [];
  const tiles = new Map<string, Uint8Array | null>();
  const tileAt = (level: number, index: number): Uint8Array | null => {
    const count = Math.floor(size / TILE_WIDTH ** level);
    const width = Math.min(TILE_WIDTH, count - index * TILE_WIDTH);
    const path = tilePath({ level, index, width });
    if (!tiles.has(path)) {
      const bytes = read(path);
      if (!bytes) problems.push(`${path} is missing`);
      else if (bytes.length !== width * HASH_SIZE)
        problems.push(`${path} has ${bytes.length} bytes, not ${width * HASH_SIZE}`);
      tiles.set(path, bytes && bytes.length === width * HASH_SIZE ? bytes : null);
    }
    return tiles.get(path)!;
  };
  for (let level = 0; TILE_WIDTH ** level <= size; level++) {
    for (let index = 0; index < fullTileCount(size, level); index++) {
      const tile = tileAt(level, index);
      const above = tileAt(level + 1, Math.floor(index / TILE_WIDTH));
      if (!tile || !above) continue;
      const at = (index % TILE_WIDTH) * HASH_SIZE;
      if (Buffer.compare(fullTileRoot(tile), above.subarray(at, at + HASH_SIZE)) !== 0) {
        problems.push(
          `${tilePath({ level, index, width: TILE_WIDTH })} does not hash to its hash in ${tilePath({ level: level + 1, index: Math.floor(index / TILE_WIDTH), width: Math.min(TILE_WIDTH, Math.floor(size / TILE_WIDTH ** (level + 1)) - Math.floor(index / TILE_WIDTH) * TILE_WIDTH) })}`,
        );
      }
    }
  }
  const partials = new Map<number, Uint8Array>();
  for (const p of partialTiles(size)) {
    const bytes = tileAt(p.level, p.index);
    if (bytes) partials.set(p.level, bytes);
  }
  if (partials.size === partialTiles(size).length && !equalRoot(rootFromPartials(size, partials), root))
    problems.push(`the partial tiles do not give the checkpoint's root`);
  const kind: BundleKind =
    size > 0 && read(bundlePath(0, Math.min(TILE_WIDTH, size), "entries")) ? "entries" : "envelopes";
  if (files) {
    const expected = new Set(publishedTilePaths(size, kind));
    for (const file of files)
      if (!expected.has(file)) problems.push(`${file} is not a tile or bundle of the checkpoint's ${size} entries`);
  }
  for (let index = 0; index * TILE_WIDTH < size; index++) {
    const width = Math.min(TILE_WIDTH, size - index * TILE_WIDTH);
    const path = bundlePath(index, width, kind);
    const bytes = read(path);
    if (!bytes) {
      problems.push(`${path} is missing`);
      continue;
    }
    let entries: Uint8Array[];
    try {
      entries = decodeBundle(bytes);
    } catch (error) {
      problems.push(`${path}: ${(error as Error).message}`);
      continue;
    }
    if (entries.length !== width) problems.push(`${path} holds ${entries.length} entries, not ${width}`);
    else if (kind === "entries") {
      const leaves = tileAt(0, index);
      if (!leaves) continue;
      const wrong = entries.findIndex(
        (entry, i) => Buffer.compare(leafHash(entry), leaves.subarray(i * HASH_SIZE, (i + 1) * HASH_SIZE)) !== 0,
      );
      if (wrong >= 0)
        problems.push(
          `${path}: entry ${index * TILE_WIDTH + wrong} does not hash to its leaf in ${tilePath({ level: 0, index, width })}`,
        );
    }
  }
  return problems;
}

/**
 * Every file the tiles of a tree of `size` entries consist of, with bundles of `kind`: each level's
 * full tiles and partial tile, and the full and partial bundles — paths under the log's prefix. A
 * published folder holds exactly these under `tile/` and `envelopes/`.
 */
export function publishedTilePaths(size: number, kind: BundleKind): string[] {
  const paths: string[] = [];
  for (let level = 0; TILE_WIDTH ** level <= size; level++) {
    for (let index = 0; index < fullTileCount(size, level); index++)
      paths.push(tilePath({ level, index, width: TILE_WIDTH }));
  }
  for (const p of partialTiles(size)) paths.push(tilePath(p));
  for (let index = 0; index * TILE_WIDTH < size; index++)
    paths.push(bundlePath(index, Math.min(TILE_WIDTH, size - index * TILE_WIDTH), kind));
  return paths;
}

function equalRoot(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}
