/**
 * The five area pages in a real browser: the site is built once from the repository's own data
 * (data/areas, data/keys, data/schemas — the files the pipeline generated and signed), served by a
 * the embedded default (`npm start`) on a free port, and every area page is opened in Debian's chromium via playwright-core.
 *
 * Checked against the manifests read here independently of the site's code: the heading, the
 * sample-data notice, one download row per resource (size, SHA-256 prefix, access tier), public
 * files linked and served byte for byte, keyed files neither linked nor published, the charts'
 * accessible titles, no horizontal overflow at 375 px. A tampered copy of the data must fail the
 * build, naming the file.
 */
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import type { ChildProcess } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  barChart,
  cumulativeByCycle,
  LINE_HEIGHT,
  LINE_WIDTH,
  lineChart,
  niceCeiling,
} from "../site/src/lib/area-charts.ts";
import { buildChart, MARKS_UP_TO } from "../site/src/lib/chart.ts";
import { dateTime, micOfNumber, percent } from "../core/format/text.ts";
import { filesUnder } from "../store/files.ts";
import {
  buildSite,
  launchChromium,
  makeHistory,
  REPO_DATA_DIR,
  startPortal,
  stopPortal,
} from "./support/site/helpers.ts";
import { jsonSchemaIdOf, listedResources } from "../core/datapackage/references.ts";

const AREAS = [
  { slug: "government", name: "Government", chart: false },
  { slug: "academics", name: "Academics", chart: true },
  { slug: "philosophy", name: "Philosophy", chart: true },
  { slug: "economy", name: "Economy", chart: true },
  { slug: "diplomacy", name: "Diplomacy", chart: false },
] as const;
type Slug = (typeof AREAS)[number]["slug"];

interface ManifestResource {
  name: string;
  path: string;
  bytes: number;
  hash: string;
  access: string;
  mediatype: string;
  jsonSchema?: string | { items?: { $ref?: string } };
}
interface Manifest {
  sample?: boolean;
  resources: ManifestResource[];
}

const tmp = mkdtempSync(join(tmpdir(), "portal-areas-"));
const siteDir = join(tmp, "site");
const shots = join(tmp, "screenshots");
const areaDir = (slug: string) => join(REPO_DATA_DIR, "areas", slug);
const manifests = new Map<Slug, Manifest>(
  AREAS.map((a) => {
    // Public files under resources, keyed ones under keyedResources: both, as the page lists them.
    const raw = JSON.parse(readFileSync(join(areaDir(a.slug), "datapackage.json"), "utf8")) as Manifest & {
      keyedResources?: ManifestResource[];
    };
    return [a.slug, { ...raw, resources: listedResources<ManifestResource>(raw) }];
  }),
);
const manifest = (slug: Slug) => manifests.get(slug)!;
const dataFile = (slug: Slug, path: string) => readFileSync(join(areaDir(slug), path));
const json = <T>(slug: Slug, path: string) => JSON.parse(dataFile(slug, path).toString("utf8")) as T;
const keyedResources = AREAS.flatMap((a) =>
  manifest(a.slug)
    .resources.filter((r) => r.access !== "public")
    .map((r) => ({ area: a.slug, ...r })),
);
const sha256 = (bytes: Uint8Array) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

let portal: ChildProcess | undefined;
let base: string;
let context: BrowserContext;
let page: Page;
let buildMs = 0;

async function fetchBytes(href: string): Promise<{ status: number; bytes: Buffer }> {
  const response = await fetch(new URL(href, base));
  return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()) };
}

beforeAll(async () => {
  const started = performance.now();
  const build = await buildSite(REPO_DATA_DIR, siteDir);
  buildMs = performance.now() - started;
  if (build.code !== 0) throw new Error(`site build failed:\n${build.output}`);
  console.log(`site build from ${REPO_DATA_DIR}: ${Math.round(buildMs)} ms`);
  const running = await startPortal({ stateDir: join(tmp, "state"), dataDir: REPO_DATA_DIR, siteDir });
  portal = running.child;
  base = running.url;
  context = await launchChromium(join(tmp, "profile"));
  page = context.pages()[0] ?? (await context.newPage());
}, 180_000);

afterAll(async () => {
  await context?.close();
  await stopPortal(portal);
  // The screenshots stay for a human to look at; everything else goes.
  for (const dir of [
    siteDir,
    join(tmp, "profile"),
    join(tmp, "state"),
    join(tmp, "tampered"),
    join(tmp, "out-tampered"),
    join(tmp, "partial"),
    join(tmp, "out-partial"),
  ]) {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe("area pages in chromium, built from the repository's data", () => {
  for (const area of AREAS) {
    it(`${area.name}: heading, sample notice, download list, chart, fits 375 px`, async ({ annotate }) => {
      const m = manifest(area.slug);
      await page.setViewportSize({ width: 375, height: 800 });
      const response = await page.goto(`${base}/${area.slug}/`);
      expect(response?.status()).toBe(200);
      await expect(page.title()).resolves.toBe(`${area.name} · Integrity Platform`);
      await expect(page.locator("h1").textContent()).resolves.toBe(area.name);
      await expect(page.locator('nav[aria-label="Areas"] a[aria-current="page"]').textContent()).resolves.toBe(
        area.name,
      );

      // The sample-data notice exactly when the manifest says sample: true.
      const notice = page.locator(".notice-sample");
      if (m.sample === true) {
        await expect(notice.count()).resolves.toBe(1);
        await expect(notice.textContent()).resolves.toMatch(/^Sample data\. .*not real activity/);
      } else {
        await expect(notice.count()).resolves.toBe(0);
      }

      // Download list: one row per resource.
      const rows = page.locator("table.download-table tbody tr");
      await expect(rows.count()).resolves.toBe(m.resources.length);
      for (const r of m.resources) {
        const row = page.locator(`table.download-table tbody tr[data-resource="${r.name}"]`);
        await expect(row.count(), r.name).resolves.toBe(1);
        await expect(row.locator("th").first().textContent()).resolves.toContain(r.path);
        const size = row.locator('td[data-label="Size"]');
        await expect(size.getAttribute("title")).resolves.toBe(`${r.bytes.toLocaleString("en-US")} bytes`);
        await expect(size.textContent()).resolves.toMatch(/^\d+(\.\d)? (B|kB|MB)$/);
        const hash = row.locator('td[data-label="SHA-256"] code');
        await expect(hash.textContent()).resolves.toBe(r.hash.slice(7, 19));
        await expect(hash.getAttribute("title")).resolves.toBe(r.hash);
        const access = (await row.locator('td[data-label="Access"]').textContent())!;
        const fileLinks = row.locator("a").filter({ hasText: r.path });
        if (r.access === "public") {
          expect(access.trim()).toBe("Public");
          await expect(fileLinks.count()).resolves.toBe(1);
          const href = (await fileLinks.getAttribute("href"))!;
          expect(href).toBe(`/${area.slug}/${r.path}`);
          const served = await fetchBytes(href);
          expect(served.status, href).toBe(200);
          expect(served.bytes.equals(dataFile(area.slug, r.path)), `${href} has the manifest's bytes`).toBe(true);
          expect(sha256(served.bytes)).toBe(r.hash);
        } else {
          // Keyed: named with its address on the API (here the site's own server), not linked, and the row links to the one request-access section.
          expect(access.trim()).toBe(
            `Government key — from the API, with a key: /${area.slug}/${r.path}. Request a key`,
          );
          await expect(fileLinks.count()).resolves.toBe(0);
          await expect(row.locator(`a[href*="${r.path}"]`).count()).resolves.toBe(0);
          await expect(row.locator('a[href="#request-access"]').count()).resolves.toBe(1);
        }
        // Schema: the site's copy of the JSON Schema named by the manifest, served and matching.
        const id = jsonSchemaIdOf(r.jsonSchema);
        const schemaLinks = row.locator('td[data-label="Schema"] a[href^="/schemas/"]');
        if (id) {
          const href = (await schemaLinks.first().getAttribute("href"))!;
          expect(href).toBe(new URL(id).pathname);
          const served = await fetchBytes(href);
          expect(served.status, href).toBe(200);
          expect((JSON.parse(served.bytes.toString("utf8")) as { $id: string }).$id).toBe(id);
        } else {
          await expect(schemaLinks.count()).resolves.toBe(0);
        }
      }
      if (m.resources.some((r) => r.access !== "public")) {
        const howTo = (await page.locator("#request-access + p + ul").textContent())!;
        expect(howTo).toContain("Government key.");
        expect(howTo).toMatch(/affiliation, an official contact address and the purpose/);
      } else {
        await expect(page.locator("#request-access").count()).resolves.toBe(0);
      }

      // The manifest, its signature and the dataset key, with the offline check.
      for (const [href, file] of [
        [`/${area.slug}/datapackage.json`, join(areaDir(area.slug), "datapackage.json")],
        [`/${area.slug}/datapackage.json.sig`, join(areaDir(area.slug), "datapackage.json.sig")],
        ["/keys/datasets.vkey", join(REPO_DATA_DIR, "keys", "datasets.vkey")],
      ] as const) {
        await expect(page.locator(`.downloads a[href="${href}"]`).count(), href).resolves.toBeGreaterThan(0);
        const served = await fetchBytes(href);
        expect(served.status, href).toBe(200);
        expect(served.bytes.equals(readFileSync(file)), href).toBe(true);
      }
      // How to check a download: the /verify page and the one command, no clone needed.
      await expect(page.locator('.downloads a[href="/verify/"]').count()).resolves.toBe(1);
      // The command runs the verifier from this site's tarball, never from the npm registry.
      const downloads = (await page.locator(".downloads").textContent()) ?? "";
      expect(downloads).toMatch(
        new RegExp(
          `npx --yes --package=\\S+/tools/integrity-verify-\\d+\\.\\d+\\.\\d+\\.tgz integrity-verify \\S+/${area.slug}/`,
        ),
      );
      expect(downloads).not.toContain("npx integrity-verify");
      await expect(page.locator('.downloads a[href^="/tools/integrity-verify-"]').count()).resolves.toBe(1);

      // Charts: every SVG image is labelled by a non-empty <title> (and a <desc>).
      const charts = page.locator('main svg[role="img"]');
      const chartCount = await charts.count();
      if (area.chart) expect(chartCount).toBeGreaterThan(0);
      else expect(chartCount).toBe(0);
      for (let i = 0; i < chartCount; i++) {
        const svg = charts.nth(i);
        const [titleId, descId] = (await svg.getAttribute("aria-labelledby"))!.split(" ");
        await expect(svg.locator(`title[id="${titleId}"]`).textContent()).resolves.toMatch(/\S/);
        await expect(svg.locator(`desc[id="${descId}"]`).textContent()).resolves.toMatch(/\S/);
        const box = await svg.boundingBox();
        expect(box!.width).toBeGreaterThan(250);
      }

      await checkAreaContent(area.slug, page);

      // No horizontal page scroll on a 375 px wide phone.
      await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(375);

      const shot = join(shots, `${area.slug}-375.png`);
      await page.screenshot({ path: shot, fullPage: true });
      await annotate(`screenshot of /${area.slug}/ at 375 px: ${shot}`);
      console.log(`screenshot: ${shot}`);
    });
  }

  it("shows each area page without horizontal overflow on a wide screen too", async ({ annotate }) => {
    await page.setViewportSize({ width: 1280, height: 900 });
    for (const area of AREAS) {
      await page.goto(`${base}/${area.slug}/`);
      await expect(
        page.evaluate(() => document.documentElement.scrollWidth),
        area.slug,
      ).resolves.toBeLessThanOrEqual(1280);
      const shot = join(shots, `${area.slug}-1280.png`);
      await page.screenshot({ path: shot, fullPage: false });
      await annotate(`screenshot of /${area.slug}/ at 1280 px: ${shot}`);
    }
  });

  it("links the five areas from the home page", async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    await page.goto(`${base}/`);
    // The areas' links (not the glossary links of a term's first use in their descriptions).
    const links = page.locator(".area-list a:not(.term)");
    await expect(links.evaluateAll((as) => as.map((a) => a.getAttribute("href")))).resolves.toEqual(
      AREAS.map((a) => `/${a.slug}/`),
    );
    await expect(links.allTextContents()).resolves.toEqual(AREAS.map((a) => a.name));
    await expect(page.locator(".area-list li p").count()).resolves.toBe(5);
    await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(375);
  });
});

/** What each page shows of its own data, checked against the files. */
async function checkAreaContent(slug: Slug, page: Page): Promise<void> {
  const main = page.locator("main");
  const text = (await main.textContent())!;
  switch (slug) {
    case "economy": {
      const supply = json<{ total_supply: number; circulating: number; locked: number; burned: number }>(
        slug,
        "supply.json",
      );
      const stats = await page.locator("#supply-heading + .stats dd").allTextContents();
      expect(stats).toEqual(
        [supply.total_supply, supply.circulating, supply.locked, supply.burned].map((v) => micOfNumber(v)),
      );
      for (const v of stats) expect(v).toMatch(/^\d{1,3}(,\d{3})*\.\d{2} MIC$/);
      const mii = json<{ minting_active: boolean }>(slug, "mii.json");
      expect(text).toContain(mii.minting_active ? "so MIC minting is active" : "so MIC minting is paused");
      // Supply over time: one line drawn from the minting history.
      const supplyChart = page.locator("#supply-chart svg");
      await expect(supplyChart.locator("title").textContent()).resolves.toMatch(
        /^Cumulative MIC minted per cycle, C-\d+ to C-\d+$/,
      );
      const points = (await supplyChart.locator("polyline").getAttribute("points"))!.trim().split(" ");
      expect(points.length).toBeGreaterThan(10);
      expect(points[0]).toMatch(/^0,/);
      expect(points.at(-1)).toMatch(/^600,/);
      // ROI by cathedral: five bars and five table rows.
      await expect(page.locator("#roi-chart rect.bar-track").count()).resolves.toBe(5);
      await expect(page.locator("table:has(#roi-caption) tbody tr").count()).resolves.toBe(5);
      const coordination = json<{ sentinels: unknown[]; formula: string }>(slug, "coordination.json");
      await expect(page.locator("#coordination-chart rect.bar-track").count()).resolves.toBe(
        coordination.sentinels.length,
      );
      expect(text).toContain(coordination.formula);
      // The page says the minting history adds up to the total supply exactly when it does (in shards).
      const amounts = dataFile(slug, "mic-history.csv")
        .toString("utf8")
        .trim()
        .split("\r\n")
        .slice(1)
        .map((line) => line.split(",")[3]!);
      const shards = amounts.reduce((sum, a) => {
        const [whole, fraction = ""] = a.split(".");
        return sum + BigInt(whole!) * 1_000_000n + BigInt(fraction.padEnd(6, "0"));
      }, 0n);
      const sentence = "The history adds up to the total supply above, to the shard.";
      if (shards === BigInt(Math.round(supply.total_supply * 1e6))) expect(text).toContain(sentence);
      else expect(text).not.toContain(sentence);
      break;
    }
    case "academics": {
      const rows = dataFile(slug, "mii-timeline.csv").toString("utf8").trim().split("\r\n").length - 1;
      if (rows > 0)
        await expect(page.locator("#mii-chart svg title").textContent()).resolves.toMatch(/^MII timeline: /);
      const coordination = json<{ sentinels: unknown[] }>(slug, "sentinel-coordination.json");
      await expect(page.locator("table:has(#coordination-caption) tbody tr").count()).resolves.toBe(
        coordination.sentinels.length,
      );
      const papers = json<{ papers: { title: string; status: string; venues: string[] }[] }>(slug, "papers.json");
      await expect(page.locator("#papers-heading ~ .cards > li").count()).resolves.toBe(papers.papers.length);
      for (const p of papers.papers) {
        expect(text).toContain(p.title);
        for (const v of p.venues) expect(text).toContain(v);
      }
      await expect(page.locator('main a[href="/academics/citations.bib"]').count()).resolves.toBeGreaterThan(0);
      break;
    }
    case "government": {
      const status = json<{ sentinels: { id: string; status: string }[]; system_health: string; alerts: unknown[] }>(
        slug,
        "sentinel-status.json",
      );
      const rows = page.locator("table:has(#sentinels-caption) tbody tr");
      await expect(rows.count()).resolves.toBe(status.sentinels.length);
      await expect(rows.first().locator("td").first().textContent()).resolves.toBe(status.sentinels[0]!.status);
      // The status word carries the derived health; the file writes "operational" as "healthy".
      const stated = await page.locator("[data-system-health]").getAttribute("data-system-health");
      expect(stated === "operational" ? "healthy" : stated).toBe(status.system_health);
      await expect(page.locator(".alert-list li").count()).resolves.toBe(status.alerts.length);
      await expect(page.locator('main a[href="/government/transparency.pdf"]').count()).resolves.toBeGreaterThan(0);
      // Keyed files: described, with the API request, never linked.
      const keyed = manifest(slug).resources.filter((r) => r.access !== "public");
      await expect(page.locator("#keyed-heading ~ .cards > li").count()).resolves.toBe(keyed.length);
      for (const r of keyed) await expect(page.locator(`main a[href$="${r.path}"]`).count(), r.path).resolves.toBe(0);
      break;
    }
    case "philosophy": {
      await expect(page.locator("#virtues-chart rect.bar-track").count()).resolves.toBe(5);
      const virtues = json<{ virtues: Record<string, { measure: string }> }>(slug, "virtues.json");
      for (const v of Object.values(virtues.virtues)) expect(text).toContain(v.measure);
      const drift = json<{ trends: unknown[] }>(slug, "drift-analysis.json");
      await expect(page.locator("table:has(#trends-caption) tbody tr").count()).resolves.toBe(drift.trends.length);
      const deliberations = json<{ deliberations: { id: string; topic: string }[] }>(slug, "deliberations.json");
      const cards = page.locator("#deliberations-heading ~ .cards > li");
      await expect(cards.count()).resolves.toBe(Math.min(10, deliberations.deliberations.length));
      await expect(cards.first().locator("h3").textContent()).resolves.toBe(deliberations.deliberations.at(-1)!.topic);
      const decisions = json<{ decisions: unknown[] }>(slug, "decisions.json");
      await expect(page.locator("#decisions-heading ~ .cards > li").count()).resolves.toBe(decisions.decisions.length);
      break;
    }
    case "diplomacy": {
      const treaty = json<{ principles: unknown[]; articles: unknown[] }>(slug, "treaty-framework.json");
      await expect(page.locator(".principles > div").count()).resolves.toBe(treaty.principles.length);
      await expect(page.locator(".articles > li").count()).resolves.toBe(treaty.articles.length);
      const standards = json<{ standards: unknown[] }>(slug, "standards.json");
      await expect(page.locator("table:has(#standards-caption) tbody tr").count()).resolves.toBe(
        standards.standards.length,
      );
      const protocols = json<{ protocols: unknown[] }>(slug, "protocols.json");
      await expect(page.locator("#protocols-heading ~ .cards > li").count()).resolves.toBe(protocols.protocols.length);
      break;
    }
  }
}

describe("pulse chart (site/src/lib/chart.ts)", () => {
  it("draws one pulse as a labelled pair of dots, and few pulses with a dot each", () => {
    const [one] = makeHistory(1);
    const single = buildChart([one!])!;
    expect(single.count).toBe(1);
    expect(single.singleLabel).toBe(
      `GI ${percent(one!.giScore)} · MII ${percent(one!.miiScore)} on ${dateTime(one!.generatedAt)}`,
    );
    expect(single.giMarks).toMatch(/^M[\d.]+ [\d.]+h0$/);
    expect(single.miiMarks).toMatch(/^M[\d.]+ [\d.]+h0$/);
    const few = buildChart(makeHistory(30))!;
    expect(few.singleLabel).toBeNull();
    expect(few.giMarks!.match(/h0/g)).toHaveLength(30);
    expect(buildChart(makeHistory(MARKS_UP_TO + 1))!.giMarks).toBeNull();
    expect(few.title).toMatch(/^GI and MII over 30 pulses from \d{1,2} [A-Z][a-z]{2} \d{4} to /);
  });
});

describe("chart helpers (site/src/lib/area-charts.ts)", () => {
  it("sums per cycle exactly and repeats the total through cycles without rows", () => {
    const points = cumulativeByCycle([
      { cycle: "C-3", timestamp: "2025-07-06T00:00:01.000Z", amount: 1_500_000n },
      { cycle: "C-3", timestamp: "2025-07-06T00:00:00.500Z", amount: 1n },
      { cycle: "C-5", timestamp: "2025-07-08T00:00:00.000Z", amount: 2_000_000n },
    ]);
    expect(points).toEqual([
      { cycle: 3, firstAt: "2025-07-06T00:00:00.500Z", cumulative: 1_500_001n, rows: 2 },
      { cycle: 4, firstAt: null, cumulative: 1_500_001n, rows: 0 },
      { cycle: 5, firstAt: "2025-07-08T00:00:00.000Z", cumulative: 3_500_001n, rows: 1 },
    ]);
    expect(cumulativeByCycle([])).toEqual([]);
  });

  it("draws a line across the full width, a lone value as a dot, nothing for no values", () => {
    const base = {
      id: "t",
      domain: [0, 4] as const,
      ticks: [0, 2, 4],
      tickLabel: String,
      lineLabel: "x",
      title: "T",
      desc: "D",
      startLabel: "a",
      endLabel: "b",
      yAxisLabel: "Y",
      xAxisLabel: "X",
    };
    const many = lineChart({ ...base, values: [0, 1, 2, 4] })!;
    expect(many.points).toBe(`0,${LINE_HEIGHT} 200,120 400,80 ${LINE_WIDTH},0`);
    expect(many.ticks).toEqual([
      { label: "4", topPercent: 0, y: 0 },
      { label: "2", topPercent: 50, y: 80 },
      { label: "0", topPercent: 100, y: LINE_HEIGHT },
    ]);
    expect(many.endLabel).toBe("b");
    const one = lineChart({ ...base, values: [2] })!;
    expect(one.points).toBe("300,80 300,80");
    expect(one.endLabel).toBeNull();
    expect(lineChart({ ...base, values: [] })).toBeNull();
    expect([1, 3.56e6, 9.1, 100].map(niceCeiling)).toEqual([1, 4e6, 10, 100]);
  });

  it("sizes bars against the largest value (or the given maximum) and lists every value in the description", () => {
    const chart = barChart({
      id: "b",
      title: "T",
      summary: "Scores.",
      items: [
        { label: "A", value: 50, valueLabel: "50" },
        { label: "B", value: 100, valueLabel: "100" },
        { label: "C", value: null, valueLabel: "none" },
      ],
    });
    expect(chart.bars.map((b) => b.percent)).toEqual([50, 100, 0]);
    expect(chart.desc).toBe("Scores. A: 50; B: 100; C: none.");
    expect(
      barChart({ id: "v", title: "T", summary: "S.", max: 1, items: [{ label: "x", value: 0.25, valueLabel: "25%" }] })
        .bars[0]!.percent,
    ).toBe(25);
  });
});

describe("published files", () => {
  it("never publishes a keyed file, under its own path or any other", () => {
    expect(keyedResources.length).toBeGreaterThan(0);
    for (const r of keyedResources)
      expect(existsSync(join(siteDir, r.area, r.path)), `${r.area}/${r.path}`).toBe(false);
    const keyedHashes = new Set(keyedResources.map((r) => r.hash));
    const leaked = filesUnder(siteDir).filter((p) => keyedHashes.has(sha256(readFileSync(join(siteDir, p)))));
    expect(leaked).toEqual([]);
    // Nor does any page link to one.
    for (const a of AREAS) {
      const html = readFileSync(join(siteDir, a.slug, "index.html"), "utf8");
      for (const r of keyedResources)
        expect(html, `${a.slug} links ${r.path}`).not.toContain(`href="/${r.area}/${r.path}"`);
    }
  });

  it("publishes every public file, the manifests, signatures, keys and schemas", () => {
    for (const a of AREAS) {
      for (const r of manifest(a.slug).resources.filter((x) => x.access === "public")) {
        expect(
          readFileSync(join(siteDir, a.slug, r.path)).equals(dataFile(a.slug, r.path)),
          `${a.slug}/${r.path}`,
        ).toBe(true);
      }
      for (const f of ["datapackage.json", "datapackage.json.sig"]) {
        expect(readFileSync(join(siteDir, a.slug, f)).equals(dataFile(a.slug, f)), `${a.slug}/${f}`).toBe(true);
      }
    }
    const vkeys = readdirSync(join(REPO_DATA_DIR, "keys")).filter((n) => n.endsWith(".vkey"));
    expect(vkeys).toContain("datasets.vkey");
    for (const k of vkeys)
      expect(readFileSync(join(siteDir, "keys", k)).equals(readFileSync(join(REPO_DATA_DIR, "keys", k))), k).toBe(true);
    const schemas = filesUnder(join(REPO_DATA_DIR, "schemas"));
    expect(filesUnder(join(siteDir, "schemas"))).toEqual(schemas);
  });

  it("serves the economy's extension-less endpoints with the same bytes as the JSON files", () => {
    for (const [alias, file] of [
      ["supply", "supply.json"],
      ["mii", "mii.json"],
      ["coordination", "coordination.json"],
      ["roi", "roi.json"],
    ]) {
      const published = join(siteDir, "economy", alias!);
      expect(statSync(published).isFile(), `/economy/${alias}`).toBe(true);
      expect(readFileSync(published).equals(dataFile("economy", file!)), `/economy/${alias}`).toBe(true);
    }
  });

  it("fails the build, naming the file, when one byte of a public file was changed", async () => {
    const tampered = join(tmp, "tampered");
    cpSync(REPO_DATA_DIR, tampered, { recursive: true });
    const target = join(tampered, "areas", "economy", "supply.json");
    const bytes = readFileSync(target);
    // Change one digit of the first number: same size, different SHA-256.
    const at = bytes.findIndex((b, i) => i > bytes.indexOf("total_supply") && b >= 0x30 && b <= 0x39);
    bytes[at] = bytes[at] === 0x39 ? 0x38 : bytes[at]! + 1;
    writeFileSync(target, bytes);
    const out = join(tmp, "out-tampered");
    const started = performance.now();
    const result = await buildSite(tampered, out);
    console.log(`tampered build failed after ${Math.round(performance.now() - started)} ms`);
    expect(result.code).not.toBe(0);
    expect(result.output).toContain(`${target}: SHA-256 mismatch`);
    expect(result.output).toContain("refusing to publish unverified data");
    // Nothing was published: the data is verified before any page is written.
    const published = existsSync(out) ? filesUnder(out) : [];
    expect(published.filter((p) => p.endsWith(".html") || p.startsWith("economy/"))).toEqual([]);
  }, 180_000);

  it("says so on the page when an area has not been generated yet, and publishes the others", async () => {
    const partial = join(tmp, "partial");
    cpSync(REPO_DATA_DIR, partial, { recursive: true });
    rmSync(join(partial, "areas", "diplomacy"), { recursive: true });
    const out = join(tmp, "out-partial");
    const result = await buildSite(partial, out);
    expect(result.code, result.output).toBe(0);
    const html = readFileSync(join(out, "diplomacy", "index.html"), "utf8");
    expect(html).toContain("The diplomacy area has not been generated yet.");
    expect(html).not.toContain("download-table");
    expect(filesUnder(out).filter((p) => p.startsWith("diplomacy/"))).toEqual(["diplomacy/index.html"]);
    expect(readFileSync(join(out, "economy", "supply")).equals(dataFile("economy", "supply.json"))).toBe(true);
    expect(readFileSync(join(out, "economy", "index.html"), "utf8")).toContain("download-table");
  }, 180_000);
});
