/**
 * The route declarations of the area files: one GET route per path that api/routes/areas.ts
 * serves (`servedAreaFiles`: each file of the published-data contract, the extension-less economy documents, the
 * filtered audit-trail export, the live supply), each wrapping that one handler. The declaration takes from the
 * manifest what the description needs: title, description, media type, the published JSON
 * Schema of a JSON file (core/schemas, with its sample as the example) and the access tier,
 * which gives the security requirement: a keyed file needs that tier's key; a public file takes
 * no key, or a key of a tier whose quota is higher than the anonymous one.
 */
import { z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { examples } from "../../core/schemas/examples.ts";
import { publishedSchemas } from "../../core/schemas/index.ts";
import { SCHEMA_BASE_URI } from "../../core/schemas/json-schema.ts";
import { KEY_TIERS, type KeyTier } from "../clients/api-keys.ts";
import { ExportQuery } from "../sources/audit-trail-export.ts";
import { keyScheme } from "../openapi/document.ts";
import { problem } from "../problems/problem.ts";
import { quotaOf } from "../clients/quotas.ts";
import { headers, notModified, published, text, type MediaSpec, type ResponseSpec } from "../openapi/responses.ts";
import { addRoute, defineRoute, routeGroup, type RouteGroup } from "../openapi/route.ts";
import { servedAreaFiles, type ServedFile } from "./areas.ts";
import { schemaIdOf } from "../../core/datapackage/references.ts";
import { withArticle } from "../../core/format/text.ts";
import { AREA_DECLARATIONS } from "../../core/areas/index.ts";

/** The API reference's tag of each area's routes (core/areas/<area>.ts `apiTag`). */
const AREA_TAGS: Record<string, string> = Object.fromEntries(AREA_DECLARATIONS.map((d) => [d.name, d.apiTag]));

const FILE_HEADERS = headers(
  "ETag",
  "Last-Modified",
  "Cache-Control",
  "Vary",
  "Accept-Ranges",
  "Content-Length",
  "Content-Encoding",
  "RateLimit-Policy",
  "RateLimit",
);
const RANGE_HEADERS = headers(
  "ETag",
  "Last-Modified",
  "Cache-Control",
  "Vary",
  "Accept-Ranges",
  "Content-Length",
  "Content-Range",
  "RateLimit-Policy",
  "RateLimit",
);
const EXPORT_HEADERS = headers("Cache-Control", "Vary", "RateLimit-Policy", "RateLimit");

type Registry = typeof publishedSchemas;

/** The registry name of a published schema `$id`, or null. */
function registryName(reference: unknown): keyof Registry | null {
  // The manifest's reference is relative (../../schemas/…); the registry is keyed by $id.
  const id = schemaIdOf(reference);
  if (typeof id !== "string" || !id.startsWith(SCHEMA_BASE_URI) || !id.endsWith(".schema.json")) return null;
  const name = id.slice(SCHEMA_BASE_URI.length, -".schema.json".length);
  return Object.hasOwn(publishedSchemas, name) ? (name as keyof Registry) : null;
}

/** The schema and example of a JSON resource, from its manifest `jsonSchema` (an `$id`, or an array of `$id` items). */
function jsonContent(jsonSchema: unknown): MediaSpec {
  const direct = registryName(jsonSchema);
  if (direct) return published(direct);
  const inline = jsonSchema as { type?: string; items?: { $ref?: string } } | undefined;
  const item = inline?.type === "array" ? registryName(inline.items?.$ref) : null;
  if (item) {
    return { schema: z.array(published(item).schema), example: [examples[item]] };
  }
  return { schema: z.unknown().openapi({ description: "A JSON document (no published schema)" }) };
}

function content(file: ServedFile): Record<string, MediaSpec> {
  switch (file.file.mediatype) {
    case "application/json":
      return { "application/json": jsonContent(file.jsonSchema) };
    case "text/csv":
      return {
        "text/csv": {
          schema: text(
            "CSV (RFC 4180, UTF-8, CRLF) with a header row; the columns are the resource's Table Schema in the manifest",
          ),
        },
      };
    case "application/pdf":
      return { "application/pdf": { schema: z.string().openapi({ description: "PDF document", format: "binary" }) } };
    default:
      return { [file.file.mediatype]: { schema: text(file.file.mediatype) } };
  }
}

/** Tiers whose key raises the quota of `area` above the anonymous one. */
function quotaTiers(area: string): KeyTier[] {
  const anonymous = quotaOf(area, "anonymous").quota;
  return KEY_TIERS.filter((tier) => quotaOf(area, tier).quota !== anonymous);
}

function security(file: ServedFile): Record<string, string[]>[] {
  const access = file.file.access;
  if (access !== "public") return [{ [keyScheme(access)]: [] }];
  return [{}, ...quotaTiers(file.area).map((tier) => ({ [keyScheme(tier)]: [] }))];
}

function explain(file: ServedFile): string {
  const access =
    file.file.access === "public"
      ? "Public. Counts against the area's daily quota (anonymous per IP address, or per key)."
      : `Needs ${withArticle(`${file.file.access} key`)} (\`Authorization: Bearer <key>\`): 401 without one, 403 with a key of another tier. Counts against the daily quota.`;
  const integrity =
    "Served only while its bytes match the hash in the area's signed manifest (503 otherwise). Any spelling of the path (`//`, `%2f`, upper case, a trailing slash) is this route.";
  const origin =
    "Answered as a good origin answers: `Content-Length` on GET and HEAD, one byte range (`Range`, 206; 416 past the end), `ETag` with `If-None-Match` and `Last-Modified` with `If-Modified-Since` (304), br or gzip for text as `Accept-Encoding` asks. HEAD and 304 answers do not count against the daily quota and are answered even once it is spent; their `RateLimit` field shows the remaining quota unchanged.";
  return [file.description ?? "", access, integrity, origin].filter(Boolean).join("\n\n");
}

const LIVE_HEADERS = headers("Cache-Control", "RateLimit-Policy", "RateLimit");

function fileRoute(file: ServedFile) {
  const keyed = file.file.access !== "public";
  if (file.live) {
    return defineRoute({
      method: "get",
      path: file.path,
      tags: [AREA_TAGS[file.area]!],
      summary: `${file.title ?? file.file.path}, live`,
      description: `Real-time: computed from the ledger as it grows (the ledger's newest entry included; dated at that entry), in the schema of \`${file.file.path}\`, which stays the published file with the pipeline's figures at its ledger size. Never cached.\n\n${explain(file).split("\n\n")[0]}`,
      security: security(file),
      responses: {
        200: { description: `${file.title ?? "The document"}, live`, headers: LIVE_HEADERS, content: content(file) },
      },
      problems: keyed
        ? ["forbidden", "rate-limited", "limits-unavailable", "ledger-unavailable", "audit-unavailable"]
        : ["rate-limited", "limits-unavailable", "ledger-unavailable", "audit-unavailable"],
    });
  }
  const problems = keyed
    ? (["forbidden", "rate-limited", "limits-unavailable", "data-unverified", "audit-unavailable"] as const)
    : (["rate-limited", "limits-unavailable", "data-unverified", "audit-unavailable"] as const);
  const fileProblems = [...problems, "range-not-satisfiable"] as const;
  if (file.filteredExport) {
    const ok: ResponseSpec = {
      description: "The matching rows: a JSON array (one row per line) or CSV with the published header",
      headers: EXPORT_HEADERS,
      content: {
        "application/json": jsonContent({
          type: "array",
          items: { $ref: `${SCHEMA_BASE_URI}${file.area}/audit-trail-row.schema.json` },
        }),
        "text/csv": { schema: text("CSV: timestamp,event_type,agent,data,attestation_hash") },
      },
    };
    return defineRoute({
      method: "get",
      path: file.path,
      tags: [AREA_TAGS[file.area]!],
      summary: "The audit trail, filtered",
      description: `The published audit trail filtered as it streams. Without a query: the published \`ledger/export.json\`, byte for byte.\n\n${explain(file)}`,
      security: security(file),
      request: { query: ExportQuery },
      responses: { 200: ok, 304: notModified(EXPORT_HEADERS) },
      problems,
    });
  }
  return defineRoute({
    method: "get",
    path: file.path,
    tags: [AREA_TAGS[file.area]!],
    summary: file.title ?? file.path,
    description: explain(file),
    security: security(file),
    responses: {
      200: { description: file.title ?? "The file", headers: FILE_HEADERS, content: content(file) },
      206: {
        description: "One byte range of the file (`Range: bytes=…`), of its identity bytes",
        headers: RANGE_HEADERS,
        content: { [file.file.mediatype]: { schema: text("A part of the file") } },
      },
      304: notModified(FILE_HEADERS),
    },
    problems: fileProblems,
  });
}

/** One declared route per served area path, each answered by `handler` (api/routes/areas.ts). */
export function areaFileRoutes(dataDir: string, handler: MiddlewareHandler): RouteGroup {
  const routes = routeGroup();
  for (const file of servedAreaFiles(dataDir)) {
    addRoute(routes, fileRoute(file), async (c) => {
      // The handler answers every path it listed; a manifest changed since start-up may drop one.
      const answer = await handler(c, async () => {});
      return answer instanceof Response
        ? answer
        : problem(c, "not-found", `${file.path} is no longer listed in its manifest.`);
    });
  }
  return routes;
}
