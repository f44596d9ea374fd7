/**
 * The release phase of a run and its part in the last phase (docs/releases.md): decide each area's
 * release (plan.ts), then either publish its files — the history, the changes resources, the
 * citation and, for a new release, the immutable copy of the manifest and its signature — or, under
 * `--check`, name every one that differs, and every release whose copy no longer matches its record.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../../store/files.ts";
import type { NoteVerifier } from "../../core/checkpoint.ts";
import type { AreaOutcome } from "../run/area-manifest.ts";
import { reasonOf } from "../run/plan.ts";
import { verifyManifestSignature } from "../sign.ts";
import { CHANGES_DIR, RELEASES_FILE } from "./history.ts";
import { planRelease } from "./plan.ts";

/** Gives each publishable area its release and its manifest its final text; an area whose release cannot be decided fails. */
export function releaseAreas(areasDir: string, areas: AreaOutcome[]): void {
  for (const outcome of areas) {
    if ("failed" in outcome.manifest) continue;
    try {
      const release = planRelease(areasDir, outcome.area, outcome.manifest.pkg, outcome.states);
      outcome.release = release;
      outcome.manifest = { ...outcome.manifest, text: release.manifestText };
    } catch (error) {
      const reason = reasonOf(error, join(areasDir, outcome.area, RELEASES_FILE));
      for (const s of outcome.states) [s.phase, s.reason] = ["failed", reason];
      outcome.manifest = { failed: reason };
    }
  }
}

function same(file: string, bytes: Uint8Array | string): boolean {
  if (!existsSync(file)) return false;
  return Buffer.from(readFileSync(file)).equals(Buffer.from(bytes));
}

/** Writes the area's release files that differ; returns the files written or removed. */
export function publishRelease(areasDir: string, outcome: AreaOutcome, signature: string | null): string[] {
  const release = outcome.release;
  if (!release || "failed" in outcome.manifest) return [];
  const dir = join(areasDir, outcome.area);
  const written: string[] = [];
  const put = (relative: string, bytes: Uint8Array | string) => {
    const file = join(dir, relative);
    if (same(file, bytes)) return;
    writeFileAtomic(file, bytes);
    written.push(file);
  };
  if (release.isNew) {
    const record = release.history.releases.at(-1)!;
    put(record.manifest.path, release.manifestText);
    put(record.manifest.signature, signature ?? readFileSync(outcome.manifestFile + ".sig", "utf8"));
  }
  for (const [relative, bytes] of release.files) put(relative, bytes);
  put(RELEASES_FILE, release.historyText);
  // Changes resources the manifest no longer lists (their immutable copies stay under releases/).
  const changesDir = join(dir, CHANGES_DIR);
  if (existsSync(changesDir)) {
    for (const name of readdirSync(changesDir)) {
      if (!release.files.has(`${CHANGES_DIR}/${name}`)) {
        unlinkSync(join(changesDir, name));
        written.push(join(changesDir, name));
      }
    }
  }
  return written;
}

/** `--check`: every release file that differs or is missing, and every recorded release whose copy no longer matches. */
export function checkRelease(areasDir: string, outcome: AreaOutcome, trusted: NoteVerifier[]): string[] {
  const release = outcome.release;
  if (!release || "failed" in outcome.manifest) return [];
  const dir = join(areasDir, outcome.area);
  const problems: string[] = [];
  if (!same(join(dir, RELEASES_FILE), release.historyText)) problems.push(`${join(dir, RELEASES_FILE)} … DIFFERS`);
  for (const [relative, bytes] of release.files)
    if (!same(join(dir, relative), bytes)) problems.push(`${join(dir, relative)} … DIFFERS`);
  for (const record of release.history.releases) {
    const copy = join(dir, record.manifest.path);
    if (!existsSync(copy)) {
      problems.push(`${copy} … MISSING (release ${record.version})`);
      continue;
    }
    const text = readFileSync(copy, "utf8");
    if (`sha256:${createHash("sha256").update(text).digest("hex")}` !== record.manifest.hash) {
      problems.push(`${copy} … DIFFERS from the hash ${RELEASES_FILE} records for ${record.version}`);
      continue;
    }
    try {
      verifyManifestSignature(outcome.area, text, readFileSync(join(dir, record.manifest.signature), "utf8"), trusted);
    } catch (error) {
      problems.push(`${join(dir, record.manifest.signature)} … ${(error as Error).message}`);
    }
  }
  return problems;
}
