// @ts-check
/**
 * From "a URL or a folder someone gave" to the area folder and, when they named one file, that file:
 * a file's area is the nearest folder above it (up to three levels) that holds a `datapackage.json`.
 */
import { AREA_ALIASES, MANIFEST_FILE, PACKAGE_NAMES, SIGNATURE_FILE } from "./area.js";
import { MANIFEST_LIMIT } from "./limits.js";

const MAX_DEPTH = 3;

/**
 * @param {import("./source.js").Source} dir the folder holding the named file
 * @param {string} name the file's name in that folder
 * @param {string[]} dirSegments the folder's path segments (nearest last), to name the file relative to its area
 * @returns {Promise<{ source: import("./source.js").Source; only?: string } | null>}
 */
export async function locateArea(dir, name, dirSegments) {
  if (name === MANIFEST_FILE || name === SIGNATURE_FILE) return { source: dir };
  const parents = [...dirSegments];
  let source = dir;
  let only = name;
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    if ((await source.read(MANIFEST_FILE, MANIFEST_LIMIT)) !== null) return { source, only };
    const up = parents.pop();
    if (up === undefined) break;
    only = `${up}/${only}`;
    source = source.at("..");
  }
  return null;
}

/**
 * Whether the last segment of a path names a file (it has an extension, or is an area's
 * extension-less alias such as `economy/supply`) rather than a folder.
 * @param {string} path
 */
export function namesFile(path) {
  if (path.endsWith("/")) return false;
  const [parent = "", last = ""] = path.split("/").slice(-2);
  return /\.[A-Za-z0-9]+$/.test(last) || Object.hasOwn(AREA_ALIASES[parent] ?? {}, last);
}

/**
 * Whether a path names something inside an area folder that is neither a file nor a folder this
 * verifier reads (`economy/nonesuch`: no extension, no alias, no trailing slash).
 * @param {string} path
 */
export function namesNothing(path) {
  if (path.endsWith("/") || namesFile(path)) return false;
  const [parent = ""] = path.split("/").slice(-2, -1);
  return PACKAGE_NAMES.includes(parent);
}
