/**
 * The built static site (site/dist), for GET and HEAD requests no API route answers (the app's
 * unmatched-request handler asks it; it is not a route, so it neither appears in /openapi.json
 * nor makes every path exist for every method).
 *
 * - The raw URL path is percent-decoded once, resolved under the site root and checked to stay
 *   inside it (also after resolving symlinks); NUL bytes, undecodable paths and dot-segments
 *   (`/.git`, `/.env`, but not `/.well-known`) are never files.
 * - `/dir` and `/dir/` serve `dir/index.html`; `/page` also finds `page.html` (Astro's `file`
 *   build format).
 * - Unknown paths get the site's `404.html` with status 404 when the client prefers HTML (a
 *   browser) and the path is not under the API namespaces (`/v1/`, `/health`); every other client
 *   gets the problem+json 404 (null here).
 * - Query strings are ignored, as by any static host.
 * - Files are answered as a good origin does (api/http/file-response.ts): ETag (their SHA-256, each
 *   version hashed once: store/digest-cache.ts), Last-Modified, 304, one byte range, Content-Length,
 *   and br or gzip for text.
 * - Cache-Control, Content-Type and the other headers come from the build's own `_headers` file
 *   (core/header-rules.ts), the rules a CDN applies to the same folder: served by the API or by a
 *   CDN, a file gets the same headers. Without that file: revalidate everything, types by extension.
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { readFile, realpath, stat } from "node:fs/promises";
import { extname, join, resolve, sep } from "node:path";
import type { Context } from "hono";
import { CACHE_DEFAULT, effectiveHeaders, parseHeadersFile, type HeaderRule } from "../../core/header-rules.ts";
import { DigestCache } from "../../store/digest-cache.ts";
import { EncodedVariants, fileResponse } from "../http/file-response.ts";
import { prefersHtml } from "../http/negotiate.ts";

export const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".jsonl": "application/jsonl; charset=utf-8",
  ".webmanifest": "application/manifest+json",
  ".svg": "image/svg+xml",
  ".csv": "text/csv; charset=utf-8",
  ".bib": "application/x-bibtex; charset=utf-8",
  ".pdf": "application/pdf",
  ".parquet": "application/vnd.apache.parquet",
  ".txt": "text/plain; charset=utf-8",
  ".xml": "application/xml; charset=utf-8",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".avif": "image/avif",
  ".ico": "image/x-icon",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
  ".wasm": "application/wasm",
};

export function contentTypeOf(path: string): string {
  return CONTENT_TYPES[extname(path).toLowerCase()] ?? "application/octet-stream";
}

function inside(root: string, path: string): boolean {
  return path === root || path.startsWith(root + sep);
}

/** The file under `root` that the raw (percent-encoded) URL path names, or null. */
export async function siteFile(root: string, rawPath: string): Promise<string | null> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawPath);
  } catch {
    return null;
  }
  if (!decoded.startsWith("/") || decoded.includes("\0")) return null;
  const segments = decoded.split(/[\\/]/);
  if (segments.some((s) => s === ".." || (s.startsWith(".") && s !== ".well-known"))) return null;
  const target = resolve(root, `.${decoded}`);
  if (!inside(root, target)) return null;
  const candidates = decoded.endsWith("/")
    ? [join(target, "index.html")]
    : [target, join(target, "index.html"), `${target}.html`];
  for (const candidate of candidates) {
    try {
      const real = await realpath(candidate);
      if (!inside(root, real)) continue;
      if ((await stat(real)).isFile()) return real;
    } catch {
      // not there: try the next form
    }
  }
  return null;
}

function isApiPath(path: string): boolean {
  return path.startsWith("/v1/") || path === "/v1" || path === "/health" || path.startsWith("/health/");
}

export interface Site {
  /** The file the request names, its 404 page for a browser, or null (answer a problem). */
  answer(c: Context): Promise<Response | null>;
  /** Whether the request's path names a file (for `Allow` on other methods). */
  has(c: Context): Promise<boolean>;
}

/** The request path percent-decoded, as the rules' patterns are written (the raw one when it does not decode). */
function decodedPath(c: Context): string {
  const raw = rawPathOf(c);
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function rawPathOf(c: Context): string {
  const url = c.req.url;
  return url.slice(url.indexOf("/", url.indexOf("//") + 2)).split(/[?#]/)[0] ?? "/";
}

/** The build's header rules (`<root>/_headers`), or none. */
function buildRules(root: string): HeaderRule[] {
  const file = join(root, "_headers");
  return existsSync(file) ? parseHeadersFile(readFileSync(file, "utf8")) : [];
}

/** The headers the build's rules give a request path (the defaults where the rules conflict or say nothing). */
function ruledHeaders(rules: readonly HeaderRule[], path: string): Record<string, string> {
  try {
    return effectiveHeaders(rules, path);
  } catch {
    return { "Cache-Control": CACHE_DEFAULT };
  }
}

export function staticSite(siteDir: string): Site {
  const root = realpathSync(resolve(siteDir));
  const rules = buildRules(root);
  const headers = { "X-Content-Type-Options": "nosniff", "Cache-Control": CACHE_DEFAULT };
  const digests = new DigestCache();
  const encoded = new EncodedVariants();
  return {
    async answer(c) {
      const file = await siteFile(root, rawPathOf(c));
      if (file) {
        const [bytes, { mtime }] = await Promise.all([readFile(file), stat(file)]);
        const digest = digests.digest(file);
        if (!digest || digest.bytes !== bytes.byteLength)
          return c.body(bytes, 200, { ...headers, "Content-Type": contentTypeOf(file) });
        const {
          "Cache-Control": cacheControl = CACHE_DEFAULT,
          "Content-Type": contentType = contentTypeOf(file),
          ...ruled
        } = ruledHeaders(rules, decodedPath(c));
        return fileResponse(
          c,
          {
            size: bytes.byteLength,
            sha256: digest.hash.slice("sha256:".length),
            contentType,
            cacheControl,
            lastModified: mtime,
            read: (start, end) => bytes.subarray(start, end + 1),
            readAll: () => bytes,
          },
          encoded,
          { "X-Content-Type-Options": "nosniff", ...ruled },
        );
      }
      if (!isApiPath(c.req.path) && prefersHtml(c.req.header("accept"))) {
        const page = await siteFile(root, "/404.html");
        if (page)
          return c.body(await readFile(page), 404, {
            ...headers,
            "Cache-Control": "no-store",
            "Content-Type": CONTENT_TYPES[".html"]!,
          });
      }
      return null;
    },
    async has(c) {
      return (await siteFile(root, rawPathOf(c))) !== null;
    },
  };
}
