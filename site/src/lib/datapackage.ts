/**
 * The published data areas as the portal sees them: `<dataDir>/areas/<area>/datapackage.json`
 * (Frictionless Data Package v2) and its signature `datapackage.json.sig`, checked before anything
 * of the area is shown or copied into the site.
 *
 * Verification, in this order, failing with an error that names the file:
 *  1. the manifest signature (a C2SP signed note over "<area> datapackage\nsha256:<hex>\n") verifies
 *     under a key of `<dataDir>/keys/datasets.vkey` — the same check as `npm run verify`;
 *  2. the manifest agrees with the published-data contract (core/datapackage: its zod schema, the
 *     path rule, each file's access tier and media type) — the same check as the API makes;
 *  3. every listed public resource exists, and every listed resource present here (keyed ones live
 *     in the keyed data folder in a deployment) has exactly `bytes` bytes and the SHA-256 `hash`.
 * The bytes that were hashed are the bytes that are rendered or copied: files are read once.
 *
 * No Astro or Vite import here: astro.config.mjs uses this module to publish the files, and the
 * pages use it (through areas.ts) to render them.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { filesUnder } from "../../../store/files.ts";
import { copyFile, mkdir, readdir, writeFile } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import { diffSchemaTexts, renderPublishedSchemas, schemaDiffProblems } from "../../../core/schemas/published-files.ts";
import type { NoteVerifier } from "../../../core/checkpoint.ts";
import {
  AREAS,
  areaAliases,
  checkManifest,
  DATASET_KEYS_FILE,
  DataPackageError,
  immutablePathOf,
  jsonSchemaIdOf,
  MANIFEST_FILE,
  openManifestSignature,
  parseTrustedKeys,
  resourcePathProblem,
  SIGNATURE_FILE,
  type Area,
  type Manifest,
  type ManifestResource,
} from "../../../core/datapackage/index.ts";
import { CodedError } from "../../../core/errors.ts";
import { publishReleases } from "./releases.ts";

/** The five audience areas, in navigation order: the published-data contract's (core/datapackage). */
export const AREA_SLUGS = AREAS;
export type AreaSlug = Area;
export { DATASET_KEYS_FILE, MANIFEST_FILE, SIGNATURE_FILE };
export type { Manifest };
export type Resource = ManifestResource;

/**
 * The extension-less endpoints an area declares (the contract's aliases: the spec's economy
 * endpoints, /economy/supply, …): each is published with the same bytes as the JSON resource it
 * names, alias → file. A live route is copied too: on a static host (no API) it is the last
 * published figures; wherever the API runs, its route answers first, live from the ledger, and the
 * copy is never served.
 */
export function aliasCopies(area: Area): [alias: string, file: string][] {
  return Object.entries(areaAliases(area))
    .filter(([, r]) => r.kind === "alias" || r.kind === "live")
    .map(([alias, r]) => [alias, r.file]);
}

export class DataVerificationError extends CodedError<"area-unverified"> {
  constructor(message: string) {
    super("area-unverified", message);
  }
}

export class SchemaVerificationError extends CodedError<"schemas-unverified"> {
  constructor(message: string) {
    super("schemas-unverified", message);
  }
}

/**
 * The files of `<dataDir>/schemas/` to publish at `/schemas/`, after checking that the folder is
 * exactly what the code gives (core/schemas/published-files.ts: every registry schema, byte for
 * byte, and no other file — the comparison `npm run schemas -- --check` and
 * `npm run pipeline -- --check` make); none when there is no such folder. Throws
 * SchemaVerificationError naming each file that is missing, differs or is stale: a schema loosened
 * by hand would otherwise be published as the contract.
 */
export function verifySchemas(dataDir: string): string[] {
  const dir = join(dataDir, "schemas");
  if (!existsSync(dir)) return [];
  const files = filesUnder(dir);
  const diff = diffSchemaTexts(renderPublishedSchemas(), files, (file) =>
    files.includes(file) ? readFileSync(join(dir, file), "utf8") : undefined,
  );
  const problems = schemaDiffProblems(diff);
  if (problems.length > 0)
    throw new SchemaVerificationError(
      `${dir} is not what core/schemas produces (run \`npm run schemas\`):\n  ${problems.join("\n  ")}`,
    );
  return diff.unchanged;
}

/** A verified area: its manifest, the exact bytes of the manifest and signature, and kept files. */
export interface VerifiedArea {
  area: AreaSlug;
  /** Absolute path of the area folder. */
  dir: string;
  manifest: Manifest;
  manifestBytes: Buffer;
  signatureBytes: Buffer;
  /** Verified bytes of the resources `keep` selected, by resource path. */
  files: Map<string, Buffer>;
}

export interface VerifyOptions {
  /** Which resources' bytes to keep in `files` (all are verified either way). Default: none. */
  keep?: (resource: Resource) => boolean;
}

/** "public" is the only tier without a key; every other tier is keyed. */
export function isPublic(resource: Pick<Resource, "access">): boolean {
  return resource.access === "public";
}

/** The note verifier keys of `<dataDir>/keys/datasets.vkey` (one per line, `#` comments allowed). */
export function readDatasetKeys(dataDir: string): NoteVerifier[] {
  const path = join(dataDir, "keys", DATASET_KEYS_FILE);
  if (!existsSync(path))
    throw new DataVerificationError(
      `${path}: the dataset public key file is missing; cannot verify the area manifests`,
    );
  let keys: NoteVerifier[];
  try {
    keys = parseTrustedKeys(readFileSync(path, "utf8"), path);
  } catch (error) {
    throw new DataVerificationError((error as Error).message);
  }
  if (keys.length === 0) throw new DataVerificationError(`${path}: no dataset public key in the file`);
  return keys;
}

const sha256 = (bytes: Uint8Array) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

function fail(file: string, problem: string): never {
  throw new DataVerificationError(`${file}: ${problem}; refusing to publish unverified data`);
}

/**
 * Verifies `<dataDir>/areas/<area>`; null when the area has not been generated (no manifest).
 * Throws DataVerificationError naming the first file that fails.
 */
export function verifyArea(
  dataDir: string,
  area: AreaSlug,
  options: VerifyOptions = {},
  keys?: NoteVerifier[],
): VerifiedArea | null {
  const dir = resolve(dataDir, "areas", area);
  const manifestPath = join(dir, MANIFEST_FILE);
  if (!existsSync(manifestPath)) return null;
  const manifestBytes = readFileSync(manifestPath);
  const sigPath = join(dir, SIGNATURE_FILE);
  if (!existsSync(sigPath)) fail(sigPath, "the manifest signature is missing");
  const signatureBytes = readFileSync(sigPath);
  // The contract's checks (core/datapackage), the same as npm run verify and the API make.
  let manifest: Manifest;
  try {
    openManifestSignature(area, manifestBytes, signatureBytes.toString("utf8"), keys ?? readDatasetKeys(dataDir));
    manifest = checkManifest(area, manifestBytes).manifest;
  } catch (error) {
    if (!(error instanceof DataPackageError)) throw error;
    const file =
      error.subject === "signature"
        ? sigPath
        : error.subject === "keys"
          ? join(dataDir, "keys", DATASET_KEYS_FILE)
          : manifestPath;
    fail(
      file,
      error.subject === "signature"
        ? `the signature does not verify under ${DATASET_KEYS_FILE} (${error.message})`
        : error.message,
    );
  }

  const files = new Map<string, Buffer>();
  for (const resource of manifest.resources) {
    const file = resolve(dir, resource.path);
    if (!file.startsWith(dir + sep))
      fail(manifestPath, `resource ${resource.name}: path ${resource.path} leaves the area folder`);
    // Keyed files live in the keyed data folder, not the public one (docs/trust.md): the
    // site never publishes them, so one that is absent here is skipped; one that is here is checked.
    if (!isPublic(resource) && !existsSync(file)) continue;
    if (!existsSync(file)) fail(file, `listed in ${MANIFEST_FILE} (resource ${resource.name}) but missing`);
    const bytes = readFileSync(file);
    if (bytes.length !== resource.bytes) fail(file, `${bytes.length} bytes, ${MANIFEST_FILE} lists ${resource.bytes}`);
    const hash = sha256(bytes);
    if (hash !== resource.hash)
      fail(file, `SHA-256 mismatch: the file hashes to ${hash}, ${MANIFEST_FILE} lists ${resource.hash}`);
    if (options.keep?.(resource)) files.set(resource.path, bytes);
  }
  return { area, dir, manifest, manifestBytes, signatureBytes, files };
}

/** Verifies every area that has been generated; throws on the first failure. */
export function verifyAllAreas(dataDir: string, options: VerifyOptions = {}): VerifiedArea[] {
  const generated = AREA_SLUGS.filter((a) => existsSync(join(dataDir, "areas", a, MANIFEST_FILE)));
  if (generated.length === 0) return [];
  const keys = readDatasetKeys(dataDir);
  return generated.map((a) => verifyArea(dataDir, a, options, keys)!);
}

/**
 * The site's copy of a resource's JSON Schema: the path under /schemas/ of the schema it references
 * (or, for an inline schema of an array of rows, its `items.$ref`), when `<dataDir>/schemas/<rest>` exists.
 */
export function schemaPath(dataDir: string, jsonSchema: Resource["jsonSchema"]): string | null {
  const url = jsonSchemaIdOf(jsonSchema);
  if (url === null) return null;
  let pathname: string;
  try {
    pathname = new URL(url).pathname;
  } catch {
    return null;
  }
  const rest = pathname.startsWith("/schemas/") ? pathname.slice("/schemas/".length) : null;
  if (rest === null || resourcePathProblem(rest) !== null) return null;
  return existsSync(join(dataDir, "schemas", rest)) ? `/schemas/${rest}` : null;
}

export interface PublishReport {
  areas: { area: AreaSlug; files: number; keyed: number }[];
  /** Files of earlier releases this build does not hold: served from what their deployment published. */
  releasesElsewhere: string[];
  keys: number;
  schemas: boolean;
}

async function writeInto(outDir: string, relative: string, bytes: Uint8Array): Promise<void> {
  const target = join(outDir, relative);
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, bytes);
}

/**
 * Copies into the built site: for every generated area, each PUBLIC resource at `/<area>/<path>`
 * (the verified bytes) and at its content-addressed `/<area>/sha256/<hex><ext>`, the manifest and its signature, and for the economy the extension-less
 * endpoints; `<dataDir>/keys/*.vkey` and `*.policy` (the ledger's witness policy) to `/keys/`; `<dataDir>/schemas/**` to `/schemas/**` once
 * they are exactly what the code gives (`verifySchemas`). Keyed resources are never written. Throws DataVerificationError before writing anything of an
 * area that does not verify.
 */
export async function publishAreas(dataDir: string, outDir: string): Promise<PublishReport> {
  const verified = verifyAllAreas(dataDir, { keep: isPublic });
  const report: PublishReport = { areas: [], keys: 0, schemas: false, releasesElsewhere: [] };
  for (const v of verified) {
    for (const [path, bytes] of v.files) await writeInto(outDir, `${v.area}/${path}`, bytes);
    // The content-addressed copy of every public file (the manifest's immutablePath; the same
    // path is derived for a manifest signed before it named one), cached as immutable.
    for (const r of v.manifest.resources) {
      const bytes = v.files.get(r.path);
      if (bytes) await writeInto(outDir, `${v.area}/${r.immutablePath ?? immutablePathOf(r.path, r.hash)}`, bytes);
    }
    await writeInto(outDir, `${v.area}/${MANIFEST_FILE}`, v.manifestBytes);
    await writeInto(outDir, `${v.area}/${SIGNATURE_FILE}`, v.signatureBytes);
    // The release history and each release's immutable copies (site/src/lib/releases.ts).
    const releases = await publishReleases(v.dir, join(outDir, v.area), v.manifest.version, v.files);
    report.releasesElsewhere.push(...releases.elsewhere.map((f) => `${v.area}/${f}`));
    for (const [alias, path] of aliasCopies(v.area)) {
      const bytes = v.files.get(path);
      if (bytes) await writeInto(outDir, `${v.area}/${alias}`, bytes);
    }
    report.areas.push({
      area: v.area,
      files: v.files.size,
      keyed: v.manifest.resources.filter((r) => !isPublic(r)).length,
    });
  }
  const keysDir = join(dataDir, "keys");
  if (existsSync(keysDir)) {
    for (const name of (await readdir(keysDir)).filter((n) => n.endsWith(".vkey") || n.endsWith(".policy")).sort()) {
      await mkdir(join(outDir, "keys"), { recursive: true });
      await copyFile(join(keysDir, name), join(outDir, "keys", name));
      report.keys++;
    }
  }
  const schemas = verifySchemas(dataDir);
  for (const file of schemas) await writeInto(outDir, `schemas/${file}`, readFileSync(join(dataDir, "schemas", file)));
  report.schemas = schemas.length > 0;
  return report;
}
