/**
 * What answers when no route does: 405 `method-not-allowed` with an `Allow` header when the path
 * has routes for other methods (GET implies HEAD), else 404 `not-found`. Both problem+json.
 *
 * Decided here, in the not-found handler, rather than by a middleware wrapping every request
 * (hono/method-not-allowed does the same lookup, but as one more layer around every request).
 * The route table is read once, on the first miss, after every route has been registered.
 */
import type { Context, Hono, NotFoundHandler } from "hono";
import { TrieRouter } from "hono/router/trie-router";
import { echo, problem } from "./problem.ts";

function methodTable(app: Hono<any, any, any>): TrieRouter<string[]> {
  const byPath = new Map<string, Set<string>>();
  for (const route of app.routes) {
    if (route.method === "ALL" || route.method === "HEAD") continue;
    const methods = byPath.get(route.path) ?? new Set<string>();
    methods.add(route.method);
    if (route.method === "GET") methods.add("HEAD");
    byPath.set(route.path, methods);
  }
  const router = new TrieRouter<string[]>();
  for (const [path, methods] of byPath) router.add("ALL", path, [...methods]);
  return router;
}

export function notFoundOrNotAllowed(app: Hono<any, any, any>): NotFoundHandler {
  let table: TrieRouter<string[]> | undefined;
  return (c: Context) => {
    table ??= methodTable(app);
    const allowed = new Set<string>();
    for (const [methods] of table.match("ALL", c.req.path)[0]) for (const method of methods) allowed.add(method);
    if (allowed.size > 0 && !allowed.has(c.req.method)) {
      const allow = [...allowed].join(", ");
      return problem(c, "method-not-allowed", `${c.req.method} is not allowed here; allowed: ${allow}.`, { headers: { Allow: allow } });
    }
    return problem(c, "not-found", `Nothing at ${echo(c.req.path)}.`);
  };
}
