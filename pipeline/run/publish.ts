/**
 * Publish each area atomically: an area with a failed step keeps its previous files, manifest and
 * signature untouched. Otherwise the manifest is signed first (the key must be listed in
 * data/keys/datasets.vkey), then the staged outputs are renamed into place, files no step produces
 * any more are removed, and the manifest and its signature are written — each only if it changed.
 * Any other file in the area's folder is named and left where it is (`unlisted`).
 */
import { existsSync, mkdirSync, renameSync, unlinkSync } from "node:fs";
import { dirname } from "node:path";
import { writeFileAtomic } from "../../store/files.ts";
import { ensureTrustedKey, SIGNATURE_SUFFIX, signManifest } from "../sign.ts";
import type { AreaOutcome } from "./area-manifest.ts";
import { orphans, readBytes, signatureProblem, trustedDatasetKeys, unlisted } from "./compare.ts";
import type { RunContext } from "./context.ts";
import type { PassOutcome } from "./execute.ts";
import { Tally, type RunReport } from "./report.ts";
import { publishRelease } from "../release/phase.ts";

export function publishAreas(run: RunContext, areas: readonly AreaOutcome[], pass: PassOutcome): RunReport {
  const tally = new Tally(run.log, pass);
  const { written } = tally.report;
  const { vkeyFile } = run.files;
  const trusted = trustedDatasetKeys(vkeyFile);
  for (const outcome of areas) {
    const { area, states, manifestFile, manifest } = outcome;
    if ("failed" in manifest) {
      tally.areaFailed(states, manifest.failed);
      continue;
    }
    const removed = orphans(run, area, manifestFile, states);
    const onDisk = readBytes(manifestFile);
    const manifestSame = onDisk !== null && onDisk.toString("utf8") === manifest.text;
    const sigFile = manifestFile + SIGNATURE_SUFFIX;
    let signature: string | null = null;
    try {
      if (!manifestSame || signatureProblem(area, manifestFile, manifest.text, trusted) !== null) {
        if (!run.options.signingKey) throw new Error("no dataset signing key configured");
        const key = run.options.signingKey();
        const trust = ensureTrustedKey(vkeyFile, key, run.options.trustNewKey ?? false);
        if (trust.action !== "present") {
          run.log(`${vkeyFile}: ${trust.action === "created" ? "created with" : "added"} ${trust.vkey}`);
          written.push(vkeyFile);
          trusted.push({ name: key.name, publicKeyHex: key.publicKeyHex });
        }
        signature = signManifest(area, manifest.text, key);
      }
    } catch (error) {
      const reason = `signing failed: ${(error as Error).message}`;
      for (const s of states) [s.phase, s.reason] = ["failed", reason];
      tally.areaFailed(states, reason);
      continue;
    }
    for (const s of states) {
      const out = s.output!;
      if (!out.same) {
        if (out.tmp) {
          mkdirSync(dirname(s.target), { recursive: true });
          renameSync(out.tmp, s.target);
        } else writeFileAtomic(s.target, out.bytes!);
        run.digests.remember(s.target, out.digest);
      }
      tally.step(s, out.same ? "unchanged" : "written", out.same ? "unchanged" : "written");
    }
    for (const file of removed) {
      if (existsSync(file)) unlinkSync(file);
      run.log(`${file} … removed (no step produces it any more)`);
      written.push(file);
    }
    if (!manifestSame) {
      writeFileAtomic(manifestFile, manifest.text);
      written.push(manifestFile);
      run.log(`${manifestFile} … written`);
    }
    if (signature !== null) {
      writeFileAtomic(sigFile, signature);
      written.push(sigFile);
      run.log(`${sigFile} … signed`);
    }
    for (const file of publishRelease(run.files.areasDir, outcome, signature)) {
      written.push(file);
      run.log(`${file} … written (release ${outcome.release!.version})`);
    }
    for (const file of unlisted(run, area, states, []))
      run.log(
        `${file} … UNLISTED: no manifest lists it, so it is never published; left as it is (--check reports it until it is removed)`,
      );
  }
  run.log(`${tally.changed} written, ${tally.unchanged} unchanged, ${tally.failed} failed`);
  return tally.close();
}
