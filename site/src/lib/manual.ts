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

/** A docs page as the index orders it. */
export interface ManualEntry {
  name: string;
  title: string;
  /** From the page's front matter; a page without one sorts after every page with one. */
  order?: number | undefined;
}

/** The reading order: by `order`, then by title; pages without `order` last, by title. */
export function manualOrder<T extends ManualEntry>(entries: readonly T[]): T[] {
  const rank = (e: T) => e.order ?? Number.POSITIVE_INFINITY;
  return [...entries].sort(
    (a, b) => rank(a) - rank(b) || a.title.localeCompare(b.title, "en") || a.name.localeCompare(b.name, "en"),
  );
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
