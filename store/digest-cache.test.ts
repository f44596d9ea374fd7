import {
  closeSync,
  existsSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../test/support/store/helpers.ts";
import { DigestCache, hashFile } from "./digest-cache.ts";

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir("digest-cache-")));
afterEach(() => cleanup());

describe("DigestCache", () => {
  it("hashes a file once, then trusts the digest while stat agrees, across runs", () => {
    const file = join(dir, "data.csv");
    writeFileSync(file, "a,b\r\n1,2\r\n");
    const cacheFile = join(dir, "state", "digests.json");
    const first = new DigestCache({ file: cacheFile });
    expect(first.digest(file)).toEqual(hashFile(file));
    expect(first.digest(join(dir, "missing"))).toBeNull();
    // What a later run trusts is what was recorded: a planted digest shows the file is not re-read.
    first.remember(file, { bytes: 11, hash: `sha256:${"0".repeat(64)}` });
    first.save();
    expect(JSON.parse(readFileSync(cacheFile, "utf8")).version).toBe(1);
    expect(new DigestCache({ file: cacheFile }).digest(file)).toEqual({ bytes: 11, hash: `sha256:${"0".repeat(64)}` });
  });

  it("hashes again after any write, even one of the same size with the old mtime put back", () => {
    const file = join(dir, "data.csv");
    writeFileSync(file, "a,b\r\n1,2\r\n");
    const cacheFile = join(dir, "digests.json");
    const cache = new DigestCache({ file: cacheFile });
    cache.digest(file);
    cache.save();
    const before = statSync(file);
    writeFileSync(file, "a,b\r\n1,3\r\n");
    utimesSync(file, before.atime, before.mtime);
    expect(new DigestCache({ file: cacheFile }).digest(file)).toEqual(hashFile(file));
  });

  it("remembers in memory without a file; hashes every time when told not to trust; ignores an unreadable file", () => {
    const file = join(dir, "data.csv");
    writeFileSync(file, "x");
    const memory = new DigestCache();
    memory.remember(file, { bytes: 1, hash: `sha256:${"0".repeat(64)}` });
    expect(memory.digest(file)).toEqual({ bytes: 1, hash: `sha256:${"0".repeat(64)}` });
    memory.save();
    const none = new DigestCache({ file: join(dir, "never.json"), trust: false });
    none.remember(file, { bytes: 1, hash: `sha256:${"0".repeat(64)}` });
    expect(none.digest(file)).toEqual(hashFile(file));
    none.save();
    expect(existsSync(join(dir, "never.json"))).toBe(false);
    const garbled = join(dir, "garbled.json");
    writeFileSync(garbled, "{ not json");
    expect(new DigestCache({ file: garbled }).digest(file)).toEqual(hashFile(file));
  });

  it("opens a file with the digest of what its descriptor reads, even when the path is replaced meanwhile", () => {
    const file = join(dir, "served.json");
    writeFileSync(file, "genuine");
    const cache = new DigestCache();
    const opened = cache.open(file)!;
    try {
      expect(opened.digest).toEqual(hashFile(file));
      // Swapped by an atomic rename after the check: the descriptor still reads what was hashed.
      const swap = join(dir, "swap.json");
      writeFileSync(swap, "tampered");
      renameSync(swap, file);
      const buffer = Buffer.alloc(16);
      expect(buffer.subarray(0, readSync(opened.fd, buffer, 0, 16, 0)).toString()).toBe("genuine");
    } finally {
      closeSync(opened.fd);
    }
    // The next open sees the new file and hashes it (new inode, new digest).
    const again = cache.open(file)!;
    closeSync(again.fd);
    expect(again.digest).toEqual(hashFile(file));
    expect(cache.open(join(dir, "missing.json"))).toBeNull();
  });
});
