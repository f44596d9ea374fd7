/**
 * The published-data contract: which areas exist, which files each publishes, under which names,
 * with which media type, and who may download each (the interface spec's tables). Every producer and
 * consumer — the pipeline that writes and signs, the offline verifier, the site build and the API —
 * reads this one table, so a manifest cannot make a file public that the contract keys, and no two
 * places can disagree about the list of areas. The table is built from the areas' declarations
 * (core/areas/<area>.ts), where each area's files, tiers and routes are written once, with the
 * decisions where the spec is silent.
 */
import {
  ACCESS_TIERS,
  AREA_DECLARATIONS,
  AREAS,
  mediaTypeOf,
  type AccessTier,
  type Area,
  type AreaRouteKind,
  type MediaType,
} from "../areas/index.ts";

/** The areas (core/areas/index.ts, in navigation order): folder names under data/areas and URL prefixes. */
export { AREAS, type Area };
export {
  ACCESS_TIERS,
  GOVERNMENT_KEY_TIER,
  KEY_TIERS,
  MEDIA_TYPES,
  mediaTypeOf,
  type AccessTier,
  type AreaRouteKind,
  type KeyTier,
  type MediaType,
} from "../areas/index.ts";

/**
 * What a signed `datapackage.json` may describe: one of the areas, or the migration verification
 * tree (data/migration/), which is published and signed the same way but is no area.
 */
export type PackageName = Area | "migration";

/** The manifest, its detached signature and the trusted dataset keys, by file name. */
export const MANIFEST_FILE = "datapackage.json";
export const SIGNATURE_FILE = "datapackage.json.sig";
export const DATASET_KEYS_FILE = "datasets.vkey";

/** Every published file of every area and its access tier (the areas' declarations). */
const FILES = Object.fromEntries(AREA_DECLARATIONS.map((d) => [d.name, d.files])) as {
  readonly [A in Area]: Readonly<Record<string, AccessTier>>;
};

/**
 * Other names the spec gives a file (the areas' declared routes): the extension-less economy
 * endpoints, the filtered audit trail and the live supply (core/areas/<area>.ts says which is which).
 */
const ROUTES = Object.fromEntries(AREA_DECLARATIONS.map((d) => [d.name, d.routes ?? {}])) as {
  readonly [A in Area]: Readonly<Record<string, { file: string; kind: AreaRouteKind }>>;
};

export interface AreaFile {
  area: Area;
  /** Path under the area folder, e.g. "ledger/export.csv". */
  path: string;
  access: AccessTier;
  mediatype: MediaType;
}

export interface AreaRoute {
  file: AreaFile;
  kind: "file" | AreaRouteKind;
}

export function isArea(value: unknown): value is Area {
  return typeof value === "string" && (AREAS as readonly string[]).includes(value);
}

export function isAccessTier(value: unknown): value is AccessTier {
  return typeof value === "string" && (ACCESS_TIERS as readonly string[]).includes(value);
}

function fileOf(area: Area, path: string, access: AccessTier): AreaFile {
  return { area, path, access, mediatype: mediaTypeOf(path)! };
}

/** The folder of an area's changes resources (`changes/<table>.json`, one per public CSV table). */
export const CHANGES_DIR = "changes";

/**
 * The changes resource of a public CSV table `<table>.csv`: `changes/<table>.json`, what changed row
 * by row since the area's previous release. Written by the release phase, not by a step, so it is no
 * entry of the files table; public like its table, and only listed by a release that has a previous one.
 */
export function changesPathOf(area: Area, tablePath: string): string | null {
  const file = Object.hasOwn(FILES[area], tablePath) ? fileOf(area, tablePath, FILES[area][tablePath]!) : null;
  return file && file.mediatype === "text/csv" && file.access === "public"
    ? `${CHANGES_DIR}/${tablePath.slice(0, -".csv".length)}.json`
    : null;
}

/** The contract's file at `path` in `area`, or null when the area publishes no such file. */
export function areaFile(area: Area, path: string): AreaFile | null {
  const table = FILES[area];
  if (Object.hasOwn(table, path)) return fileOf(area, path, table[path]!);
  if (
    path.startsWith(`${CHANGES_DIR}/`) &&
    path.endsWith(".json") &&
    changesPathOf(area, `${path.slice(CHANGES_DIR.length + 1, -".json".length)}.csv`) === path
  ) {
    return fileOf(area, path, "public");
  }
  return null;
}

/** Every file of an area, in the contract's order. */
export function areaFiles(area: Area): AreaFile[] {
  return Object.entries(FILES[area]).map(([path, access]) => fileOf(area, path, access));
}

/** The extension-less and route names of an area: name → the file they serve. */
export function areaAliases(area: Area): Record<string, { file: string; kind: AreaRouteKind }> {
  return { ...ROUTES[area] };
}

/** The file a request path (relative to the area, exactly as spelled in the contract) names. */
export function areaRoute(area: Area, path: string): AreaRoute | null {
  const file = areaFile(area, path);
  if (file) return { file, kind: "file" };
  const routes = ROUTES[area];
  const route = routes && Object.hasOwn(routes, path) ? routes[path]! : null;
  return route ? { file: areaFile(area, route.file)!, kind: route.kind } : null;
}

/** Whether the file needs a key. */
export function isKeyed(file: Pick<AreaFile, "access">): boolean {
  return file.access !== "public";
}
