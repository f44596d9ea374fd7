/**
 * The published data areas as the portal sees them: `<dataDir>/areas/<area>/datapackage.json`
 * (Frictionless Data Package v2) and its signature `datapackage.json.sig`, checked before anything
 * of the area is shown or copied into the site.
 *
 * Verification, in this order, failing with an error that names the file:
 *  1. the manifest signature (a C2SP signed note over "<area> datapackage\nsha256:<hex>\n") verifies
 *     under a key of `<dataDir>/keys/datasets.vkey` — the same check as `npm run verify`;
 *  2. the manifest parses (strict on the fields the portal relies on, open to other properties as
 *     Frictionless allows) and every resource path stays inside the area folder;
 *  3. every listed resource — public or keyed — exists, has exactly `bytes` bytes and the SHA-256
 *     `hash`.
 * The bytes that were hashed are the bytes that are rendered or copied: files are read once.
 *
 * No Astro or Vite import here: astro.config.mjs uses this module to publish the files, and the
 * pages use it (through areas.ts) to render them.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { copyFile, cp, mkdir, readdir, writeFile } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import { z } from "zod";
import { openNote, parseVerifierKey, type NoteVerifier } from "../../../core/checkpoint.ts";

/** The five audience areas, in navigation order (directory names under data/areas and URL prefixes). */
export const AREA_SLUGS = ["government", "academics", "philosophy", "economy", "diplomacy"] as const;
export type AreaSlug = (typeof AREA_SLUGS)[number];

export const MANIFEST_FILE = "datapackage.json";
export const SIGNATURE_FILE = "datapackage.json.sig";
/** The dataset public keys, as published under /keys/. */
export const DATASET_KEYS_FILE = "datasets.vkey";

/**
 * The spec's extension-less economy endpoints (/economy/supply, …): each is published with the same
 * bytes as the JSON resource named here.
 */
export const ECONOMY_ALIASES: Readonly<Record<string, string>> = {
  supply: "supply.json",
  mii: "mii.json",
  coordination: "coordination.json",
  roi: "roi.json",
};

export class DataVerificationError extends Error {
  override name = "DataVerificationError";
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;
/** A relative path of plain segments: no "..", no leading "/", no backslashes, no hidden files. */
const SAFE_PATH = /^[A-Za-z0-9][A-Za-z0-9._-]*(?:\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;
/** Names the portal itself writes inside an area folder; a resource may not take their place. */
const RESERVED = new Set(["index.html", MANIFEST_FILE, SIGNATURE_FILE, ...Object.keys(ECONOMY_ALIASES)]);

const Resource = z.looseObject({
  name: z.string().min(1),
  path: z
    .string()
    .regex(SAFE_PATH, "must be a relative path of plain segments")
    .refine((p) => !p.split("/").some((seg) => seg === "." || seg === ".."), "must not contain . or .. segments"),
  title: z.string().optional(),
  description: z.string().optional(),
  format: z.string().optional(),
  mediatype: z.string().min(1),
  bytes: z.int().nonnegative(),
  hash: z.string().regex(DIGEST, "must be sha256:<64 lowercase hex>"),
  /** Download tier: "public", or the key tier (government, academic, institutional, economist). */
  access: z.string().min(1),
  /** `$id` URL of the JSON Schema, or an inline JSON Schema (an array of rows referencing one). */
  jsonSchema: z.union([z.string().min(1), z.record(z.string(), z.unknown())]).optional(),
  /** Inline Table Schema (CSV). */
  schema: z.record(z.string(), z.unknown()).optional(),
  type: z.string().optional(),
});
export type Resource = z.infer<typeof Resource>;

const SampleMarker = z.looseObject({ generator: z.string().optional(), seed: z.string().optional(), notice: z.string().optional() });

const Manifest = z.looseObject({
  name: z.string().min(1),
  title: z.string().optional(),
  description: z.string().optional(),
  version: z.string().optional(),
  created: z.string().optional(),
  sample: z.boolean().optional(),
  licenses: z.array(z.looseObject({ name: z.string().optional(), path: z.string().optional(), title: z.string().optional() })).optional(),
  sources: z.array(z.looseObject({ kind: z.string().optional(), sample: SampleMarker.optional() })).optional(),
  resources: z.array(Resource).min(1),
});
export type Manifest = z.infer<typeof Manifest>;

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

/** "public" is the only tier without a key; anything else (or an unknown tier) is keyed. */
export function isPublic(resource: Pick<Resource, "access">): boolean {
  return resource.access === "public";
}

/** The note verifier keys of `<dataDir>/keys/datasets.vkey` (one per line, `#` comments allowed). */
export function readDatasetKeys(dataDir: string): NoteVerifier[] {
  const path = join(dataDir, "keys", DATASET_KEYS_FILE);
  if (!existsSync(path)) throw new DataVerificationError(`${path}: the dataset public key file is missing; cannot verify the area manifests`);
  const keys: NoteVerifier[] = [];
  readFileSync(path, "utf8")
    .split("\n")
    .forEach((raw, i) => {
      const line = raw.trim();
      if (line === "" || line.startsWith("#")) return;
      try {
        keys.push(parseVerifierKey(line));
      } catch (error) {
        throw new DataVerificationError(`${path}:${i + 1}: ${(error as Error).message}`);
      }
    });
  if (keys.length === 0) throw new DataVerificationError(`${path}: no dataset public key in the file`);
  return keys;
}

const sha256 = (bytes: Uint8Array) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

function fail(file: string, problem: string): never {
  throw new DataVerificationError(`${file}: ${problem}; refusing to publish unverified data`);
}

function checkSignature(area: AreaSlug, manifestPath: string, manifestBytes: Buffer, signature: string, keys: NoteVerifier[]): void {
  const sigPath = `${manifestPath}.sig`;
  let text: string;
  try {
    ({ text } = openNote(signature, keys));
  } catch (error) {
    fail(sigPath, `the signature does not verify under ${DATASET_KEYS_FILE} (${(error as Error).message})`);
  }
  const expected = `${area} datapackage\n${sha256(manifestBytes)}\n`;
  if (text !== expected) {
    const [signedFor, signedHash] = text.split("\n");
    if (signedFor !== `${area} datapackage`) fail(sigPath, `the signature is for "${signedFor}", not "${area} datapackage"`);
    fail(manifestPath, `the signature covers ${signedHash ?? "nothing"}, the manifest hashes to ${sha256(manifestBytes)}`);
  }
}

/**
 * Verifies `<dataDir>/areas/<area>`; null when the area has not been generated (no manifest).
 * Throws DataVerificationError naming the first file that fails.
 */
export function verifyArea(dataDir: string, area: AreaSlug, options: VerifyOptions = {}, keys?: NoteVerifier[]): VerifiedArea | null {
  const dir = resolve(dataDir, "areas", area);
  const manifestPath = join(dir, MANIFEST_FILE);
  if (!existsSync(manifestPath)) return null;
  const manifestBytes = readFileSync(manifestPath);
  const sigPath = join(dir, SIGNATURE_FILE);
  if (!existsSync(sigPath)) fail(sigPath, "the manifest signature is missing");
  const signatureBytes = readFileSync(sigPath);
  checkSignature(area, manifestPath, manifestBytes, signatureBytes.toString("utf8"), keys ?? readDatasetKeys(dataDir));

  let raw: unknown;
  try {
    raw = JSON.parse(manifestBytes.toString("utf8"));
  } catch (error) {
    fail(manifestPath, `not valid JSON (${(error as Error).message})`);
  }
  const parsed = Manifest.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    fail(manifestPath, `${issue.path.join(".") || "(root)"}: ${issue.message}`);
  }
  const manifest = parsed.data;

  const seen = new Set<string>();
  const files = new Map<string, Buffer>();
  for (const resource of manifest.resources) {
    const file = resolve(dir, resource.path);
    if (!file.startsWith(dir + sep)) fail(manifestPath, `resource ${resource.name}: path ${resource.path} leaves the area folder`);
    const base = resource.path.split("/").at(-1)!;
    if (RESERVED.has(resource.path) || base === "index.html") fail(manifestPath, `resource ${resource.name}: path ${resource.path} is reserved for the portal`);
    if (seen.has(resource.path)) fail(manifestPath, `resource path ${resource.path} is listed twice`);
    seen.add(resource.path);
    if (!existsSync(file)) fail(file, `listed in ${MANIFEST_FILE} (resource ${resource.name}) but missing`);
    const bytes = readFileSync(file);
    if (bytes.length !== resource.bytes) fail(file, `${bytes.length} bytes, ${MANIFEST_FILE} lists ${resource.bytes}`);
    const hash = sha256(bytes);
    if (hash !== resource.hash) fail(file, `SHA-256 mismatch: the file hashes to ${hash}, ${MANIFEST_FILE} lists ${resource.hash}`);
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
 * The site's copy of a resource's JSON Schema: the `$id` URL's path under /schemas/ (or, for an
 * inline schema of an array of rows, its `items.$ref`), when `<dataDir>/schemas/<rest>` exists.
 */
export function schemaPath(dataDir: string, jsonSchema: Resource["jsonSchema"]): string | null {
  let url: unknown = jsonSchema;
  if (jsonSchema !== undefined && typeof jsonSchema === "object") {
    const items = jsonSchema["items"];
    url = jsonSchema["$id"] ?? (items && typeof items === "object" ? (items as Record<string, unknown>)["$ref"] : undefined);
  }
  if (typeof url !== "string") return null;
  let pathname: string;
  try {
    pathname = new URL(url).pathname;
  } catch {
    return null;
  }
  const rest = pathname.startsWith("/schemas/") ? pathname.slice("/schemas/".length) : null;
  if (rest === null || !SAFE_PATH.test(rest) || rest.split("/").includes("..")) return null;
  return existsSync(join(dataDir, "schemas", rest)) ? `/schemas/${rest}` : null;
}

export interface PublishReport {
  areas: { area: AreaSlug; files: number; keyed: number }[];
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
 * (the verified bytes), the manifest and its signature, and for the economy the extension-less
 * endpoints; `<dataDir>/keys/*.vkey` to `/keys/`; `<dataDir>/schemas/**` to `/schemas/**`.
 * Keyed resources are never written. Throws DataVerificationError before writing anything of an
 * area that does not verify.
 */
export async function publishAreas(dataDir: string, outDir: string): Promise<PublishReport> {
  const verified = verifyAllAreas(dataDir, { keep: isPublic });
  const report: PublishReport = { areas: [], keys: 0, schemas: false };
  for (const v of verified) {
    for (const [path, bytes] of v.files) await writeInto(outDir, `${v.area}/${path}`, bytes);
    await writeInto(outDir, `${v.area}/${MANIFEST_FILE}`, v.manifestBytes);
    await writeInto(outDir, `${v.area}/${SIGNATURE_FILE}`, v.signatureBytes);
    if (v.area === "economy") {
      for (const [alias, path] of Object.entries(ECONOMY_ALIASES)) {
        const bytes = v.files.get(path);
        if (bytes) await writeInto(outDir, `economy/${alias}`, bytes);
      }
    }
    report.areas.push({ area: v.area, files: v.files.size, keyed: v.manifest.resources.filter((r) => !isPublic(r)).length });
  }
  const keysDir = join(dataDir, "keys");
  if (existsSync(keysDir)) {
    for (const name of (await readdir(keysDir)).filter((n) => n.endsWith(".vkey")).sort()) {
      await mkdir(join(outDir, "keys"), { recursive: true });
      await copyFile(join(keysDir, name), join(outDir, "keys", name));
      report.keys++;
    }
  }
  const schemasDir = join(dataDir, "schemas");
  if (existsSync(schemasDir)) {
    await cp(schemasDir, join(outDir, "schemas"), { recursive: true, force: true, errorOnExist: false });
    report.schemas = true;
  }
  return report;
}
