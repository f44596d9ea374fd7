/**
 * Cached representations: a response body serialized once, with its strong ETag (the SHA-256 of
 * the body, hex, quoted), served as 200 or — when `If-None-Match` matches — 304 without a body.
 *
 * Small bodies are kept as strings and large ones as bytes: Node writes a string body together
 * with the head in one write, but a byte body as a second chunk, which measured slower for a
 * badge-sized body; for a history page, encoding a 40 KB string on every request costs more.
 */
import { createHash } from "node:crypto";
import type { Context } from "hono";

/** Bodies up to this many bytes are kept as strings (see above). */
const STRING_BODY_MAX = 8 * 1024;

export interface Representation {
  body: string | Uint8Array<ArrayBuffer>;
  etag: string;
  contentType: string;
}

export function represent(text: string, contentType: string): Representation {
  const bytes = Buffer.from(text, "utf8");
  const etag = `"${createHash("sha256").update(bytes).digest("hex")}"`;
  const body =
    bytes.byteLength <= STRING_BODY_MAX
      ? text
      : new Uint8Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  return { body, etag, contentType };
}

/** Approximate bytes held by a representation (for cache budgets). */
export function weight(rep: Representation): number {
  return typeof rep.body === "string" ? rep.body.length * 2 : rep.body.byteLength;
}

/**
 * RFC 9110 §13.1.2: `*` matches any current representation; otherwise the weak comparison of the
 * listed entity tags (a `W/` prefix is ignored).
 */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  for (const part of header.split(",")) {
    let tag = part.trim();
    if (tag.startsWith("W/")) tag = tag.slice(2);
    if (tag === etag) return true;
  }
  return false;
}

/** Sends the representation (or 304) with the given caching headers and any extra headers. */
export function send(c: Context, rep: Representation, cacheControl: string, extra?: Record<string, string>): Response {
  const headers: Record<string, string> = { ETag: rep.etag, "Cache-Control": cacheControl, ...extra };
  if (ifNoneMatchHits(c.req.header("if-none-match"), rep.etag)) return c.body(null, 304, headers);
  headers["Content-Type"] = rep.contentType;
  return c.body(rep.body, 200, headers);
}
