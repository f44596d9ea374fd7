/**
 * An area's release history, `<area>/releases.json` (docs/releases.md): every release, oldest
 * first, with its version, date, the SHA-256 of its manifest and where its immutable copies are,
 * the ledger checkpoint it was made from, and per table the rows added, removed and changed. The
 * file's text is a pure function of the records (two-space JSON, keys in construction order).
 */
import { readFileSync } from "node:fs";
import { isReleaseVersion, type ReleaseKind } from "../../core/release/version.ts";
import type { ChangeCounts } from "../../core/release/changes.ts";

export const RELEASES_FILE = "releases.json";
export const RELEASES_DIR = "releases";
export const CHANGES_DIR = "changes";

export interface TableRelease extends ChangeCounts {
  /** The changes resource of this release (under releases/<version>/), when there was a release before. */
  changes?: string;
}

export interface ReleaseRecord {
  version: string;
  /** "first", or which part of the version the rule bumped. */
  kind: ReleaseKind | "first";
  previous: string | null;
  /** The data's date: the manifest's `created` (null for an area fed only by curated sources). */
  date: string | null;
  manifest: { path: string; hash: string; signature: string };
  /** The ledger checkpoint the release was made from, when the area reads the ledger. */
  ledger?: { size: number; root: string };
  /** The public files, each at its content-addressed path. */
  files: { path: string; hash: string; immutablePath: string }[];
  /** Per table with a primary key: rows added, removed and changed since the previous release. */
  tables: Record<string, TableRelease>;
  citation: { bibtex: string; cff: string };
}

export interface ReleaseHistory {
  name: string;
  releases: ReleaseRecord[];
}

/** Whether a path in an area folder is the release phase's (never a step's output, never "unlisted"). */
export function isReleasePath(relative: string): boolean {
  return (
    relative === RELEASES_FILE || relative.startsWith(`${RELEASES_DIR}/`) || relative.startsWith(`${CHANGES_DIR}/`)
  );
}

/** The folder of a release's immutable copies, relative to the area. */
export function releaseDir(version: string): string {
  return `${RELEASES_DIR}/${version}`;
}

export function renderHistory(history: ReleaseHistory): string {
  return `${JSON.stringify(history, null, 2)}\n`;
}

/** The published history; an empty one when there is none. Throws naming the file when it is not a history. */
export function readHistory(file: string, name: string): ReleaseHistory {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { name, releases: [] };
    throw error;
  }
  const parsed = JSON.parse(text) as ReleaseHistory;
  if (
    parsed?.name !== name ||
    !Array.isArray(parsed.releases) ||
    !parsed.releases.every((r) => isReleaseVersion(r?.version) && typeof r.manifest?.hash === "string")
  ) {
    throw new Error(`${file}: not the release history of ${name}`);
  }
  return parsed;
}
