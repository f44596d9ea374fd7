/**
 * The glossary in chromium, on the site built from the repository's data and served as a CDN
 * would (static files): /glossary/ defines every term of core/glossary.ts; the pages mark a term's
 * first use, once per page, as a link to its definition (an abbreviation inside an <abbr> with its
 * expansion), and every such link lands on a definition; axe finds nothing on the glossary page or
 * on a page full of terms.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GLOSSARY } from "../core/glossary.ts";
import { buildSite, launchChromium, REPO_DATA_DIR } from "./support/site/helpers.ts";
import { serveStatic, type StaticServer } from "./support/static-server.ts";
import { axeAudit, violationLines } from "./support/site/axe.ts";

const tmp = mkdtempSync(join(tmpdir(), "portal-glossary-"));
const siteDir = join(tmp, "site");
let cdn: StaticServer;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  const build = await buildSite(REPO_DATA_DIR, siteDir);
  if (build.code !== 0) throw new Error(`site build failed:\n${build.output}`);
  cdn = await serveStatic(siteDir);
  context = await launchChromium(join(tmp, "profile"), { width: 1280, height: 900 });
  page = context.pages()[0] ?? (await context.newPage());
}, 240_000);

afterAll(async () => {
  await context?.close();
  await cdn?.close();
  rmSync(tmp, { recursive: true, force: true });
});

const axeViolations = async () => violationLines(await axeAudit(page));

describe("the glossary", () => {
  it("defines every term of core/glossary.ts, each at its own anchor", async () => {
    await page.goto(`${cdn.url}/glossary/`);
    await expect(page.locator("h1").textContent()).resolves.toBe("Glossary");
    for (const term of GLOSSARY) {
      const entry = page.locator(`[id="${term.id}"]`);
      await expect(entry.locator("dfn").textContent(), term.id).resolves.toBe(term.term);
      await expect(entry.locator("dd").textContent(), term.id).resolves.toBe(term.definition);
      if (term.abbr) await expect(entry.locator("abbr").getAttribute("title")).resolves.toBe(term.abbr);
    }
    expect(await axeViolations()).toEqual([]);
  });

  for (const [path, expected] of [
    ["/", ["gi", "mii"]],
    ["/consensus/", ["gi", "cycle"]],
    ["/authority/", ["ledger"]],
    ["/economy/", ["mic", "cathedral"]],
  ] as const) {
    it(`${path}: each term's first use is a link to its definition, once`, async () => {
      await page.goto(`${cdn.url}${path}`);
      const marked = await page.locator("main a.term").evaluateAll((links) =>
        links.map((a) => ({
          term: (a as HTMLElement).dataset.term!,
          href: (a as HTMLAnchorElement).getAttribute("href")!,
          abbr: a.querySelector("abbr")?.getAttribute("title") ?? null,
        })),
      );
      const ids = marked.map((m) => m.term);
      expect(new Set(ids).size, "once per page").toBe(ids.length);
      for (const id of expected) expect(ids, id).toContain(id);
      for (const m of marked) {
        const term = GLOSSARY.find((t) => t.id === m.term)!;
        expect(m.href).toBe(`/glossary/#${term.id}`);
        expect(m.abbr).toBe(term.abbr ?? null);
      }
      // The first use: no earlier prose on the page says the term unmarked (read as the accessibility tree reads it).
      const before = await page.evaluate((id) => {
        const link = document.querySelector(`main a.term[data-term="${id}"]`)!;
        const range = document.createRange();
        range.setStart(document.querySelector("main")!, 0);
        range.setEndBefore(link);
        const fragment = range.cloneContents();
        Array.from(
          fragment.querySelectorAll(
            "a, code, pre, h1, h2, h3, h4, h5, h6, svg, script, style, caption, th, button, label, select, noscript, template",
          ),
        ).forEach((skipped) => skipped.remove());
        return fragment.textContent ?? "";
      }, expected[0]);
      expect(before).not.toMatch(GLOSSARY.find((t) => t.id === expected[0])!.match);
      if (path === "/consensus/") expect(await axeViolations()).toEqual([]);
    });
  }
});
