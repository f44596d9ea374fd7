/**
 * DNS rebinding: a page on a name the attacker rebinds to
 * this server's address is same-origin to the browser. Its requests name the attacker's host in
 * `Host` and `Origin` and carry `Sec-Fetch-Site: same-origin`. Over real HTTP on loopback: such a
 * request can neither write nor read (421 `misdirected-request`), while the configured public origin,
 * the served address and /health work. Before the Host check the rebinding write answered 200.
 */
import { z } from "@hono/zod-openapi";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createApp } from "../api/app.ts";
import { PROBLEM_BASE } from "../api/problems/problem.ts";
import { json } from "../api/openapi/responses.ts";
import { addRoute, defineRoute } from "../api/openapi/route.ts";
import { listen, type RunningServer } from "../api/server/server.ts";
import { rawRequest, sampleHistory, tempDir, writeHistory, type RawResponse } from "./support/api/helpers.ts";

const Note = z.strictObject({ text: z.string().max(200) });
const noteRoute = defineRoute({
  method: "post",
  path: "/test/notes",
  summary: "Test only: a route that writes",
  request: { body: { required: true, content: { "application/json": { schema: Note } } } },
  responses: { 200: json("Stored", Note) },
});

const PUBLIC_ORIGIN = "https://integrity.example";
let server: RunningServer;
let cleanup: () => void;

beforeAll(async () => {
  const made = tempDir("rebinding-");
  cleanup = made.cleanup;
  writeHistory(made.dir, sampleHistory(5));
  const app = createApp({ dataDir: made.dir, log: () => {}, trustedOrigins: [], publicOrigins: [PUBLIC_ORIGIN] });
  addRoute(app, noteRoute, (c) => c.json(c.req.valid("json"), 200));
  server = await listen(app, "127.0.0.1", 0);
});
afterAll(async () => {
  await server?.close();
  cleanup?.();
});

/** A request as a browser page on `origin` sends it, same-origin, with `Host` naming `host`. */
function fromPage(method: "GET" | "POST", path: string, host: string, origin: string): Promise<RawResponse | null> {
  const body = method === "POST" ? JSON.stringify({ text: "written" }) : "";
  const headers = [
    `Host: ${host}`,
    "Sec-Fetch-Site: same-origin",
    ...(method === "POST"
      ? [`Origin: ${origin}`, "Content-Type: application/json", `Content-Length: ${Buffer.byteLength(body)}`]
      : []),
    "Connection: close",
  ];
  return rawRequest(server.port, `${method} ${path} HTTP/1.1\r\n${headers.join("\r\n")}\r\n\r\n${body}`);
}

const problemType = (response: RawResponse | null) => (JSON.parse(response?.body ?? "{}") as { type?: string }).type;

describe("a DNS-rebinding page is not same-origin", () => {
  test("it can neither write nor read: 421 misdirected-request", async () => {
    const evil = `evil.example:${server.port}`;
    for (const [method, path] of [
      ["POST", "/test/notes"],
      ["GET", "/v1/pulse/history"],
      ["GET", "/openapi.json"],
    ] as const) {
      const response = await fromPage(method, path, evil, `http://${evil}`);
      expect(response?.status, `${method} ${path}`).toBe(421);
      expect(response?.headers["content-type"]).toBe("application/problem+json");
      expect(problemType(response)).toBe(`${PROBLEM_BASE}misdirected-request`);
    }
    // Without Sec-Fetch-Site (the Origin-equals-Host fallback) it is refused all the same.
    const body = JSON.stringify({ text: "x" });
    const fallback = await rawRequest(
      server.port,
      `POST /test/notes HTTP/1.1\r\nHost: ${evil}\r\nOrigin: http://${evil}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(fallback?.status).toBe(421);
  });

  test("the configured public origin, the served address and localhost work", async () => {
    const origins: [string, string][] = [
      ["integrity.example", PUBLIC_ORIGIN],
      ["INTEGRITY.example:443", PUBLIC_ORIGIN],
      [`127.0.0.1:${server.port}`, `http://127.0.0.1:${server.port}`],
      [`localhost:${server.port}`, `http://localhost:${server.port}`],
    ];
    for (const [host, origin] of origins) {
      const write = await fromPage("POST", "/test/notes", host, origin);
      expect(write?.status, host).toBe(200);
      expect(JSON.parse(write!.body)).toEqual({ text: "written" });
      expect((await fromPage("GET", "/v1/pulse/history", host, origin))?.status, host).toBe(200);
    }
    // The public origin's name on another port is another origin.
    expect((await fromPage("GET", "/v1/pulse/history", "integrity.example:8443", PUBLIC_ORIGIN))?.status).toBe(421);
  });

  test("/health answers any Host (a load balancer may probe by an internal name)", async () => {
    const response = await fromPage("GET", "/health", "10.0.0.7:8080", "http://10.0.0.7:8080");
    expect(response?.status).toBe(200);
  });
});
