/** Listing a folder's files: the one walk the pipeline, its checks and the site build share. */
import type { Dirent } from "node:fs";
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, sep } from "node:path";

/** Every file (anything but a folder) under `dir`, as `/`-separated paths relative to it, sorted; none when `dir` does not exist. */
export function filesUnder(dir: string): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { recursive: true, withFileTypes: true }) as Dirent[];
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  return entries
    .filter((e) => !e.isDirectory())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join("/"))
    .sort();
}

/**
 * Writes `path` whole or not at all: into `.<name>.<pid>.tmp` beside it, then renamed over it (a
 * reader sees the old file or the new one, never a part); the temporary file is removed on failure.
 */
export function writeFileAtomic(path: string, data: Uint8Array | string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    writeFileSync(tmp, data);
    renameSync(tmp, path);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
}
