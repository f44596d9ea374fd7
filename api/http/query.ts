/**
 * Strict query strings: every parameter at most once, then a strict zod object (unknown
 * parameters rejected, `__proto__` and `constructor` included). Failures are 400 `invalid-query`
 * problems whose `invalid_params` member names each bad parameter with the reason.
 *
 * Routes never parse their query themselves: the route declaration validates it (api/openapi/route.ts)
 * and hands the issues here.
 */
import type { Context } from "hono";
import type { z } from "zod";
import { echo, problem, type InvalidParam } from "../problems/problem.ts";

/**
 * The bad parameters of a query that failed its schema. `input` is what the schema saw: one
 * string per parameter, or an array of strings when it was given more than once.
 */
export function queryIssues(
  input: Readonly<Record<string, unknown>>,
  issues: readonly z.core.$ZodIssue[],
): InvalidParam[] {
  const params: InvalidParam[] = [];
  const named = new Set<string>();
  const add = (name: string, reason: string) => {
    if (named.has(name)) return;
    named.add(name);
    params.push({ name: echo(name, 64), reason });
  };
  for (const name of Object.keys(input)) if (Array.isArray(input[name])) add(name, "given more than once");
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") for (const key of issue.keys) add(key, "unknown parameter");
    else add(String(issue.path[0] ?? "(query)"), issue.message);
  }
  return params;
}

export function invalidQuery(c: Context, params: InvalidParam[]): Response {
  const names = params.map((p) => `"${p.name}"`).join(", ");
  const detail =
    params.length === 1 && params[0]
      ? `query parameter "${params[0].name}": ${params[0].reason}`
      : `invalid query parameters: ${names}`;
  return problem(c, "invalid-query", detail, { extensions: { invalid_params: params } });
}
