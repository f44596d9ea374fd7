// @ts-check
/**
 * Where the files come from: one small interface over a URL (fetch) and a folder (src/folder-source.js,
 * Node only) — and, on the /verify page, files a person dropped. Paths are "/"-separated and relative
 * to the source's base; "../" climbs, as in a URL.
 */
import { VerifyError } from "./errors.js";

/**
 * @typedef {object} Source
 * @property {string} base the base, as shown to the user (a URL or a folder, ending in "/")
 * @property {(path: string) => string} describe how the file at `path` is named to the user
 * @property {(path: string) => Promise<Uint8Array | null>} read the file's bytes; null when it does not exist (404, no such file); throws a VerifyError "fetch-failed" when it cannot be read
 * @property {(path: string) => Source} at the source whose base is the folder `path` (relative to this base)
 */

/**
 * A source over HTTP(S): `read` fetches `new URL(path, base)`.
 * @param {string | URL} base a URL; "/" is appended when its path does not end in one
 * @param {typeof fetch} [fetchImpl]
 * @returns {Source}
 */
export function urlSource(base, fetchImpl = globalThis.fetch) {
  const url = new URL(String(base));
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new VerifyError("usage", `${url.href}: only http and https URLs can be fetched`);
  url.search = "";
  url.hash = "";
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  return {
    base: url.href,
    describe: (path) => new URL(path, url).href,
    async read(path) {
      const target = new URL(path, url);
      let response;
      try {
        response = await fetchImpl(target, { redirect: "follow" });
      } catch (error) {
        throw new VerifyError("fetch-failed", `${target.href}: ${/** @type {Error} */ (error).message}`);
      }
      if (response.status === 404 || response.status === 410) return null;
      if (!response.ok) throw new VerifyError("fetch-failed", `${target.href}: HTTP ${response.status}`);
      return new Uint8Array(await response.arrayBuffer());
    },
    at: (path) => urlSource(new URL(path.endsWith("/") ? path : `${path}/`, url), fetchImpl),
  };
}

/**
 * A source over files held in memory by path (dropped files on the /verify page, tests).
 * @param {Map<string, Uint8Array>} files
 * @param {string} [base]
 * @returns {Source}
 */
export function memorySource(files, base = "") {
  /** @param {string} path */
  const key = (path) => normalize(base + path);
  return {
    base: base === "" ? "(your files)/" : base,
    describe: (path) => key(path),
    read: async (path) => files.get(key(path)) ?? null,
    at: (path) => memorySource(files, `${key(path)}/`.replace(/^\/+/, "")),
  };
}

/**
 * Resolves "." and ".." segments of a relative path; segments climbing above the root are dropped.
 * @param {string} path
 */
function normalize(path) {
  /** @type {string[]} */
  const out = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") out.pop();
    else out.push(segment);
  }
  return out.join("/");
}
