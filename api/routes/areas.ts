/**
 * The five audience areas, served from `data/areas/<area>/` as listed in each area's Frictionless
 * manifest: the spec's paths (`/economy/supply` without an extension too), the right content types,
 * and the access tier of every file. Keyed files need `Authorization: Bearer <key>` of that tier;
 * without one the answer is 401, with another tier's key 403. Every request counts against the
 * client's daily quota (api/rate-limit.ts: RateLimit headers, 429 once spent). A file whose bytes no
 * longer match its manifest hash is not served (503). `/government/ledger/export` is the spec's
 * filtered audit trail (api/audit-trail-export.ts). Each path is declared as a route of its own
 * (api/routes/area-files.ts, from `servedAreaFiles`) around this handler.
 *
 * Files are streamed, not read whole, and a file's hash is checked once per version on disk: the
 * digest is remembered with the file's size, inode, mtime and ctime, which any write changes.
 */
import { createReadStream, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context, MiddlewareHandler } from "hono";
import { DigestCache } from "../../store/file-digest.ts";
import type { ApiKeyStore } from "../api-keys.ts";
import { exportBody, exportRequest } from "../audit-trail-export.ts";
import { problem } from "../problem.ts";
import { rateLimitHeaders, type DailyQuotas, type Tier } from "../rate-limit.ts";

const AREAS = new Set(["government", "academics", "philosophy", "economy", "diplomacy"]);

export interface Resource {
  path: string;
  mediatype: string;
  hash: string;
  access: string;
  title?: string;
  description?: string;
  /** The `$id` of the published JSON Schema, or an inline schema. */
  jsonSchema?: unknown;
}

const CONTENT_TYPES: Record<string, string> = {
  "application/json": "application/json; charset=utf-8",
  "text/csv": "text/csv; charset=utf-8; header=present",
  "application/x-bibtex": "application/x-bibtex; charset=utf-8",
  "application/pdf": "application/pdf",
};

/** The spec's filtered export, and the published file it reads. */
const EXPORT_PATH = "ledger/export";
const EXPORT_SOURCE = "ledger/export.json";

function resourcesOf(dataDir: string, area: string): Resource[] {
  const manifest = join(dataDir, "areas", area, "datapackage.json");
  if (!existsSync(manifest)) return [];
  const parsed = JSON.parse(readFileSync(manifest, "utf8")) as { resources?: Resource[] };
  return parsed.resources ?? [];
}

function findResource(resources: Resource[], area: string, rest: string): Resource | undefined {
  return (
    resources.find((r) => r.path === (area === "government" && rest === EXPORT_PATH ? EXPORT_SOURCE : rest)) ??
    // The spec serves the economy documents without an extension: /economy/supply.
    (area === "economy" && !rest.includes(".") ? resources.find((r) => r.path === `${rest}.json`) : undefined)
  );
}

/** A path the area routes answer, and the resource it serves. */
export interface ServedFile {
  area: string;
  path: string;
  resource: Resource;
  /** The filtered audit-trail export (its query and formats), not the file itself. */
  filteredExport: boolean;
}

/** Every path the area routes answer, with the spellings findResource accepts. */
export function servedAreaFiles(dataDir: string): ServedFile[] {
  const served: ServedFile[] = [];
  for (const area of AREAS) {
    for (const resource of resourcesOf(dataDir, area)) {
      served.push({ area, path: `/${area}/${resource.path}`, resource, filteredExport: false });
      if (area === "economy" && /^[^./]+\.json$/.test(resource.path)) {
        served.push({ area, path: `/${area}/${resource.path.slice(0, -5)}`, resource, filteredExport: false });
      }
      if (area === "government" && resource.path === EXPORT_SOURCE) served.push({ area, path: `/${area}/${EXPORT_PATH}`, resource, filteredExport: true });
    }
  }
  return served;
}

/** The client's address as the socket sees it (forwarding headers are not trusted). */
function clientAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    return "unknown";
  }
}

export function areaRoutes(dataDir: string, keys: ApiKeyStore, quotas: DailyQuotas): MiddlewareHandler {
  // Each version of a file on disk is hashed once (store/file-digest.ts), not on every request.
  const digests = new DigestCache();
  return async (c, next) => {
    if (c.req.method !== "GET" && c.req.method !== "HEAD") return next();
    const match = /^\/([a-z]+)\/(.+)$/.exec(c.req.path);
    if (!match || !AREAS.has(match[1]!)) return next();
    const [, area, rest] = match as unknown as [string, string, string];
    const resource = findResource(resourcesOf(dataDir, area), area, rest);
    if (!resource) return next();

    const token = /^Bearer ([^\s]+)$/.exec(c.req.header("Authorization") ?? "")?.[1];
    const key = token ? keys.find(token) : null;
    const tier: Tier = key ? key.tier : "anonymous";
    const decision = quotas.take(area, tier, key ? key.id : clientAddress(c));
    const limits = rateLimitHeaders(decision);
    if (decision.limited && !decision.allowed) {
      const detail = decision.reason ?? `the ${tier === "anonymous" ? "anonymous" : `${tier} key`} quota of ${decision.quota} requests a day for ${area} is spent; it resets at 00:00 UTC`;
      return problem(c, "rate-limited", detail, { headers: { ...limits, "Retry-After": String(decision.resetSeconds) } });
    }

    if (resource.access !== "public") {
      const how = `this file needs a ${resource.access} key: Authorization: Bearer <key>. Keys are issued on request (affiliation, official contact, purpose) and delivered over a secure channel.`;
      if (!key) return problem(c, "unauthorized", how, { headers: { ...limits, "WWW-Authenticate": 'Bearer realm="integrity-platform"' } });
      if (key.tier !== resource.access) return problem(c, "forbidden", `a ${key.tier} key does not open ${area}/${resource.path}; ${how}`, { headers: limits });
    }

    const file = join(dataDir, "areas", area, resource.path);
    if (digests.digest(file)?.hash !== resource.hash) {
      return problem(c, "data-unverified", `${area}/${resource.path} does not match its manifest hash`, { headers: limits });
    }
    const cache = resource.access === "public" ? "public, max-age=300" : "private, no-store";

    if (area === "government" && rest === EXPORT_PATH) {
      const request = exportRequest(c);
      if (request instanceof Response) {
        for (const [name, value] of Object.entries(limits)) request.headers.set(name, value);
        return request;
      }
      const headers = { ...limits, "Content-Type": CONTENT_TYPES[request.format === "csv" ? "text/csv" : "application/json"]!, "Cache-Control": cache };
      return c.req.method === "HEAD" ? c.body(null, 200, headers) : c.body(Readable.toWeb(Readable.from(exportBody(file, request))) as ReadableStream<Uint8Array>, 200, headers);
    }

    const headers = {
      ...limits,
      "Content-Type": CONTENT_TYPES[resource.mediatype] ?? "application/octet-stream",
      ETag: `"${resource.hash.slice(7)}"`,
      "Cache-Control": cache,
    };
    if (c.req.method === "HEAD") return c.body(null, 200, headers);
    return c.body(Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>, 200, headers);
  };
}
