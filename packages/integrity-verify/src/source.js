// @ts-check
/**
 * Where the files come from: one small interface over a URL (fetch) and a folder (src/folder-source.js,
 * Node only) — and, on the /verify page, files a person chose. Paths are "/"-separated and relative
 * to the source's base; "../" climbs, as in a URL.
 *
 * Every read names its size cap (src/limits.js); a URL source also has a deadline for each fetch,
 * headers and body together. Neither a slow nor an endless answer holds the verifier.
 */
import { VerifyError } from "./errors.js";
import { DEFAULT_TIMEOUT_SECONDS, formatBytes } from "./limits.js";

/**
 * @typedef {import("./limits.js").ReadLimit} ReadLimit
 * @typedef {object} Source
 * @property {string} base the base, as shown to the user (a URL or a folder, ending in "/")
 * @property {(path: string) => string} describe how the file at `path` is named to the user
 * @property {(path: string, limit: ReadLimit) => Promise<Uint8Array | null>} read the file's bytes;
 *   null when it does not exist (404, no such file); throws a VerifyError "fetch-failed" when it cannot
 *   be read, "fetch-timeout" past the deadline, "too-large" past `limit.maxBytes`
 * @property {(path: string) => Source} at the source whose base is the folder `path` (relative to this base)
 * @property {() => Promise<string[]>} [list] the files given, when the source knows them (a folder,
 *   files a person chose; not a URL): the verifier then checks these and reports the others as not checked
 * @property {boolean} [byName] whether `list` gives bare file names (chosen files) rather than paths
 */

/**
 * @typedef {object} UrlOptions
 * @property {typeof fetch} [fetch]
 * @property {number} [timeoutSeconds] the deadline of each fetch, headers and body (DEFAULT_TIMEOUT_SECONDS)
 */

/**
 * The error for a read past its cap.
 * @param {string} name
 * @param {ReadLimit} limit
 */
export function tooLarge(name, limit) {
  return new VerifyError(
    "too-large",
    `${name}: more than ${formatBytes(limit.maxBytes)}, ${limit.what}; stopped reading at the size cap`,
  );
}

/**
 * The error for a file whose size, known before reading it, is not the one a limit requires; null when
 * it may be read.
 * @param {string} name
 * @param {number} size
 * @param {ReadLimit} limit
 */
export function sizeRefused(name, size, limit) {
  if (limit.exact && size !== limit.maxBytes)
    return new VerifyError("size-mismatch", `${size} bytes, the manifest records ${limit.maxBytes}`);
  return size > limit.maxBytes ? tooLarge(name, limit) : null;
}

/**
 * A source over HTTP(S): `read` fetches `new URL(path, base)`, within the deadline and the size cap.
 * @param {string | URL} base a URL; "/" is appended when its path does not end in one
 * @param {typeof fetch | UrlOptions} [options] the fetch to use, or options
 * @returns {Source}
 */
export function urlSource(base, options = {}) {
  const { fetch: fetchImpl = globalThis.fetch, timeoutSeconds = DEFAULT_TIMEOUT_SECONDS } =
    typeof options === "function" ? { fetch: options } : options;
  const url = new URL(String(base));
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new VerifyError("usage", `${url.href}: only http and https URLs can be fetched`);
  url.search = "";
  url.hash = "";
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  return {
    base: url.href,
    describe: (path) => new URL(path, url).href,
    read: (path, limit) => boundedFetch(new URL(path, url), limit, fetchImpl, timeoutSeconds),
    at: (path) => urlSource(new URL(path.endsWith("/") ? path : `${path}/`, url), { fetch: fetchImpl, timeoutSeconds }),
  };
}

/**
 * Fetches `target` and reads its body up to `limit.maxBytes`, all within `timeoutSeconds`.
 * @param {URL} target
 * @param {ReadLimit} limit
 * @param {typeof fetch} fetchImpl
 * @param {number} timeoutSeconds
 * @returns {Promise<Uint8Array | null>}
 */
async function boundedFetch(target, limit, fetchImpl, timeoutSeconds) {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutSeconds * 1000);
  const failed = (/** @type {unknown} */ error) =>
    timedOut
      ? new VerifyError(
          "fetch-timeout",
          `${target.href}: no complete answer within the deadline of ${timeoutSeconds} s; gave up`,
        )
      : error instanceof VerifyError
        ? error
        : new VerifyError("fetch-failed", `${target.href}: ${/** @type {Error} */ (error).message}`);
  try {
    const response = await fetchImpl(target, { redirect: "follow", signal: controller.signal });
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      if (response.status === 404 || response.status === 410) return null;
      throw new VerifyError("fetch-failed", `${target.href}: HTTP ${response.status}`);
    }
    return await readBody(response, limit, target.href);
  } catch (error) {
    throw failed(error);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A response's body, read up to `limit.maxBytes` (a declared length past it is refused before
 * reading; an encoded body's length is not its size), else `tooLarge` naming `name`.
 * @param {Response} response
 * @param {ReadLimit} limit
 * @param {string} name
 * @returns {Promise<Uint8Array>}
 */
export async function readBody(response, limit, name) {
  const declared = Number(response.headers.get("content-length") ?? NaN);
  if (!response.headers.has("content-encoding") && Number.isFinite(declared) && declared > limit.maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge(name, limit);
  }
  if (response.body === null) return new Uint8Array(0);
  const reader = response.body.getReader();
  /** @type {Uint8Array[]} */
  const chunks = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > limit.maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(name, limit);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/**
 * A source over files held in memory by path (tests, and callers that hold the bytes already).
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
    async read(path, limit) {
      const bytes = files.get(key(path)) ?? null;
      if (bytes !== null && bytes.length > limit.maxBytes) throw tooLarge(key(path), limit);
      return bytes;
    },
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
