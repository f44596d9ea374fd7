/**
 * How an area manifest refers to things outside a resource's own path, so that a standard Data
 * Package reader on the static copy (a CDN) can follow every reference (docs/cdn.md):
 *
 * - `jsonSchema` is a RELATIVE reference, `../../schemas/<name>.schema.json`. From the repository's
 *   `data/areas/<area>/datapackage.json` it names `data/schemas/<name>.schema.json`; over HTTP from
 *   `/<area>/datapackage.json` the same text resolves to `/schemas/<name>.schema.json` (a URL's
 *   ".." stops at the root). The schema file keeps its absolute `$id`; `schemaIdOf` maps a
 *   reference back to it, and still accepts an `$id` (manifests signed before this layout).
 * - `immutablePath` (a custom resource property, which Frictionless allows): the content-addressed
 *   copy `sha256/<hex><ext>` beside the stable `path`, which the static build publishes and caches
 *   as immutable. Not `path` as an array: Frictionless reads an array as the parts of ONE file to
 *   concatenate, so a standard reader would download both and join them.
 * - keyed files are listed under `keyedResources` (another custom property), not `resources`: a
 *   standard reader reads every entry of `resources`, and a keyed file is not on the public copy.
 *   The signature covers both lists, so a keyed downloader still verifies what it was sent.
 */
import { SCHEMA_BASE_URI } from "../schemas/json-schema.ts";

/** How a manifest in `data/areas/<area>/` (or `/<area>/` of the site) reaches the schemas folder. */
export const SCHEMA_REFERENCE_PREFIX = "../../schemas/";

/** The folder of the content-addressed copies inside an area. */
export const CONTENT_ADDRESSED_DIR = "sha256";

/** The relative reference of a published schema's `$id`; throws for an id outside the schema base. */
export function schemaReference(id: string, prefix: string = SCHEMA_REFERENCE_PREFIX): string {
  if (!id.startsWith(SCHEMA_BASE_URI))
    throw new Error(`${id} is not the $id of a published schema (${SCHEMA_BASE_URI}…)`);
  return `${prefix}${id.slice(SCHEMA_BASE_URI.length)}`;
}

/** How the migration's manifest (`data/migration/`, the site's `/migration/`) reaches the schemas folder: one level up. */
export const MIGRATION_SCHEMA_REFERENCE_PREFIX = "../schemas/";

/** The `$id` a manifest's schema reference names (a relative reference or an `$id`), or null. */
export function schemaIdOf(reference: unknown): string | null {
  if (typeof reference !== "string") return null;
  if (reference.startsWith(SCHEMA_BASE_URI)) return reference;
  if (!reference.startsWith(SCHEMA_REFERENCE_PREFIX)) return null;
  const rest = reference.slice(SCHEMA_REFERENCE_PREFIX.length);
  return rest.split("/").some((s) => s === "" || s === "." || s === "..") ? null : `${SCHEMA_BASE_URI}${rest}`;
}

/** The `$id` of a resource's `jsonSchema`: the reference itself, or an inline array schema's items. */
export function jsonSchemaIdOf(jsonSchema: unknown): string | null {
  if (typeof jsonSchema === "string") return schemaIdOf(jsonSchema);
  if (jsonSchema === null || typeof jsonSchema !== "object") return null;
  const items = (jsonSchema as { items?: unknown }).items;
  return items !== null && typeof items === "object" ? schemaIdOf((items as { $ref?: unknown }).$ref) : null;
}

/** The content-addressed path of a file: `sha256/<hex>` and the file's extension. */
export function immutablePathOf(path: string, hash: string): string {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  return `${CONTENT_ADDRESSED_DIR}/${hash.replace(/^sha256:/, "")}${dot > 0 ? base.slice(dot) : ""}`;
}

/** Every resource a raw manifest lists, public (`resources`) then keyed (`keyedResources`). */
export function listedResources<R>(
  manifest: { resources?: R[] | unknown; keyedResources?: R[] | unknown } | null | undefined,
): R[] {
  const own = Array.isArray(manifest?.resources) ? (manifest.resources as R[]) : [];
  const keyed = Array.isArray(manifest?.keyedResources) ? (manifest.keyedResources as R[]) : [];
  return [...own, ...keyed];
}
