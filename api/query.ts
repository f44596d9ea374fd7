/**
 * Strict query strings: every parameter at most once, then a strict zod object (unknown
 * parameters rejected). Failures are 400 `invalid-query` problems whose `invalid_params` member
 * names each bad parameter with the reason.
 */
import type { Context } from "hono";
import type { z } from "zod";
import { echo, problem, type InvalidParam } from "./problem.ts";

export type QueryResult<T> = { ok: true; value: T } | { ok: false; response: Response };

function issuesToParams(issues: readonly z.core.$ZodIssue[]): InvalidParam[] {
  const params: InvalidParam[] = [];
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) params.push({ name: echo(key, 64), reason: "unknown parameter" });
    } else {
      params.push({ name: echo(String(issue.path[0] ?? "(query)"), 64), reason: issue.message });
    }
  }
  return params;
}

export function invalidQuery(c: Context, params: InvalidParam[]): Response {
  const names = params.map((p) => `"${p.name}"`).join(", ");
  const detail =
    params.length === 1 && params[0] ? `query parameter "${params[0].name}": ${params[0].reason}` : `invalid query parameters: ${names}`;
  return problem(c, "invalid-query", detail, { extensions: { invalid_params: params } });
}

/** Parses the request's query string with `schema` (a z.strictObject of string fields). */
export function parseQuery<S extends z.ZodType>(c: Context, schema: S): QueryResult<z.output<S>> {
  const all = c.req.queries();
  const flat: Record<string, string> = {};
  const repeated: InvalidParam[] = [];
  for (const name in all) {
    const values = all[name]!;
    if (values.length > 1) repeated.push({ name: echo(name, 64), reason: "given more than once" });
    flat[name] = values[0] ?? "";
  }
  if (repeated.length > 0) return { ok: false, response: invalidQuery(c, repeated) };
  const result = schema.safeParse(flat);
  if (!result.success) return { ok: false, response: invalidQuery(c, issuesToParams(result.error.issues)) };
  return { ok: true, value: result.data };
}
