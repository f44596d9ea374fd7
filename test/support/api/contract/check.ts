/**
 * The contract check (tests only): does a response the app gave match what its /openapi.json
 * says? For the operation of the request's method and path, the status must be documented, the
 * media type one of that status's, a JSON body valid against its schema (ajv, JSON Schema
 * 2020-12, the dialect of OpenAPI 3.1), and every required header field present and valid.
 * A request no operation describes (unknown path, other method, preflight, the static site) may
 * get anything but an error that is not a problem: errors are problem+json (or, for a browser,
 * the site's HTML 404 page).
 */
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { prefersHtml } from "../../../../api/http/negotiate.ts";
import type { OpenApiDocument } from "../../../../api/openapi/document.ts";
import { PROBLEM_CONTENT_TYPE } from "../../../../api/problems/problem.ts";
import type { Exchange } from "../../../../api/openapi/response-observer.ts";
import { AnyProblem } from "../../../../api/openapi/responses.ts";
import { z } from "@hono/zod-openapi";

type Json = Record<string, unknown>;
interface Operation {
  path: string;
  method: string;
  pointer: string;
  responses: Json;
}

const DOCUMENT_ID = "https://integrity-platform.example/openapi.json";
const ANY_PROBLEM_ID = "https://integrity-platform.example/problem.json";

function escapePointer(segment: string): string {
  return segment.replaceAll("~", "~0").replaceAll("/", "~1");
}

/** The checks of one document: its operations and compiled schemas. */
class DocumentContract {
  readonly #doc: OpenApiDocument;
  readonly #ajv: Ajv2020;
  readonly #operations: { match: RegExp; params: number; operation: Operation }[] = [];
  readonly #compiled = new Map<string, ValidateFunction>();

  constructor(doc: OpenApiDocument) {
    this.#doc = doc;
    this.#ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(this.#ajv);
    this.#ajv.addFormat("binary", true);
    this.#ajv.addSchema({ ...(structuredClone(doc) as unknown as Json), $id: DOCUMENT_ID });
    this.#ajv.addSchema({ ...(z.toJSONSchema(AnyProblem, { target: "draft-2020-12" }) as Json), $id: ANY_PROBLEM_ID });
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      for (const [method, operation] of Object.entries(item as Json)) {
        if (!["get", "put", "post", "delete", "patch", "head", "options"].includes(method)) continue;
        const params = (path.match(/\{[^}]+\}/g) ?? []).length;
        const source = path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{[^}]+\\?\}/g, "[^/]+");
        this.#operations.push({
          match: new RegExp(`^${source}$`),
          params,
          operation: {
            path,
            method,
            pointer: `#/paths/${escapePointer(path)}/${method}`,
            responses: (operation as Json).responses as Json,
          },
        });
      }
    }
    this.#operations.sort((a, b) => a.params - b.params);
  }

  #validator(pointer: string): ValidateFunction {
    let validate = this.#compiled.get(pointer);
    if (!validate) {
      validate = this.#ajv.compile({ $ref: pointer.startsWith("#") ? `${DOCUMENT_ID}${pointer}` : pointer });
      this.#compiled.set(pointer, validate);
    }
    return validate;
  }

  #resolve(node: unknown): Json {
    let current = node as Json;
    while (current && typeof current.$ref === "string") {
      const segments = (current.$ref as string)
        .replace(/^#\//, "")
        .split("/")
        .map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
      current = segments.reduce<unknown>((at, key) => (at as Json)[key], this.#doc) as Json;
    }
    return current;
  }

  operation(method: string, path: string): Operation | null {
    const wanted = method === "HEAD" ? "get" : method.toLowerCase();
    for (const { match, operation } of this.#operations)
      if (operation.method === wanted && match.test(path)) return operation;
    return null;
  }

  async check(exchange: Exchange): Promise<string[]> {
    const { response, method, path } = exchange;
    const where = `${method} ${path} → ${response.status}`;
    const type = response.headers.get("content-type") ?? "";
    const essence = type.split(";")[0]!.trim().toLowerCase();
    const text =
      method === "HEAD"
        ? ""
        : decoded(response.headers.get("content-encoding"), new Uint8Array(await response.arrayBuffer()));
    const operation = this.operation(method, path);
    if (!operation) {
      if (response.status < 400) return [];
      if (
        essence === "text/html" &&
        response.status === 404 &&
        prefersHtml(exchange.requestHeaders.get("accept") ?? undefined)
      )
        return [];
      if (essence !== PROBLEM_CONTENT_TYPE)
        return [`${where}: an error without a problem body (${type || "no content type"})`];
      return method === "HEAD" ? [] : this.#body(where, ANY_PROBLEM_ID, text);
    }
    const documented =
      operation.responses[String(response.status)] ??
      operation.responses[`${String(response.status)[0]}XX`] ??
      operation.responses.default;
    if (!documented)
      return [
        `${where}: status ${response.status} is not documented for ${operation.method.toUpperCase()} ${operation.path}`,
      ];
    const spec = this.#resolve(documented);
    const statusPointer = `${operation.pointer}/responses/${response.status}`;
    const problems: string[] = [];
    for (const [name, header] of Object.entries((spec.headers ?? {}) as Json)) {
      const definition = this.#resolve(header);
      const value = response.headers.get(name);
      if (value === null) {
        if (definition.required) problems.push(`${where}: required header ${name} is missing`);
        continue;
      }
      const schema = definition.schema as Json;
      const typed = schema.type === "integer" ? (/^-?\d+$/.test(value) ? Number(value) : value) : value;
      const validate = this.#ajv.compile(schema);
      if (!validate(typed))
        problems.push(`${where}: header ${name}: ${JSON.stringify(value)} ${this.#ajv.errorsText(validate.errors)}`);
    }
    const content = spec.content as Json | undefined;
    if (!content || response.status === 304 || response.status === 204) {
      if (text !== "") problems.push(`${where}: a body where none is documented`);
      return problems;
    }
    if (method === "HEAD") return problems;
    const media = Object.keys(content).find((m) => m === essence);
    if (!media)
      return [
        ...problems,
        `${where}: content type ${type || "(none)"} is not one of ${Object.keys(content).join(", ")}`,
      ];
    if (essence === "application/json" || essence.endsWith("+json")) {
      problems.push(...this.#body(where, `${statusPointer}/content/${escapePointer(media)}/schema`, text));
    }
    return problems;
  }

  #body(where: string, pointer: string, text: string): string[] {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return [`${where}: the body is not JSON`];
    }
    const validate = this.#validator(pointer);
    return validate(body)
      ? []
      : [`${where}: body does not match ${pointer}: ${this.#ajv.errorsText(validate.errors, { dataVar: "body" })}`];
  }
}

const contracts = new WeakMap<OpenApiDocument, DocumentContract>();
/**
 * Contracts by the document's text: most apps a run creates describe themselves identically, and
 * building a contract (an ajv instance, the document added, its schemas compiled as they are
 * used) for each of them was CPU time the suite spent again and again on the same document.
 */
const byText = new Map<string, DocumentContract>();

function contractFor(doc: OpenApiDocument): DocumentContract {
  let contract = contracts.get(doc);
  if (!contract) {
    const text = JSON.stringify(doc);
    contract = byText.get(text) ?? new DocumentContract(doc);
    byText.set(text, contract);
    contracts.set(doc, contract);
  }
  return contract;
}

/** What is wrong with one exchange against its app's document (nothing: an empty list). */
export async function checkExchange(exchange: Exchange): Promise<string[]> {
  return contractFor(exchange.document()).check(exchange);
}

/** The contract of a document, for tests that look up operations. */
export function contractOf(doc: OpenApiDocument): { operation(method: string, path: string): Operation | null } {
  return contractFor(doc);
}

/** The body as text, decoded from the content coding the server chose (the schema is of the identity bytes). */
function decoded(coding: string | null, bytes: Uint8Array): string {
  const identity = coding === "br" ? brotliDecompressSync(bytes) : coding === "gzip" ? gunzipSync(bytes) : bytes;
  return new TextDecoder().decode(identity);
}
