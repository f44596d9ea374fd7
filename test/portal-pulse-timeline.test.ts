/**
 * /pulse/timeline/ in Debian's chromium, built from the repository's own history (two bursts of
 * pulses days apart, signals measured and unmeasured) and served by the API on loopback: the table
 * has no two consecutive rows that say the same thing, every recorded signal has its labelled
 * series, and the chart's x positions are proportional to time within each stretch, with the long
 * gap cut out and labelled instead of bunching the pulses at the two ends. axe finds nothing.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PulseRecord } from "../core/pulse/history.ts";
import { REPO_DATA_DIR } from "./support/site/helpers.ts";
import { portalInBrowser, type PortalInBrowser } from "./support/site/portal-browser.ts";
import { axeAudit } from "./support/site/axe.ts";

const records = readFileSync(join(REPO_DATA_DIR, "pulse", "history.jsonl"), "utf8")
  .trim()
  .split("\n")
  .map((l) => JSON.parse(l) as PulseRecord);
let portal: PortalInBrowser;
let server: PortalInBrowser["server"];
let page: Page;

beforeAll(async () => {
  portal = await portalInBrowser("portal-pulse-");
  ({ server, page } = portal);
}, 300_000);

afterAll(async () => {
  await portal?.close();
});

describe("/pulse/timeline/", () => {
  it("collapses identical consecutive pulses into one row that spans them", async () => {
    await page.goto(`${server.url}/pulse/timeline/`);
    const rows = page.locator(".pulse-table tbody tr");
    // What a row says, without its dates and hashes (which always differ).
    const said = await rows.evaluateAll((trs) =>
      trs.map((tr) =>
        Array.from(tr.querySelectorAll("td"))
          .filter((td) => !["Hash", "Scope"].includes(td.getAttribute("data-label")!))
          .map((td) => td.textContent!.replace(/^all /, ""))
          .join(" | "),
      ),
    );
    expect(said.length).toBeGreaterThan(0);
    for (let i = 1; i < said.length; i++) expect(said[i], `rows ${i} and ${i + 1}`).not.toBe(said[i - 1]);
    // Every pulse is counted once, and the history has runs to collapse.
    const counts = await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute("data-pulses"))));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(records.length);
    expect(counts.length).toBeLessThan(records.length);
    const longest = counts.indexOf(Math.max(...counts));
    const spanRow = rows.nth(longest);
    expect(await spanRow.locator("th").textContent()).toMatch(new RegExp(`^${counts[longest]} pulses, `));
    // Its two dates are the run's first and last pulse, oldest first.
    const times = await spanRow.locator("th time").evaluateAll((els) => els.map((e) => e.getAttribute("datetime")!));
    expect(times).toHaveLength(2);
    expect(times[0]! < times[1]!).toBe(true);
    expect(await spanRow.locator('td[data-label="GI"]').textContent()).toMatch(/^all \d/);
    expect(await page.locator("#pulses-caption").textContent()).toContain(
      `of ${records.length} in ${counts.length} rows`,
    );
  });

  it("draws one labelled series per signal the pulses record", async () => {
    await page.goto(`${server.url}/pulse/timeline/`);
    const names = [...new Set(records.flatMap((r) => Object.keys(r.scoring?.inputs ?? {})))].sort();
    expect(names.length).toBeGreaterThan(2);
    const strips = page.locator(".signal-strips > li");
    expect((await strips.evaluateAll((els) => els.map((e) => e.getAttribute("data-signal")!))).sort()).toEqual(names);
    for (const name of names) {
      const strip = page.locator(`.signal-strips > li[data-signal="${name}"]`);
      const label = (await strip.locator(".signal-name").textContent())!;
      expect(label).toMatch(name.startsWith("gi.") ? /^GI / : /^MII /);
      const title = (await strip.locator("svg[role=img] title").textContent())!;
      expect(title.length).toBeGreaterThan(`GI signal: `.length + 3);
      const measured = records.filter((r) => r.scoring?.inputs[name]?.measured).length;
      const desc = (await strip.locator("desc").textContent())!;
      if (measured === 0) {
        // Never measured: a band over the whole strip, no line.
        expect(desc).toContain("not measured in any of the");
        await expect(strip.locator("path.signal-line").count()).resolves.toBe(0);
        await expect(strip.locator("rect.signal-unmeasured").count()).resolves.toBeGreaterThan(0);
      } else {
        expect(desc).toContain(`measured in ${measured} of the ${records.length} pulses`);
        await expect(strip.locator("path.signal-line, path.signal-dot").count()).resolves.toBeGreaterThan(0);
        const box = await strip.locator("path.signal-line, path.signal-dot").first().boundingBox();
        expect(box!.width).toBeGreaterThan(100);
      }
      // Unmeasured pulses are a band, never a line at 0.
      if (measured > 0 && measured < records.length)
        await expect(strip.locator("rect.signal-unmeasured").count()).resolves.toBeGreaterThan(0);
    }
  });

  it("spaces the pulses by time, cutting the long gap out instead of bunching them", async () => {
    await page.goto(`${server.url}/pulse/timeline/`);
    const svg = page.locator("figure.spark svg[role=img]");
    const xs = (await svg.locator("polyline.spark-gi").getAttribute("points"))!
      .trim()
      .split(" ")
      .map((p) => Number(p.split(",")[0]));
    expect(xs).toHaveLength(records.length);
    const ts = records.map((r) => Date.parse(r.generatedAt));
    const gaps = await svg.locator("rect.axis-gap").evaluateAll((els) =>
      els.map((e) => ({
        from: Date.parse(e.getAttribute("data-from")!),
        to: Date.parse(e.getAttribute("data-to")!),
        x: Number(e.getAttribute("x")),
        w: Number(e.getAttribute("width")),
      })),
    );
    // The history has one long quiet gap (days, between bursts of minutes): it is cut out.
    expect(gaps.length).toBeGreaterThan(0);
    const cut = (i: number) => gaps.some((g) => g.from === ts[i - 1] && g.to === ts[i]);
    // Within a stretch, x is proportional to time with one scale for the whole chart.
    const scales: number[] = [];
    for (let i = 1; i < ts.length; i++)
      if (!cut(i) && ts[i]! - ts[i - 1]! > 60_000) scales.push((xs[i]! - xs[i - 1]!) / (ts[i]! - ts[i - 1]!));
    expect(scales.length).toBeGreaterThan(5);
    for (const s of scales) expect(s / scales[0]!).toBeCloseTo(1, 1);
    // Across a cut the distance is the break's width, and the break sits between the two pulses.
    for (let i = 1; i < ts.length; i++) {
      if (!cut(i)) continue;
      const g = gaps.find((gap) => gap.to === ts[i])!;
      expect(xs[i]! - xs[i - 1]!).toBeCloseTo(g.w, 0);
      expect(g.x).toBeCloseTo(xs[i - 1]!, 0);
    }
    // Not bunched: the pulses use the width, no stretch of the axis is empty but the cut gaps.
    expect(xs[0]).toBe(0);
    expect(xs.at(-1)).toBe(600);
    const sorted = [...xs].sort((a, b) => a - b);
    const widest = Math.max(...sorted.slice(1).map((x, i) => x - sorted[i]!));
    expect(widest).toBeLessThan(600 / 3);
    // The break is labelled with its length, and the description says it in words.
    expect(await page.locator(".axis-gap-labels span").first().textContent()).toMatch(/\d+ (days?|hours?)/);
    expect(await svg.locator("desc").textContent()).toContain("cut out and drawn as a break");
  });

  it("is clean for axe and fits at 1280 and 390 px", async () => {
    await page.goto(`${server.url}/pulse/timeline/`);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      const axe = await axeAudit(page);
      expect(axe.violations.map((v) => `${v.id}: ${v.nodes[0]?.target.join(" ")}`)).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      const scroller = await page
        .locator(".table-scroll")
        .evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
      expect(scroller.scroll).toBeLessThanOrEqual(scroller.client);
    }
  });
});
