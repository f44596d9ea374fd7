/**
 * What an area is, as data: the one declaration every producer and consumer reads (the pipeline's
 * steps and manifests, the API's routes and quotas, the portal's navigation and pages, the
 * regeneration workflow). One module per area under core/areas/, listed once in core/areas/index.ts;
 * nothing else restates an area's files, tiers or labels.
 *
 * Pure data and the few functions that read it: no I/O, and no import of the rest of core (the
 * published-data contract, core/datapackage/contract.ts, is built from these declarations).
 */

/** The key tiers of the spec's "Data areas" table. */
export const KEY_TIERS = ["government", "academic", "institutional", "economist"] as const;
export type KeyTier = (typeof KEY_TIERS)[number];
/** The key tier of public bodies, the one whose key requests state no expected volume. */
export const GOVERNMENT_KEY_TIER = KEY_TIERS[0];

/** Who may download a file: everyone, or holders of a key of one tier. */
export const ACCESS_TIERS = ["public", ...KEY_TIERS] as const;
export type AccessTier = (typeof ACCESS_TIERS)[number];

/** Media types by file extension: the only formats the areas publish. */
export const MEDIA_TYPES = {
  ".json": "application/json",
  ".csv": "text/csv",
  ".pdf": "application/pdf",
  ".bib": "application/x-bibtex",
  ".parquet": "application/vnd.apache.parquet",
} as const;
export type MediaType = (typeof MEDIA_TYPES)[keyof typeof MEDIA_TYPES];

/** The media type a path's extension stands for, or null for an extension the areas never publish. */
export function mediaTypeOf(path: string): MediaType | null {
  const dot = path.lastIndexOf(".");
  const ext = dot < 0 ? "" : path.slice(dot);
  return Object.hasOwn(MEDIA_TYPES, ext) ? MEDIA_TYPES[ext as keyof typeof MEDIA_TYPES] : null;
}

/**
 * How a request path under an area names a file: an alias (its bytes), the export route (the file
 * filtered), or a live document (the file's schema, computed by the API).
 */
export type AreaRouteKind = "alias" | "export" | "live";

/** Who a request counts as for the daily quotas: an anonymous client, or a key of one tier. */
export type RateTier = "anonymous" | KeyTier;
/** Requests per UTC day; null: unlimited. */
export type Quota = number | null;

export interface AreaDeclaration<Name extends string = string> {
  /** Folder name under data/areas/, URL prefix, manifest `name`. Lowercase letters. */
  readonly name: Name;
  /** The spec's cathedral value of the area (its sentinels' cathedral). */
  readonly cathedral: string;
  /** The manifest's `title` and `description` (and the release citation's). */
  readonly manifest: { readonly title: string; readonly description: string };
  /** Every published file (path under the area folder, in the contract's order) and its access tier. */
  readonly files: Readonly<Record<string, AccessTier>>;
  /** Other names the API serves a file under (interface spec): name → the file and how it is served. */
  readonly routes?: Readonly<Record<string, { readonly file: string; readonly kind: AreaRouteKind }>>;
  /** The WebSockets the API serves under the area (name under the area's URL; described in the AsyncAPI document). */
  readonly sockets?: readonly string[];
  /**
   * The daily request quotas (interface spec, "Request rate limits"): the bucket a request counts in
   * and its quota by tier (a tier not listed gets the anonymous quota). Areas that name the same
   * bucket share one count per client and must declare the same quotas.
   */
  readonly rate: { readonly bucket: string; readonly quotas: Readonly<Partial<Record<RateTier, Quota>>> };
  /** The portal: navigation label and heading, and one line for the home page and meta description. */
  readonly page: { readonly label: string; readonly summary: string };
  /** The API reference's tag of the area's routes. */
  readonly apiTag: string;
  /** The files (paths under the area folder) the area's sentinels attest to in the sample ledger. */
  readonly attested: readonly string[];
  /**
   * Curated sources (paths under data/sources/<area>/) that only keyed files are made from: they
   * live in the keyed data folder, never in the public repository.
   */
  readonly keyedSources?: readonly string[];
}

/** A declaration, checked: its name is a plain lowercase word, every file has a known media type, every route and attested file is one of its files. */
export function declareArea<const Name extends string>(declaration: AreaDeclaration<Name>): AreaDeclaration<Name> {
  const { name, files, routes, attested } = declaration;
  if (!/^[a-z][a-z-]*[a-z]$/.test(name)) throw new Error(`area name ${JSON.stringify(name)}: lowercase letters only`);
  for (const path of Object.keys(files))
    if (mediaTypeOf(path) === null) throw new Error(`${name}/${path}: no media type for this extension`);
  for (const [alias, route] of Object.entries(routes ?? {}))
    if (!Object.hasOwn(files, route.file))
      throw new Error(`${name} route ${alias}: ${route.file} is no file of the area`);
  for (const path of attested)
    if (!Object.hasOwn(files, path)) throw new Error(`${name}: attested ${path} is no file of the area`);
  for (const socket of declaration.sockets ?? [])
    if (Object.hasOwn(files, socket) || Object.hasOwn(routes ?? {}, socket))
      throw new Error(`${name} socket ${socket}: also a file or route of the area`);
  if (!Object.hasOwn(declaration.rate.quotas, "anonymous")) throw new Error(`${name}: no anonymous quota`);
  return declaration;
}

/** What a pipeline step publishes, as its area declares it. */
export interface DeclaredOutput<Name extends string = string> {
  /** `<area>/<path>`. */
  readonly id: `${Name}/${string}`;
  readonly area: Name;
  readonly path: string;
  readonly mediatype: MediaType;
  readonly access: AccessTier;
}

/** The step fields of a declared file (throws for a file the area does not declare). */
export function declaredOutput<Name extends string>(area: AreaDeclaration<Name>, path: string): DeclaredOutput<Name> {
  if (!Object.hasOwn(area.files, path)) throw new Error(`${area.name}/${path}: not a file of the area's declaration`);
  return {
    id: `${area.name}/${path}`,
    area: area.name,
    path,
    mediatype: mediaTypeOf(path)!,
    access: area.files[path]!,
  };
}

/** The request path of a route the area declares (`/<area>/<name>`); throws for a name it does not declare. */
export function routePath(area: AreaDeclaration, name: string): string {
  if (!Object.hasOwn(area.routes ?? {}, name)) throw new Error(`${area.name} route ${name}: not declared`);
  return `/${area.name}/${name}`;
}

/** The request path of a WebSocket the area declares (`/<area>/<name>`); throws for a name it does not declare. */
export function socketPath(area: AreaDeclaration, name: string): string {
  if (!(area.sockets ?? []).includes(name)) throw new Error(`${area.name} socket ${name}: not declared`);
  return `/${area.name}/${name}`;
}
