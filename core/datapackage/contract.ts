/**
 * The published-data contract: which areas exist, which files each publishes, under which names,
 * with which media type, and who may download each (the interface spec's tables). Every producer and
 * consumer — the pipeline that writes and signs, the offline verifier, the site build and the API —
 * reads this one table, so a manifest cannot make a file public that the contract keys, and no two
 * places can disagree about the list of areas.
 *
 * Decisions where the spec is silent: the diplomacy standards and protocols ("Auth: not shown") are
 * public like the treaty framework; the audit trail is published as `ledger/export.json` and
 * `ledger/export.csv` (government key), and the spec's `/government/ledger/export` route reads the
 * JSON one.
 */

/** The five audience areas, in navigation order: folder names under data/areas and URL prefixes. */
export const AREAS = ["government", "academics", "philosophy", "economy", "diplomacy"] as const;
export type Area = (typeof AREAS)[number];

/**
 * What a signed `datapackage.json` may describe: one of the five areas, or the migration
 * verification tree (data/migration/), which is published and signed the same way but is no area.
 */
export type PackageName = Area | "migration";

/** The key tiers of the spec's "Data areas" table. */
export const KEY_TIERS = ["government", "academic", "institutional", "economist"] as const;
export type KeyTier = (typeof KEY_TIERS)[number];

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

/** The manifest, its detached signature and the trusted dataset keys, by file name. */
export const MANIFEST_FILE = "datapackage.json";
export const SIGNATURE_FILE = "datapackage.json.sig";
export const DATASET_KEYS_FILE = "datasets.vkey";

/** Every published file of every area and its access tier (interface spec, "Data areas"). */
const FILES: { readonly [A in Area]: Readonly<Record<string, AccessTier>> } = {
  government: {
    "compliance-report.json": "government",
    "ledger/export.json": "government",
    "ledger/export.csv": "government",
    "transparency.pdf": "public",
    "sentinel-status.json": "public",
    "policy-impact.json": "government",
    "authority-activity.json": "public",
  },
  academics: {
    "dataset.json": "public",
    "mii-timeline.csv": "public",
    "mii-timeline.parquet": "public",
    "sentinel-coordination.json": "public",
    "papers.json": "public",
    "citations.bib": "public",
  },
  philosophy: {
    "deliberations.json": "public",
    "virtues.json": "public",
    "decisions.json": "public",
    "drift-analysis.json": "public",
    "consensus-monitoring.json": "public",
    "consensus-registry.json": "public",
  },
  economy: {
    "supply.json": "public",
    "mii.json": "public",
    "coordination.json": "public",
    "roi.json": "public",
    "mic-history.csv": "public",
    "mic-history.parquet": "public",
    "sentinel-roi.json": "public",
    "cathedral-multipliers.csv": "public",
    "cathedral-multipliers.parquet": "public",
  },
  diplomacy: {
    "treaty-framework.json": "public",
    "standards.json": "public",
    "protocols.json": "public",
  },
};

/**
 * Other names the spec gives a file: the extension-less economy endpoints (`/economy/mii`, same
 * bytes as `mii.json`), the filtered audit trail (`/government/ledger/export`, which reads
 * `ledger/export.json` and takes the spec's query), and the live `/economy/supply` ("real-time" in
 * the spec): the API computes it from the ledger as it grows, in the schema, tier and quota of
 * `supply.json`, which stays the published file (the pipeline's figures at its ledger size).
 */
const ROUTES: { readonly [A in Area]?: Readonly<Record<string, { file: string; kind: AreaRouteKind }>> } = {
  economy: {
    supply: { file: "supply.json", kind: "live" },
    mii: { file: "mii.json", kind: "alias" },
    coordination: { file: "coordination.json", kind: "alias" },
    roi: { file: "roi.json", kind: "alias" },
  },
  government: { "ledger/export": { file: "ledger/export.json", kind: "export" } },
};

export interface AreaFile {
  area: Area;
  /** Path under the area folder, e.g. "ledger/export.csv". */
  path: string;
  access: AccessTier;
  mediatype: MediaType;
}

/**
 * How a request path under an area names a file: the file itself, an alias (its bytes), the export
 * route (the file filtered), or a live document (the file's schema, computed by the API).
 */
export type AreaRouteKind = "alias" | "export" | "live";

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

/** The media type a path's extension stands for, or null for an extension the areas never publish. */
export function mediaTypeOf(path: string): MediaType | null {
  const dot = path.lastIndexOf(".");
  const ext = dot < 0 ? "" : path.slice(dot);
  return Object.hasOwn(MEDIA_TYPES, ext) ? MEDIA_TYPES[ext as keyof typeof MEDIA_TYPES] : null;
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
