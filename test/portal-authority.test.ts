/**
 * The /authority page in Debian's chromium: the site built from the repository's data and served
 * by the API on loopback. The figures are the published authority-activity.json's (the ledger's
 * authority activity, core/avm/activity.ts), written the portal's way (core/format); the chart of
 * denials by stage and the month chart are images with a title and a description; every table sits
 * in a labelled, focusable scroll region; the menu marks the page; axe finds nothing at two widths.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count } from "../core/format/text.ts";
import {
  AVM_ERROR_CODES,
  AVM_ERROR_TABLE,
  AVM_STAGES,
  REVOKE_REASONS,
  type AuthorityActivity,
} from "../core/schemas/avm.ts";
import { REPO_DATA_DIR } from "./support/site/helpers.ts";
import { portalInBrowser, type PortalInBrowser } from "./support/site/portal-browser.ts";
import { axeAudit } from "./support/site/axe.ts";

const published = JSON.parse(
  readFileSync(join(REPO_DATA_DIR, "areas", "government", "authority-activity.json"), "utf8"),
) as AuthorityActivity;
let portal: PortalInBrowser;
let server: PortalInBrowser["server"];
let page: Page;

beforeAll(async () => {
  portal = await portalInBrowser("portal-authority-");
  ({ server, page } = portal);
}, 300_000);

afterAll(async () => {
  await portal?.close();
});

const cell = (row: string) => page.locator(`tr[${row}] td.num`).first().textContent();

describe("/authority/", () => {
  it("shows the published figures: attempts, grants, denials by stage and code, revocations by reason", async () => {
    await page.goto(`${server.url}/authority/`);
    expect(published.attempts).toBeGreaterThan(0);
    expect(await page.locator('[data-figure="attempts"] strong').textContent()).toBe(count(published.attempts));
    expect(await page.locator('[data-figure="grants"] strong').textContent()).toBe(count(published.grants));
    expect(await page.locator('[data-figure="denials"] strong').textContent()).toBe(count(published.denials));
    expect(await page.locator('[data-figure="revocations"] strong').textContent()).toBe(count(published.revocations));
    for (const s of AVM_STAGES) expect(await cell(`data-stage="${s}"`)).toBe(count(published.denials_by_stage[s]));
    for (const c of AVM_ERROR_CODES) expect(await cell(`data-code="${c}"`)).toBe(count(published.denials_by_code[c]));
    for (const r of REVOKE_REASONS)
      expect(await cell(`data-reason="${r}"`)).toBe(count(published.revocations_by_reason[r]));
    const newest = published.months.at(-1)!;
    expect(await page.locator(`tr[data-month="${newest.month}"] td.num`).allTextContents()).toEqual(
      [newest.attempts, newest.grants, newest.denials, newest.revocations].map((n) => count(n)),
    );
  });

  it("names every AVM code with its meaning and remedy from the rule table", async () => {
    await page.goto(`${server.url}/authority/`);
    for (const [code, row] of Object.entries(AVM_ERROR_TABLE)) {
      const cells = page.locator(`tr[data-code="${code}"]`);
      await expect(cells.locator('td[data-label="Meaning"]').textContent()).resolves.toBe(row.meaning);
      await expect(cells.locator('td[data-label="Remedy"]').textContent()).resolves.toBe(row.remediation);
    }
  });

  it("charts the denials over time by stage: one labelled series per stage, a column per month, matching the ledger", async () => {
    await page.goto(`${server.url}/authority/`);
    // The expected counts, straight from the area's ledger export (the keyed audit trail).
    const entries = JSON.parse(
      readFileSync(join(REPO_DATA_DIR, "areas", "government", "ledger", "export.json"), "utf8"),
    ) as Array<{ timestamp: string; event_type: string; data: string }>;
    const expected = new Map<string, number>();
    for (const e of entries) {
      if (e.event_type !== "avm.attempt") continue;
      const p = JSON.parse(e.data) as { verified: boolean; failed_at_stage: string | null };
      if (!p.verified && p.failed_at_stage)
        expected.set(
          `${p.failed_at_stage} ${e.timestamp.slice(0, 7)}`,
          (expected.get(`${p.failed_at_stage} ${e.timestamp.slice(0, 7)}`) ?? 0) + 1,
        );
    }
    const chart = page.locator("#denials-by-stage-over-time");
    // One series per stage, in the order the stages run, each an image labelled with its stage.
    expect(
      await chart
        .locator("[data-stage-series]")
        .evaluateAll((els) => els.map((e) => e.getAttribute("data-stage-series"))),
    ).toEqual([...AVM_STAGES]);
    const months = published.months.map((m) => m.month);
    expect(months.length).toBeGreaterThan(1);
    for (const s of AVM_STAGES) {
      const series = chart.locator(`[data-stage-series="${s}"]`);
      expect(await series.locator("svg[role=img] title").textContent()).toBe(`Denials at the ${s} stage per month`);
      const bars = await series.locator("rect.stage-bar").evaluateAll((els) =>
        els.map((e) => ({
          month: e.getAttribute("data-month")!,
          n: Number(e.getAttribute("data-count")),
          x: Number(e.getAttribute("x")),
          h: Number(e.getAttribute("height")),
        })),
      );
      // Over time: a column for every month with a denial at this stage, in month order, left to right.
      expect(bars.map((b) => [b.month, b.n])).toEqual(
        months.filter((m) => expected.has(`${s} ${m}`)).map((m) => [m, expected.get(`${s} ${m}`)]),
      );
      for (let i = 1; i < bars.length; i++) expect(bars[i]!.x).toBeGreaterThan(bars[i - 1]!.x);
      // One scale for every stage: height proportional to the count.
      for (const b of bars) expect(b.h / b.n).toBeCloseTo(bars[0]!.h / bars[0]!.n, 1);
      const total = bars.reduce((sum, b) => sum + b.n, 0);
      expect(total).toBe(published.denials_by_stage[s]);
      expect(await series.locator("desc").textContent()).toContain(
        `: ${count(expected.get(`${s} ${months.at(-1)}`) ?? 0)}. The scale`,
      );
    }
    // The same counts as a table (the chart's text alternative).
    const last = months.at(-1)!;
    expect(await page.locator(`tr[data-stage-month="${last}"] td`).allTextContents()).toEqual(
      AVM_STAGES.map((s) => count(expected.get(`${s} ${last}`) ?? 0)),
    );
    // No bar chart repeating the stage table any more.
    expect(await page.locator("#denials-by-stage").count()).toBe(0);
  });

  it("charts the months, labels every table's scroll region by its caption, and marks the menu entry", async () => {
    await page.goto(`${server.url}/authority/`);
    expect(
      await page.locator("#attempts-by-month svg[role=img], [id^=attempts-by-month] svg[role=img]").count(),
    ).toBeGreaterThan(0);
    const regions = await page.locator(".table-scroll").evaluateAll((els) =>
      els.map((el) => ({
        role: el.getAttribute("role"),
        tabindex: el.getAttribute("tabindex"),
        labelled: !!document.getElementById(el.getAttribute("aria-labelledby") ?? "")?.matches("caption"),
      })),
    );
    expect(regions.length).toBe(5);
    for (const r of regions) expect(r).toEqual({ role: "region", tabindex: "0", labelled: true });
    // No ISO instant and no ungrouped number in the prose (the crawl's reading: code removed, innerText).
    const text = await page.evaluate(() => {
      const clone = document.body.cloneNode(true) as HTMLElement;
      clone.querySelectorAll("code, script, style").forEach((e) => e.remove());
      return clone.innerText ?? clone.textContent ?? "";
    });
    expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
    expect(
      [...text.matchAll(/(?<![\w.,:/+-])(?<![A-Z]{2,} )\d{5,}(?![\w])/g)].map((m) =>
        text.slice(Math.max(0, m.index - 40), m.index + 20),
      ),
    ).toEqual([]);
    expect(await page.locator('nav[aria-label="Areas"] a[href="/authority/"]').getAttribute("aria-current")).toBe(
      "page",
    );
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      const axe = await axeAudit(page);
      expect(axe.violations.map((v) => `${v.id}: ${v.nodes[0]?.target.join(" ")}`)).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    }
  });
});
