/**
 * `--check`: compare what the run produced with what is published, writing nothing. Reported: every
 * output whose bytes differ or that is missing, every file a manifest lists that no step produces
 * any more, a manifest that is missing or different, a signature that does not verify with the
 * published keys (data/keys/datasets.vkey) — signatures are verified, not byte-compared, since a
 * fresh clone signs with another development key — and every other file in the area's folder,
 * which no manifest lists (`unlisted`).
 */
import { existsSync, readFileSync } from "node:fs";
import { filesUnder } from "../../store/files.ts";
import { join } from "node:path";
import type { NoteVerifier } from "../../core/checkpoint.ts";
import { outputFile } from "../layout.ts";
import { MANIFEST_FILE, readManifest } from "../manifest.ts";
import { parseTrustedKeys, SIGNATURE_SUFFIX, verifyManifestSignature } from "../sign.ts";
import type { Area } from "../step.ts";
import type { AreaOutcome } from "./area-manifest.ts";
import type { RunContext } from "./context.ts";
import type { PassOutcome } from "./execute.ts";
import { Tally, type RunReport } from "./report.ts";
import { isReleasePath } from "../release/history.ts";
import { checkRelease } from "../release/phase.ts";

export function compareAreas(run: RunContext, areas: readonly AreaOutcome[], pass: PassOutcome): RunReport {
  const tally = new Tally(run.log, pass);
  const { differences } = tally.report;
  const trusted = trustedDatasetKeys(run.files.vkeyFile);
  for (const outcome of areas) {
    const { area, states, manifestFile, manifest } = outcome;
    if ("failed" in manifest) {
      tally.areaFailed(states, manifest.failed);
      continue;
    }
    for (const s of states) {
      const same = s.output!.same;
      if (!same) differences.push(s.target);
      tally.step(
        s,
        same ? "matches" : "differs",
        same ? "matches" : existsSync(s.target) ? "DIFFERS from the file" : "MISSING",
      );
    }
    const stale = orphans(run, area, manifestFile, states);
    for (const file of stale) {
      differences.push(file);
      run.log(`${file} … STALE: listed in the manifest, produced by no step`);
    }
    for (const file of unlisted(run, area, states, stale)) {
      differences.push(file);
      run.log(`${file} … UNLISTED: no manifest lists it, so nothing publishes or verifies it`);
    }
    const onDisk = readBytes(manifestFile);
    if (onDisk === null || onDisk.toString("utf8") !== manifest.text) {
      differences.push(manifestFile);
      run.log(`${manifestFile} … ${onDisk ? "DIFFERS (stale manifest)" : "MISSING"}`);
    } else {
      const problem = signatureProblem(area, manifestFile, manifest.text, trusted);
      if (problem) {
        differences.push(manifestFile + SIGNATURE_SUFFIX);
        run.log(problem);
      }
    }
    for (const problem of checkRelease(run.files.areasDir, outcome, trusted)) {
      differences.push(problem);
      run.log(problem);
    }
  }
  run.log(
    `check: ${tally.changed} differ, ${tally.unchanged} match, ${tally.failed} failed${differences.length > 0 ? "" : " — data/ is what the pipeline produces"}`,
  );
  for (const d of differences) run.log(`  differs: ${d}`);
  if (differences.length > 0) tally.report.ok = false;
  return tally.close();
}

/** The files the area's published manifest lists that no step produces any more. */
export function orphans(
  run: RunContext,
  area: Area,
  manifestFile: string,
  states: readonly AreaOutcome["states"][number][],
): string[] {
  const listed = readManifest(manifestFile)?.records.keys() ?? [];
  return [...listed]
    .filter((p) => !isReleasePath(p) && !states.some((s) => s.step.path === p))
    .map((p) => outputFile(run.layout, area, p));
}

/**
 * The files in the area's folder of the data folder (`data/areas/<area>/`) that are neither an
 * output of a step of the area, nor one of `stale` (listed by the published manifest, produced by no
 * step), nor the manifest or its signature: files no manifest lists, which the site never publishes
 * and nothing verifies (a copy, a file put there by hand, a staged file an interrupted run left).
 * The pipeline reports them and leaves them: they may be someone's.
 */
export function unlisted(
  run: RunContext,
  area: Area,
  states: readonly AreaOutcome["states"][number][],
  stale: readonly string[],
): string[] {
  const dir = join(run.files.areasDir, area);
  const known = new Set([
    ...states.map((s) => s.target),
    ...stale,
    join(dir, MANIFEST_FILE),
    join(dir, MANIFEST_FILE + SIGNATURE_SUFFIX),
  ]);
  return filesUnder(dir)
    .filter((file) => !isReleasePath(file))
    .map((file) => join(dir, file))
    .filter((file) => !known.has(file));
}

/** The keys of data/keys/datasets.vkey; none when it is missing or unreadable (then no signature verifies). */
export function trustedDatasetKeys(vkeyFile: string): NoteVerifier[] {
  const text = readBytes(vkeyFile);
  try {
    return text ? parseTrustedKeys(text.toString("utf8"), vkeyFile) : [];
  } catch {
    return [];
  }
}

/** Why the published signature does not cover this manifest text, naming the file; null when it does. */
export function signatureProblem(
  area: Area,
  manifestFile: string,
  manifestText: string,
  trusted: NoteVerifier[],
): string | null {
  const sigFile = manifestFile + SIGNATURE_SUFFIX;
  const sig = readBytes(sigFile);
  if (!sig) return `${sigFile}: missing`;
  try {
    verifyManifestSignature(area, manifestText, sig.toString("utf8"), trusted);
    return null;
  } catch (error) {
    return `${sigFile}: ${(error as Error).message}`;
  }
}

export function readBytes(path: string): Buffer | null {
  try {
    return readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}
