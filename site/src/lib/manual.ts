/**
 * The manual: the Markdown pages under docs/ at the repository root, rendered by the portal at
 * /manual/ (docs/index.md) and /manual/<name>/ (docs/<name>.md). One source for GitHub and the
 * portal, so a link between pages is written once, as GitHub resolves it (`./ledger.md#keys`),
 * and rewritten here for the portal.
 *
 * Pure functions and a rehype plugin (run by Astro's Markdown pipeline, astro.config.mjs); the
 * pages read the collection (src/content.config.ts).
 */
import type { Root, RootContent } from "hast";
import type { HastPluginDefinition } from "satteri";

/** Where the manual lives on the portal. */
export const MANUAL_BASE = "/manual/";

/** The portal path of a docs page by its file name without `.md` (`index` is the manual's front page). */
export function manualPath(name: string): string {
  return name === "index" ? MANUAL_BASE : `${MANUAL_BASE}${name}/`;
}

/** A link to another docs page: `ledger.md`, `./ledger.md`, `./ledger.md#keys` (no folder). */
const DOCS_PAGE_LINK = /^(?:\.\/)?([A-Za-z0-9][A-Za-z0-9._-]*)\.md(#[^\s]*)?$/;

/**
 * What a link in a docs page becomes on the portal: another page's portal path (anchor kept), the
 * link unchanged (an anchor on the page, an absolute URL or path), or null for a relative link
 * that leaves docs/ (`../core/merkle.ts`, `../bench/README.md`): the portal does not publish the
 * repository's files, so such a link is shown as its text rather than left dead.
 */
export function portalHref(href: string): string | null {
  if (/^(#|[a-z][a-z0-9+.-]*:|\/)/i.test(href)) return href;
  const page = DOCS_PAGE_LINK.exec(href);
  return page ? manualPath(page[1]!) + (page[2] ?? "") : null;
}

/** A docs page as the menu lists it. */
export interface ManualEntry {
  name: string;
  title: string;
}

/** A page of the manual's table of contents, and the pages that go deeper into its part. */
export interface ManualTreeItem<T> {
  page: T;
  children: T[];
}

/** The front page's section that holds the table of contents. */
export const READING_ORDER_HEADING = "## Reading order";
/** `1. [Title](./name.md)` (a page read in turn) or `   - [Title](./name.md)` (a page under it). */
const TOC_ITEM = /^(?:(\d+)\.|\s+-) \[[^\]]+\]\(\.\/([A-Za-z0-9][A-Za-z0-9._-]*)\.md\)/;

/**
 * The manual's one table of contents, as docs/index.md writes it under "## Reading order": the
 * names of the numbered pages, in order, each with the names listed under it.
 */
export function readingOrder(indexMarkdown: string): { name: string; children: string[] }[] {
  const start = indexMarkdown.indexOf(`\n${READING_ORDER_HEADING}\n`);
  if (start < 0) return [];
  const section = indexMarkdown.slice(start + READING_ORDER_HEADING.length + 2).split(/\n## /)[0]!;
  const tree: { name: string; children: string[] }[] = [];
  for (const line of section.split("\n")) {
    const item = TOC_ITEM.exec(line);
    if (!item) continue;
    if (item[1] !== undefined) tree.push({ name: item[2]!, children: [] });
    else tree.at(-1)?.children.push(item[2]!);
  }
  return tree;
}

/**
 * The menu: the front page (`index`) first, then the pages as the reading order lists them, each
 * with the pages under it; pages the list does not name come last, by title, so none is hidden.
 */
export function manualTree<T extends ManualEntry>(
  pages: readonly T[],
  order: readonly { name: string; children: string[] }[],
): ManualTreeItem<T>[] {
  const byName = new Map(pages.map((p) => [p.name, p]));
  const placed = new Set<string>();
  const take = (name: string): T[] => {
    const page = byName.get(name);
    if (!page || placed.has(name)) return [];
    placed.add(name);
    return [page];
  };
  const tree: ManualTreeItem<T>[] = take("index").map((page) => ({ page, children: [] }));
  for (const item of order) {
    for (const page of take(item.name)) tree.push({ page, children: item.children.flatMap(take) });
  }
  const rest = pages
    .filter((p) => !placed.has(p.name))
    .sort((a, b) => a.title.localeCompare(b.title, "en") || a.name.localeCompare(b.name, "en"));
  for (const page of rest) tree.push({ page, children: [] });
  return tree;
}

/** A page's title: its front matter's `title`, else its first `# ` heading, else its file name. */
export function manualTitle(
  name: string,
  frontMatterTitle: string | undefined,
  headings: readonly { depth: number; text: string }[],
): string {
  return frontMatterTitle ?? headings.find((h) => h.depth === 1)?.text ?? name;
}

/**
 * Sätteri (Astro's Markdown processor) hast plugin that rewrites a docs page's HTML for the portal:
 * links as `portalHref` says (a link leaving docs/ becomes its text), and every table wrapped in a
 * labelled region that scrolls sideways by itself (focusable, so a keyboard reaches it), named
 * after the heading it sits under — a wide table never widens the page on a phone.
 */
export const manualHastPlugin: HastPluginDefinition = {
  name: "integrity-manual",
  before(root, ctx) {
    let heading = "";
    const tablesUnder = new Map<string, number>();
    const visit = (node: Readonly<RootContent | Root>): void => {
      if (node.type === "element") {
        if (/^h[1-6]$/.test(node.tagName)) heading = ctx.textContent(node).trim();
        if (node.tagName === "a" && typeof node.properties.href === "string") {
          const href = portalHref(node.properties.href);
          if (href === null) ctx.replaceNode(node, [...node.children]);
          else if (href !== node.properties.href) ctx.setProperty(node, "href", href);
        }
        if (node.tagName === "table") {
          const n = (tablesUnder.get(heading) ?? 0) + 1;
          tablesUnder.set(heading, n);
          const label = `Table${heading ? `: ${heading}` : ""}${n > 1 ? ` (${n})` : ""}`;
          ctx.wrapNode(node, {
            type: "element",
            tagName: "div",
            properties: { className: ["manual-table"], role: "region", tabIndex: 0, ariaLabel: label },
            children: [],
          });
        }
      }
      if ("children" in node) for (const child of node.children) visit(child);
    };
    visit(root);
  },
};
