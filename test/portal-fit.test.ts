/**
 * Fit at both widths, in chromium over the site built from the repository's data: at 1280 px no
 * element scrolls sideways (no box whose content is wider than it: scrollWidth > clientWidth with
 * overflow-x auto or scroll), and at 390 px every table reflows — no sideways scroll box either,
 * and no table heading or labelled cell cut at the edge or inside its box.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../api/server/server.ts";
import { portalInBrowser, type PortalInBrowser } from "./support/site/portal-browser.ts";

let portal: PortalInBrowser;
let server: RunningServer;
let page: Page;

/** The pages with the widest tables, and one reference page per kind. */
const PAGES = [
  "/",
  "/pulse/timeline/",
  "/authority/",
  "/consensus/",
  "/migration/",
  "/government/",
  "/academics/",
  "/philosophy/",
  "/economy/",
  "/diplomacy/",
  "/glossary/",
  "/docs/",
  "/docs/government-area/",
  "/docs/consensus/",
];

beforeAll(async () => {
  portal = await portalInBrowser("portal-fit-");
  ({ server, page } = portal);
}, 240_000);

afterAll(async () => {
  await portal?.close();
});

/** Every box on the page that scrolls sideways because its content is wider than it. */
function sidewaysScrollers(): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLElement>("body *"))
      .filter(
        (el) => ["auto", "scroll"].includes(getComputedStyle(el).overflowX) && el.scrollWidth > el.clientWidth + 1,
      )
      .map(
        (el) =>
          `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}.${el.className} (${el.scrollWidth} > ${el.clientWidth}): ${el.textContent!.trim().slice(0, 40)}`,
      ),
  );
}

/** Table headings and labelled cells cut at the viewport's edge or inside their own box. */
function clippedHeadings(): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLElement>("main table th, main table td[data-label]"))
      .filter(
        (el) =>
          el.getClientRects().length > 0 &&
          getComputedStyle(el).position !== "absolute" &&
          !el.closest("thead[style], .stack-table thead"),
      )
      .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1 || el.scrollWidth > el.clientWidth + 1)
      .map(
        (el) =>
          `${el.tagName.toLowerCase()} "${el.textContent!.trim().slice(0, 40)}" (right ${Math.round(el.getBoundingClientRect().right)}, ${el.scrollWidth} > ${el.clientWidth})`,
      ),
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
