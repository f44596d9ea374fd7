/**
 * Marks the first use of each glossary term (core/glossary.ts) in a page's <main>: the word becomes
 * a link to its definition on /glossary/, an abbreviation also an `<abbr>` with its expansion, so a
 * screen reader hears the expansion and a reader can follow the link. Only text a reader reads as
 * prose is marked: nothing inside links, code, headings, form controls, SVG, scripts or styles.
 * A pure function of the HTML: the same page gives the same output.
 */
import type { GlossaryTerm } from "../../../core/glossary.ts";

/** Elements whose text is never marked. */
const SKIP = new Set([
  "a",
  "abbr",
  "dfn",
  "code",
  "pre",
  "kbd",
  "samp",
  "script",
  "style",
  "svg",
  "title",
  "textarea",
  "select",
  "option",
  "button",
  "label",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "noscript",
  "template",
  "caption",
  "th",
]);
const VOID = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "source",
  "track",
  "wbr",
]);

function escapeAttribute(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");
}

function markup(term: GlossaryTerm, word: string, href: string): string {
  const inner = term.abbr ? `<abbr title="${escapeAttribute(term.abbr)}">${word}</abbr>` : word;
  return `<a class="term" href="${href}#${term.id}" data-term="${term.id}">${inner}</a>`;
}

/** `html` with each term's first use inside <main> marked; `href` is the glossary page. */
export function markFirstUses(html: string, terms: readonly GlossaryTerm[], href = "/glossary/"): string {
  const start = html.search(/<main[\s>]/);
  const end = html.lastIndexOf("</main>");
  if (start < 0 || end < start) return html;
  const used = new Set<string>();
  const skipped: string[] = [];
  const main = html.slice(start, end).replace(/<!--[\s\S]*?-->|<[^>]*>|[^<]+/g, (token) => {
    if (token.startsWith("<")) {
      const tag = /^<(\/?)([a-zA-Z][\w-]*)/.exec(token);
      if (!tag) return token;
      const name = tag[2]!.toLowerCase();
      if (tag[1] === "/") {
        if (skipped.at(-1) === name) skipped.pop();
      } else if (SKIP.has(name) && !VOID.has(name) && !token.endsWith("/>")) {
        skipped.push(name);
      }
      return token;
    }
    if (skipped.length > 0) return token;
    let out = "";
    let at = 0;
    for (;;) {
      let first: { term: GlossaryTerm; index: number; word: string } | null = null;
      for (const term of terms) {
        if (used.has(term.id)) continue;
        const found = new RegExp(term.match.source, term.match.flags.replace("g", "")).exec(token.slice(at));
        if (found && (first === null || found.index < first.index))
          first = { term, index: found.index, word: found[0] };
      }
      if (!first) break;
      used.add(first.term.id);
      out += token.slice(at, at + first.index) + markup(first.term, first.word, href);
      at += first.index + first.word.length;
    }
    return out + token.slice(at);
  });
  return html.slice(0, start) + main + html.slice(end);
}
