/**
 * The API reference page's model: the generated OpenAPI 3.1 document turned into what /docs
 * shows for people — every operation grouped by tag, with its parameters, the key it needs, its
 * responses, an example request (curl) and an example response (the status line, the header
 * fields and a body from the declared example or, failing that, one built from the schema): the
 * success, or the response `x-example-status` names (what a retired operation answers now).
 * Pure functions of the document: the same document gives the same page.
 */

export type Json = Record<string, unknown>;
export interface OpenApi {
  openapi: string;
  info: { title: string; version: string; description?: string };
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, Json>>;
  components?: {
    schemas?: Record<string, Json>;
    headers?: Record<string, Json>;
    securitySchemes?: Record<string, Json>;
  };
}

export interface ParameterView {
  name: string;
  where: string;
  required: boolean;
  type: string;
  description: string;
}

export interface ResponseView {
  status: string;
  description: string;
  mediaTypes: string[];
  headers: { name: string; required: boolean }[];
}

export interface OperationView {
  id: string;
  method: string;
  path: string;
  summary: string;
  description: string;
  /** Alternatives, each a list of scheme names; an empty alternative means "no key". */
  security: string[][];
  parameters: ParameterView[];
  requestBody: { mediaType: string; example: string } | null;
  responses: ResponseView[];
  requestExample: string;
  responseExample: string;
  errorExample: string | null;
  /** The JSON Schema of the success body, pretty-printed (references by component name); `shownAt`: the operation that shows it first. */
  schema: { name: string; text: string; shownAt: string | null } | null;
}

export interface TagView {
  name: string;
  /** The tag's page: /docs/<slug>/. */
  slug: string;
  description: string;
  operations: OperationView[];
}

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];
const REASONS: Record<string, string> = {
  "200": "OK",
  "201": "Created",
  "204": "No Content",
  "304": "Not Modified",
  "400": "Bad Request",
  "401": "Unauthorized",
  "403": "Forbidden",
  "404": "Not Found",
  "410": "Gone",
  "405": "Method Not Allowed",
  "413": "Content Too Large",
  "415": "Unsupported Media Type",
  "429": "Too Many Requests",
  "500": "Internal Server Error",
  "503": "Service Unavailable",
};
/** Values shown for header fields in example responses. */
const HEADER_EXAMPLES: Record<string, string> = {
  ETag: '"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"',
  "Cache-Control": "public, max-age=300",
  Vary: "Accept",
  Link: '</v1/pulse/history?limit=90&before=0b9f6a2e-1c3d-4e5f-8a7b-9c0d1e2f3a4b>; rel="next"',
  "X-Limit-Clamped": "365",
  "RateLimit-Policy": '"daily";q=100;w=86400',
  RateLimit: '"daily";r=99;t=3600',
  "Retry-After": "3600",
  "WWW-Authenticate": 'Bearer realm="integrity-platform"',
};

function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
}

/** The small Markdown the descriptions use: paragraphs, `- ` lists, `code` and **bold**, as safe HTML. */
export function markdownHtml(text: string): string {
  const inline = (line: string) =>
    escapeHtml(line)
      .replace(/`([^`]+)`/g, "<code>$1</code>")
      .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>");
  return text
    .split(/\n{2,}/)
    .map((block) => {
      const lines = block.split("\n");
      if (lines.every((l) => l.startsWith("- ")))
        return `<ul>${lines.map((l) => `<li>${inline(l.slice(2))}</li>`).join("")}</ul>`;
      return `<p>${inline(block)}</p>`;
    })
    .join("");
}

function resolve(doc: OpenApi, node: unknown): Json {
  let current = (node ?? {}) as Json;
  for (let depth = 0; typeof current.$ref === "string" && depth < 20; depth++) {
    const segments = (current.$ref as string)
      .replace(/^#\//, "")
      .split("/")
      .map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
    current = segments.reduce<unknown>((at, key) => (at as Json | undefined)?.[key], doc) as Json;
  }
  return current ?? {};
}

/** A value that fits `schema`, for examples where none is declared. */
export function exampleOf(doc: OpenApi, schema: unknown, depth = 0): unknown {
  const s = resolve(doc, schema);
  if (depth > 8) return null;
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if ("example" in s) return s.example;
  if ("const" in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  for (const key of ["anyOf", "oneOf", "allOf"])
    if (Array.isArray(s[key])) return exampleOf(doc, (s[key] as unknown[])[0], depth + 1);
  const type = Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== "null") : (s.type as string | undefined);
  switch (type) {
    case "object": {
      const out: Json = {};
      const properties = (s.properties ?? {}) as Record<string, unknown>;
      const required = new Set((s.required as string[] | undefined) ?? Object.keys(properties));
      for (const [name, property] of Object.entries(properties))
        if (required.has(name)) out[name] = exampleOf(doc, property, depth + 1);
      return out;
    }
    case "array":
      return [exampleOf(doc, s.items, depth + 1)];
    case "integer":
    case "number":
      return typeof s.minimum === "number" ? s.minimum : 0;
    case "boolean":
      return true;
    case "string":
      return (
        {
          "date-time": "2026-01-01T00:00:00.000Z",
          date: "2026-01-01",
          uuid: "0b9f6a2e-1c3d-4e5f-8a7b-9c0d1e2f3a4b",
          uri: "https://integrity-platform.example/",
        }[s.format as string] ?? "…"
      );
    default:
      return null;
  }
}

function typeOf(doc: OpenApi, schema: unknown): string {
  const s = resolve(doc, schema);
  if (Array.isArray(s.enum)) return (s.enum as unknown[]).map((v) => JSON.stringify(v)).join(" | ");
  const parts = [String(s.type ?? "any")];
  if (s.format) parts.push(`(${String(s.format)})`);
  if (s.pattern) parts.push(`matching ${String(s.pattern)}`);
  return parts.join(" ");
}

function queryExample(doc: OpenApi, parameters: Json[]): string {
  const pairs: string[] = [];
  for (const parameter of parameters) {
    if (parameter.in !== "query") continue;
    const schema = resolve(doc, parameter.schema);
    const value =
      schema.example ??
      parameter.example ??
      (Array.isArray(schema.enum) ? schema.enum[0] : parameter.required ? exampleOf(doc, schema) : undefined);
    if (value !== undefined)
      pairs.push(
        `${encodeURIComponent(String(parameter.name))}=${encodeURIComponent(String(value)).replaceAll("%3A", ":").replaceAll("%2C", ",")}`,
      );
  }
  return pairs.length > 0 ? `?${pairs.join("&")}` : "";
}

/** The path with each `{name}` filled by its parameter's example, so the command runs as shown. */
function pathExample(doc: OpenApi, path: string, parameters: Json[]): string {
  return path.replace(/\{([^}]+)\}/g, (template, name: string) => {
    const parameter = parameters.find((p) => p.in === "path" && p.name === name);
    if (!parameter) return template;
    const schema = resolve(doc, parameter.schema);
    return encodeURIComponent(String(parameter.example ?? schema.example ?? exampleOf(doc, schema)));
  });
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

function pretty(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

function bodyText(doc: OpenApi, mediaType: string, media: Json): string {
  if (mediaType === "application/json" || mediaType.endsWith("+json")) {
    const example = "example" in media ? media.example : exampleOf(doc, media.schema);
    return pretty(example);
  }
  const schema = resolve(doc, media.schema);
  return `(${mediaType}${schema.description ? `: ${String(schema.description)}` : ""})`;
}

function responseMessage(doc: OpenApi, status: string, response: Json): string {
  const lines = [`HTTP/1.1 ${status} ${REASONS[status] ?? ""}`.trimEnd()];
  const content = (response.content ?? {}) as Record<string, Json>;
  const [mediaType, media] = Object.entries(content)[0] ?? [];
  if (mediaType)
    lines.push(
      `Content-Type: ${mediaType}${mediaType.startsWith("text/") || mediaType === "application/json" ? "; charset=utf-8" : ""}`,
    );
  for (const [name, header] of Object.entries((response.headers ?? {}) as Json)) {
    const definition = resolve(doc, header);
    if (definition.required || name.startsWith("RateLimit")) lines.push(`${name}: ${HEADER_EXAMPLES[name] ?? "…"}`);
  }
  return mediaType && media ? `${lines.join("\n")}\n\n${bodyText(doc, mediaType, media)}` : lines.join("\n");
}

/** The problem of the operation's most specific error (not the ones every route has). */
function errorMessage(doc: OpenApi, path: string, responses: Json): string | null {
  const common = new Set(["400", "413", "500"]);
  const statuses = Object.keys(responses).filter((s) => Number(s) >= 400);
  const status = statuses.find((s) => !common.has(s)) ?? statuses[0];
  if (!status) return null;
  const response = resolve(doc, responses[status]);
  const media = ((response.content ?? {}) as Record<string, Json>)["application/problem+json"];
  if (!media) return null;
  const schema = resolve(doc, media.schema);
  const one = Array.isArray(schema.anyOf) ? (schema.anyOf as unknown[])[0] : media.schema;
  const problem = exampleOf(doc, one) as Json;
  problem.instance = path;
  problem.detail = String(response.description ?? "").replace(/^`[^`]+`: /, "");
  return responseMessage(doc, status, { ...response, content: { "application/problem+json": { example: problem } } });
}

function curl(doc: OpenApi, base: string, method: string, path: string, operation: Json): string {
  const parameters = ((operation.parameters ?? []) as Json[]).map((p) => resolve(doc, p));
  const parts = ["curl -i"];
  if (method !== "get") parts.push(`-X ${method.toUpperCase()}`);
  const security = (operation.security ?? []) as Json[];
  if (security.length > 0 && !security.some((r) => Object.keys(r).length === 0))
    parts.push(`-H ${shellQuote("Authorization: Bearer <key>")}`);
  const body = ((operation.requestBody as Json | undefined)?.content ?? null) as Record<string, Json> | null;
  if (body) {
    const [mediaType, media] = Object.entries(body)[0]!;
    parts.push(
      `-H ${shellQuote(`Content-Type: ${mediaType}`)}`,
      `--data ${shellQuote(JSON.stringify("example" in media ? media.example : exampleOf(doc, media.schema)))}`,
    );
  }
  parts.push(shellQuote(`${base}${pathExample(doc, path, parameters)}${queryExample(doc, parameters)}`));
  return parts.join(" \\\n  ");
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}

/** The page's model of `doc`; `base` is the origin the examples call. */
export function apiReference(doc: OpenApi, base: string): { tags: TagView[]; operations: OperationView[] } {
  const operations: (OperationView & { tag: string })[] = [];
  const schemaShownAt = new Map<string, string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const operation = item[method] as Json | undefined;
      if (!operation) continue;
      const responses = (operation.responses ?? {}) as Json;
      const parameters = ((operation.parameters ?? []) as Json[]).map((p) => resolve(doc, p));
      // A route that creates shows what it created (201), not a 200 it also answers (JSON keys sort numerically).
      const success =
        ("201" in responses ? "201" : Object.keys(responses).find((s) => s.startsWith("2"))) ??
        Object.keys(responses)[0]!;
      const successResponse = resolve(doc, responses[success]);
      // The example shows the answer the operation gives now: `x-example-status` (a retired operation's 410), else its success.
      const shown =
        typeof operation["x-example-status"] === "string" && operation["x-example-status"] in responses
          ? operation["x-example-status"]
          : success;
      const json = ((successResponse.content ?? {}) as Record<string, Json>)["application/json"];
      const ref = json ? ((json.schema as Json).$ref as string | undefined) : undefined;
      const body = ((operation.requestBody as Json | undefined)?.content ?? null) as Record<string, Json> | null;
      operations.push({
        id: typeof operation.operationId === "string" ? operation.operationId : `${method}-${slug(path)}`,
        tag: ((operation.tags as string[] | undefined) ?? ["Other"])[0]!,
        method: method.toUpperCase(),
        path,
        summary: String(operation.summary ?? ""),
        description: markdownHtml(String(operation.description ?? "")),
        security: ((operation.security ?? []) as Json[]).map((r) => Object.keys(r)),
        parameters: parameters.map((p) => ({
          name: String(p.name),
          where: String(p.in),
          required: p.required === true,
          type: typeOf(doc, p.schema),
          description: String(p.description ?? resolve(doc, p.schema).description ?? ""),
        })),
        requestBody: body
          ? { mediaType: Object.keys(body)[0]!, example: bodyText(doc, Object.keys(body)[0]!, Object.values(body)[0]!) }
          : null,
        responses: Object.entries(responses).map(([status, response]) => {
          const r = resolve(doc, response);
          return {
            status,
            description: markdownHtml(String(r.description ?? "")),
            mediaTypes: Object.keys((r.content ?? {}) as Json),
            headers: Object.entries((r.headers ?? {}) as Json).map(([name, h]) => ({
              name,
              required: resolve(doc, h).required === true,
            })),
          };
        }),
        requestExample: curl(doc, base, method, path, operation),
        responseExample: responseMessage(doc, shown, resolve(doc, responses[shown])),
        errorExample: errorMessage(doc, path, responses),
        schema: json
          ? {
              name: ref ? ref.split("/").pop()! : "inline",
              text: pretty(ref ? resolve(doc, json.schema) : json.schema),
              shownAt: ref ? (schemaShownAt.get(ref) ?? null) : null,
            }
          : null,
      });
      if (ref && !schemaShownAt.has(ref)) schemaShownAt.set(ref, operations.at(-1)!.id);
    }
  }
  const tagNames = [...(doc.tags ?? []).map((t) => t.name), ...operations.map((o) => o.tag)];
  const tags = [...new Set(tagNames)]
    .map((name) => ({
      name,
      slug: slug(name),
      description: (doc.tags ?? []).find((t) => t.name === name)?.description ?? "",
      operations: operations.filter((o) => o.tag === name),
    }))
    .filter((t) => t.operations.length > 0);
  return { tags, operations };
}

/** The page of a tag that shows an operation, and the anchor on it (schemas are shown once per page). */
export function operationHref(tags: TagView[], id: string): string {
  const tag = tags.find((t) => t.operations.some((o) => o.id === id));
  return tag ? `/docs/${tag.slug}/#${id}` : `#${id}`;
}

export interface ProblemTypeView {
  slug: string;
  status: number;
  title: string;
  type: string;
}

/** The problem types the routes declare (components `problem.<slug>`), by status then slug. */
export function problemTypes(doc: OpenApi): ProblemTypeView[] {
  // A literal is written as `const` or as a one-value `enum`, depending on the generator.
  const constOf = (schema: Json | undefined) => {
    const s = schema as { const?: unknown; enum?: unknown[] } | undefined;
    return s?.const ?? (s?.enum?.length === 1 ? s.enum[0] : undefined);
  };
  return Object.entries(doc.components?.schemas ?? {})
    .filter(([name]) => name.startsWith("problem."))
    .map(([name, schema]) => {
      const properties = (schema.properties ?? {}) as Record<string, Json>;
      return {
        slug: name.slice("problem.".length),
        status: Number(constOf(properties.status)),
        title: String(constOf(properties.title) ?? ""),
        type: String(constOf(properties.type) ?? ""),
      };
    })
    .sort((a, b) => a.status - b.status || a.slug.localeCompare(b.slug));
}

/** The security schemes, for the authentication section. */
export function securitySchemes(doc: OpenApi): { name: string; description: string }[] {
  return Object.entries(doc.components?.securitySchemes ?? {}).map(([name, scheme]) => ({
    name,
    description: markdownHtml(String(scheme.description ?? "")),
  }));
}
