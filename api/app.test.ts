import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createApp } from "./app.ts";
import { PROBLEM_BASE } from "./problems/problem.ts";
import { listen } from "./server/server.ts";
import { manualClock, sampleHistory, tempDir, testServer, type TestServer } from "../test/support/api/helpers.ts";

async function problemOf(res: Response, status: number, slug: string): Promise<Record<string, unknown>> {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  expect(res.headers.get("cache-control")).toBe("no-store");
  const body = (await res.json()) as Record<string, unknown>;
  expect(body).toMatchObject({ type: PROBLEM_BASE + slug, status });
  return body;
}

describe("the app's middleware", () => {
  let server: TestServer;
  const clock = manualClock();
  beforeAll(async () => {
    server = await testServer(sampleHistory(12), { now: clock.now });
  });
  afterAll(() => server.stop());

  test("unknown paths → 404 problem+json", async () => {
    for (const path of ["/nope", "/v1/pulse", "/v1/pulse/badge/extra", "/v2/pulse/badge"]) {
      const body = await problemOf(await fetch(server.url + path), 404, "not-found");
      expect(body.instance).toBe(path);
      expect(body.title).toBe("Not found");
    }
  });

  test.each([
    ["POST", "/v1/pulse/badge"],
    ["PUT", "/v1/pulse/history"],
    ["DELETE", "/v1/pulse/history"],
    ["PATCH", "/health"],
  ])("%s %s → 405 problem+json with Allow", async (method, path) => {
    const res = await fetch(server.url + path, { method });
    expect(res.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    const body = await problemOf(res, 405, "method-not-allowed");
    expect(body.detail).toContain(method);
  });

  test("a body over 64 KiB → 413 problem+json, with Content-Length or chunked", async () => {
    const big = "x".repeat(64 * 1024 + 1);
    const body = await problemOf(
      await fetch(`${server.url}/v1/pulse/badge`, { method: "POST", body: big }),
      413,
      "payload-too-large",
    );
    expect(body.max_bytes).toBe(65536);
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 5; i++) controller.enqueue(new Uint8Array(20_000));
        controller.close();
      },
    });
    const res = await fetch(`${server.url}/v1/pulse/history`, {
      method: "POST",
      body: chunked,
      duplex: "half",
    } as RequestInit);
    await problemOf(res, 413, "payload-too-large");
    // At the limit the body is accepted and the route's own answer (405 here) comes back.
    const ok = await fetch(`${server.url}/v1/pulse/badge`, { method: "POST", body: "x".repeat(64 * 1024) });
    expect(ok.status).toBe(405);
    await ok.body?.cancel();
  });

  test("GET /health: status, version, uptime and the history's state", async () => {
    clock.advance(12_345);
    const res = await fetch(`${server.url}/health`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.json()).toEqual({
      status: "ok",
      version: "1.0.0",
      uptime_s: 12,
      history: { status: "verified", records: 12, verified: true },
      system: null,
      ledger: { status: "absent", store: null, size: null, checkpoint_size: null },
      consensus: null,
      access_ledger: { status: "ok", store: "sqlite", size: 0 },
      limits: { status: "ok", store: "memory" },
    });
  });

  test("one structured log line per request, without the query string", async () => {
    const before = server.logs.length;
    const res = await fetch(`${server.url}/v1/pulse/history?limit=5&token=s3cr3t-value`, {
      headers: { "X-Request-Id": "client-id-123" },
    });
    expect(res.status).toBe(400);
    expect(res.headers.get("x-request-id")).toBe("client-id-123");
    const lines = server.logs.slice(before);
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    expect(line).toMatchObject({
      method: "GET",
      path: "/v1/pulse/history",
      status: 400,
      request_id: "client-id-123",
      ts: clock.now().toISOString(),
    });
    expect(typeof line.duration_ms).toBe("number");
    expect(JSON.stringify(lines)).not.toContain("s3cr3t");
  });

  test("a malformed client request id is replaced by a fresh one", async () => {
    const res = await fetch(`${server.url}/health`, { headers: { "X-Request-Id": "bad id\twith spaces" } });
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("health of a missing history", async () => {
    const empty = await testServer(null);
    try {
      expect(await (await fetch(`${empty.url}/health`)).json()).toMatchObject({
        status: "ok",
        history: { status: "absent", records: 0, verified: false },
      });
    } finally {
      await empty.stop();
    }
  });
});

describe("unexpected errors", () => {
  test("→ 500 problem+json with a generic detail; the stack goes to the log only", async () => {
    const { dir, cleanup } = tempDir();
    const logs: Record<string, unknown>[] = [];
    const app = createApp({ dataDir: dir, log: (line) => logs.push(line) });
    app.get("/boom", () => {
      throw new Error("database password is hunter2");
    });
    const server = await listen(app, "127.0.0.1", 0);
    try {
      const res = await fetch(`${server.url}/boom`);
      const body = await problemOf(res, 500, "internal-error");
      const text = JSON.stringify(body);
      expect(text).not.toContain("hunter2");
      expect(text).not.toMatch(/\.ts:\d+/);
      expect(body.request_id).toBe(res.headers.get("x-request-id"));
      const error = logs.find((l) => l.level === "error");
      expect(error).toMatchObject({
        error: "database password is hunter2",
        path: "/boom",
        request_id: body.request_id,
      });
      expect(String(error!.stack)).toContain("app.test.ts");
      expect(logs.find((l) => l.level === undefined)).toMatchObject({ path: "/boom", status: 500 });
    } finally {
      await server.close();
      cleanup();
    }
  });

  test("a logging sink that throws does not break responses", async () => {
    const { dir, cleanup } = tempDir();
    const server = await listen(
      createApp({
        dataDir: dir,
        log: () => {
          throw new Error("disk full");
        },
      }),
      "127.0.0.1",
      0,
    );
    try {
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
    } finally {
      await server.close();
      cleanup();
    }
  });
});

describe("the server", () => {
  test("a raw request line with dot-segments cannot escape to other routes or files", async () => {
    const server = await testServer(null);
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(
          { host: "127.0.0.1", port: server.port, path: "/v1/pulse/../../etc/passwd", method: "GET" },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on("error", reject);
        req.end();
      });
      expect([400, 404]).toContain(status);
    } finally {
      await server.stop();
    }
  });

  test("close() ends idle keep-alive connections and stops listening", async () => {
    const server = await testServer(null);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    await server.stop();
    await expect(fetch(`${server.url}/health`)).rejects.toThrow();
  });
});
