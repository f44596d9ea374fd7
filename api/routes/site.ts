/**
 * The built static site (site/dist), served after the API routes (GET and HEAD only).
 *
 * - The raw URL path is percent-decoded once, resolved under the site root and checked to stay
 *   inside it (also after resolving symlinks); NUL bytes, undecodable paths and dot-segments
 *   (`/.git`, `/.env`, but not `/.well-known`) are never files.
 * - `/dir` and `/dir/` serve `dir/index.html`; `/page` also finds `page.html` (Astro's `file`
 *   build format).
 * - Unknown paths under the API namespaces (`/v1/`, `/health`) are problem+json 404s; other
 *   unknown paths get the site's `404.html` with status 404 when it has one, else problem+json.
 */
import { realpathSync } from "node:fs";
import { readFile, realpath, stat } from "node:fs/promises";
import { extname, join, resolve, sep } from "node:path";
import type { Context, Handler } from "hono";

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
  const candidates = decoded.endsWith("/") ? [join(target, "index.html")] : [target, join(target, "index.html"), `${target}.html`];
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

export function serveSite(siteDir: string): Handler {
  const root = realpathSync(resolve(siteDir));
  return async (c: Context) => {
    const url = c.req.url;
    const rawPath = url.slice(url.indexOf("/", url.indexOf("//") + 2)).split(/[?#]/)[0] ?? "/";
    const file = await siteFile(root, rawPath);
    const headers = { "X-Content-Type-Options": "nosniff", "Cache-Control": "public, max-age=0, must-revalidate" };
    if (file) {
      return c.body(await readFile(file), 200, { ...headers, "Content-Type": contentTypeOf(file) });
    }
    if (!isApiPath(c.req.path)) {
      const page = await siteFile(root, "/404.html");
      if (page) return c.body(await readFile(page), 404, { ...headers, "Cache-Control": "no-store", "Content-Type": CONTENT_TYPES[".html"]! });
    }
    return c.notFound();
  };
}
