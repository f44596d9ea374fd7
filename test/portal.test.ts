/**
 * The portal in a real browser: Debian's chromium driven by playwright-core, against a site built
 * from a generated history (120 pulses: three timeline pages) and served by the embedded default
 * (`npm start`) on a free port.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dateTime, day } from "../core/format/text.ts";
import { formatPercent } from "../core/pulse/badge.ts";
import {
  buildSite,
  launchChromium,
  makeHistory,
  startPortal,
  stopPortal,
  writeDataDir,
} from "./support/site/helpers.ts";

const RECORDS = 120;
const tmp = mkdtempSync(join(tmpdir(), "portal-"));
const dataDir = join(tmp, "data");
const siteDir = join(tmp, "site");
const shots = join(tmp, "screenshots");
const history = makeHistory(RECORDS);
const newest = [...history].reverse();

let portal: ChildProcess;
let base: string;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  writeDataDir(dataDir, history);
  const build = await buildSite(dataDir, siteDir);
  if (build.code !== 0) throw new Error(`site build failed:\n${build.output}`);
  const started = await startPortal({ stateDir: join(tmp, "state"), dataDir, siteDir });
  portal = started.child;
  base = started.url;
  context = await launchChromium(join(tmp, "profile"));
  page = context.pages()[0] ?? (await context.newPage());
}, 180_000);

afterAll(async () => {
  await context?.close();
  await stopPortal(portal);
  // The screenshots stay for a human to look at; everything else goes.
  for (const dir of [dataDir, siteDir, join(tmp, "profile"), join(tmp, "state")])
    rmSync(dir, { recursive: true, force: true });
});

describe("pulse timeline in chromium", () => {
  it("shows the sparkline, the table newest first, fits 375 px and pages on", async ({ annotate }) => {
    const response = await page.goto(`${base}/pulse/timeline/`);
    expect(response?.status()).toBe(200);
    await expect(page.title()).resolves.toBe("Pulse timeline · Integrity Platform");

    // Sparkline: an accessible image with a title and a description, two lines and the baseline.
    const svg = page.locator('svg[role="img"]');
    await expect(svg.count()).resolves.toBe(1);
    const labelledBy = (await svg.getAttribute("aria-labelledby"))!.split(" ");
    const [titleText, descText] = await Promise.all(labelledBy.map((id) => page.locator(`[id="${id}"]`).textContent()));
    expect(titleText).toBe(
      `GI and MII over ${RECORDS} pulses from ${day(history[0]!.generatedAt)} to ${day(newest[0]!.generatedAt)}`,
    );
    expect(descText).toContain(`latest ${formatPercent(newest[0]!.giScore)}%`);
    expect(descText).toContain(`latest ${formatPercent(newest[0]!.miiScore)}%`);
    await expect(svg.locator("polyline").count()).resolves.toBe(2);
    for (const cls of ["spark-gi", "spark-mii"]) {
      const points = (await svg.locator(`polyline.${cls}`).getAttribute("points"))!.trim().split(" ");
      expect(points).toHaveLength(RECORDS);
      // Drawn for real: the line has a visible box.
      const box = await svg.locator(`polyline.${cls}`).boundingBox();
      expect(box!.width).toBeGreaterThan(200);
    }
    const baseline = svg.locator("line.spark-baseline");
    await expect(baseline.getAttribute("stroke-dasharray")).resolves.toBe("6 4");
    await expect(page.locator(".legend li").allTextContents()).resolves.toEqual([
      "GI (global integrity)",
      "MII (integrity index)",
      "95% baseline",
    ]);

    // Table: caption, column headers, 50 rows, the newest pulse first.
    const table = page.locator("table");
    await expect(table.locator("caption").textContent()).resolves.toContain(
      `Pulses 1–50 of ${RECORDS}, newest first (page 1 of 3)`,
    );
    // The columns that matter most come first.
    await expect(table.locator('thead th[scope="col"]').allTextContents()).resolves.toEqual([
      "Date (UTC)",
      "GI",
      "MII",
      "Signals measured",
      "Cycle",
      "Scope",
      "Branch",
      "Hash",
    ]);
    const rows = table.locator("tbody tr");
    await expect(rows.count()).resolves.toBe(50);
    const firstRow = rows.first();
    await expect(firstRow.locator("time").getAttribute("datetime")).resolves.toBe(newest[0]!.generatedAt);
    await expect(firstRow.locator('th[scope="row"]').textContent()).resolves.toBe(dateTime(newest[0]!.generatedAt));
    const cells = await firstRow.locator("td").allTextContents();
    expect(cells).toEqual([
      `${formatPercent(newest[0]!.giScore)}%`,
      `${formatPercent(newest[0]!.miiScore)}%`,
      "not recorded",
      newest[0]!.cycle,
      `${newest[0]!.stats.appsCount} apps · ${newest[0]!.stats.packagesCount} sub-packages · ${newest[0]!.stats.workflowsCount} workflows`,
      newest[0]!.branch,
      newest[0]!.hash.slice(7, 19),
    ]);
    await expect(firstRow.locator("code").getAttribute("title")).resolves.toBe(newest[0]!.hash);
    const times = await rows.locator("time").evaluateAll((els) => els.map((e) => e.getAttribute("datetime")!));
    expect(times).toEqual([...times].sort().reverse());

    // Current area marked in the navigation.
    await expect(page.locator('nav[aria-label="Areas"] a[aria-current="page"]').textContent()).resolves.toBe("Pulse");

    // No horizontal page scroll on a 375 px wide phone; the table reflows to one card per pulse, so
    // nothing is hidden to the side either.
    await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(375);
    const scroller = await page
      .locator(".table-scroll")
      .evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth, overflow: getComputedStyle(el).overflowX }));
    expect(scroller.overflow).toBe("auto");
    expect(scroller.scroll).toBeLessThanOrEqual(scroller.client);
    await expect(firstRow.locator('td[data-label="MII"]').isVisible()).resolves.toBe(true);

    const shot = join(shots, "timeline-375.png");
    await page.screenshot({ path: shot, fullPage: true });
    await annotate(`screenshot of /pulse/timeline/ at 375x800: ${shot}`);
    console.log(`screenshot: ${shot}`);

    // Next page.
    await page.getByRole("link", { name: "Next page" }).click();
    await page.waitForURL(`${base}/pulse/timeline/2/`);
    await expect(page.locator("table caption").textContent()).resolves.toContain(
      "Pulses 51–100 of 120, newest first (page 2 of 3)",
    );
    await expect(page.locator("tbody tr").first().locator("time").getAttribute("datetime")).resolves.toBe(
      newest[50]!.generatedAt,
    );
    await expect(page.getByText("Page 2 of 3")).toBeTruthy();
    await expect(page.locator('svg[role="img"] polyline').count()).resolves.toBe(2);
    await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(375);
    const shot2 = join(shots, "timeline-page2-375.png");
    await page.screenshot({ path: shot2, fullPage: false });
    await annotate(`screenshot of /pulse/timeline/2/ at 375x800: ${shot2}`);
  });

  it("shows the home page with the current cycle, badges and the latest pulse", async ({ annotate }) => {
    await page.setViewportSize({ width: 375, height: 800 });
    await page.goto(`${base}/`);
    await expect(page.locator("h2").first().textContent()).resolves.toBe(`Integrity pulse, cycle ${newest[0]!.cycle}`);
    await expect(page.getByRole("link", { name: `See all ${RECORDS} pulses on the timeline` }).count()).resolves.toBe(
      1,
    );
    const badges = page.locator(".badges img");
    await expect(badges.count()).resolves.toBe(3);
    const alt = await badges.first().getAttribute("alt");
    expect(alt).toContain(`GI ${formatPercent(newest[0]!.giScore)}%`);
    // The badge images load (they are the copied data/v1 files).
    const loaded = await badges.evaluateAll((imgs) =>
      imgs.map((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0),
    );
    expect(loaded).toEqual([true, true, true]);
    await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(375);
    const shot = join(shots, "home-375.png");
    await page.screenshot({ path: shot, fullPage: true });
    await annotate(`screenshot of / at 375x800: ${shot}`);

    const missing = await page.goto(`${base}/no-such-page/`);
    expect(missing?.status()).toBe(404);
    await expect(page.locator("h1").textContent()).resolves.toBe("Page not found");
  });

  it("looks right on a wide screen too", async ({ annotate }) => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${base}/pulse/timeline/`);
    await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(1280);
    const shot = join(shots, "timeline-1280.png");
    await page.screenshot({ path: shot, fullPage: false });
    await annotate(`screenshot of /pulse/timeline/ at 1280x900: ${shot}`);
  });
});
