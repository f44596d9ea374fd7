/**
 * A second, independent reader of a C2SP tlog-tiles log, for tests: written from the C2SP
 * tlog-tiles and tlog-checkpoint texts and RFC 9162 (§2.1 hashing, §2.1.3 inclusion, §2.1.4
 * consistency), in the shape of Go's golang.org/x/mod/sumdb/tlog (stored hashes addressed by
 * (level, index), tiles of height 8). It imports nothing of the project's Merkle, tile or checkpoint
 * code: if both implementations agree on every hash, neither is checking itself.
 */
import { createHash, createPublicKey, verify } from "node:crypto";

const H = 8; // tile height
const W = 2 ** H; // hashes per full tile

/** Reads a file of the log by its path under the prefix (`checkpoint`, `tile/0/000`, …); null when absent. */
export type LogFiles = (path: string) => Promise<Uint8Array | null>;

function sha256(...parts: Uint8Array[]): Uint8Array {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
}
const node = (l: Uint8Array, r: Uint8Array) => sha256(Uint8Array.of(1), l, r);
export const leafHashOf = (data: Uint8Array) => sha256(Uint8Array.of(0), data);

/** C2SP index encoding, digit by digit: 3-digit groups, `x` on all but the last. */
export function indexPath(n: number): string {
  const digits = String(n);
  const padded = digits.padStart(Math.ceil(digits.length / 3) * 3, "0");
  const groups = padded.match(/\d{3}/g)!;
  return groups.map((g, i) => (i === groups.length - 1 ? g : `x${g}`)).join("/");
}

export interface SignedCheckpoint {
  origin: string;
  size: number;
  root: Uint8Array;
}

/**
 * Opens a C2SP checkpoint (signed note): body lines origin, size, base64 root; after a blank line,
 * signature lines `— <name> <base64(keyhash[4] ‖ ed25519 signature[64])>`. The vkey is
 * `<name>+<hex keyhash>+<base64(0x01 ‖ public key)>`. Throws unless the key signed the body.
 */
export function openCheckpoint(note: string, vkey: string): SignedCheckpoint {
  // The name has no "+"; the base64 key may.
  const [, name, keyHash, keyB64] = /^([^+]+)\+([0-9a-f]{8})\+(.+)$/.exec(vkey.trim()) ?? [];
  const keyBytes = Buffer.from(keyB64 ?? "", "base64");
  if (keyBytes[0] !== 1 || keyBytes.length !== 33) throw new Error("not an Ed25519 note key");
  const split = note.indexOf("\n\n");
  const body = note.slice(0, split + 1);
  const key = createPublicKey({
    key: { kty: "OKP", crv: "Ed25519", x: keyBytes.subarray(1).toString("base64url") },
    format: "jwk",
  });
  const signed = note
    .slice(split + 2)
    .split("\n")
    .filter((line) => line.startsWith(`\u2014 ${name} `))
    .map((line) => Buffer.from(line.slice(`\u2014 ${name} `.length), "base64"))
    .some(
      (sig) =>
        sig.length === 68 &&
        sig.subarray(0, 4).toString("hex") === keyHash &&
        verify(null, Buffer.from(body), key, sig.subarray(4)),
    );
  if (!signed) throw new Error(`the checkpoint is not signed by ${name}`);
  const [origin, size, root] = body.split("\n");
  return { origin: origin!, size: Number(size), root: new Uint8Array(Buffer.from(root!, "base64")) };
}

/** The hashes of a tree of `size` leaves, read from its tiles (fetched once each). */
export class TileTree {
  readonly size: number;
  readonly #files: LogFiles;
  readonly #tiles = new Map<string, Promise<Uint8Array>>();
  /** Paths of every tile read, for the tests to see what a proof needed. */
  readonly read = new Set<string>();

  constructor(files: LogFiles, size: number) {
    this.#files = files;
    this.size = size;
  }

  /** The tile at `level` holding stored hash `index` of that level, as of this tree's size. */
  #tile(level: number, tileIndex: number): Promise<Uint8Array> {
    const complete = Math.floor(this.size / W ** level); // stored hashes that exist at this level
    const width = Math.min(W, complete - tileIndex * W);
    if (width <= 0) throw new Error(`tile ${level}/${tileIndex} is beyond a tree of ${this.size}`);
    const path = `tile/${level}/${indexPath(tileIndex)}${width === W ? "" : `.p/${width}`}`;
    let tile = this.#tiles.get(path);
    if (!tile) {
      this.read.add(path);
      tile = this.#files(path).then((bytes) => {
        if (!bytes) throw new Error(`${path} is missing`);
        if (bytes.length !== width * 32) throw new Error(`${path} has ${bytes.length} bytes, not ${width * 32}`);
        return bytes;
      });
      this.#tiles.set(path, tile);
    }
    return tile;
  }

  /** Hash of the perfect subtree of 2^height leaves starting at leaf index·2^height. */
  async subtree(height: number, index: number): Promise<Uint8Array> {
    const level = Math.floor(height / H); // the tile level whose stored hashes lie below it
    const below = 2 ** (height % H); // how many of them it spans
    const first = index * below;
    const tile = await this.#tile(level, Math.floor(first / W));
    let hashes: Uint8Array[] = [];
    for (let j = 0; j < below; j++) {
      const at = ((first + j) % W) * 32;
      hashes.push(tile.subarray(at, at + 32));
    }
    while (hashes.length > 1) hashes = hashes.flatMap((h, i) => (i % 2 === 0 ? [node(h, hashes[i + 1]!)] : []));
    return hashes[0]!;
  }

  /** RFC 9162 MTH(D[a:b]). */
  async mth(a: number, b: number): Promise<Uint8Array> {
    const n = b - a;
    if (n === 0) return sha256();
    let k = 1;
    while (k * 2 <= n) k *= 2;
    if (k === n && a % n === 0) return this.subtree(Math.log2(n), a / n);
    if (k === n) k /= 2;
    return node(await this.mth(a, a + k), await this.mth(a + k, b));
  }

  leaf(m: number): Promise<Uint8Array> {
    return this.subtree(0, m);
  }

  /** RFC 9162 §2.1.3.1 PATH(m, D[0:size]), leaf side first. */
  async inclusion(m: number): Promise<Uint8Array[]> {
    const path = async (m: number, a: number, b: number): Promise<Uint8Array[]> => {
      if (b - a <= 1) return [];
      const k = 2 ** Math.floor(Math.log2(b - a - 1));
      return m < k
        ? [...(await path(m, a, a + k)), await this.mth(a + k, b)]
        : [...(await path(m - k, a + k, b)), await this.mth(a, a + k)];
    };
    return path(m, 0, this.size);
  }

  /** RFC 9162 §2.1.4.1 PROOF(m, D[0:size]). */
  async consistency(m: number): Promise<Uint8Array[]> {
    const sub = async (m: number, a: number, b: number, whole: boolean): Promise<Uint8Array[]> => {
      const n = b - a;
      if (m === n) return whole ? [] : [await this.mth(a, b)];
      const k = 2 ** Math.floor(Math.log2(n - 1));
      return m <= k
        ? [...(await sub(m, a, a + k, whole)), await this.mth(a + k, b)]
        : [...(await sub(m - k, a + k, b, false)), await this.mth(a, a + k)];
    };
    return m === 0 || m === this.size ? [] : sub(m, 0, this.size, true);
  }
}

/** RFC 9162 §2.1.3.2: the root an audit path leads to from `leaf` at `m` in a tree of `n`, or null if it cannot. */
export function rootFromInclusion(
  leaf: Uint8Array,
  m: number,
  n: number,
  proof: readonly Uint8Array[],
): Uint8Array | null {
  if (m >= n) return null;
  let fn = m;
  let sn = n - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return null;
    if (fn % 2 === 1 || fn === sn) {
      r = node(p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn /= 2;
        sn = Math.floor(sn / 2);
      }
    } else r = node(r, p);
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 ? r : null;
}

/** RFC 9162 §2.1.4.2: true when `proof` shows the tree (m, oldRoot) is a prefix of (n, newRoot). */
export function verifyConsistencyProof(
  m: number,
  n: number,
  oldRoot: Uint8Array,
  newRoot: Uint8Array,
  proof: readonly Uint8Array[],
): boolean {
  const eq = (x: Uint8Array, y: Uint8Array) => Buffer.compare(x, y) === 0;
  if (m === n) return proof.length === 0 && eq(oldRoot, newRoot);
  if (m === 0 || m > n || proof.length === 0) return false;
  const path = (m & (m - 1)) === 0 ? [oldRoot, ...proof] : [...proof];
  let fn = m - 1;
  let sn = n - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = path[0]!;
  let sr = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = node(c, fr);
      sr = node(c, sr);
      while (fn % 2 === 0 && fn !== 0) {
        fn /= 2;
        sn = Math.floor(sn / 2);
      }
    } else sr = node(sr, c);
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && eq(fr, oldRoot) && eq(sr, newRoot);
}

/**
 * The entries of bundle `index` of a tree of `size`: uint16 big-endian length prefixes. By default
 * the C2SP entry bundle (`tile/entries/<N>[.p/<W>]`); `root` reads the same format elsewhere (this
 * project's `envelopes/`, which C2SP does not define). Throws when the bundle is missing or short.
 */
export async function readBundle(
  files: LogFiles,
  size: number,
  index: number,
  root = "tile/entries",
): Promise<Uint8Array[]> {
  const path = bundleName(size, index, root);
  const bytes = await files(path);
  if (!bytes) throw new Error(`${path} is missing`);
  return splitBundle(bytes, path, Math.min(W, size - index * W));
}

function bundleName(size: number, index: number, root: string): string {
  const width = Math.min(W, size - index * W);
  return `${root}/${indexPath(index)}${width === W ? "" : `.p/${width}`}`;
}

function splitBundle(bytes: Uint8Array, path: string, width: number): Uint8Array[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries: Uint8Array[] = [];
  for (let at = 0; at < bytes.length;) {
    const length = view.getUint16(at);
    entries.push(bytes.subarray(at + 2, at + 2 + length));
    at += 2 + length;
  }
  if (entries.length !== width) throw new Error(`${path} holds ${entries.length} entries, not ${width}`);
  return entries;
}

/**
 * What a C2SP monitor checks of the entry bundles: every bundle served at `tile/entries/` of a tree
 * of `size` must hold, for each of its entries, bytes whose leaf hash SHA-256(0x00 ‖ entry) is the
 * level-0 hash at that position ("each entry hashes to the corresponding leaf"). Throws naming the
 * first bundle that does not; returns how many bundles were served there (0 when none are).
 */
export async function checkEntryBundles(files: LogFiles, tree: TileTree, size: number): Promise<number> {
  let served = 0;
  for (let index = 0; index * W < size; index++) {
    const path = bundleName(size, index, "tile/entries");
    const bytes = await files(path);
    if (!bytes) continue;
    served += 1;
    const entries = splitBundle(bytes, path, Math.min(W, size - index * W));
    for (const [i, entry] of entries.entries()) {
      const leaf = await tree.leaf(index * W + i);
      if (Buffer.compare(leafHashOf(entry), leaf) !== 0)
        throw new Error(`${path}: entry ${index * W + i} does not hash to its leaf`);
    }
  }
  return served;
}
