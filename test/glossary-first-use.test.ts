import { describe, expect, test } from "vitest";
import { GLOSSARY } from "../core/glossary.ts";
import { markFirstUses } from "../site/src/lib/first-use.ts";

const page = (main: string) =>
  `<html><head><title>GI</title></head><body><nav>GI</nav><main id="main">${main}</main><footer>GI</footer></body></html>`;

describe("markFirstUses", () => {
  test("marks the first use of each term in <main> only, once, with its abbreviation's expansion", () => {
    const out = markFirstUses(page("<p>The GI and the MII.</p><p>GI again, 5 shards.</p>"), GLOSSARY);
    expect(out).toContain(
      '<p>The <a class="term" href="/glossary/#gi" data-term="gi"><abbr title="global integrity">GI</abbr></a> and the <a class="term" href="/glossary/#mii" data-term="mii"><abbr title="integrity index">MII</abbr></a>.</p>',
    );
    expect(out).toContain('<p>GI again, 5 <a class="term" href="/glossary/#shard" data-term="shard">shards</a>.</p>');
    expect(out.match(/data-term="gi"/g)).toHaveLength(1);
    expect(out).toContain("<title>GI</title>");
    expect(out).toContain("<nav>GI</nav>");
    expect(out).toContain("<footer>GI</footer>");
  });

  test("leaves links, code, headings, tables' headers, SVG and scripts alone, and marks the next prose use", () => {
    const out = markFirstUses(
      page(
        '<h1>GI</h1><a href="/x">GI</a><code>GI</code><svg><title>GI</title><text>GI</text></svg><script>const GI = 1;</script><table><tr><th>GI</th><td>C-508</td></tr></table><p>GI</p>',
      ),
      GLOSSARY,
    );
    expect(out).toContain("<h1>GI</h1>");
    expect(out).toContain(
      '<a href="/x">GI</a><code>GI</code><svg><title>GI</title><text>GI</text></svg><script>const GI = 1;</script>',
    );
    expect(out).toContain('<th>GI</th><td><a class="term" href="/glossary/#cycle" data-term="cycle">C-508</a></td>');
    expect(out).toContain(
      '<p><a class="term" href="/glossary/#gi" data-term="gi"><abbr title="global integrity">GI</abbr></a></p>',
    );
  });

  test("whole words only; a page without <main> is unchanged", () => {
    expect(markFirstUses(page("<p>GIF MICRO sentinels2</p>"), GLOSSARY)).toBe(page("<p>GIF MICRO sentinels2</p>"));
    expect(markFirstUses("<p>GI</p>", GLOSSARY)).toBe("<p>GI</p>");
  });
});
