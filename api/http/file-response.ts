/**
 * A file answered the way a good origin answers it (RFC 9110), for the area files and the built
 * site alike:
 *
 *  - validators: a strong `ETag` (the identity bytes' SHA-256) and `Last-Modified`; `If-None-Match`
 *    (which wins when both are sent) or else `If-Modified-Since` gives 304 without a body;
 *  - `Content-Length` on every 200, 206 and HEAD answer whose length is known;
 *  - one byte range (`Range: bytes=a-b`, `a-`, `-n`): 206 with `Content-Range`, 416 with
 *    `Content-Range: bytes *\/size` when it starts past the end; several ranges, or an `If-Range`
 *    that no longer matches, get the whole file (a server may always ignore Range);
 *  - content coding negotiated for text types (`Accept-Encoding`: br, then gzip), with
 *    `Vary: Accept-Encoding`. An encoded variant has its own strong ETag (`"<sha256>.br"`), made
 *    once per file version and encoding and kept in a bounded cache, so it too has a length.
 *    Ranges are always of the identity bytes.
 *
 * Whether a request is answered without a body (HEAD, 304) is known before the file is read:
 * `isFree`, so callers can leave such requests out of a quota.
 */
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import type { Context } from "hono";
import { ifNoneMatchHits } from "./cache.ts";
import { problem } from "../problems/problem.ts";

export interface FileVersion {
  /** Identity length in bytes. */
  size: number;
  /** The identity bytes' SHA-256, lowercase hex. */
  sha256: string;
  contentType: string;
  cacheControl: string;
  /** The request fields the answer varies on besides `Accept-Encoding` (`Authorization` when one was presented). */
  varyAlso?: string;
  /** When this version was published (Last-Modified); none: no date validator. */
  lastModified?: Date;
  /** Reads the identity bytes `start`…`end` (inclusive). */
  read(start: number, end: number): Uint8Array | ReadableStream<Uint8Array>;
  /** Reads the whole identity file at once (to encode it; called once per version and encoding). */
  readAll(): Uint8Array;
}

export type Coding = "br" | "gzip";

/** Text types worth encoding; binary formats (PDF, images, fonts) are already compressed or gain little. */
const TEXT_TYPE =
  /^(text\/|application\/(json|jsonl|javascript|xml|manifest\+json|x-bibtex|problem\+json)|image\/svg\+xml)/;
/** Below this many bytes an encoding saves less than its headers cost. */
const MIN_ENCODED_SIZE = 1024;

export function isTextType(contentType: string): boolean {
  return TEXT_TYPE.test(contentType);
}

/** `If-None-Match` matches any variant of this version (a stored `"<sha256>.br"` is still current). */
function etagHits(header: string | undefined, sha256: string): boolean {
  if (!header) return false;
  const stripped = header.replace(/\.(br|gz)"/g, '"');
  return ifNoneMatchHits(stripped, `"${sha256}"`);
}

/** RFC 9110 §13.2.2: If-None-Match when present, else If-Modified-Since (GET and HEAD only). */
export function notModified(c: Context, version: Pick<FileVersion, "sha256" | "lastModified">): boolean {
  const ifNoneMatch = c.req.header("if-none-match");
  if (ifNoneMatch !== undefined) return etagHits(ifNoneMatch, version.sha256);
  const since = c.req.header("if-modified-since");
  if (since === undefined || !version.lastModified) return false;
  const date = Date.parse(since);
  // HTTP dates have whole seconds: compare at that precision.
  return Number.isFinite(date) && Math.floor(version.lastModified.getTime() / 1000) * 1000 <= date;
}

/** Whether this request will be answered without a body: HEAD, or a conditional GET that will be 304. */
export function isFree(c: Context, version: Pick<FileVersion, "sha256" | "lastModified">): boolean {
  return c.req.method === "HEAD" || notModified(c, version);
}

/** The coding to answer with: the client's most preferred of br and gzip (q-values honoured), or null. */
export function negotiateCoding(acceptEncoding: string | undefined): Coding | null {
  if (!acceptEncoding) return null;
  const q = new Map<string, number>();
  for (const part of acceptEncoding.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (!name) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const value = qParam ? Number(qParam.slice(2)) : 1;
    q.set(name, Number.isFinite(value) ? value : 0);
  }
  const of = (coding: string) => q.get(coding) ?? q.get("*") ?? 0;
  const candidates: Coding[] = ["br", "gzip"];
  let best: Coding | null = null;
  for (const coding of candidates) if (of(coding) > 0 && (best === null || of(coding) > of(best))) best = coding;
  return best;
}

export type ByteRange = { start: number; end: number } | "unsatisfiable" | null;

/** One `bytes=` range of a file of `size` bytes; null when absent, malformed or several (serve it whole). */
export function parseRange(header: string | undefined, size: number): ByteRange {
  if (!header) return null;
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match) return null;
  const [, first, last] = match as unknown as [string, string, string];
  if (first === "" && last === "") return null;
  if (first === "") {
    const suffix = Number(last);
    if (suffix === 0) return "unsatisfiable";
    return size === 0 ? "unsatisfiable" : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === "" ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== "" && Number(last) < start) return null; // invalid: ignored (RFC 9110 §14.1.1)
  if (start >= size) return "unsatisfiable";
  return { start, end };
}

/** `If-Range`: the range applies only while the client's validator is this version's. */
function ifRangeHolds(c: Context, version: FileVersion): boolean {
  const header = c.req.header("if-range");
  if (header === undefined) return true;
  if (header.trim().startsWith('"')) return header.trim() === `"${version.sha256}"`;
  const date = Date.parse(header);
  return (
    version.lastModified !== undefined &&
    Number.isFinite(date) &&
    Math.floor(version.lastModified.getTime() / 1000) * 1000 === date
  );
}

/**
 * Encoded variants, made once per version and coding: a least-recently-used cache bounded by the
 * encoded bytes it holds (a file larger than the whole budget is encoded on each request instead).
 */
export class EncodedVariants {
  readonly #budget: number;
  #held = 0;
  readonly #entries = new Map<string, Uint8Array>();

  constructor(budgetBytes = 64 * 1024 * 1024) {
    this.#budget = budgetBytes;
  }

  get(version: FileVersion, coding: Coding): Uint8Array {
    const key = `${version.sha256}\n${coding}`;
    const hit = this.#entries.get(key);
    if (hit) {
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      return hit;
    }
    const identity = version.readAll();
    const encoded =
      coding === "br"
        ? brotliCompressSync(identity, {
            params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: identity.byteLength },
          })
        : gzipSync(identity, { level: 6 });
    const bytes = new Uint8Array(encoded.buffer, encoded.byteOffset, encoded.byteLength);
    if (bytes.byteLength <= this.#budget) {
      this.#entries.set(key, bytes);
      this.#held += bytes.byteLength;
      for (const [oldest, value] of this.#entries) {
        if (this.#held <= this.#budget) break;
        this.#entries.delete(oldest);
        this.#held -= value.byteLength;
      }
    }
    return bytes;
  }
}

/** Answers `version` for a GET or HEAD request, with `extra` headers (RateLimit fields, …) on every answer. */
export function fileResponse(
  c: Context,
  version: FileVersion,
  variants: EncodedVariants,
  extra: Record<string, string> = {},
): Response {
  const textual = isTextType(version.contentType) && version.size >= MIN_ENCODED_SIZE;
  // Vary on every answer, so a cache keeps variants apart whatever the type.
  const base: Record<string, string> = {
    ...extra,
    "Cache-Control": version.cacheControl,
    Vary: version.varyAlso ? `Accept-Encoding, ${version.varyAlso}` : "Accept-Encoding",
    "Accept-Ranges": "bytes",
  };
  if (version.lastModified) base["Last-Modified"] = version.lastModified.toUTCString();

  const range =
    c.req.method === "GET" && ifRangeHolds(c, version) ? parseRange(c.req.header("range"), version.size) : null;
  const coding = textual && range === null ? negotiateCoding(c.req.header("accept-encoding")) : null;
  const etag = coding ? `"${version.sha256}.${coding === "br" ? "br" : "gz"}"` : `"${version.sha256}"`;
  base.ETag = etag;

  if (notModified(c, version)) return c.body(null, 304, base);

  if (range === "unsatisfiable") {
    return problem(
      c,
      "range-not-satisfiable",
      `the file has ${version.size} bytes; a range must start before byte ${version.size}`,
      { headers: { ...extra, "Content-Range": `bytes */${version.size}` } },
    );
  }
  base["Content-Type"] = version.contentType;
  if (range) {
    const length = range.end - range.start + 1;
    const headers = {
      ...base,
      "Content-Range": `bytes ${range.start}-${range.end}/${version.size}`,
      "Content-Length": String(length),
    };
    return c.body(version.read(range.start, range.end) as Uint8Array<ArrayBuffer>, 206, headers);
  }
  if (coding) {
    const encoded = variants.get(version, coding);
    const headers = { ...base, "Content-Encoding": coding, "Content-Length": String(encoded.byteLength) };
    if (c.req.method === "HEAD") return c.body(null, 200, headers);
    return c.body(encoded as Uint8Array<ArrayBuffer>, 200, headers);
  }
  const headers = { ...base, "Content-Length": String(version.size) };
  if (c.req.method === "HEAD") return c.body(null, 200, headers);
  if (version.size === 0) return c.body(new Uint8Array(0), 200, headers);
  return c.body(version.read(0, version.size - 1) as Uint8Array<ArrayBuffer>, 200, headers);
}
