import { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { json } from "./responses.ts";
import { addRoute, defineRoute, routeGroup } from "./route.ts";

/** Two declared routes: one without a query, one whose query has a default. */
function app() {
  const group = routeGroup();
  const Seen = z.strictObject({ query: z.record(z.string(), z.unknown()) });
  const plain = defineRoute({
    method: "get",
    path: "/plain",
    summary: "no query",
    responses: { 200: json("the query seen", Seen) },
  });
  const paged = defineRoute({
    method: "get",
    path: "/paged",
    summary: "a query with a default",
    request: {
      query: z.strictObject({ page: z.coerce.number().int().default(1), tags: z.array(z.string()).default([]) }),
    },
    responses: { 200: json("the query seen", Seen) },
  });
  addRoute(group, plain, (c) => c.json({ query: c.req.valid("query" as never) as Record<string, unknown> }));
  addRoute(group, paged, (c) => {
    const query = c.req.valid("query");
    const seen = { ...query, tags: [...query.tags] };
    query.tags.push("mutated by a handler"); // must not reach the next request
    return c.json({ query: seen });
  });
  return group;
}

describe("declared routes' query check (strictQuery)", () => {
  it("gives a request without a query string its validated query, every time, fresh", async () => {
    const a = app();
    for (let i = 0; i < 3; i++) {
      expect(await (await a.request("/plain")).json()).toEqual({ query: {} });
      expect(await (await a.request("/paged")).json()).toEqual({ query: { page: 1, tags: [] } });
    }
  });

  it("still checks a query string: unknown names and bad values are refused, good ones parsed", async () => {
    const a = app();
    expect((await a.request("/plain?x=1")).status).toBe(400);
    expect((await a.request("/plain?")).status).toBe(200);
    expect((await a.request("/paged?page=two")).status).toBe(400);
    expect(await (await a.request("/paged?page=3")).json()).toEqual({ query: { page: 3, tags: [] } });
  });
});
