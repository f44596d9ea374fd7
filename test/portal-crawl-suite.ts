/**
 * The crawl of the whole portal (test/portal-crawl.test.ts, the general checks and 1280 px, and
 * test/portal-crawl-narrow.test.ts, 390 px): two test files so that the two widths' axe passes run
 * on two workers at once. What it checks is said in portal-crawl.test.ts.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemHealth } from "../core/health/system-health.ts";
import { manualPath, portalHref } from "../site/src/lib/manual.ts";
import {
  buildSite,
  docsPages,
  DOCS_DIR,
  launchChromium,
  markdownLinks,
  REPO_DATA_DIR,
  seedSampleLedger,
  startPortal,
  stopPortal,
} from "./support/site/helpers.ts";
import { axeAudit } from "./support/site/axe.ts";

/** Tabs checking pages at once in the axe pass. */
const CHECK_TABS = 3;

/**
 * The routes that make many pages from one template (site/src/pages/manual/[page].astro,
 * docs/[tag].astro, pulse/timeline/[...page].astro): their pages differ only in content, which axe
 * checks at the general crawl's width; what a narrower width changes in content (wide tables and
 * code) is the scroll boxes and sideways scroll, which every page is checked for at every width.
 */
const TEMPLATE_ROUTES = ["/manual/", "/docs/", "/pulse/timeline/"];

/**
 * The pages axe audits at a width other than the general crawl's: every page of its own template,
 * and the first page of each route that makes many.
 */
export function auditedAtEveryWidth(pages: readonly string[]): Set<string> {
  const firstOfRoute = new Map<string, string>();
  const audited = new Set<string>();
  for (const path of [...pages].sort()) {
    const route = TEMPLATE_ROUTES.find((r) => path.startsWith(r) && path !== r);
    if (route === undefined) audited.add(path);
    else if (!firstOfRoute.has(route)) {
      firstOfRoute.set(route, path);
      audited.add(path);
    }
  }
  return audited;
}

/** Registers the crawl: the general checks when `general`, and axe and fit at each of `widths`. */
export function portalCrawl(widths: readonly number[], general: boolean): void {
  const tmp = mkdtempSync(join(tmpdir(), "portal-crawl-"));
  const siteDir = join(tmp, "site");

  let portal: ChildProcess | undefined;
  let base: string;
  let context: BrowserContext;
  let page: Page;
  /** Same-origin pages found by the crawl (paths), and every same-origin URL referenced, with its status. */
  const pages: string[] = [];
  /** The `data-system-health` values each page states, per path (gathered by the axe pass). */
  const healthStated = new Map<string, string[]>();
  const statuses = new Map<string, number>();
  /** Each page's checks per width, when the crawl made them (the general crawl, at its first width). */
  const checked = new Map<number, Map<string, { violations: number; problems: string[] }>>();

  /** Same-origin URLs a page references: links, stylesheets, icons, images, scripts. */
  async function references(p: Page): Promise<{ links: string[]; assets: string[] }> {
    return p.evaluate(() => {
      const abs = (v: string | null) => (v ? new URL(v, location.href) : null);
      const same = (u: URL | null): u is URL => u !== null && u.origin === location.origin;
      const links = Array.from(document.querySelectorAll("a[href]"))
        .map((a) => abs(a.getAttribute("href")))
        .filter(same)
        .map((u) => u.pathname + u.search);
      const assets = [
        ...Array.from(document.querySelectorAll("link[href]")).map((l) => abs(l.getAttribute("href"))),
        ...Array.from(document.querySelectorAll("img[src], script[src], source[src]")).map((e) =>
          abs(e.getAttribute("src")),
        ),
      ]
        .filter(same)
        .map((u) => u.pathname + u.search);
      return { links, assets };
    });
  }

  /** Axe, sideways scroll, clipped text, labelled scroll boxes and readable numbers on one page at `width`. */
  async function checkPage(
    tab: Page,
    path: string,
    width: number,
    audit = true,
  ): Promise<{ violations: number; problems: string[] }> {
    await tab.goto(base + path);
    return checkOpenPage(tab, path, width, audit);
  }

  /** The checks of checkPage on the page `tab` has open (axe only when `audit`). */
  async function checkOpenPage(
    tab: Page,
    path: string,
    width: number,
    audit = true,
  ): Promise<{ violations: number; problems: string[] }> {
    const problems: string[] = [];
    // The system health each page states, read while the page is open (checked by its own test below).
    const stated = await tab
      .locator("[data-system-health]")
      .evaluateAll((els) => els.map((e) => e.getAttribute("data-system-health")!));
    if (stated.length > 0) healthStated.set(path, stated);
    const axe = audit ? await axeAudit(tab) : { violations: [] };
    for (const v of axe.violations)
      problems.push(`${path}: axe ${v.id} (${v.nodes.length}): ${v.nodes[0]?.target.join(" ")}`);

    const scrollWidth = await tab.evaluate(() => document.documentElement.scrollWidth);
    if (scrollWidth > width) problems.push(`${path}: the page is ${scrollWidth} px wide`);

    const clipped = await tab.evaluate(() => {
      const out: string[] = [];
      for (const el of Array.from(document.querySelectorAll<HTMLElement>("body *"))) {
        const style = getComputedStyle(el);
        const hides = (v: string) => v === "hidden" || v === "clip";
        if (!hides(style.overflowX) && !hides(style.overflowY)) continue;
        // Visually hidden on purpose (a table header read to screen readers only).
        if (el.clientWidth <= 1 || el.clientHeight <= 1 || style.clipPath === "inset(50%)") continue;
        if (!el.textContent?.trim()) continue;
        if (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1)
          out.push(`${el.tagName.toLowerCase()}.${el.className}`);
      }
      return out;
    });
    for (const c of clipped) problems.push(`${path}: ${c} clips its text`);

    // Every labelled scroll box is reachable by keyboard and named by its caption.
    const boxes = await tab.locator(".table-scroll").evaluateAll((els) =>
      els.map((e) => ({
        tab: e.getAttribute("tabindex"),
        overflow: getComputedStyle(e).overflowX,
        caption: !!e.querySelector("caption"),
        label: e.getAttribute("aria-labelledby"),
      })),
    );
    for (const b of boxes)
      if (b.tab !== "0" || b.overflow !== "auto" || !b.caption || !b.label)
        problems.push(`${path}: a table box is not a labelled scroll container`);

    const text = await tab.evaluate(() => {
      const clone = document.body.cloneNode(true) as HTMLElement;
      // Code (hash prefixes, commands) is not prose.
      clone.querySelectorAll("code, script, style").forEach((e) => e.remove());
      return clone.innerText ?? clone.textContent ?? "";
    });
    for (const m of text.matchAll(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/g))
      problems.push(`${path}: ISO instant in text: ${m[0]}`);
    // Designations such as "ISO/IEC 27001" or "RFC 9162" are names, not amounts.
    for (const m of text.matchAll(/(?<![\w.,:/+-])(?<![A-Z]{2,} )\d{5,}(?![\w])/g))
      problems.push(`${path}: ungrouped number in text: ${m[0]}`);
    return { violations: axe.violations.length, problems };
  }

  /**
   * CHECK_TABS tabs at `width` (the first is `page`): pages are checked in a few tabs at once, because
   * most of a page's axe pass is axe waiting between its rules, and tabs overlap where one tab would
   * leave the cores idle.
   */
  async function openTabs(width: number): Promise<Page[]> {
    const tabs = [page, ...(await Promise.all(Array.from({ length: CHECK_TABS - 1 }, () => context.newPage())))];
    for (const tab of tabs) await tab.setViewportSize({ width, height: 900 });
    return tabs;
  }
  async function closeTabs(tabs: Page[]): Promise<void> {
    for (const tab of tabs.slice(1)) await tab.close();
  }

  /** The pages the built site's sitemap lists (paths). */
  async function sitemapPages(): Promise<string[]> {
    const index = await (await fetch(`${base}/sitemap-index.xml`)).text();
    const sitemapUrl = /<loc>([^<]+)<\/loc>/.exec(index)![1]!;
    const sitemap = await (await fetch(`${base}${new URL(sitemapUrl).pathname}`)).text();
    return [...sitemap.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => new URL(m[1]!).pathname);
  }

  beforeAll(async () => {
    const build = await buildSite(REPO_DATA_DIR, siteDir);
    if (build.code !== 0) throw new Error(`site build failed:\n${build.output}`);
    // The ledger the data was generated from, as `npm start` seeds it: the pages link to its proofs on the API.
    await seedSampleLedger(join(tmp, "state"), REPO_DATA_DIR);
    const running = await startPortal({ stateDir: join(tmp, "state"), dataDir: REPO_DATA_DIR, siteDir });
    portal = running.child;
    base = running.url;
    context = await launchChromium(join(tmp, "profile"), { width: 1280, height: 900 });
    page = context.pages()[0] ?? (await context.newPage());

    if (!general) {
      // The other widths take the pages from the sitemap: the general crawl checks that every page it
      // finds from / is listed there, so the sitemap holds at least the crawled pages.
      pages.push(...(await sitemapPages()));
      return;
    }
    // Breadth-first from /, in CHECK_TABS tabs: HTML pages are opened in the browser (and checked at
    // the first width while open, so the pass at that width needs no second visit), everything else
    // is fetched. A tab that finds the queue empty waits while another tab may still add to it.
    const width = widths[0]!;
    const checks = new Map<string, { violations: number; problems: string[] }>();
    const queue = ["/"];
    const seen = new Set(queue);
    let busy = 0;
    const tabs = await openTabs(width);
    await Promise.all(
      tabs.map(async (tab) => {
        for (;;) {
          const path = queue.shift();
          if (path === undefined) {
            if (busy === 0) return;
            await new Promise((resolve) => setTimeout(resolve, 10));
            continue;
          }
          busy++;
          try {
            const response = await tab.goto(base + path);
            statuses.set(path, response?.status() ?? 0);
            if (
              !response ||
              response.status() !== 200 ||
              !(response.headers()["content-type"] ?? "").includes("text/html")
            )
              continue;
            pages.push(path);
            const { links, assets } = await references(tab);
            for (const url of links) {
              const clean = url.split("#")[0]!;
              if (seen.has(clean)) continue;
              seen.add(clean);
              // Pages are crawled; data files are fetched (a PDF or CSV is not a page to open).
              if (clean.endsWith("/") || !/\.[a-z0-9]+$/i.test(clean.split("?")[0]!)) queue.push(clean);
              else assets.push(clean);
            }
            for (const url of assets) {
              if (statuses.has(url)) continue;
              statuses.set(url, 0);
              statuses.set(url, (await fetch(base + url)).status);
            }
            checks.set(path, await checkOpenPage(tab, path, width));
          } finally {
            busy--;
          }
        }
      }),
    );
    await closeTabs(tabs);
    checked.set(width, checks);
  }, 300_000);

  afterAll(async () => {
    await context?.close();
    await stopPortal(portal);
    rmSync(tmp, { recursive: true, force: true });
  });

  describe("the portal, crawled from / in chromium", () => {
    if (general) {
      it("finds every page and every same-origin link and asset answers 200", () => {
        expect(pages).toEqual(
          expect.arrayContaining([
            "/",
            "/pulse/timeline/",
            "/government/",
            "/academics/",
            "/philosophy/",
            "/economy/",
            "/diplomacy/",
            "/consensus/",
            "/authority/",
            "/manual/",
          ]),
        );
        const broken = [...statuses].filter(([, status]) => status !== 200);
        expect(broken).toEqual([]);
        // The assets a person's browser asks for on its own: the icon and the stylesheet.
        expect(statuses.get("/favicon.svg")).toBe(200);
        expect([...statuses.keys()].some((u) => u.endsWith(".css"))).toBe(true);
      });

      it("builds every docs page into the manual, and every link between docs pages finds its page and anchor", () => {
        const names = docsPages();
        expect(pages).toEqual(expect.arrayContaining(names.map(manualPath)));
        /** The ids of a built page (its headings' anchors among them). */
        const idsOf = (path: string) =>
          new Set(
            [...readFileSync(join(siteDir, path, "index.html"), "utf8").matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]!),
          );
        const broken: string[] = [];
        let anchors = 0;
        for (const name of names) {
          for (const href of markdownLinks(readFileSync(join(DOCS_DIR, `${name}.md`), "utf8"))) {
            const target = portalHref(href);
            if (target === null || !(target.startsWith("/manual/") || target.startsWith("#"))) continue;
            const [path, anchor] = target.startsWith("#") ? [manualPath(name), target.slice(1)] : target.split("#");
            if (!pages.includes(path!)) broken.push(`${name}.md: ${href} → ${path} was not built`);
            else if (anchor) {
              anchors++;
              if (!idsOf(path!).has(decodeURIComponent(anchor)))
                broken.push(`${name}.md: ${href} → no #${anchor} on ${path}`);
            }
          }
        }
        expect(broken).toEqual([]);
        expect(anchors).toBeGreaterThan(5);
      });

      it("lists only built pages in the menu", async () => {
        await page.goto(`${base}/`);
        const nav = await page
          .locator('nav[aria-label="Areas"] a')
          .evaluateAll((as) => as.map((a) => a.getAttribute("href")!));
        for (const href of nav) expect(pages, href).toContain(href);
      });

      it("publishes a sitemap of its pages and a 404 page without a canonical address", async () => {
        expect((await fetch(`${base}/sitemap-index.xml`)).status).toBe(200);
        const listed = await sitemapPages();
        for (const p of pages) expect(listed, p).toContain(p);
        expect(listed.some((p) => p.includes("404"))).toBe(false);
        expect(await (await fetch(`${base}/robots.txt`)).text()).toContain("Sitemap: ");

        const missing = await page.goto(`${base}/no-such-page/`);
        expect(missing?.status()).toBe(404);
        await expect(page.locator("h1").textContent()).resolves.toBe("Page not found");
        await expect(page.locator('link[rel="canonical"]').count()).resolves.toBe(0);
      });
    }

    for (const width of widths) {
      it(`every page at ${width} px: axe WCAG 2.1 AA (at a second width, each template's), no sideways scroll, no clipped text, readable numbers`, async () => {
        // Checked during the crawl when this is its width; otherwise every page is opened now.
        let checks = checked.get(width);
        if (!checks) {
          const found = new Map<string, { violations: number; problems: string[] }>();
          const queue = [...pages];
          const audited = auditedAtEveryWidth(pages);
          const tabs = await openTabs(width);
          await Promise.all(
            tabs.map(async (tab) => {
              for (let path = queue.shift(); path !== undefined; path = queue.shift())
                found.set(path, await checkPage(tab, path, width, audited.has(path)));
            }),
          );
          await closeTabs(tabs);
          checks = found;
        }
        const violations = pages.reduce((sum, path) => sum + checks.get(path)!.violations, 0);
        const audits = checked.has(width) ? pages.length : auditedAtEveryWidth(pages).size;
        console.log(`axe at ${width} px: ${violations} violation(s) on ${audits} of ${pages.length} pages`);
        expect(pages.flatMap((path) => checks.get(path)!.problems)).toEqual([]);
      }, 300_000); // axe on every page (the API reference is long) takes tens of seconds on two cores
    }

    if (general) {
      it("states one system health on every page that states one, the one core/health derives from the files", async () => {
        // Read by the axe pass above, which opens every page; run alone, this test opens them itself.
        if (healthStated.size === 0) for (const path of pages) await checkPage(page, path, 1280);
        const seen = healthStated;
        for (const p of ["/", "/government/", "/economy/"]) expect(seen.has(p), p).toBe(true);
        const all = new Set([...seen.values()].flat());
        expect(all.size).toBe(1);
        const read = (p: string) => JSON.parse(readFileSync(join(REPO_DATA_DIR, "areas", p), "utf8"));
        const status = read("government/sentinel-status.json");
        const mii = read("economy/mii.json");
        const compliance = read("government/compliance-report.json");
        const expected = systemHealth({
          asOf: status.timestamp,
          sentinels: status.sentinels,
          minting: { active: mii.minting_active, mii: mii.mii, threshold: mii.threshold },
          compliance: { status: compliance.compliance_status, nextAudit: compliance.next_audit },
        });
        expect([...all][0]).toBe(expected.status);
        // The API says the same.
        const health = (await (await fetch(`${base}/health`)).json()) as { system: { status: string } };
        expect(health.system.status).toBe(expected.status);
      });

      it("weighs its home page and timeline lightly", async () => {
        for (const path of ["/", "/pulse/timeline/"]) {
          const weights = new Map<string, number>();
          const onResponse = async (r: import("playwright-core").Response) => {
            if (!r.url().startsWith(base)) return;
            weights.set(r.url(), (await r.body().catch(() => Buffer.alloc(0))).length);
          };
          page.on("response", onResponse);
          await page.goto(`${base}${path}?weigh`, { waitUntil: "networkidle" });
          page.off("response", onResponse);
          const total = [...weights.values()].reduce((a, b) => a + b, 0);
          console.log(`page weight of ${path}: ${total} bytes in ${weights.size} requests`);
          expect(total).toBeLessThan(150_000);
        }
      });
    }
  });
}
