/**
 * The HTTP headers of the static build, as data: one list of rules (a path pattern and the headers
 * it sets), rendered two ways from the same list —
 *  - `site/dist/_headers`, the file Cloudflare Pages and Netlify read (a pattern line, then indented
 *    `Name: value` lines; `! Name` detaches a header an earlier rule set);
 *  - an nginx configuration that serves the built folder with exactly these headers
 *    (site/src/lib/nginx-conf.ts; `npm run -s cdn -- nginx` prints it, the tests serve the build with
 *    Debian's nginx from it).
 *
 * Patterns are the `_headers` ones: an exact path, or a path with one `*` (a splat, matching any
 * characters, "/" included). A request matching several rules gets the headers of all of them, so
 * the rules are written so that no header is set twice for one path; `effectiveHeaders` refuses a
 * list where two rules set the same header for a path (unless the later one detaches it first),
 * and the build fails on it rather than sending "max-age=0, immutable" to a CDN.
 *
 * Cache policy (docs/cdn.md): content-hashed and content-addressed paths, full ledger tiles, the
 * copies of sealed proofs and the versioned verifier tarball never change, so they are immutable for a year; manifests,
 * signatures and checkpoints say what is current, so they are short-lived and revalidated; every
 * other file and page gets the host default (max-age=0, must-revalidate: revalidated with its ETag
 * on every use), which Cloudflare Pages and Netlify send on their own and the nginx configuration
 * sends explicitly.
 *
 * No Astro or Vite import: astro.config.mjs renders `_headers` with it, the tests render nginx.
 */
import { areaAliases, AREAS } from "../../../core/datapackage/contract.ts";
import type { HeaderRule } from "../../../core/header-rules.ts";

// The rule model, matching and the _headers text are core/header-rules.ts (the API reads the file back).
export {
  CACHE_DEFAULT,
  effectiveHeaders,
  HeaderRuleError,
  pathMatches,
  renderHeadersFile,
  type HeaderRule,
} from "../../../core/header-rules.ts";

export const CACHE_IMMUTABLE = "public, max-age=31536000, immutable";
/** Manifests, signatures, checkpoints, partial tiles: a minute, then revalidated. */
export const CACHE_SHORT = "public, max-age=60, must-revalidate";
const TEXT = "text/plain; charset=utf-8";
const OCTETS = "application/octet-stream";

/**
 * The rules of a build. `files` are the built folder's files ("/"-separated, relative): the partial
 * ledger tiles among them (`…/<n>.p/<width>`) get rules of their own, since a `_headers` pattern has
 * one splat and cannot tell a partial tile from a full one.
 */
export function headerRules(files: readonly string[] = []): HeaderRule[] {
  // The areas' extension-less endpoints (the contract's aliases and live routes), served as JSON.
  const extensionless = AREAS.flatMap((area) =>
    Object.entries(areaAliases(area))
      .filter(([, r]) => r.kind === "alias" || r.kind === "live")
      .map(([alias]) => `/${area}/${alias}`),
  );
  const rules: HeaderRule[] = [
    {
      path: "/*",
      headers: { "X-Content-Type-Options": "nosniff" },
      why: "every response: the declared type is the type",
    },
    {
      path: "/_astro/*",
      headers: { "Cache-Control": CACHE_IMMUTABLE },
      why: "content-hashed scripts, styles and fonts",
    },
    ...AREAS.map((area) => ({
      path: `/${area}/sha256/*`,
      headers: { "Cache-Control": CACHE_IMMUTABLE },
      why: area === AREAS[0] ? "content-addressed copies of the published files (the manifests' immutablePath)" : "",
    })),
    { path: "/*/datapackage.json", headers: { "Cache-Control": CACHE_SHORT }, why: "manifests name the current files" },
    {
      path: "/*/releases.json",
      headers: { "Cache-Control": CACHE_SHORT },
      why: "the release history grows with each release",
    },
    {
      path: "/*.sig",
      headers: { "Cache-Control": CACHE_SHORT, "Content-Type": TEXT },
      why: "signatures: C2SP signed notes are text",
    },
    { path: "/*.vkey", headers: { "Content-Type": TEXT }, why: "verifier keys: one text line each" },
    { path: "/*.bib", headers: { "Content-Type": "application/x-bibtex; charset=utf-8" }, why: "BibTeX" },
    {
      path: "/*.parquet",
      headers: { "Content-Type": "application/vnd.apache.parquet" },
      why: "Apache Parquet (the columnar copy of a CSV table)",
    },
    {
      path: "/*.csv",
      headers: { "Content-Type": "text/csv; charset=utf-8; header=present" },
      why: "RFC 4180 CSV with a header row",
    },
    {
      path: "/*.jsonl",
      headers: { "Content-Type": "application/jsonl; charset=utf-8" },
      why: "JSON Lines: one JSON text per line",
    },
    ...AREAS.map((area) => ({
      path: `/${area}/releases/*`,
      detach: ["Cache-Control"],
      headers: { "Cache-Control": CACHE_IMMUTABLE },
      why:
        area === AREAS[0]
          ? "each release's copies (manifest, signature, changes, citation): a new release adds a folder and none is rewritten, so the manifest and signature rules' short caching is replaced"
          : "",
    })),
    ...extensionless.map((path, i) => ({
      path,
      headers: { "Content-Type": "application/json" },
      why: i === 0 ? "the extension-less economy endpoints: the bytes of their .json files" : "",
    })),
    {
      path: "/migration/checkpoint",
      headers: { "Cache-Control": CACHE_SHORT, "Content-Type": TEXT },
      why: "the migration tree's newest signed checkpoint",
    },
    {
      path: "/migration/checkpoints/*",
      headers: { "Cache-Control": CACHE_IMMUTABLE, "Content-Type": TEXT },
      why: "earlier checkpoints, by tree size: never rewritten",
    },
    {
      path: "/migration/proof/*",
      headers: { "Content-Type": "application/json" },
      why: "static copies of GET /migration/proof/{address}",
    },
    {
      path: "/v1/consensus/proofs/*",
      headers: { "Cache-Control": CACHE_IMMUTABLE, "Content-Type": "application/json" },
      why: "static copies of GET /v1/consensus/proofs/{delib_id}: a sealed proof's copy is never rewritten",
    },
    {
      path: "/ledger/checkpoint",
      headers: { "Cache-Control": CACHE_SHORT, "Content-Type": TEXT },
      why: "the ledger's signed checkpoint (C2SP tlog-tiles)",
    },
    {
      path: "/ledger/tile/*",
      headers: { "Cache-Control": CACHE_IMMUTABLE, "Content-Type": OCTETS },
      why: "full ledger tiles (C2SP tlog-tiles) and entry bundles never change",
    },
    {
      path: "/ledger/envelopes/*",
      headers: { "Cache-Control": CACHE_IMMUTABLE, "Content-Type": OCTETS },
      why: "full envelope bundles (the entries' public envelopes, beside the tiles) never change",
    },
    {
      path: "/tools/*.tgz",
      headers: { "Cache-Control": CACHE_IMMUTABLE, "Content-Type": "application/gzip" },
      why: "the verifier's npm tarball: its name carries its version, and a new version gets a new name",
    },
    {
      path: "/tools/*.tgz.sha256",
      headers: { "Cache-Control": CACHE_IMMUTABLE, "Content-Type": TEXT },
      why: "its SHA-256 (sha256sum format), as lasting as the tarball it names",
    },
  ];
  const partial = files
    .filter((f) => (f.startsWith("ledger/tile/") || f.startsWith("ledger/envelopes/")) && /\.p\/\d+$/.test(f))
    .sort();
  partial.forEach((file, i) =>
    rules.push({
      path: `/${file}`,
      headers: { "Cache-Control": CACHE_SHORT },
      detach: ["Cache-Control"],
      why: i === 0 ? "partial tiles grow into full ones: short-lived" : "",
    }),
  );
  return rules;
}

/** The request paths a built file answers: itself, and a folder's index page at the folder's path. */
export function servedPaths(file: string): string[] {
  const path = `/${file}`;
  if (file === "index.html") return ["/", path];
  return file.endsWith("/index.html") ? [path.slice(0, -"index.html".length), path] : [path];
}
