/**
 * The sha256 of files the runner has already hashed, remembered with what `stat` said of each file
 * at that moment, the way git's index remembers its work tree: a second run with nothing new
 * checks that every output is still what its manifest records without reading hundreds of MB.
 *
 * A remembered digest is used only while the file's size, inode, mtime and ctime (nanoseconds) all
 * still match. Any write changes ctime, which no user-level call can set back, so a file edited
 * since it was hashed is always hashed again. The cache lives outside the data folder (a path under
 * `.state/`), is advisory (a missing or unreadable cache means hashing everything) and is never
 * used by `--check` or by the offline verifier, which always hash.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync, type BigIntStats } from "node:fs";
import { dirname } from "node:path";
import { hashFile, type FileDigest } from "./verify.ts";

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

  /** `file` null: nothing is remembered, every call hashes. */
  constructor(file: string | null) {
    this.#file = file;
    if (file === null || !existsSync(file)) return;
    try {
      const saved = JSON.parse(readFileSync(file, "utf8")) as { version?: unknown; files?: Record<string, Remembered> };
      if (saved.version !== VERSION || typeof saved.files !== "object" || saved.files === null) return;
      for (const [path, entry] of Object.entries(saved.files)) {
        if (typeof entry?.stat === "string" && typeof entry.hash === "string" && typeof entry.bytes === "number") this.#entries.set(path, entry);
      }
    } catch {
      // An unreadable cache is an empty one.
    }
  }

  /** The file's size and sha256 (null when it does not exist), hashed unless remembered. */
  digest(path: string): FileDigest | null {
    const stats = statSync(path, { bigint: true, throwIfNoEntry: false });
    if (!stats) return null;
    const key = statKey(stats);
    const known = this.#entries.get(path);
    if (known && known.stat === key) return { bytes: known.bytes, hash: known.hash };
    const digest = hashFile(path);
    if (digest) this.remember(path, digest, key);
    return digest;
  }

  /** Records the digest of a file this run has just written (its bytes are known, not re-read). */
  remember(path: string, digest: FileDigest, key?: string): void {
    if (this.#file === null) return;
    const stat = key ?? statKey(statSync(path, { bigint: true }));
    this.#entries.set(path, { bytes: digest.bytes, hash: digest.hash, stat });
    this.#changed = true;
  }

  /** Writes the cache (atomically) if anything was learnt. */
  save(): void {
    if (this.#file === null || !this.#changed) return;
    mkdirSync(dirname(this.#file), { recursive: true });
    const tmp = `${this.#file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify({ version: VERSION, files: Object.fromEntries([...this.#entries].sort(([a], [b]) => (a < b ? -1 : 1))) })}\n`);
    renameSync(tmp, this.#file);
    this.#changed = false;
  }
}
