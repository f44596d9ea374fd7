/**
 * Path rules of the published data, in both directions:
 *
 * - a resource path (what a manifest lists) is a relative path of lowercase plain segments
 *   (`[a-z0-9][a-z0-9._-]*`, joined by "/", at most 200 characters): no "." or ".." segment, no
 *   leading "/", no backslash, no hidden file, no space, no upper case — so the same file can never
 *   be spelled two ways, not even on a case-insensitive file system;
 * - a request path (what a client sends) is resolved to the area file it names, whatever the
 *   spelling: percent-decoded once (as the static file server does), "/" and "\" both separate
 *   segments, empty and "." segments are dropped, upper case is folded. `/<area>//<file>.json`,
 *   `/<area>%2f<file>.json` and `/<AREA>/<FILE>.JSON` all name `<area>/<file>.json`,
 *   so the area route answers every spelling and nothing else can.
 */
import { CONTENT_ADDRESSED_DIR } from "./references.ts";
import { AREAS, areaAliases, areaRoute, MANIFEST_FILE, SIGNATURE_FILE, type Area, type AreaRoute } from "./contract.ts";

export const RESOURCE_PATH_MAX = 200;
const SEGMENT = /^[a-z0-9][a-z0-9._-]*$/;

/** Why `path` is not a valid resource path, or null when it is. */
export function resourcePathProblem(path: unknown): string | null {
  if (typeof path !== "string" || path === "") return "must be a non-empty string";
  if (path.length > RESOURCE_PATH_MAX) return `is longer than ${RESOURCE_PATH_MAX} characters`;
  for (const segment of path.split("/")) {
    if (!SEGMENT.test(segment)) {
      return `must be a relative path of lowercase plain segments ([a-z0-9][a-z0-9._-]* joined by "/"); ${JSON.stringify(segment)} is not one`;
    }
  }
  return null;
}

/** Whether the path is one the publication itself uses in an area folder (the content-addressed copies' folder too). */
export function isReservedPath(area: Area, path: string): boolean {
  const base = path.slice(path.lastIndexOf("/") + 1);
  return (
    base === "index.html" ||
    path.startsWith(`${CONTENT_ADDRESSED_DIR}/`) ||
    path === MANIFEST_FILE ||
    path === SIGNATURE_FILE ||
    Object.hasOwn(areaAliases(area), path)
  );
}

export interface AreaRequest {
  area: Area;
  /** The path under the area, normalized (lowercase segments joined by "/"). */
  path: string;
  /** The file it names, or null when the area publishes nothing there. */
  route: AreaRoute | null;
}

/**
 * The area path a raw (percent-encoded) request path names, or null when it is not under an area
 * (or cannot be decoded, or climbs with ".." — the static server refuses those too).
 */
export function areaRequest(rawPath: string): AreaRequest | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawPath);
  } catch {
    return null;
  }
  const segments = decoded.split(/[\\/]/).filter((s) => s !== "" && s !== ".");
  if (segments.some((s) => s === "..")) return null;
  const first = segments[0]?.toLowerCase();
  const area = AREAS.find((a) => a === first);
  if (!area) return null;
  const path = segments.slice(1).join("/").toLowerCase();
  return { area, path, route: path === "" ? null : areaRoute(area, path) };
}
