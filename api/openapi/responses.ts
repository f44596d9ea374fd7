/**
 * The parts a route declaration describes its responses with (api/openapi/route.ts): the response header
 * fields the API sends, success responses in one call (`json`, `body`, `notModified`), and the
 * problem+json responses of a list of problem types, grouped by status, each with its `type` URIs
 * and extension members. What is written here is what /openapi.json says and what the contract
 * check holds every response to, so it describes the fields exactly as the code sends them.
 */
import { z } from "@hono/zod-openapi";
import { examples } from "../../core/schemas/examples.ts";
import { publishedSchemas } from "../../core/schemas/index.ts";
import { CONSENSUS_PROBLEM_EXTENSIONS } from "../problems/consensus.ts";
import { VALID_INSTANCE_ID } from "../middleware/request-log.ts";
import { PROBLEM_CONTENT_TYPE, PROBLEM_TYPES, problemType, type ProblemSlug } from "../problems/problem.ts";

// ---------------------------------------------------------------------------------------------
// Named schemas: each appears once under components/schemas and is referenced from every use.

const components = new Map<string, { source: z.ZodType; named: z.ZodType }>();

/**
 * `schema` named `id` in the document: one `$ref`able component however often it is used, with
 * its example (JSON Schema `examples`) stated once.
 */
export function component<S extends z.ZodType>(id: string, schema: S, example?: unknown): S {
  const known = components.get(id);
  if (known) {
    if (known.source !== schema) throw new Error(`two different schemas are named ${id} in the API description`);
    return known.named as S;
  }
  const named = schema.meta(example === undefined ? { id } : { id, examples: [example] }) as S;
  components.set(id, { source: schema, named });
  return named;
}

type Registry = typeof publishedSchemas;

/** A published record's schema (core/schemas), as the component of its registry name, with its sample. */
export function published(name: keyof Registry): MediaSpec {
  const schema: z.ZodType = publishedSchemas[name];
  return { schema: component(name.replace("/", "."), schema, examples[name]) };
}

/** An OpenAPI header object. */
export interface HeaderSpec {
  description: string;
  required: boolean;
  schema: { type: "string" | "integer"; pattern?: string; minimum?: number };
}

/** Every response header field the routes declare, by name. */
export const HEADERS = {
  ETag: {
    description:
      "Strong entity tag of the representation: the quoted hex SHA-256 of the identity bytes, with `.br` or `.gz` appended for an encoded variant; send it back in `If-None-Match` to get 304.",
    required: true,
    schema: { type: "string", pattern: '^"[0-9a-f]{64}(\\.(br|gz))?"$' },
  },
  "Last-Modified": {
    description:
      "When this version of the file was published (its area manifest's `created`); send it back in `If-Modified-Since` to get 304.",
    required: false,
    schema: { type: "string" },
  },
  "Content-Length": {
    description: "The length of the body (of the encoded body when `Content-Encoding` is sent); also on HEAD.",
    required: false,
    schema: { type: "integer", minimum: 0 },
  },
  "Content-Encoding": {
    description: "`br` or `gzip`, as negotiated from `Accept-Encoding` for text files; absent for the identity bytes.",
    required: false,
    schema: { type: "string", pattern: "^(br|gzip)$" },
  },
  "Accept-Ranges": {
    description: "`bytes`: one byte range may be asked for with `Range` (206).",
    required: true,
    schema: { type: "string", pattern: "^bytes$" },
  },
  "Content-Range": {
    description: "The range sent (`bytes <first>-<last>/<size>`), or on 416 the size (`bytes */<size>`).",
    required: true,
    schema: { type: "string", pattern: "^bytes ([0-9]+-[0-9]+|\\*)/[0-9]+$" },
  },
  "Cache-Control": {
    description: "How long shared and private caches may reuse the response.",
    required: true,
    schema: { type: "string" },
  },
  Vary: {
    description: "The request fields the representation depends on.",
    required: true,
    schema: { type: "string" },
  },
  Link: {
    description:
      'RFC 8288 links: the next page of a paged list (`</v1/pulse/history?limit=N&before=<id>>; rel="next"`, absent on the last page); the successor of a deprecated or retired interface version (`</v2/balance/{address}>; rel="successor-version"`).',
    required: false,
    schema: { type: "string" },
  },
  Deprecation: {
    description:
      "RFC 9745: the interface version is deprecated since this instant (a structured-field Date, `@<seconds since the epoch>`).",
    required: false,
    schema: { type: "string", pattern: "^@-?[0-9]{1,15}$" },
  },
  Sunset: {
    description: "RFC 8594: the instant (an HTTP-date) from which the interface version stops answering.",
    required: false,
    schema: {
      type: "string",
      pattern:
        "^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), [0-9]{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT$",
    },
  },
  "X-Limit-Clamped": {
    description: "Present when the requested `limit` was above the maximum: the limit applied.",
    required: false,
    schema: { type: "string", pattern: "^[0-9]+$" },
  },
  "RateLimit-Policy": {
    description:
      'The daily quota of this client in this area (IETF RateLimit fields): `"daily";q=<requests>;w=86400`. Absent for unlimited tiers.',
    required: false,
    schema: { type: "string", pattern: '^"daily";q=[0-9]+;w=86400$' },
  },
  RateLimit: {
    description:
      'What is left of the quota: `"daily";r=<remaining>;t=<seconds until 00:00 UTC>`. Absent for unlimited tiers.',
    required: false,
    schema: { type: "string", pattern: '^"daily";r=[0-9]+;t=[0-9]+$' },
  },
  "Retry-After": {
    description:
      "Seconds to wait before asking again: until the quota resets at 00:00 UTC (429), until the server's next scheduled checkpoint may cover the entry (202 of a ledger inclusion proof), and on every 503, whatever its type (a store back, a lock released, a file republished: by default 2 s).",
    required: true,
    schema: { type: "integer", minimum: 1 },
  },
  "WWW-Authenticate": {
    description: 'The scheme to authenticate with: `Bearer realm="integrity-platform"`.',
    required: true,
    schema: { type: "string" },
  },
  Allow: { description: "The methods the path has.", required: true, schema: { type: "string" } },
  "Instance-Id": {
    description:
      "Which of the N instances behind a load balancer answered: its configured `INSTANCE_ID` (the `instance` of its log lines). Sent on every response by an instance that has one; absent on a server without one.",
    required: false,
    schema: { type: "string", pattern: VALID_INSTANCE_ID.source },
  },
  "Ledger-Seq": {
    description:
      "The ledger sequence number of the entry that records the outcome: for POST /avm/verify the `avm.grant` of a success or the `avm.attempt` of a failure, for every other write the first entry it appended; `GET /ledger/entries/{seq}/inclusion` proves it is in the ledger.",
    required: true,
    schema: { type: "integer", minimum: 0 },
  },
} as const satisfies Record<string, HeaderSpec>;

export type HeaderName = keyof typeof HEADERS;

/** A header field of a response: a reference to its one definition under components/headers. */
export type HeaderRef = { $ref: `#/components/headers/${HeaderName}` };

/** The header fields of a response, by name (each is required or not as HEADERS says). */
export function headers(...names: HeaderName[]): Record<string, HeaderRef> {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

export interface ResponseSpec {
  description: string;
  headers?: Record<string, HeaderRef>;
  content?: Record<string, MediaSpec>;
}

/** A JSON response: `application/json` with its schema (and an example for the reference page). */
export function json(
  description: string,
  schema: z.ZodType,
  options: { headers?: Record<string, HeaderRef>; example?: unknown } = {},
): ResponseSpec {
  return {
    description,
    ...(options.headers ? { headers: options.headers } : {}),
    content: { "application/json": { schema, ...(options.example !== undefined ? { example: options.example } : {}) } },
  };
}

/** A media type's schema, with an example for the reference page. */
export interface MediaSpec {
  schema: z.ZodType;
  example?: unknown;
}

/** A response with one or more media types, each with its schema (and example). */
export function body(
  description: string,
  content: Record<string, z.ZodType | MediaSpec>,
  responseHeaders?: Record<string, HeaderRef>,
): ResponseSpec {
  return {
    description,
    ...(responseHeaders ? { headers: responseHeaders } : {}),
    content: Object.fromEntries(
      Object.entries(content).map(([type, spec]) => [type, spec instanceof z.ZodType ? { schema: spec } : spec]),
    ),
  };
}

/** 304 for a matching `If-None-Match`: no body, the same caching headers. */
export function notModified(responseHeaders: Record<string, HeaderRef>): ResponseSpec {
  return {
    description:
      "Not modified: `If-None-Match` matched the current ETag (or, without it, `If-Modified-Since` is not before `Last-Modified`). No body.",
    headers: responseHeaders,
  };
}

/** Text without a JSON shape (SVG, CSV, BibTeX), described by its media type. */
export const text = (description: string) => z.string().openapi({ description });

// ---------------------------------------------------------------------------------------------
// Problems

const InvalidParam = z.object({ name: z.string(), reason: z.string() });

/** The extension members each problem type carries (RFC 9457 §3.2). */
const PROBLEM_EXTENSIONS: Partial<Record<ProblemSlug, Record<string, z.ZodType>>> = {
  "invalid-query": { invalid_params: z.array(InvalidParam).min(1) },
  "bad-request": {
    invalid_params: z.array(InvalidParam.extend({ in: z.enum(["path", "header", "cookie"]) })).optional(),
  },
  "invalid-body": { invalid_fields: z.array(z.object({ pointer: z.string(), reason: z.string() })).optional() },
  "payload-too-large": { max_bytes: z.number().int().positive() },
  "internal-error": { request_id: z.string() },
  "history-unverified": { line: z.number().int().nonnegative(), problem: z.string() },
  gone: {
    successor: z.string().openapi({ description: "The path of the successor version" }),
    historical: z.string().optional().openapi({ description: "Where the retired version's data stays readable" }),
  },
  ...CONSENSUS_PROBLEM_EXTENSIONS,
};

/** Response headers that come with a problem type. */
const PROBLEM_HEADERS: Partial<Record<ProblemSlug, Record<string, HeaderRef>>> = {
  unauthorized: headers("WWW-Authenticate", "RateLimit-Policy", "RateLimit"),
  forbidden: headers("RateLimit-Policy", "RateLimit"),
  "rate-limited": headers("Retry-After", "RateLimit-Policy", "RateLimit"),
  "data-unverified": headers("Retry-After", "RateLimit-Policy", "RateLimit"),
  "ledger-unavailable": headers("Retry-After", "RateLimit-Policy", "RateLimit", "Instance-Id"),
  "limits-unavailable": headers("Retry-After", "Instance-Id"),
  "audit-unavailable": headers("Retry-After"),
  "authority-unavailable": headers("Retry-After"),
  "signing-unavailable": headers("Retry-After"),
  "history-unverified": headers("Retry-After"),
  "range-not-satisfiable": headers("Content-Range", "RateLimit-Policy", "RateLimit"),
  gone: headers("Link"),
};

/** The schema of one problem type: its URI, title and status, and its extension members (component `problem.<slug>`). */
export function problemSchema(slug: ProblemSlug): z.ZodType {
  const { status, title } = PROBLEM_TYPES[slug];
  const schema = z.looseObject({
    type: z.literal(problemType(slug)).openapi({ description: "Stable URI of the problem type" }),
    title: z.literal(title),
    status: z.literal(status),
    detail: z.string().openapi({ description: "What went wrong in this request" }),
    instance: z.string().openapi({ description: "The request path" }),
    ...PROBLEM_EXTENSIONS[slug],
  });
  const known = components.get(`problem.${slug}`);
  return known ? known.named : component(`problem.${slug}`, schema);
}

/** The problem responses of `slugs`, one per status, keyed by status. */
export function problemResponses(slugs: Iterable<ProblemSlug>): Record<number, ResponseSpec> {
  const byStatus = new Map<number, ProblemSlug[]>();
  for (const slug of new Set(slugs)) {
    const status = PROBLEM_TYPES[slug].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), slug]);
  }
  const out: Record<number, ResponseSpec> = {};
  for (const [status, group] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const sorted = [...group].sort();
    const groupHeaders = Object.assign({}, ...sorted.map((s) => PROBLEM_HEADERS[s] ?? {})) as Record<string, HeaderRef>;
    out[status] = {
      description: sorted.map((s) => `\`${s}\`: ${PROBLEM_TYPES[s].title}`).join("; "),
      ...(Object.keys(groupHeaders).length > 0 ? { headers: groupHeaders } : {}),
      content: {
        [PROBLEM_CONTENT_TYPE]: {
          schema:
            sorted.length === 1
              ? problemSchema(sorted[0]!)
              : z.union(sorted.map(problemSchema) as [z.ZodType, z.ZodType, ...z.ZodType[]]),
        },
      },
    };
  }
  return out;
}

/**
 * Any problem the server answers: what unmatched paths and requests refused before routing get
 * (the contract check holds those to it). `about:blank` is RFC 9457's type for a status without
 * a type of its own.
 */
export const AnyProblem = z.looseObject({
  type: z.union([
    z.enum(Object.keys(PROBLEM_TYPES).map((s) => problemType(s as ProblemSlug)) as [string, ...string[]]),
    z.literal("about:blank"),
  ]),
  title: z.string(),
  status: z.number().int().min(400).max(599),
  detail: z.string(),
  instance: z.string(),
});
