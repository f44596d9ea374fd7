/**
 * The area manifest (`datapackage.json`, a Frictionless Data Package v2) as every consumer reads it,
 * and its agreement with the contract. The zod schema is strict on what the platform relies on and
 * open to other properties, as Frictionless allows; `checkManifest` adds the rules no schema can
 * state: paths follow the path rule, no two resources share a path or name, and every resource is a
 * file the contract publishes in this area with the contract's access tier and media type. A
 * manifest that disagrees with the contract is refused whole, so no edit can open a keyed file.
 * Public files are listed under `resources`, keyed ones under `keyedResources` (references.ts says
 * why); the checked manifest's `resources` lists both, public first, as every consumer reads them.
 */
import { z } from "zod";
import { ACCESS_TIERS, areaFile, MEDIA_TYPES, type Area, type AreaFile } from "./contract.ts";
import { DataPackageError } from "./errors.ts";
import { isReservedPath, resourcePathProblem } from "./paths.ts";
import { immutablePathOf } from "./references.ts";
import { formatIssues } from "../zod-issues.ts";

const DIGEST = /^sha256:[0-9a-f]{64}$/;

export const ManifestResource = z.looseObject({
  name: z.string().min(1),
  path: z.string().min(1),
  title: z.string().optional(),
  description: z.string().optional(),
  format: z.string().optional(),
  mediatype: z.enum(Object.values(MEDIA_TYPES) as [string, ...string[]]),
  bytes: z.int().nonnegative(),
  hash: z.string().regex(DIGEST, "must be sha256:<64 lowercase hex>"),
  /** Download tier: "public" or a key tier; must equal the contract's. */
  access: z.enum(ACCESS_TIERS),
  /** The content-addressed copy's path (`sha256/<hex><ext>`), public files only. */
  immutablePath: z.string().optional(),
  /** Relative reference (or `$id`) of the JSON Schema, or an inline JSON Schema (an array of rows referencing one). */
  jsonSchema: z.union([z.string().min(1), z.record(z.string(), z.unknown())]).optional(),
  /** Inline Table Schema (CSV). */
  schema: z.record(z.string(), z.unknown()).optional(),
  type: z.string().optional(),
});
export type ManifestResource = z.infer<typeof ManifestResource>;

const SampleMarker = z.looseObject({
  generator: z.string().optional(),
  seed: z.string().optional(),
  notice: z.string().optional(),
});

export const Manifest = z
  .looseObject({
    name: z.string().min(1),
    title: z.string().optional(),
    description: z.string().optional(),
    version: z.string().optional(),
    created: z.string().optional(),
    sample: z.boolean().optional(),
    licenses: z
      .array(z.looseObject({ name: z.string().optional(), path: z.string().optional(), title: z.string().optional() }))
      .optional(),
    sources: z.array(z.looseObject({ kind: z.string().optional(), sample: SampleMarker.optional() })).optional(),
    /** The public files (empty only for an area whose every file is keyed). */
    resources: z.array(ManifestResource),
    /** The keyed files: not on the public copy, so not where a standard reader reads every entry. */
    keyedResources: z.array(ManifestResource).optional(),
  })
  .refine((m) => m.resources.length + (m.keyedResources?.length ?? 0) > 0, {
    message: "a manifest lists at least one file",
    path: ["resources"],
  });
export type Manifest = z.infer<typeof Manifest>;

export interface CheckedManifest {
  manifest: Manifest;
  /** Each resource with the contract's file, by resource path. */
  resources: Map<string, { resource: ManifestResource; file: AreaFile }>;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function refuse(code: ConstructorParameters<typeof DataPackageError>[0], message: string): never {
  throw new DataPackageError(code, "manifest", message);
}

/** Parses an area's manifest and checks it against the contract; throws a DataPackageError. */
export function checkManifest(area: Area, bytes: Uint8Array | string): CheckedManifest {
  let raw: unknown;
  try {
    raw = JSON.parse(typeof bytes === "string" ? bytes : utf8.decode(bytes));
  } catch (error) {
    refuse("manifest-malformed", `not valid JSON (${(error as Error).message})`);
  }
  const parsed = Manifest.safeParse(raw);
  if (!parsed.success) {
    refuse("manifest-malformed", formatIssues(parsed.error.issues.slice(0, 1)));
  }
  const manifest = parsed.data;
  const resources = new Map<string, { resource: ManifestResource; file: AreaFile }>();
  const names = new Set<string>();
  const listed = [
    ...manifest.resources.map((resource) => ({ resource, keyedList: false })),
    ...(manifest.keyedResources ?? []).map((resource) => ({ resource, keyedList: true })),
  ];
  for (const { resource, keyedList } of listed) {
    const at = `resource ${JSON.stringify(resource.name)}`;
    const problem = resourcePathProblem(resource.path);
    if (problem) refuse("path-invalid", `${at}: path ${JSON.stringify(resource.path)} ${problem}`);
    if (isReservedPath(area, resource.path))
      refuse("path-reserved", `${at}: path ${resource.path} is reserved for the publication itself`);
    if (resources.has(resource.path) || names.has(resource.name))
      refuse("path-duplicate", `${at}: path ${resource.path} or its name is listed twice`);
    const file = areaFile(area, resource.path);
    if (!file)
      refuse("file-unknown", `${at}: ${area} publishes no file ${resource.path} (core/datapackage/contract.ts)`);
    if (resource.access !== file.access) {
      refuse(
        "access-mismatch",
        `${at}: access is "${resource.access}", the contract says "${file.access}" for ${area}/${file.path}`,
      );
    }
    if (keyedList !== (file.access !== "public")) {
      refuse(
        "access-mismatch",
        `${at}: ${area}/${file.path} is ${file.access === "public" ? "public, so it belongs in resources" : "keyed, so it belongs in keyedResources"}, not ${keyedList ? "keyedResources" : "resources"}`,
      );
    }
    if (
      resource.immutablePath !== undefined &&
      (keyedList || resource.immutablePath !== immutablePathOf(resource.path, resource.hash))
    ) {
      refuse(
        "path-invalid",
        `${at}: immutablePath must be ${keyedList ? "absent for a keyed file" : immutablePathOf(resource.path, resource.hash)}, not ${resource.immutablePath}`,
      );
    }
    if (resource.mediatype !== file.mediatype) {
      refuse(
        "mediatype-mismatch",
        `${at}: mediatype is "${resource.mediatype}", the contract says "${file.mediatype}" for ${area}/${file.path}`,
      );
    }
    resources.set(resource.path, { resource, file });
    names.add(resource.name);
  }
  return { manifest: { ...manifest, resources: listed.map((l) => l.resource) }, resources };
}
