/**
 * What answers when no route does, decided in the not-found handler rather than by a layer
 * around every request (hono/method-not-allowed does the same lookup, but on every request):
 *
 * - `OPTIONS` on a path that exists → 204, or the CORS preflight answer (api/middleware/cors.ts);
 * - GET/HEAD → the static site's file (or, for a browser, its 404 page) when the app serves one;
 * - a path that has routes for other methods (GET implies HEAD; a site file has GET and HEAD)
 *   → 405 `method-not-allowed` with `Allow`;
 * - anything else → 404 `not-found`. `PUT /v1/nonexistent` is a 404: the site is not a route.
 *
 * The route table is read once, on the first miss, after every route has been registered.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context, Hono, NotFoundHandler } from "hono";
import { TrieRouter } from "hono/router/trie-router";
import { preflight, type PathMethods } from "../middleware/cors.ts";
import { echo, problem } from "../problems/problem.ts";
import type { Site } from "./site.ts";

interface PathEntry {
  methods: Set<string>;
  keyed: boolean;
}

/** Route path (Hono syntax) → its methods, and whether a declared route of it takes a key or token. */
function pathTable(app: Hono<any, any, any>): TrieRouter<PathEntry> {
  const byPath = new Map<string, PathEntry>();
  const entry = (path: string) => {
    let found = byPath.get(path);
    if (!found) byPath.set(path, (found = { methods: new Set(), keyed: false }));
    return found;
  };
  for (const route of app.routes) {
    if (route.method === "ALL" || route.method === "HEAD") continue;
    const { methods } = entry(route.path);
    methods.add(route.method);
    if (route.method === "GET") methods.add("HEAD");
  }
  const registry = (app as unknown as Partial<OpenAPIHono>).openAPIRegistry;
  for (const definition of registry?.definitions ?? []) {
    if (definition.type !== "route") continue;
    const path = definition.route.path.replaceAll(/\{([^}]+)\}/g, ":$1");
    if ((definition.route.security ?? []).some((requirement) => Object.keys(requirement).length > 0))
      entry(path).keyed = true;
  }
  const router = new TrieRouter<PathEntry>();
  for (const [path, found] of byPath) router.add("ALL", path, found);
  return router;
}

const ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
const ordered = (methods: Iterable<string>) =>
  [...methods].sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b) || a.localeCompare(b));

export function unmatchedRequest(
  app: Hono<any, any, any>,
  options: { site?: Site; trustedOrigins: readonly string[] },
): NotFoundHandler {
  let table: TrieRouter<PathEntry> | undefined;
  const trusted = new Set(options.trustedOrigins);
  const { site } = options;
  return async (c: Context) => {
    table ??= pathTable(app);
    const methods = new Set<string>();
    let keyed = false;
    for (const [found] of table.match("ALL", c.req.path)[0]) {
      for (const method of found.methods) methods.add(method);
      keyed ||= found.keyed;
    }
    const method = c.req.method;
    if ((method === "GET" || method === "HEAD") && !methods.has("GET") && site) {
      const answer = await site.answer(c);
      if (answer) return answer;
    }
    if (methods.size === 0 && site && method !== "GET" && method !== "HEAD" && (await site.has(c)))
      methods.add("GET").add("HEAD");
    if (methods.size > 0) {
      methods.add("OPTIONS");
      const path: PathMethods = { methods: ordered(methods), keyed };
      if (method === "OPTIONS") return preflight(c, path, trusted);
      if (!methods.has(method)) {
        const allow = path.methods.join(", ");
        return problem(c, "method-not-allowed", `${echo(method, 32)} is not allowed here; allowed: ${allow}.`, {
          headers: { Allow: allow },
        });
      }
    }
    return problem(c, "not-found", `Nothing at ${echo(c.req.path)}.`);
  };
}
