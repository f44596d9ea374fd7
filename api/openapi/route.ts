/**
 * How every HTTP route is declared: once, with its request and every response, so that one
 * declaration both validates the request and describes the route in /openapi.json
 * (@hono/zod-openapi). The declaration adds what no route may forget: a strict query, the problem
 * responses its request implies, and validation failures answered as those problems. Use:
 * docs/api.md "How to add a route".
 *
 *   const route = defineRoute({ method, path, summary, tags, request, responses, problems, security });
 *   addRoute(app, route, (c) => { const query = c.req.valid("query"); … return response; });
 */
import { OpenAPIHono, type RouteConfig, type RouteHandler, z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { jsonBodyProblem } from "../../core/json-body.ts";
import { MAX_JSON_DEPTH, scanJson } from "../../core/json-depth.ts";
import { ANY_HOST_PATHS } from "../middleware/host.ts";
import type { LogVariables } from "../middleware/request-log.ts";
import type { ClientVariables } from "../clients/client.ts";
import {
  problem,
  PROBLEM_CONTENT_TYPE,
  type InvalidParam,
  type ProblemDetails,
  type ProblemSlug,
} from "../problems/problem.ts";
import { invalidQuery, queryIssues } from "../http/query.ts";
import { problemResponses, type ResponseSpec } from "./responses.ts";

export type AppEnv = { Variables: LogVariables & ClientVariables };

/** An app or a group of routes that declared routes are added to. */
export type RouteGroup = OpenAPIHono<AppEnv>;

export function routeGroup(): RouteGroup {
  return new OpenAPIHono<AppEnv>();
}

/** Methods that only read; every other method writes and is guarded against other origins (api/middleware/cors.ts). */
export const READ_METHODS: ReadonlySet<string> = new Set(["get", "head", "options"]);

/** A query that accepts no parameter: the default of every route. */
export const NoQuery = z.strictObject({});

export interface RouteDeclaration extends Omit<RouteConfig, "middleware" | "hide" | "responses"> {
  /** The success responses (and 304): `json(…)`, `body(…)`, `notModified(…)` from api/openapi/responses.ts. */
  responses: Record<number, ResponseSpec>;
  /** The problem types the handler itself answers, beyond those every route has (see above). */
  problems?: readonly ProblemSlug[];
  /**
   * The answer the route gives now when that is one of its problems (a retired operation's 410):
   * its example body, and its status as `x-example-status`, the example the API reference shows.
   */
  answersNow?: { status: number; example: ProblemDetails };
}

export type DeclaredRoute<D extends RouteDeclaration = RouteDeclaration> = Omit<D, "problems" | "responses"> & {
  responses: RouteConfig["responses"];
};

/** The problem types a route can answer without its handler saying so. */
function impliedProblems(declaration: RouteDeclaration): ProblemSlug[] {
  const slugs: ProblemSlug[] = ["invalid-query", "payload-too-large", "internal-error"];
  const request = declaration.request;
  // A body that is not JSON at all is `bad-request`; JSON that does not fit is `invalid-body`.
  if (request?.body) slugs.push("bad-request", "invalid-body", "unsupported-media-type");
  if (request?.params || request?.headers) slugs.push("bad-request");
  if (!READ_METHODS.has(declaration.method)) slugs.push("origin-not-allowed");
  if (!ANY_HOST_PATHS.has(declaration.path)) slugs.push("misdirected-request");
  const security = declaration.security;
  if (security && security.length > 0 && !security.some((requirement) => Object.keys(requirement).length === 0))
    slugs.push("unauthorized");
  return slugs;
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * JSON bodies are UTF-8 (RFC 8259 §8.1): anything else is 400 `bad-request`, never decoded with
 * replacement characters. They nest at most MAX_JSON_DEPTH deep (core/json-depth.ts, a linear
 * scan): deeper is 400 `invalid-body` before anything parses or walks the value, so nothing past
 * this point recurses on a depth the client chose. Runs before the body's validator, which then
 * parses the checked text. Valid JSON the ledger could not record as sent — a name given twice in
 * one object, a member named `__proto__`, a lone surrogate, a number beyond double range
 * (core/json-body.ts) — is 400 `invalid-body` here too, for every JSON route at once.
 */
const utf8Body: MiddlewareHandler = async (c, next) => {
  if (!/json/i.test(c.req.header("content-type") ?? "")) return next(); // other media types: the validator's 415
  let text: string;
  try {
    text = UTF8.decode(await c.req.arrayBuffer());
  } catch {
    return problem(c, "bad-request", "The body is not valid UTF-8 (RFC 8259 §8.1).");
  }
  const scan = scanJson(text);
  if (scan.tooDeep)
    return problem(c, "invalid-body", `The body nests arrays and objects more than ${MAX_JSON_DEPTH} deep.`, {
      extensions: { max_depth: MAX_JSON_DEPTH },
    });
  const odd = jsonBodyProblem(text, scan.members);
  if (odd)
    return problem(c, "invalid-body", `${odd.pointer || "the body"}: ${odd.reason}`, {
      extensions: { invalid_fields: [odd] },
    });
  (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(text); // what c.req.json() parses
  return next();
};

/** The route as @hono/zod-openapi registers it: strict query by default, every response listed. */
export function defineRoute<D extends RouteDeclaration>(declaration: D): DeclaredRoute<D> {
  const { problems = [], responses, answersNow, ...rest } = declaration;
  for (const status of Object.keys(responses)) {
    if (Number(status) >= 400)
      throw new Error(
        `${declaration.method.toUpperCase()} ${declaration.path}: declare error responses as problems, not as response ${status}`,
      );
  }
  const route = {
    ...rest,
    ...(rest.request?.body ? { middleware: [utf8Body] } : {}),
    request: { query: NoQuery, ...rest.request },
    responses: { ...responses, ...problemResponses([...impliedProblems(declaration), ...problems]) },
  };
  if (answersNow) {
    const media = (route.responses as Record<number, { content?: Record<string, object> } | undefined>)[
      answersNow.status
    ]?.content?.[PROBLEM_CONTENT_TYPE];
    if (!media)
      throw new Error(
        `${declaration.method.toUpperCase()} ${declaration.path}: answersNow ${answersNow.status} is not one of its problems`,
      );
    Object.assign(media, { example: answersNow.example });
    Object.assign(route, { "x-example-status": String(answersNow.status) });
  }
  return route as unknown as DeclaredRoute<D>;
}

/** The context a route's handler gets: `c.req.valid("query" | "param" | "header" | "json")` typed from its declaration. */
export type RouteContext<R extends RouteConfig> = Parameters<RouteHandler<R, AppEnv>>[0];

/**
 * The strict query of a route, validated synchronously before anything else of the route runs:
 * each parameter a string, or an array when repeated (which no query schema accepts), then the
 * route's `z.strictObject`. This is the one place query strings are checked (a query schema must
 * not be async). It replaces @hono/zod-openapi's query validator, whose await chain measurably
 * slowed the cheapest GETs (bench/api.ts).
 */
function strictQuery(schema: z.ZodType): MiddlewareHandler {
  // Most requests have no query string. When the schema accepts none and sets no defaults, such a
  // request's validated query is always {}: known after the first one, not parsed again.
  let noQueryIsEmpty: boolean | undefined;
  return function strictQuery(c, next) {
    if (!c.req.url.includes("?")) {
      if (noQueryIsEmpty === undefined) {
        const result = schema.safeParse(Object.create(null));
        noQueryIsEmpty = result.success && Object.keys(result.data as object).length === 0;
      }
      if (noQueryIsEmpty) {
        c.req.addValidatedData("query", {});
        return next();
      }
    }
    const all = c.req.queries();
    // No prototype: `?__proto__=1` is a parameter like any other, not a prototype to set.
    const input: Record<string, string | string[]> = Object.create(null);
    for (const name in all) {
      const values = all[name]!;
      input[name] = values.length > 1 ? values : values[0]!;
    }
    const result = schema.safeParse(input);
    if (!result.success) return Promise.resolve(invalidQuery(c, queryIssues(input, result.error.issues)));
    c.req.addValidatedData("query", result.data as Record<string, unknown>);
    return next();
  };
}

/**
 * The operationId of a route that declares none: its method and path in camel case, a path
 * parameter as `By<Name>` (`GET /avm/check/{ledger_id}` → `getAvmCheckByLedgerId`). Unique because
 * method and path are, and stable, so generated clients keep their method names.
 */
export function operationIdOf(method: string, path: string): string {
  const words = path
    .split("/")
    .filter(Boolean)
    .flatMap((segment) => {
      const parameter = /^\{(.+)\}$/.exec(segment);
      return parameter ? ["by", ...parameter[1]!.split(/[^A-Za-z0-9]+/)] : segment.split(/[^A-Za-z0-9]+/);
    })
    .filter(Boolean);
  return [method.toLowerCase(), ...words.map((w) => w[0]!.toUpperCase() + w.slice(1))].join("");
}

/** Adds a declared route to an app or group: its validators, then `handler`. */
export function addRoute<R extends DeclaredRoute>(
  group: RouteGroup,
  route: R,
  handler: (c: RouteContext<R>) => Response | Promise<Response>,
): void {
  // The description gets the whole route; routing gets the same route with the query checked by strictQuery.
  const { middleware: declared = [], ...declaration } = route as R & { middleware?: MiddlewareHandler[] };
  const described = {
    ...declaration,
    operationId: declaration.operationId ?? operationIdOf(declaration.method, declaration.path),
  };
  group.openAPIRegistry.registerPath(described);
  const { query, ...request } = route.request ?? {};
  const middleware = [strictQuery((query as z.ZodType | undefined) ?? NoQuery), ...declared];
  group.openapi({ ...route, hide: true, request, middleware } as never, handler as never, validationProblem as never);
}

type ValidationResult = { target: string; data: unknown } & ({ success: true } | { success: false; error: z.ZodError });

/** A JSON pointer (RFC 6901) to the field a zod issue is about. */
function pointer(path: readonly PropertyKey[]): string {
  return path.map((key) => `/${String(key).replaceAll("~", "~0").replaceAll("/", "~1")}`).join("");
}

/** The hook every declared route validates with: failures become problems, success passes. */
function validationProblem(result: ValidationResult, c: Context): Response | undefined {
  if (result.success) return undefined;
  const issues = result.error.issues;
  switch (result.target) {
    case "json": {
      const fields = issues.map((issue) =>
        issue.code === "unrecognized_keys"
          ? { pointer: pointer(issue.path), reason: `unknown field(s): ${issue.keys.join(", ")}` }
          : { pointer: pointer(issue.path), reason: issue.message },
      );
      const first = fields[0]!;
      return problem(c, "invalid-body", `${first.pointer || "the body"}: ${first.reason}`, {
        extensions: { invalid_fields: fields },
      });
    }
    default: {
      const where = result.target === "param" ? "path" : result.target;
      const params: (InvalidParam & { in: string })[] = issues.map((issue) => ({
        name: String(issue.path[0] ?? where),
        in: where,
        reason: issue.message,
      }));
      return problem(
        c,
        "bad-request",
        `${where} ${params.map((p) => `"${p.name}"`).join(", ")}: ${params[0]!.reason}`,
        { extensions: { invalid_params: params } },
      );
    }
  }
}
