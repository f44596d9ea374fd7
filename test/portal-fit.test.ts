/**
 * Fit at both widths, in chromium over the site built from the repository's data: at 1280 px no
 * element scrolls sideways (no box whose content is wider than it: scrollWidth > clientWidth with
 * overflow-x auto or scroll), and at 390 px every table reflows — no sideways scroll box either,
 * and no table heading or labelled cell cut at the edge or inside its box.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../api/app.ts";
import { listen, type RunningServer } from "../api/server.ts";
import { buildSite, launchChromium, REPO_DATA_DIR } from "./support/site/helpers.ts";

const tmp = mkdtempSync(join(tmpdir(), "portal-fit-"));
const siteDir = join(tmp, "site");
let server: RunningServer;
let context: BrowserContext;
let page: Page;

/** The pages with the widest tables, and one reference page per kind. */
const PAGES = ["/", "/pulse/timeline/", "/authority/", "/consensus/", "/migration/", "/government/", "/academics/", "/philosophy/", "/economy/", "/diplomacy/", "/glossary/", "/docs/", "/docs/government-area/", "/docs/consensus/"];

beforeAll(async () => {
  const build = await buildSite(REPO_DATA_DIR, siteDir);
  if (build.code !== 0) throw new Error(`site build failed:\n${build.output}`);
  server = await listen(createApp({ dataDir: REPO_DATA_DIR, siteDir, log: () => {}, trustedOrigins: [] }), "127.0.0.1", 0);
  context = await launchChromium(join(tmp, "profile"), { width: 1280, height: 900 });
  page = context.pages()[0] ?? (await context.newPage());
}, 240_000);

afterAll(async () => {
  await context?.close();
  await server?.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** Every box on the page that scrolls sideways because its content is wider than it. */
function sidewaysScrollers(): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLElement>("body *"))
      .filter((el) => ["auto", "scroll"].includes(getComputedStyle(el).overflowX) && el.scrollWidth > el.clientWidth + 1)
      .map((el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}.${el.className} (${el.scrollWidth} > ${el.clientWidth}): ${el.textContent!.trim().slice(0, 40)}`),
  );
}

/** Table headings and labelled cells cut at the viewport's edge or inside their own box. */
function clippedHeadings(): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLElement>("main table th, main table td[data-label]"))
      .filter((el) => el.getClientRects().length > 0 && getComputedStyle(el).position !== "absolute" && !el.closest("thead[style], .stack-table thead"))
      .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1 || el.scrollWidth > el.clientWidth + 1)
      .map((el) => `${el.tagName.toLowerCase()} "${el.textContent!.trim().slice(0, 40)}" (right ${Math.round(el.getBoundingClientRect().right)}, ${el.scrollWidth} > ${el.clientWidth})`),
  );
}

describe("the portal's tables fit", () => {
  it("at 1280 px, nothing scrolls sideways", async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    const found: string[] = [];
    for (const path of PAGES) {
      expect((await page.goto(`${server.url}${path}`))?.status(), path).toBe(200);
      found.push(...(await sidewaysScrollers()).map((s) => `${path}: ${s}`));
    }
    expect(found).toEqual([]);
  });

  it("at 390 px, every table reflows without cutting a heading", async () => {
    await page.setViewportSize({ width: 390, height: 900 });
    const found: string[] = [];
    for (const path of PAGES) {
      await page.goto(`${server.url}${path}`);
      found.push(...(await sidewaysScrollers()).map((s) => `${path}: ${s}`));
      found.push(...(await clippedHeadings()).map((s) => `${path}: ${s}`));
    }
    expect(found).toEqual([]);
  });
});
