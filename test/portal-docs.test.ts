/**
 * The API reference page in Chromium: a real `astro build` of the site from the repository's
 * data, served with the API by one in-process server (so the page and `GET /openapi.json` come
 * from the same declarations); the page lists every path of the served document, shows an
 * example request and an example response for each operation, and loads nothing from anywhere
 * but its own origin.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../api/app.ts";
import { listen, type RunningServer } from "../api/server.ts";
import { buildSite, launchChromium, REPO_DATA_DIR } from "./support/site/helpers.ts";

const tmp = mkdtempSync(join(tmpdir(), "portal-docs-"));
const siteDir = join(tmp, "site");
const shots = join(tmp, "screenshots");
let server: RunningServer;
let context: BrowserContext;
let page: Page;
const foreign: string[] = [];

beforeAll(async () => {
  const build = await buildSite(REPO_DATA_DIR, siteDir);
  if (build.code !== 0) throw new Error(`site build failed:\n${build.output}`);
  server = await listen(createApp({ dataDir: REPO_DATA_DIR, siteDir, log: () => {}, trustedOrigins: [] }), "127.0.0.1", 0);
  context = await launchChromium(join(tmp, "profile"), { width: 1280, height: 900 });
  page = context.pages()[0] ?? (await context.newPage());
  page.on("request", (request) => {
    if (!request.url().startsWith(server.url) && !request.url().startsWith("data:")) foreign.push(request.url());
  });
}, 240_000);

afterAll(async () => {
  await context?.close();
  await server?.close();
  // The screenshots stay for a human to look at; everything else goes.
  for (const dir of [siteDir, join(tmp, "profile")]) rmSync(dir, { recursive: true, force: true });
});

describe("/docs in chromium", () => {
  it("lists every path of /openapi.json with an example request and response each", async () => {
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(document.paths)
      .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    expect(documented.length).toBeGreaterThan(30);

    const response = await page.goto(`${server.url}/docs/`);
    expect(response?.status()).toBe(200);
    await expect(page.title()).resolves.toBe("API reference · Integrity Platform");
    await expect(page.locator('nav[aria-label="Areas"] a[href="/docs/"]').getAttribute("aria-current")).resolves.toBe("page");

    const toc = (await page.locator(".contents .toc-path").allTextContents()).sort();
    expect(toc).toEqual(documented);
    const operations = page.locator("article.operation");
    const shown = await operations.evaluateAll((nodes) => nodes.map((n) => `${(n as HTMLElement).dataset.method} ${(n as HTMLElement).dataset.path}`));
    expect(shown.sort()).toEqual(documented);

    for (let i = 0; i < (await operations.count()); i++) {
      const op = operations.nth(i);
      const [method, path] = [await op.getAttribute("data-method"), await op.getAttribute("data-path")];
      const request = await op.locator(".request-example").textContent();
      const answer = await op.locator(".response-example").textContent();
      expect(request, `${method} ${path}`).toMatch(/^curl -i/);
      expect(request, `${method} ${path}`).toMatch(/'https?:\/\/[^'\s]+'$/); // an absolute URL
      expect(request, `${method} ${path}`).toContain(path);
      expect(answer, `${method} ${path}`).toMatch(/^HTTP\/1\.1 (2\d\d|101)\b/); // 101: the simulation WebSocket
      expect(await op.locator(".request-example").isVisible()).toBe(true);
      expect(await op.locator(".response-example").isVisible()).toBe(true);
    }

    // Specific examples: the badge's JSON, the keyed file's key, the export's filter, a problem.
    const badge = page.locator('article[data-path="/v1/pulse/badge"]');
    await expect(badge.locator(".request-example").textContent()).resolves.toContain("/v1/pulse/badge?metric=gi");
    await expect(badge.locator(".response-example").textContent()).resolves.toContain('"schemaVersion": 1');
    const keyed = page.locator('article[data-path="/government/compliance-report.json"]');
    await expect(keyed.locator(".request-example").textContent()).resolves.toContain("Authorization: Bearer <key>");
    await expect(keyed.locator(".error-example").textContent()).resolves.toMatch(/^HTTP\/1\.1 401 Unauthorized[\s\S]*"type": "https:\/\/integrity-platform\.example\/problems\/unauthorized"/);
    const exported = page.locator('article[data-path="/government/ledger/export"]');
    await expect(exported.locator(".request-example").textContent()).resolves.toContain("filter=event_type:mic_mint,agent:ATLAS");
    await expect(exported.locator("table").first().textContent()).resolves.toContain("from");

    await page.screenshot({ path: join(shots, "docs.png"), fullPage: false });
    await badge.screenshot({ path: join(shots, "docs-badge.png") });
    expect(foreign).toEqual([]);
  });
});
