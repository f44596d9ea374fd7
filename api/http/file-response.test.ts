/**
 * The file routes behave like a good origin (api/http/file-response.ts), over real HTTP: Content-Length on
 * GET and HEAD, one byte range (206 / 416), Last-Modified and If-Modified-Since, ETag and
 * If-None-Match, br and gzip negotiated for text — for the area files and the built site — and HEAD
 * and 304 answered without counting against the daily quota, even once it is spent.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyStore } from "../clients/api-keys.ts";
import { negotiateCoding, parseRange } from "./file-response.ts";
import { startServer, type RunningServer } from "../server/server.ts";
import { tempDir } from "../../test/support/store/helpers.ts";

const REPO_DATA = join(import.meta.dirname, "../../data");
let dir: string;
let cleanup: () => void;
let server: RunningServer;
let bibBytes: Buffer;
let created: string;

/** A raw GET/HEAD with exactly these headers (fetch would add Accept-Encoding and decode for us). */
function raw(
  method: "GET" | "HEAD",
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(server.url + path, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

beforeAll(async () => {
  ({ dir, cleanup } = tempDir("origin-"));
  cpSync(join(REPO_DATA, "areas"), join(dir, "data", "areas"), { recursive: true });
  cpSync(join(REPO_DATA, "keys"), join(dir, "data", "keys"), { recursive: true });
  bibBytes = readFileSync(join(dir, "data", "areas", "academics", "citations.bib"));
  created = JSON.parse(readFileSync(join(dir, "data", "areas", "academics", "datapackage.json"), "utf8")).created;
  const site = join(dir, "site");
  mkdirSync(join(site, "_astro"), { recursive: true });
  writeFileSync(join(site, "index.html"), `<!doctype html><title>t</title>${"<p>portal text</p>\n".repeat(500)}`);
  writeFileSync(join(site, "_astro", "page.Ab12Cd34.js"), `console.log(${JSON.stringify("x".repeat(4000))});\n`);
  writeFileSync(join(site, "note.sig"), "— signer AAAA\n");
  // The build's own header rules, as the static build writes them (site/dist/_headers).
  writeFileSync(
    join(site, "_headers"),
    "# rules\n/*\n  X-Content-Type-Options: nosniff\n/_astro/*\n  Cache-Control: public, max-age=31536000, immutable\n/*.sig\n  Cache-Control: public, max-age=60, must-revalidate\n  Content-Type: text/plain; charset=utf-8\n",
  );
  const keys = new ApiKeyStore(join(dir, "access.sqlite"), { durability: "normal" });
  server = await startServer({
    host: "127.0.0.1",
    port: 0,
    dataDir: join(dir, "data"),
    keysFile: keys.path,
    siteDir: site,
    log: () => {},
  });
});
afterAll(async () => {
  await server.close();
  cleanup();
});

describe("an area file, as an origin", () => {
  const path = "/academics/citations.bib";

  it("sends Content-Length and Last-Modified on GET and HEAD, the same on both", async () => {
    const get = await raw("GET", path);
    const head = await raw("HEAD", path);
    expect(get.status).toBe(200);
    expect(get.headers["content-length"]).toBe(String(bibBytes.length));
    expect(get.body.equals(bibBytes)).toBe(true);
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers["content-length"]).toBe(String(bibBytes.length));
    expect(get.headers["last-modified"]).toBe(new Date(created).toUTCString());
    expect(head.headers["last-modified"]).toBe(get.headers["last-modified"]);
    expect(head.headers.etag).toBe(get.headers.etag);
    expect(get.headers["accept-ranges"]).toBe("bytes");
  });

  it("answers one byte range with 206 and Content-Range, and 416 past the end", async () => {
    const first = await raw("GET", path, { Range: "bytes=0-99" });
    expect(first.status).toBe(206);
    expect(first.headers["content-range"]).toBe(`bytes 0-99/${bibBytes.length}`);
    expect(first.headers["content-length"]).toBe("100");
    expect(first.body.equals(bibBytes.subarray(0, 100))).toBe(true);
    const suffix = await raw("GET", path, { Range: "bytes=-10" });
    expect(suffix.status).toBe(206);
    expect(suffix.body.equals(bibBytes.subarray(bibBytes.length - 10))).toBe(true);
    const open = await raw("GET", path, { Range: `bytes=${bibBytes.length - 5}-` });
    expect(open.body.equals(bibBytes.subarray(bibBytes.length - 5))).toBe(true);
    const past = await raw("GET", path, { Range: `bytes=${bibBytes.length}-` });
    expect(past.status).toBe(416);
    expect(past.headers["content-range"]).toBe(`bytes */${bibBytes.length}`);
    expect(past.headers["content-type"]).toBe("application/problem+json");
    // Several ranges, or an If-Range that no longer holds: the whole file.
    expect((await raw("GET", path, { Range: "bytes=0-1,5-6" })).status).toBe(200);
    expect((await raw("GET", path, { Range: "bytes=0-1", "If-Range": '"0000"' })).status).toBe(200);
    const etag = (await raw("HEAD", path)).headers.etag as string;
    expect((await raw("GET", path, { Range: "bytes=0-1", "If-Range": etag })).status).toBe(206);
  });

  it("revalidates by ETag and by date with 304", async () => {
    const { headers } = await raw("HEAD", path);
    expect((await raw("GET", path, { "If-None-Match": headers.etag as string })).status).toBe(304);
    expect((await raw("GET", path, { "If-Modified-Since": headers["last-modified"] as string })).status).toBe(304);
    expect(
      (await raw("GET", path, { "If-Modified-Since": new Date(Date.parse(created) - 60_000).toUTCString() })).status,
    ).toBe(200);
    // If-None-Match wins over If-Modified-Since.
    expect(
      (await raw("GET", path, { "If-None-Match": '"other"', "If-Modified-Since": headers["last-modified"] as string }))
        .status,
    ).toBe(200);
  });

  it("encodes text with br or gzip as the client prefers, with Vary and a variant's own ETag", async () => {
    const br = await raw("GET", path, { "Accept-Encoding": "gzip, br" });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers.vary).toBe("Accept-Encoding");
    expect(br.headers["content-length"]).toBe(String(br.body.length));
    expect(brotliDecompressSync(br.body).equals(bibBytes)).toBe(true);
    const gzip = await raw("GET", path, { "Accept-Encoding": "gzip;q=1, br;q=0.5" });
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gzip.body).equals(bibBytes)).toBe(true);
    expect(br.headers.etag).not.toBe(gzip.headers.etag);
    // The stored variant's tag revalidates it.
    expect(
      (await raw("GET", path, { "Accept-Encoding": "br", "If-None-Match": br.headers.etag as string })).status,
    ).toBe(304);
    // A PDF is not re-encoded; a range is of the identity bytes.
    expect(
      (await raw("HEAD", "/government/transparency.pdf", { "Accept-Encoding": "br" })).headers["content-encoding"],
    ).toBeUndefined();
    expect(
      (await raw("GET", path, { "Accept-Encoding": "br", Range: "bytes=0-9" })).headers["content-encoding"],
    ).toBeUndefined();
  });

  // A file by its name, and one by the spec's extension-less alias (/economy/mii serves mii.json).
  it.each(["/diplomacy/standards.json", "/economy/mii"])(
    "does not count HEAD and 304 against the daily quota, and answers them once it is spent: %s",
    async (quotaPath) => {
      const headers = { "X-Forwarded-For": "ignored" };
      const first = await raw("GET", quotaPath, headers);
      const remaining = Number(/r=(\d+)/.exec(String(first.headers.ratelimit))![1]);
      const etag = first.headers.etag as string;
      for (let i = 0; i < 5; i++) {
        const head = await raw("HEAD", quotaPath);
        expect(head.status).toBe(200);
        expect(head.headers.ratelimit).toMatch(new RegExp(`r=${remaining};`));
        const revalidated = await raw("GET", quotaPath, { "If-None-Match": etag });
        expect(revalidated.status).toBe(304);
        expect(revalidated.headers.ratelimit).toMatch(new RegExp(`r=${remaining};`));
      }
      for (let i = 0; i < remaining; i++) expect((await raw("GET", quotaPath)).status).toBe(200);
      expect((await raw("GET", quotaPath)).status).toBe(429);
      expect((await raw("HEAD", quotaPath)).status).toBe(200);
      expect((await raw("GET", quotaPath, { "If-None-Match": etag })).status).toBe(304);
      // A revalidation that does not match needs the body: it counts, and is refused.
      expect((await raw("GET", quotaPath, { "If-None-Match": '"stale"' })).status).toBe(429);
    },
  );
});

describe("hostile Range and validator fields", () => {
  it("never fails on a malformed or absurd Range, If-Range or If-Modified-Since", async () => {
    const values = [
      "bytes=99999999999999999999-",
      "bytes=abc",
      "bytes=-",
      "bytes=--1",
      "bytes=1-2-3",
      "bytes= 0 - 1 ",
      `bytes=${"9".repeat(400)}-1`,
      "bytes=0-1,".repeat(200),
    ];
    for (const value of values) {
      const res = await raw("GET", "/academics/citations.bib", {
        Range: value,
        "If-Range": value.slice(0, 50),
        "If-Modified-Since": value.slice(0, 50),
      });
      expect([200, 206, 416], value).toContain(res.status);
    }
  });
});

describe("the built site, as an origin", () => {
  it("takes Cache-Control and Content-Type from the build's _headers rules, as a CDN would", async () => {
    const sig = await raw("GET", "/note.sig");
    expect(sig.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(sig.headers["cache-control"]).toBe("public, max-age=60, must-revalidate");
    expect(sig.headers["x-content-type-options"]).toBe("nosniff");
  });

  it("compresses pages, sends lengths and validators, and marks content-hashed assets immutable", async () => {
    const page = await raw("GET", "/", { "Accept-Encoding": "br" });
    expect(page.status).toBe(200);
    expect(page.headers["content-encoding"]).toBe("br");
    expect(page.headers["content-length"]).toBe(String(page.body.length));
    expect(brotliDecompressSync(page.body).toString()).toContain("portal text");
    expect(page.headers["cache-control"]).toBe("public, max-age=0, must-revalidate");
    const plain = await raw("HEAD", "/");
    expect(plain.headers["content-length"]).toBe(String(readFileSync(join(dir, "site", "index.html")).length));
    expect((await raw("GET", "/", { "If-None-Match": plain.headers.etag as string })).status).toBe(304);
    expect((await raw("GET", "/", { "If-Modified-Since": plain.headers["last-modified"] as string })).status).toBe(304);
    const asset = await raw("GET", "/_astro/page.Ab12Cd34.js", { "Accept-Encoding": "gzip" });
    expect(asset.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(asset.headers["content-encoding"]).toBe("gzip");
    const part = await raw("GET", "/_astro/page.Ab12Cd34.js", { Range: "bytes=0-10" });
    expect(part.status).toBe(206);
    expect(part.body.toString()).toBe("console.log");
  });
});

describe("negotiation and ranges, as rules", () => {
  it("picks br or gzip by q-value and refuses codings set to q=0", () => {
    expect(negotiateCoding(undefined)).toBe(null);
    expect(negotiateCoding("identity")).toBe(null);
    expect(negotiateCoding("gzip, deflate, br")).toBe("br");
    expect(negotiateCoding("br;q=0, gzip")).toBe("gzip");
    expect(negotiateCoding("*")).toBe("br");
    expect(negotiateCoding("*;q=0")).toBe(null);
    expect(negotiateCoding("br;q=0.2, gzip;q=0.8")).toBe("gzip");
  });

  it("reads one bytes= range and ignores what it cannot honour", () => {
    expect(parseRange("bytes=0-9", 100)).toEqual({ start: 0, end: 9 });
    expect(parseRange("bytes=90-200", 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange("bytes=-20", 100)).toEqual({ start: 80, end: 99 });
    expect(parseRange("bytes=-200", 100)).toEqual({ start: 0, end: 99 });
    expect(parseRange("bytes=100-", 100)).toBe("unsatisfiable");
    expect(parseRange("bytes=-0", 100)).toBe("unsatisfiable");
    expect(parseRange("bytes=9-0", 100)).toBe(null);
    expect(parseRange("bytes=0-1,3-4", 100)).toBe(null);
    expect(parseRange("items=0-1", 100)).toBe(null);
  });
});
