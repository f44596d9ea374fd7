/**
 * The pulse's static copies on disk: every file under `<data>/v1/`, read for the comparison with
 * what the verified history gives (core/pulse/static-files.ts). `npm run pulse -- --verify`,
 * `npm run pipeline -- --check` and the site build read them through here.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import type { PulseRecord } from "../core/pulse/history.ts";
import { staticFileProblems } from "../core/pulse/static-files.ts";

/** Every file under `<dataDir>/v1/`, keyed by its path under dataDir with `/` (`v1/pulse/badge.json`); empty when there is none. */
export function readStaticCopies(dataDir: string): Map<string, Uint8Array> {
  const root = join(dataDir, "v1");
  const files = new Map<string, Uint8Array>();
  let entries;
  try {
    if (!statSync(root).isDirectory()) throw new Error(`${root}: not a directory`);
    entries = readdirSync(root, { recursive: true, withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return files;
    throw error;
  }
  for (const entry of entries) {
    const full = join(entry.parentPath, entry.name);
    // A symbolic link is a file the history does not give, whatever it points at.
    if (entry.isDirectory()) continue;
    files.set(relative(dataDir, full).split(sep).join("/"), entry.isFile() ? readFileSync(full) : new Uint8Array());
  }
  return files;
}

/** The static copies under `<dataDir>/v1/` that differ from, are missing from or are not in what `records` gives, naming each file. */
export function staticCopyProblems(dataDir: string, records: readonly PulseRecord[]): string[] {
  return staticFileProblems(records, readStaticCopies(dataDir));
}
