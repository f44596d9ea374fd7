/**
 * An area's releases as the site reads and publishes them (docs/releases.md): the history
 * `releases.json`, the immutable copies under `releases/<version>/` (the manifest and its
 * signature, the changes resources, the citation), and what the area page shows — the current
 * version, what changed since the release before, and the citation to paste.
 *
 * No Astro or Vite import here: astro.config.mjs publishes through it.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import { filesUnder } from "../../../store/files.ts";

export interface TableRelease {
  added: number;
  removed: number;
  changed: number;
  changes?: string;
}

export interface ReleaseRecord {
  version: string;
  kind: string;
  previous: string | null;
  date: string | null;
  manifest: { path: string; hash: string; signature: string };
  files: { path: string; hash: string; immutablePath: string }[];
  tables: Record<string, TableRelease>;
  citation: { bibtex: string; cff: string };
}

export interface AreaReleases {
  releases: ReleaseRecord[];
  /** The release the manifest names. */
  current: ReleaseRecord;
  /** Its citation's BibTeX text. */
  bibtex: string;
}

const sha256 = (bytes: Uint8Array | string) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

/** The area's releases, checked: each recorded manifest copy hashes to its record. Null when the area has none. */
export function readReleases(areaDir: string, version: string | undefined): AreaReleases | null {
  const file = join(areaDir, "releases.json");
  if (!existsSync(file)) return null;
  const { releases } = JSON.parse(readFileSync(file, "utf8")) as { releases: ReleaseRecord[] };
  for (const r of releases) {
    const copy = resolve(areaDir, r.manifest.path);
    if (!copy.startsWith(areaDir + sep) || !existsSync(copy) || sha256(readFileSync(copy)) !== r.manifest.hash) {
      throw new Error(
        `${file}: release ${r.version}'s manifest copy ${r.manifest.path} is missing or does not hash to its record; refusing to publish unverified data`,
      );
    }
  }
  const current = releases.find((r) => r.version === version);
  if (!current) return null;
  const bibtex = readFileSync(resolve(areaDir, current.citation.bibtex), "utf8");
  return { releases, current, bibtex };
}

/** "since 1.0.0: 3 rows added, 1 corrected" — the current release's row changes, or null for a first release. */
export function changeSummary(release: ReleaseRecord): string | null {
  if (!release.previous) return null;
  const t = Object.values(release.tables);
  const sum = (k: "added" | "removed" | "changed") => t.reduce((n, r) => n + r[k], 0);
  const parts = [
    [sum("added"), "added"],
    [sum("changed"), "corrected"],
    [sum("removed"), "removed"],
  ]
    .filter(([n]) => (n as number) > 0)
    .map(([n, what]) => `${n} ${n === 1 ? "row" : "rows"} ${what}`);
  return `since ${release.previous}: ${parts.length > 0 ? parts.join(", ") : "no table rows changed"}`;
}

export interface ReleasesPublished {
  /** Files written. */
  written: number;
  /** Release files whose bytes this build does not hold (served from what earlier deployments published). */
  elsewhere: string[];
}

/**
 * Copies `releases.json` and every file under `releases/` of a verified area into the built site,
 * and puts each release's data files beside its manifest copy — at `releases/<version>/<path>` and
 * at `releases/<version>/<immutablePath>`, where a Data Package reader of that copy resolves them —
 * whenever this build holds their bytes: `files` are the area's verified public files, matched by
 * SHA-256, so a file a later release did not change is published under every release that has it.
 */
export async function publishReleases(
  areaDir: string,
  outAreaDir: string,
  version: string | undefined,
  files: ReadonlyMap<string, Uint8Array> = new Map(),
): Promise<ReleasesPublished> {
  const releases = readReleases(areaDir, version);
  const report: ReleasesPublished = { written: 0, elsewhere: [] };
  if (!releases) return report;
  const put = async (relative: string, bytes: Uint8Array) => {
    const target = join(outAreaDir, relative);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, bytes);
    report.written++;
  };
  for (const f of ["releases.json", ...filesUnder(join(areaDir, "releases")).map((f) => `releases/${f}`)])
    await put(f, readFileSync(join(areaDir, f)));
  const byHash = new Map<string, Uint8Array>();
  for (const bytes of files.values()) byHash.set(sha256(bytes), bytes);
  for (const r of releases.releases) {
    for (const file of r.files ?? []) {
      const own = join(areaDir, "releases", r.version, file.path);
      const bytes = byHash.get(file.hash) ?? (existsSync(own) ? readFileSync(own) : null);
      if (!bytes || sha256(bytes) !== file.hash) {
        report.elsewhere.push(`releases/${r.version}/${file.path}`);
        continue;
      }
      await put(`releases/${r.version}/${file.path}`, bytes);
      await put(`releases/${r.version}/${file.immutablePath}`, bytes);
    }
    await publishSchemaLinks(areaDir, outAreaDir, r.manifest.path, put);
  }
  return report;
}

/**
 * A release's manifest is its signed bytes, so its schema links stay relative to where the area's
 * manifest was: from the copy under releases/<version>/ they point below the area's folder. Each
 * schema they name is published there too (the same bytes as under /schemas/), so every link of
 * every copy resolves on the site.
 */
async function publishSchemaLinks(
  areaDir: string,
  outAreaDir: string,
  manifestPath: string,
  put: (relative: string, bytes: Uint8Array) => Promise<void>,
): Promise<void> {
  const copy = join(areaDir, manifestPath);
  if (!existsSync(copy)) return;
  const { resources = [] } = JSON.parse(readFileSync(copy, "utf8")) as {
    resources?: { jsonSchema?: string | { items?: { $ref?: string } } }[];
  };
  const site = new URL("https://site.invalid/area/");
  const dataDir = join(areaDir, "..", "..");
  for (const r of resources) {
    const ref = typeof r.jsonSchema === "string" ? r.jsonSchema : r.jsonSchema?.items?.$ref;
    if (ref === undefined || /^[a-z]+:/i.test(ref)) continue;
    // Where the link leads from the area's manifest (the published schema), and from the copy.
    const published = new URL(ref, site).pathname;
    const fromCopy = new URL(ref, new URL(manifestPath, site)).pathname;
    if (!published.startsWith("/schemas/") || !fromCopy.startsWith("/area/")) continue;
    const source = join(dataDir, published.slice(1));
    if (existsSync(source)) await put(fromCopy.slice("/area/".length), readFileSync(source));
  }
}
