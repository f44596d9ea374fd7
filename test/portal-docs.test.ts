/**
 * The API reference pages in Chromium: a real `astro build` of the site from the repository's
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
import { listen, type RunningServer } from "../api/server/server.ts";
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
  server = await listen(
    createApp({ dataDir: REPO_DATA_DIR, siteDir, log: () => {}, trustedOrigins: [] }),
    "127.0.0.1",
    0,
  );
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
  it("lists every operation of /openapi.json on its tag's page (each under 150 KB), with an example request for this origin and a response each", async () => {
    const description = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = Object.entries(description.paths)
      .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    expect(documented.length).toBeGreaterThan(30);

    const response = await page.goto(`${server.url}/docs/`);
    expect(response?.status()).toBe(200);
    expect((await response!.body()).length).toBeLessThan(150 * 1024);
    await expect(page.title()).resolves.toBe("API reference · Integrity Platform");
    await expect(page.locator('nav[aria-label="Areas"] a[href="/docs/"]').getAttribute("aria-current")).resolves.toBe(
      "page",
    );

    const toc = (await page.locator(".contents .toc-path").allTextContents()).sort();
    expect(toc).toEqual(documented);
    // The problem types are a table, one row each, not a paragraph of names.
    const problemRows = page.locator("table.problem-types tbody tr");
    expect(await problemRows.count()).toBeGreaterThan(10);
    await expect(page.locator('table.problem-types tr[data-problem="rate-limited"]').textContent()).resolves.toContain(
      "429",
    );
    await expect(page.locator(".intro").textContent()).resolves.not.toContain("`invalid-query`, `payload-too-large`");
    const tagPages = [
      ...new Set(
        await page
          .locator(".contents h3 a")
          .evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).pathname)),
      ),
    ];
    expect(tagPages.length).toBeGreaterThan(5);

    const shown: string[] = [];
    for (const tagPage of tagPages) {
      const tagResponse = await page.goto(`${server.url}${tagPage}`);
      expect(tagResponse?.status(), tagPage).toBe(200);
      expect((await tagResponse!.body()).length, tagPage).toBeLessThan(150 * 1024);
      const operations = page.locator("article.operation");
      shown.push(
        ...(await operations.evaluateAll((nodes) =>
          nodes.map((n) => `${(n as HTMLElement).dataset.method} ${(n as HTMLElement).dataset.path}`),
        )),
      );
      for (let i = 0; i < (await operations.count()); i++) {
        const op = operations.nth(i);
        const [method, path] = [await op.getAttribute("data-method"), await op.getAttribute("data-path")];
        const request = await op.locator(".request-example").textContent();
        const answer = await op.locator(".response-example").textContent();
        expect(request, `${method} ${path}`).toMatch(/^curl -i/);
        // For the origin the page is served from, whatever the build was configured with.
        expect(request, `${method} ${path}`).toMatch(new RegExp(`'${server.url.replaceAll(".", "\\.")}/[^'\\s]*'$`));
        // The path as documented, each `{parameter}` filled with its example so the command runs as shown.
        const pathPattern = path!.replaceAll(".", "\\.").replace(/\{[^}]+\}/g, "[^/{}'?]+");
        expect(request, `${method} ${path}`).toMatch(new RegExp(`/${pathPattern.slice(1)}(\\?[^']*)?'$`));
        // 101: the simulation WebSocket; 410: the retired v1 balance, whose example is the answer it gives now (x-example-status).
        expect(answer, `${method} ${path}`).toMatch(
          path === "/v1/balance/{address}" ? /^HTTP\/1\.1 410 Gone\b/ : /^HTTP\/1\.1 (2\d\d|101)\b/,
        );
        expect(await op.locator(".request-example").isVisible()).toBe(true);
        expect(await op.locator(".response-example").isVisible()).toBe(true);
      }
      // No table needs sideways scrolling at 1280 px.
      await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(1280);
    }
    expect(shown.sort()).toEqual(documented);

    // Specific examples: the badge's JSON, the keyed file's key, the export's filter, a problem.
    await page.goto(`${server.url}/docs/integrity-pulse/`);
    const badge = page.locator('article[data-path="/v1/pulse/badge"]');
    await expect(badge.locator(".request-example").textContent()).resolves.toContain("/v1/pulse/badge?metric=gi");
    await expect(badge.locator(".response-example").textContent()).resolves.toContain('"schemaVersion": 1');
    await page.screenshot({ path: join(shots, "docs-pulse.png"), fullPage: false });
    await badge.screenshot({ path: join(shots, "docs-badge.png") });
    await page.goto(`${server.url}/docs/government-area/`);
    const keyed = page.locator('article[data-path="/government/compliance-report.json"]');
    await expect(keyed.locator(".request-example").textContent()).resolves.toContain("Authorization: Bearer <key>");
    await expect(keyed.locator(".error-example").textContent()).resolves.toMatch(
      /^HTTP\/1\.1 401 Unauthorized[\s\S]*"type": "https:\/\/integrity-platform\.example\/problems\/unauthorized"/,
    );
    const exported = page.locator('article[data-path="/government/ledger/export"]');
    await expect(exported.locator(".request-example").textContent()).resolves.toContain(
      "filter=event_type:mic_mint,agent:ATLAS",
    );
    await expect(exported.locator("table").first().textContent()).resolves.toContain("from");
    expect(foreign).toEqual([]);
  });
});
