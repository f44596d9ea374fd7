/**
 * The five audience areas, served from `data/areas/<area>/` as listed in each area's Frictionless
 * manifest: the spec's paths (`/economy/supply` without an extension too), the right content types,
 * and the access tier of every file. Keyed files need `Authorization: Bearer <key>` of that tier;
 * without one the answer is 401, with another tier's key 403. A file whose bytes no longer match
 * its manifest hash is not served (503). Paths that are not resources fall through to the site.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { MiddlewareHandler } from "hono";
import type { ApiKeyStore } from "../api-keys.ts";
import { problem } from "../problem.ts";

const AREAS = new Set(["government", "academics", "philosophy", "economy", "diplomacy"]);

interface Resource {
  path: string;
  mediatype: string;
  hash: string;
  access: string;
}

const CONTENT_TYPES: Record<string, string> = {
  "application/json": "application/json; charset=utf-8",
  "text/csv": "text/csv; charset=utf-8; header=present",
  "application/x-bibtex": "application/x-bibtex; charset=utf-8",
  "application/pdf": "application/pdf",
};

function resourcesOf(dataDir: string, area: string): Resource[] {
  const manifest = join(dataDir, "areas", area, "datapackage.json");
  if (!existsSync(manifest)) return [];
  const parsed = JSON.parse(readFileSync(manifest, "utf8")) as { resources?: Resource[] };
  return parsed.resources ?? [];
}

function findResource(resources: Resource[], area: string, rest: string): Resource | undefined {
  return (
    resources.find((r) => r.path === rest) ??
    // The spec serves the economy documents without an extension: /economy/supply.
    (area === "economy" && !rest.includes(".") ? resources.find((r) => r.path === `${rest}.json`) : undefined)
  );
}

export function areaRoutes(dataDir: string, keys: ApiKeyStore): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method !== "GET" && c.req.method !== "HEAD") return next();
    const match = /^\/([a-z]+)\/(.+)$/.exec(c.req.path);
    if (!match || !AREAS.has(match[1]!)) return next();
    const [, area, rest] = match as unknown as [string, string, string];
    const resource = findResource(resourcesOf(dataDir, area), area, rest);
    if (!resource) return next();

    if (resource.access !== "public") {
      const header = c.req.header("Authorization") ?? "";
      const token = /^Bearer ([^\s]+)$/.exec(header)?.[1];
      const key = token ? keys.find(token) : null;
      const how = `this file needs a ${resource.access} key: Authorization: Bearer <key>. Keys are issued on request (affiliation, official contact, purpose) and delivered over a secure channel.`;
      if (!key) return problem(c, "unauthorized", how, { headers: { "WWW-Authenticate": 'Bearer realm="integrity-platform"' } });
      if (key.tier !== resource.access) return problem(c, "forbidden", `a ${key.tier} key does not open ${area}/${resource.path}; ${how}`);
    }

    const bytes = readFileSync(join(dataDir, "areas", area, resource.path));
    const hash = `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
    if (hash !== resource.hash) return problem(c, "data-unverified", `${area}/${resource.path} does not match its manifest hash`);
    const headers = {
      "Content-Type": CONTENT_TYPES[resource.mediatype] ?? "application/octet-stream",
      ETag: `"${hash.slice(7)}"`,
      "Cache-Control": resource.access === "public" ? "public, max-age=300" : "private, no-store",
    };
    return c.req.method === "HEAD" ? c.body(null, 200, headers) : c.body(new Uint8Array(bytes), 200, headers);
  };
}
