/**
 * verifyAttempts in front of a declared JSON route, over real HTTP on loopback with a real ledger:
 * the daily quota per client (429 with Retry-After and RateLimit fields once spent), the
 * malformed-attempt log (a body refused by validation is recorded; an accepted one is not), and
 * the answer 503 when the attempt cannot be recorded.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { z } from "@hono/zod-openapi";
import { afterEach, describe, expect, it } from "vitest";
import type { Ledger } from "../../store/ledger/ledger.ts";
import { openLedgerStore } from "../../store/open-ledger.ts";
import { problemType } from "../problems/problem.ts";
import { json } from "../openapi/responses.ts";
import { addRoute, defineRoute, routeGroup } from "../openapi/route.ts";
import { manualClock } from "../../test/support/api/helpers.ts";
import { DailyQuotas } from "../clients/quotas.ts";
import { verifyAttempts } from "./verify-attempts.ts";

const gated = defineRoute({
  method: "post",
  path: "/gated",
  summary: "A route behind the gate",
  request: {
    body: { required: true, content: { "application/json": { schema: z.strictObject({ name: z.string() }) } } },
  },
  responses: { 200: json("Accepted", z.strictObject({ ok: z.literal(true) })) },
});

let servers: Server[] = [];
let ledgers: Ledger[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  for (const l of ledgers) await l.close(); // a no-op when the test closed it
  servers = [];
  ledgers = [];
});

async function gate(
  quota: number,
): Promise<{ ledger: Ledger; post: (body: string, type?: string) => Promise<Response> }> {
  const clock = manualClock(Date.parse("2026-06-01T08:00:00.000Z"));
  const ledger = await openLedgerStore({ path: ":memory:", origin: "test", now: clock.now });
  ledgers.push(ledger);
  const routes = routeGroup();
  routes.use(
    gated.path,
    verifyAttempts(
      { ledger, tokenPublicKeyHex: "00".repeat(32), now: clock.now },
      new DailyQuotas({ now: clock.now }),
      quota,
    ),
  );
  addRoute(routes, gated, (c) => c.json({ ok: true as const }, 200));
  const server = serve({ fetch: routes.fetch, hostname: "127.0.0.1", port: 0 }) as Server;
  servers.push(server);
  await new Promise((resolve) => server.once("listening", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${gated.path}`;
  return {
    ledger,
    post: (body, type = "application/json") => fetch(url, { method: "POST", headers: { "Content-Type": type }, body }),
  };
}

describe("verifyAttempts", () => {
  it("logs a body the route refused as a malformed attempt, never an accepted one, and counts both against the quota", async () => {
    const { ledger, post } = await gate(3);
    const accepted = await post(JSON.stringify({ name: "a" }));
    expect(accepted.status).toBe(200);
    expect(accepted.headers.get("ratelimit")).toMatch(/^"daily";r=2;/);
    expect(await ledger.size()).toBe(0);

    expect((await post(JSON.stringify({ name: 1 }))).status).toBe(400);
    expect((await post("name=a", "application/x-www-form-urlencoded")).status).toBe(415);
    expect((await Array.fromAsync(ledger.entries())).map((e) => [e.type, e.payload.error])).toEqual([
      ["avm.attempt", "request_malformed"],
      ["avm.attempt", "request_malformed"],
    ]);

    const limited = await post(JSON.stringify({ name: "b" }));
    expect(limited.status).toBe(429);
    expect(((await limited.json()) as { type: string }).type).toBe(problemType("rate-limited"));
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await ledger.size()).toBe(2); // a refused request is not logged
  });

  it("answers 503 ledger-unavailable when the malformed attempt cannot be recorded", async () => {
    const { ledger, post } = await gate(10);
    await ledger.close();
    const res = await post(JSON.stringify({ name: 1 }));
    expect(res.status).toBe(503);
    expect(((await res.json()) as { type: string }).type).toBe(problemType("ledger-unavailable"));
  });
});
