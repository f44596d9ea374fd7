/**
 * The five audience areas: every file of the published-data contract (core/datapackage), at the
 * spec's paths and under every other spelling of them (`//`, `%2f`, `\`, upper case, a trailing
 * slash: core/datapackage/paths.ts areaRequest), so no area file is ever answered by the static
 * copy in site/dist. A query string the route refuses (400 `invalid-query`, the export's bounds and
 * filter included: api/sources/audit-trail-export.ts ExportQuery) is answered by the route declaration
 * before this handler, so it counts no quota and needs no key. For each request, in this order:
 *
 *  1. the daily quota of the client (api/clients/quotas.ts): RateLimit headers, 429 once spent;
 *  2. the access tier, from the contract — never from a manifest: keyed files need
 *     `Authorization: Bearer <key>` (scheme in any case) of an active key of that tier, else 401,
 *     or 403 with another tier's key;
 *  3. the area's manifest, used only when its signature verifies under data/keys/ and it agrees with
 *     the contract (api/sources/signed-manifests.ts, once per manifest version), and the file's bytes, which
 *     must hash as that manifest says (once per file version, store/digest-cache.ts): else 503
 *     `data-unverified`;
 *  4. 304 when `If-None-Match` holds the file's ETag (its sha256), else the file, streamed, with the
 *     contract's content type. `/government/ledger/export` is the spec's filtered audit trail
 *     (api/sources/audit-trail-export.ts).
 *
 * A live route (`/economy/supply`) takes steps 1 and 2 like its file, then answers the document the
 * API computes from the ledger (`live`, caught up to the ledger's tail; `Cache-Control: no-store`)
 * instead of the file: no manifest is consulted, since no published byte is served. Without a
 * ledger it is 503 `ledger-unavailable`.
 *
 * Each canonical path is declared as a route of its own (api/routes/area-files.ts, from
 * `servedAreaFiles`) around this handler; every other spelling reaches the same route because the
 * app routes by `canonicalPath` (api/app.ts).
 *
 * Every request that presents a known key, or asks for a keyed file, is recorded in the access
 * ledger (key id, tier, file, outcome; never the key) before it is answered; if it cannot be
 * recorded, the answer is 503 `audit-unavailable`. Keyed files are read from `keyedDataDir` (a
 * private store in a real deployment; docs/trust.md).
 */
import { closeSync, createReadStream, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import type { Context, MiddlewareHandler } from "hono";
import type { AccessOutcome } from "../../core/access/events.ts";
import {
  AREAS,
  areaAliases,
  areaFile,
  areaFiles,
  areaRequest,
  isKeyed,
  MANIFEST_FILE,
  type Area,
  type AreaFile,
  type AreaRouteKind,
} from "../../core/datapackage/index.ts";
import { DigestCache } from "../../store/digest-cache.ts";
import { AccessLedgerUnavailableError, type ApiKeyStore } from "../clients/api-keys.ts";
import { noteStoreFailure } from "../problems/store-failure.ts";
import { presentedKey } from "../clients/client.ts";
import { limitsUnavailable } from "../problems/refusals.ts";
import { EncodedVariants, fileResponse, isFree, notModified, type FileVersion } from "../http/file-response.ts";
import { exportBody, exportRequest } from "../sources/audit-trail-export.ts";
import { problem } from "../problems/problem.ts";
import { rateLimitHeaders, type DailyQuotas } from "../clients/quotas.ts";
import { SignedManifests } from "../sources/signed-manifests.ts";
import { listedResources } from "../../core/datapackage/references.ts";
import { withArticle } from "../../core/format/text.ts";

const CONTENT_TYPES: Record<AreaFile["mediatype"], string> = {
  "application/json": "application/json; charset=utf-8",
  "text/csv": "text/csv; charset=utf-8; header=present",
  "application/x-bibtex": "application/x-bibtex; charset=utf-8",
  "application/pdf": "application/pdf",
  "application/vnd.apache.parquet": "application/vnd.apache.parquet",
};

export interface AreaRouteOptions {
  /** The public data folder: areas/<area>/ manifests and public files, keys/. */
  dataDir: string;
  /** Where the keyed files are (`<keyedDataDir>/areas/<area>/<path>`); default dataDir. */
  keyedDataDir?: string;
  keys: ApiKeyStore;
  quotas: DailyQuotas;
  now: () => Date;
  /** The live documents by canonical path (`/economy/supply`); null when the server has no ledger. */
  live?: Readonly<Record<string, () => unknown>>;
}

/** What a route declaration says of a served path: the contract's file and the manifest's words for it. */
export interface ServedFile {
  area: Area;
  /** The canonical request path, e.g. `/economy/supply`. */
  path: string;
  file: AreaFile;
  /** The filtered audit-trail export (its query and formats), not the file itself. */
  filteredExport: boolean;
  /** A live document in the file's schema, computed by the API (not the file's bytes). */
  live: boolean;
  /** Title, description and `jsonSchema` of the file's manifest entry, for the API description only. */
  title?: string;
  description?: string;
  jsonSchema?: unknown;
}

/** The manifest's descriptive words per file (unverified: they only document; serving never reads them here). */
function describedResources(
  dataDir: string,
  area: Area,
): Map<string, { title?: string; description?: string; jsonSchema?: unknown }> {
  const described = new Map<string, { title?: string; description?: string; jsonSchema?: unknown }>();
  const manifest = join(dataDir, "areas", area, MANIFEST_FILE);
  if (!existsSync(manifest)) return described;
  try {
    const parsed = JSON.parse(readFileSync(manifest, "utf8")) as Record<string, unknown>;
    for (const r of listedResources<{ path?: unknown; title?: string; description?: string; jsonSchema?: unknown }>(
      parsed,
    ))
      if (typeof r.path === "string")
        described.set(r.path, { title: r.title, description: r.description, jsonSchema: r.jsonSchema });
  } catch {
    // An unreadable manifest documents nothing; the handler refuses its files anyway.
  }
  return described;
}

/** Every canonical path of the contract's area files, aliases and the filtered export. */
export function servedAreaFiles(dataDir: string): ServedFile[] {
  const served: ServedFile[] = [];
  for (const area of AREAS) {
    const words = describedResources(dataDir, area);
    const entry = (path: string, file: AreaFile, kind: "file" | AreaRouteKind): ServedFile => ({
      area,
      path: `/${area}/${path}`,
      file,
      filteredExport: kind === "export",
      live: kind === "live",
      ...words.get(file.path),
    });
    for (const file of areaFiles(area)) served.push(entry(file.path, file, "file"));
    for (const [alias, route] of Object.entries(areaAliases(area)))
      served.push(entry(alias, areaFile(area, route.file)!, route.kind));
  }
  return served;
}

/** The request path as sent (still percent-encoded), without query or fragment. */
function rawPath(c: Context): string {
  const url = c.req.url;
  return url.slice(url.indexOf("/", url.indexOf("//") + 2)).split(/[?#]/)[0] ?? "/";
}

const HOW_TO_GET_A_KEY =
  "Keys are issued on request (affiliation, official contact, purpose) and delivered over a secure channel.";

/** 503 `audit-unavailable` (with Retry-After) when the access ledger cannot be read; rethrows anything else. */
export function auditUnavailable(c: Context, error: unknown): Response {
  if (!(error instanceof AccessLedgerUnavailableError)) throw error;
  noteStoreFailure(c, error);
  return problem(
    c,
    "audit-unavailable",
    "The access ledger cannot be read right now, so the key presented cannot be checked or its access recorded; nothing was served. Try again later.",
  );
}

export function areaRoutes(options: AreaRouteOptions): MiddlewareHandler {
  const { dataDir, keys, quotas, now } = options;
  const keyedDataDir = options.keyedDataDir ?? dataDir;
  const manifests = new SignedManifests(dataDir);
  // Each version of a file on disk is hashed once (store/digest-cache.ts), not on every request.
  const digests = new DigestCache();
  // Text files are also served br- or gzip-encoded: each version encoded once (api/http/file-response.ts).
  const encoded = new EncodedVariants();

  return async (c, next) => {
    if (c.req.method !== "GET" && c.req.method !== "HEAD") return next();
    const request = areaRequest(rawPath(c));
    if (!request?.route) return next();
    const { area, route } = request;
    const file = route.file;
    const name = route.kind === "export" ? request.path : file.path;

    let presented;
    try {
      presented = await presentedKey(c, keys, now());
    } catch (error) {
      // A key was presented and the access ledger cannot say whose it is: refused, never served as
      // anonymous (a keyed file would be 401, a public one unaudited on another quota).
      return auditUnavailable(c, error);
    }
    const { match, key, tier, client } = presented;

    /** Records the access when it must be audited, then answers; a failed record refuses. */
    const answer = async (outcome: AccessOutcome, response: Response): Promise<Response> => {
      if (!match) {
        // No known key: a refusal of a keyed file is counted, not written one by one (api-keys.ts countRefusal).
        if (isKeyed(file))
          await keys.countRefusal(
            {
              credential: c.req.header("Authorization") ? "unknown" : "none",
              area,
              file: name,
              outcome,
              status: response.status,
            },
            now(),
          );
        return response;
      }
      try {
        await keys.record(
          {
            key_id: match.key.id,
            key_status: match.status,
            tier, // the tier applied: a key that opens nothing (revoked, expired) counts as anonymous
            area,
            file: name,
            outcome,
            status: response.status,
          },
          now(),
        );
      } catch {
        // A body streamed from an open descriptor is never read now: cancelling it closes the descriptor.
        void response.body?.cancel().catch(() => {});
        return problem(
          c,
          "audit-unavailable",
          "This access could not be recorded in the audit log, so it is not answered. Try again later.",
        );
      }
      return response;
    };

    // HEAD and a revalidation answered 304 carry no body, so they do not count against the daily
    // quota (a mirror that revalidates is never locked out); they are answered even once it is spent.
    const state = manifests.state(area);
    const listed = state.status === "verified" ? state.resources.get(file.path) : undefined;
    // A file and its spec alias (/economy/mii is mii.json) are the same bytes, revalidated alike; a live document is not a file.
    const validators =
      listed && route.kind !== "live"
        ? {
            sha256: listed.resource.hash.slice("sha256:".length),
            ...(state.status === "verified" && state.created ? { lastModified: state.created } : {}),
          }
        : null;
    const free = validators === null ? c.req.method === "HEAD" : isFree(c, validators);
    let decision;
    try {
      decision = await (free ? quotas.peek(area, tier, client) : quotas.take(area, tier, client));
    } catch (error) {
      return limitsUnavailable(c, error);
    }
    const limits = rateLimitHeaders(decision);
    if (decision.limited && !decision.allowed) {
      const detail =
        decision.reason ??
        `the ${tier === "anonymous" ? "anonymous" : `${tier} key`} quota of ${decision.quota} requests a day for ${area} is spent; it resets at 00:00 UTC`;
      return answer(
        "rate-limited",
        problem(c, "rate-limited", detail, { headers: { ...limits, "Retry-After": String(decision.resetSeconds) } }),
      );
    }

    if (isKeyed(file)) {
      const how = `this file needs ${withArticle(`${file.access} key`)}: Authorization: Bearer <key>. ${HOW_TO_GET_A_KEY}`;
      if (!key) {
        const why = match ? `the key ${match.key.id} is ${match.status}; ` : "";
        return answer(
          "unauthorized",
          problem(c, "unauthorized", `${why}${how}`, {
            headers: { ...limits, "WWW-Authenticate": 'Bearer realm="integrity-platform"' },
          }),
        );
      }
      if (key.tier !== file.access)
        return answer(
          "forbidden",
          problem(c, "forbidden", `${withArticle(`${key.tier} key`)} does not open ${area}/${file.path}; ${how}`, {
            headers: limits,
          }),
        );
    }

    if (route.kind === "live") {
      const document = options.live?.[`/${area}/${request.path}`];
      if (!document)
        return answer(
          "ledger-unavailable",
          problem(
            c,
            "ledger-unavailable",
            `/${area}/${request.path} is computed from the ledger, and this server has none; the published figures are /${area}/${file.path}`,
            { headers: limits },
          ),
        );
      const headers = { ...limits, "Content-Type": CONTENT_TYPES[file.mediatype], "Cache-Control": "no-store" };
      if (c.req.method === "HEAD") return answer("served", c.body(null, 200, headers));
      return answer("served", c.body(JSON.stringify(await document()), 200, headers));
    }

    const unverified = (detail: string) =>
      answer("data-unverified", problem(c, "data-unverified", detail, { headers: limits }));
    if (state.status !== "verified")
      return unverified(
        `${area} has no verified manifest, so none of its files is served (${state.code}: ${state.detail})`,
      );
    if (!listed) return unverified(`${area}/${file.path} is not listed in the signed manifest`);
    const path = join(isKeyed(file) ? keyedDataDir : dataDir, "areas", area, file.path);
    // Checked and streamed through one descriptor: the bytes served are the bytes hashed.
    const opened = digests.open(path);
    if (opened?.digest.hash !== listed.resource.hash || opened.digest.bytes !== listed.resource.bytes) {
      if (opened) closeSync(opened.fd);
      return unverified(`${area}/${file.path} does not match its signed manifest`);
    }
    const { fd } = opened;
    const stream = () => createReadStream("", { fd, start: 0 });
    const done = (response: Response) => {
      if (response.status !== 200 || c.req.method === "HEAD") closeSync(fd);
      return response;
    };
    // A keyed file is never stored. A public file asked for with a key is answered with that key's
    // quota (RateLimit): private, and varying on Authorization, so no shared cache replays it to
    // another client (RFC 9111 §3.5, §5.2.2.7).
    const authorized = c.req.header("Authorization") !== undefined;
    const cache = isKeyed(file) ? "private, no-store" : authorized ? "private, max-age=300" : "public, max-age=300";
    const vary: Record<string, string> = authorized ? { Vary: "Authorization" } : {};

    if (route.kind === "export") {
      // The query was checked before this handler (ExportQuery): a refused one never costs quota or needs a key.
      const query = exportRequest(c);
      const headers = {
        ...limits,
        "Content-Type": CONTENT_TYPES[query.format === "csv" ? "text/csv" : "application/json"],
        "Cache-Control": cache,
        ...vary,
      };
      // Counted as a revalidation above (isFree): `If-None-Match: *` (any current representation) or
      // the file's own ETag is answered 304, without a body, as any other file's.
      if (c.req.method === "GET" && validators !== null && notModified(c, validators))
        return answer("not-modified", done(c.body(null, 304, { ...limits, "Cache-Control": cache, ...vary })));
      if (c.req.method === "HEAD") return answer("served", done(c.body(null, 200, headers)));
      return answer(
        "served",
        c.body(Readable.toWeb(Readable.from(exportBody(stream(), query))) as ReadableStream<Uint8Array>, 200, headers),
      );
    }

    let streamed = false;
    const version: FileVersion = {
      size: listed.resource.bytes,
      sha256: listed.resource.hash.slice("sha256:".length),
      contentType: CONTENT_TYPES[file.mediatype],
      cacheControl: cache,
      ...(authorized ? { varyAlso: "Authorization" } : {}),
      ...(state.created ? { lastModified: state.created } : {}),
      read: (start, end) => {
        streamed = true;
        return Readable.toWeb(createReadStream("", { fd, start, end })) as ReadableStream<Uint8Array>;
      },
      readAll: () => readFileSync(fd),
    };
    const response = fileResponse(c, version, encoded, limits);
    if (!streamed) closeSync(fd);
    return answer(response.status === 304 ? "not-modified" : "served", response);
  };
}
