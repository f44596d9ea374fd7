/**
 * File digests: a file's size and sha256, streamed, and `DigestCache`, which remembers the digests
 * it computed with what `stat` said of each file at that moment, the way git's index remembers its
 * work tree. The pipeline runner keeps one in a file under `.state/` (a run with nothing new checks
 * its outputs without reading hundreds of MB); the API keeps one in memory (a served file is
 * hashed once per version on disk, not on every request).
 *
 * A remembered digest is used only while the file's size, inode, mtime and ctime (nanoseconds) all
 * still match. Any write changes ctime, which no user-level call can set back, so a file edited
 * since it was hashed is always hashed again. The cache is advisory (a missing or unreadable file
 * means hashing everything); `--check` and the offline verifier always hash.
 */
import {
  closeSync,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  writeFileSync,
  type BigIntStats,
} from "node:fs";
import { createHash } from "node:crypto";
import { dirname } from "node:path";

export interface FileDigest {
  bytes: number;
  /** `sha256:<hex>` */
  hash: string;
}

const CHUNK = 1 << 20;

/** Reads a file in 1 MiB pieces (one buffer, reused: a piece is valid until the next). */
export function readChunks(path: string, onChunk: (chunk: Buffer) => void): void {
  const fd = openSync(path, "r");
  try {
    readChunksOf(fd, onChunk);
  } finally {
    closeSync(fd);
  }
}

/** Reads an open file from its first byte, in 1 MiB pieces, without moving its position. */
function readChunksOf(fd: number, onChunk: (chunk: Buffer) => void): void {
  const buffer = Buffer.allocUnsafe(CHUNK);
  for (let position = 0; ;) {
    const n = readSync(fd, buffer, 0, CHUNK, position);
    if (n === 0) break;
    onChunk(buffer.subarray(0, n));
    position += n;
  }
}

function hashOf(fd: number): FileDigest {
  const h = createHash("sha256");
  let bytes = 0;
  readChunksOf(fd, (chunk) => {
    h.update(chunk);
    bytes += chunk.length;
  });
  return { bytes, hash: `sha256:${h.digest("hex")}` };
}

/** Size and sha256 of a file, streamed; null when the file does not exist. */
export function hashFile(path: string): FileDigest | null {
  if (!existsSync(path)) return null;
  const h = createHash("sha256");
  let bytes = 0;
  readChunks(path, (chunk) => {
    h.update(chunk);
    bytes += chunk.length;
  });
  return { bytes, hash: `sha256:${h.digest("hex")}` };
}

interface Remembered extends FileDigest {
  stat: string;
}

const VERSION = 1;

function statKey(stats: BigIntStats): string {
  return `${stats.size}:${stats.ino}:${stats.mtimeNs}:${stats.ctimeNs}`;
}

export class DigestCache {
  readonly #file: string | null;
  readonly #entries = new Map<string, Remembered>();
  #changed = false;

  readonly #trust: boolean;

  /**
   * `file`: where the cache is kept between runs (none: in memory only). `trust: false` remembers
   * nothing and hashes on every call.
   */
  constructor(options: { file?: string; trust?: boolean } = {}) {
    const file = options.file ?? null;
    this.#file = file;
    this.#trust = options.trust ?? true;
    if (file === null || !this.#trust || !existsSync(file)) return;
    try {
      const saved = JSON.parse(readFileSync(file, "utf8")) as { version?: unknown; files?: Record<string, Remembered> };
      if (saved.version !== VERSION || typeof saved.files !== "object" || saved.files === null) return;
      for (const [path, entry] of Object.entries(saved.files)) {
        if (typeof entry?.stat === "string" && typeof entry.hash === "string" && typeof entry.bytes === "number")
          this.#entries.set(path, entry);
      }
    } catch {
      // An unreadable cache is an empty one.
    }
  }

  /** The file's size and sha256 (null when it does not exist), hashed unless remembered. */
  digest(path: string): FileDigest | null {
    if (!this.#trust) return hashFile(path);
    const stats = statSync(path, { bigint: true, throwIfNoEntry: false });
    if (!stats) return null;
    const key = statKey(stats);
    const known = this.#entries.get(path);
    if (known && known.stat === key) return { bytes: known.bytes, hash: known.hash };
    const digest = hashFile(path);
    if (digest) this.remember(path, digest, key);
    return digest;
  }

  /**
   * Opens the file and gives the digest of what that descriptor reads: a reader that checks the
   * digest and then streams from `fd` serves the bytes it checked, even if the path is replaced
   * meanwhile (an atomic rename gives the path a new inode; the descriptor keeps the old one).
   * Null when the file does not exist. The caller closes `fd`.
   */
  open(path: string): { fd: number; digest: FileDigest } | null {
    let fd: number;
    try {
      fd = openSync(path, "r");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
    try {
      const key = statKey(fstatSync(fd, { bigint: true }));
      const known = this.#trust ? this.#entries.get(path) : undefined;
      if (known && known.stat === key) return { fd, digest: { bytes: known.bytes, hash: known.hash } };
      const digest = hashOf(fd);
      if (this.#trust) {
        this.#entries.set(path, { ...digest, stat: key });
        this.#changed = true;
      }
      return { fd, digest };
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /** Records the digest of a file this run has just written (its bytes are known, not re-read). */
  remember(path: string, digest: FileDigest, key?: string): void {
    if (!this.#trust) return;
    const stat = key ?? statKey(statSync(path, { bigint: true }));
    this.#entries.set(path, { bytes: digest.bytes, hash: digest.hash, stat });
    this.#changed = true;
  }

  /** Writes the cache (atomically) if anything was learnt. */
  save(): void {
    if (this.#file === null || !this.#changed) return;
    mkdirSync(dirname(this.#file), { recursive: true });
    const tmp = `${this.#file}.${process.pid}.tmp`;
    writeFileSync(
      tmp,
      `${JSON.stringify({ version: VERSION, files: Object.fromEntries([...this.#entries].sort(([a], [b]) => (a < b ? -1 : 1))) })}\n`,
    );
    renameSync(tmp, this.#file);
    this.#changed = false;
  }
}
