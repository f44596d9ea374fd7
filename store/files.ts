/** Listing a folder's files: the one walk the pipeline, its checks and the site build share. */
import type { Dirent } from "node:fs";
import { readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";

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
