/**
 * The manual as GitHub reads it: every docs/*.md is a page with a `# Title`, and every relative
 * link in the manual, the README and bench/README.md names a file that exists — another docs page,
 * or a file of the repository. (The portal side — every page built, every anchor present — is
 * checked on the real build by test/portal-crawl.test.ts.) Also the portal's reading of the pages:
 * link rewriting, the menu's tree and titles (site/src/lib/manual.ts).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { manualPath, manualTitle, manualTree, portalHref, readingOrder } from "../site/src/lib/manual.ts";
import { DOCS_DIR, docsPages, markdownLinks, REPO_ROOT } from "./support/site/helpers.ts";

const SOURCES = [
  ...docsPages().map((p) => join(DOCS_DIR, `${p}.md`)),
  join(REPO_ROOT, "README.md"),
  join(REPO_ROOT, "bench", "README.md"),
];
const isRelative = (href: string) => !/^(#|[a-z][a-z0-9+.-]*:|\/)/i.test(href);

describe("the manual's sources", () => {
  it("has the pages the README sends readers to, each starting with a # title after its front matter", () => {
    const pages = docsPages();
    for (const name of [
      "index",
      "architecture",
      "ledger",
      "trust",
      "authority",
      "consensus",
      "pulse",
      "data-areas",
      "sample-data",
      "balances-and-migration",
      "simulation",
      "api",
      "portal",
      "decisions",
      "contributing",
      "dependencies",
    ]) {
      expect(pages, name).toContain(name);
    }
    for (const name of pages) {
      const text = readFileSync(join(DOCS_DIR, `${name}.md`), "utf8").replace(/^---\n[\s\S]*?\n---\n+/, "");
      expect(text.startsWith("# "), `${name}.md starts with a # title`).toBe(true);
    }
  });

  it("has one table of contents: docs/index.md's reading order lists every other page once, and no page orders itself", () => {
    const pages = docsPages();
    const order = readingOrder(readFileSync(join(DOCS_DIR, "index.md"), "utf8"));
    const listed = order.flatMap((item) => [item.name, ...item.children]);
    expect(new Set(listed).size, "a page listed twice").toBe(listed.length);
    expect([...listed].sort()).toEqual(pages.filter((p) => p !== "index").sort());
    for (const name of pages) {
      expect(readFileSync(join(DOCS_DIR, `${name}.md`), "utf8"), `${name}.md`).not.toMatch(/^---\n[\s\S]*?^order:/m);
    }
  });

  it("every relative link names a file that exists", () => {
    const broken: string[] = [];
    let checked = 0;
    for (const source of SOURCES) {
      for (const href of markdownLinks(readFileSync(source, "utf8")).filter(isRelative)) {
        checked++;
        const target = resolve(dirname(source), decodeURIComponent(href.split("#")[0]!));
        if (!existsSync(target)) broken.push(`${source.slice(REPO_ROOT.length + 1)}: ${href}`);
      }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(50);
  });

  it("finds links in prose only, not in code", () => {
    expect(
      markdownLinks('See [a](./a.md#x) and `[b](./b.md)`.\n\n```sh\n[c](./c.md)\n```\n[d](../d.ts "title")'),
    ).toEqual(["./a.md#x", "../d.ts"]);
  });
});

describe("the manual on the portal (site/src/lib/manual.ts)", () => {
  it("rewrites links between pages to /manual/ paths and keeps the anchor", () => {
    expect(portalHref("./ledger.md")).toBe("/manual/ledger/");
    expect(portalHref("ledger.md#keys")).toBe("/manual/ledger/#keys");
    expect(portalHref("./index.md#commands")).toBe("/manual/#commands");
    expect(manualPath("index")).toBe("/manual/");
  });

  it("keeps anchors and absolute links, and drops links that leave docs/ (the portal does not publish the repository)", () => {
    expect(portalHref("#event-types")).toBe("#event-types");
    expect(portalHref("https://datatracker.ietf.org/doc/html/rfc9162")).toBe(
      "https://datatracker.ietf.org/doc/html/rfc9162",
    );
    expect(portalHref("/docs/")).toBe("/docs/");
    expect(portalHref("../core/merkle.ts")).toBeNull();
    expect(portalHref("../bench/README.md")).toBeNull();
    expect(portalHref("./sub/page.md")).toBeNull();
  });

  it("lists the pages as the reading order nests them, the front page first and unlisted pages last by title", () => {
    const index = [
      "# Manual",
      "",
      "## Reading order",
      "",
      "1. [The ledger](./ledger.md) — entries.",
      "   - [Ledger reads](./ledger-reads.md) — proofs,",
      "     over two lines.",
      "2. [The API](./api.md) — routes.",
      "",
      "## Commands",
      "",
      "1. [Not a page of the list](./zeta.md)",
    ].join("\n");
    const order = readingOrder(index);
    expect(order).toEqual([
      { name: "ledger", children: ["ledger-reads"] },
      { name: "api", children: [] },
    ]);
    const pages = ["zeta", "api", "ledger-reads", "alpha", "ledger", "index"].map((name) => ({ name, title: name }));
    const tree = manualTree(pages, order);
    expect(tree.map((i) => [i.page.name, i.children.map((c) => c.name)])).toEqual([
      ["index", []],
      ["ledger", ["ledger-reads"]],
      ["api", []],
      ["alpha", []],
      ["zeta", []],
    ]);
    expect(
      manualTitle("x", undefined, [
        { depth: 2, text: "Sub" },
        { depth: 1, text: "The title" },
      ]),
    ).toBe("The title");
    expect(manualTitle("x", "Chosen", [{ depth: 1, text: "The title" }])).toBe("Chosen");
    expect(manualTitle("x", undefined, [])).toBe("x");
  });
});
