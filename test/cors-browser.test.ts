/**
 * Use from another origin, in Chromium: a page served on a second loopback port reads the public
 * history, a dataset and a keyed file (with its key, after a preflight) from the API, and reads
 * the exposed headers; a route that writes accepts the trusted page's origin and refuses another
 * one (the browser sees the refusal as a network error).
 */
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "@hono/zod-openapi";
import type { BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ApiKeyStore } from "../api/clients/api-keys.ts";
import { createApp } from "../api/app.ts";
import { json } from "../api/openapi/responses.ts";
import { addRoute, defineRoute } from "../api/openapi/route.ts";
import { listen, type RunningServer } from "../api/server/server.ts";
import { sampleHistory, writeHistory } from "./support/api/helpers.ts";
import { launchChromium, REPO_DATA_DIR } from "./support/site/helpers.ts";

/** The page: runs the requests and puts what it saw in `data-results` (no other script anywhere). */
const PAGE = `<!doctype html><meta charset="utf-8"><title>dashboard</title><body><script type="module">
const params = new URLSearchParams(location.search);
const api = params.get("api");
const key = params.get("key");
const results = {};
async function attempt(name, run) {
  try { results[name] = await run(); } catch (error) { results[name] = { error: String(error.name) }; }
}
await attempt("history", async () => {
  const res = await fetch(api + "/v1/pulse/history?limit=2");
  const body = await res.json();
  return { status: res.status, count: body.count, etag: res.headers.get("etag"), link: res.headers.get("link") };
});
await attempt("dataset", async () => {
  const res = await fetch(api + "/diplomacy/standards.json");
  return { status: res.status, ratelimit: res.headers.get("ratelimit"), policy: res.headers.get("ratelimit-policy"), title: (await res.json()).title };
});
await attempt("keyed", async () => {
  const res = await fetch(api + "/government/compliance-report.json", { headers: { Authorization: "Bearer " + key } });
  return { status: res.status, cycle: (await res.json()).cycle };
});
await attempt("badge304", async () => {
  const first = await fetch(api + "/v1/pulse/badge");
  const again = await fetch(api + "/v1/pulse/badge", { headers: { "If-None-Match": first.headers.get("etag") }, cache: "no-store" });
  return { status: again.status };
});
await attempt("write", async () => {
  const res = await fetch(api + "/test/notes", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ text: "from " + location.origin }) });
  return { status: res.status, text: (await res.json()).text };
});
document.body.dataset.results = JSON.stringify(results);
</script>`;

const Note = z.strictObject({ text: z.string().max(200) });
const noteRoute = defineRoute({
  method: "post",
  path: "/test/notes",
  summary: "Test only: a route that writes",
  request: { body: { required: true, content: { "application/json": { schema: Note } } } },
  responses: { 200: json("Stored", Note) },
});

function pageServer(): Promise<Server> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end(PAGE);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

const originOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

let api: RunningServer;
let trustedPage: Server;
let otherPage: Server;
let context: BrowserContext;
let key: string;
const tmp = mkdtempSync(join(tmpdir(), "cors-browser-"));

beforeAll(async () => {
  trustedPage = await pageServer();
  otherPage = await pageServer();
  const dataDir = join(tmp, "data");
  cpSync(join(REPO_DATA_DIR, "areas"), join(dataDir, "areas"), { recursive: true });
  cpSync(join(REPO_DATA_DIR, "keys"), join(dataDir, "keys"), { recursive: true });
  writeHistory(dataDir, sampleHistory(10));
  const keys = new ApiKeyStore(join(tmp, "access.sqlite"));
  key = (await keys.issue("government", "dashboard", new Date())).token;
  const app = createApp({ dataDir, keys, log: () => {}, trustedOrigins: [originOf(trustedPage)] });
  addRoute(app, noteRoute, (c) => c.json(c.req.valid("json"), 200));
  api = await listen(app, "127.0.0.1", 0);
  context = await launchChromium(join(tmp, "profile"));
}, 120_000);

afterAll(async () => {
  await context?.close();
  await api?.close();
  await Promise.all([trustedPage, otherPage].map((s) => new Promise((resolve) => s?.close(resolve))));
  rmSync(tmp, { recursive: true, force: true });
});

async function resultsFrom(pageOrigin: string): Promise<Record<string, Record<string, unknown>>> {
  const page = await context.newPage();
  try {
    await page.goto(`${pageOrigin}/dashboard?api=${encodeURIComponent(api.url)}&key=${encodeURIComponent(key)}`);
    await page.waitForSelector("body[data-results]", { state: "attached", timeout: 30_000 });
    return JSON.parse((await page.getAttribute("body", "data-results"))!) as Record<string, Record<string, unknown>>;
  } finally {
    await page.close();
  }
}

describe("the API from a page on another origin, in Chromium", () => {
  test("reads succeed with their headers; the trusted origin may write", async () => {
    const results = await resultsFrom(originOf(trustedPage));
    expect(results.history).toMatchObject({
      status: 200,
      count: 2,
      etag: expect.stringMatching(/^"[0-9a-f]{64}"$/),
      link: expect.stringContaining('rel="next"'),
    });
    expect(results.dataset).toMatchObject({
      status: 200,
      ratelimit: expect.stringMatching(/^"daily";r=\d+;t=\d+$/),
      policy: '"daily";q=100;w=86400',
    });
    expect(results.keyed).toMatchObject({ status: 200, cycle: expect.stringMatching(/^C-\d+$/) });
    expect(results.badge304).toEqual({ status: 304 });
    expect(results.write).toEqual({ status: 200, text: `from ${originOf(trustedPage)}` });
  });

  test("another origin reads the public data but cannot write", async () => {
    const results = await resultsFrom(originOf(otherPage));
    expect(results.history).toMatchObject({ status: 200, count: 2 });
    expect(results.dataset).toMatchObject({ status: 200 });
    expect(results.write).toEqual({ error: "TypeError" });
  });
});
