/**
 * The one accessibility audit of the portal's browser tests: axe-core's WCAG 2.0 and 2.1, levels A
 * and AA, on the page as it stands.
 *
 * Legacy mode runs `axe.run` inside the page itself. The default mode of @axe-core/playwright opens a
 * second, blank page for every audit to merge the results of the page's frames; that cost about
 * 0.5 s a page (most of a small page's audit) and finds nothing more here, because no portal page
 * has a frame. And only violations are reported in full: axe computes a selector and an HTML
 * excerpt for every node a rule looked at, passed or not, unless told which results are wanted;
 * the tests read the violations only. The rules, and what they find, are the same.
 */
import { AxeBuilder } from "@axe-core/playwright";
import type { Page } from "playwright-core";

/** The standards the portal is held to. */
export const WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

type AxeResults = Awaited<ReturnType<AxeBuilder["analyze"]>>;

/** Audits `page` (only the elements matching `include`, when given). */
export function axeAudit(page: Page, include?: string): Promise<AxeResults> {
  // options() replaces the whole option object, so it comes before withTags (which adds to it).
  const builder = new AxeBuilder({ page })
    .options({ resultTypes: ["violations"] })
    .withTags(WCAG_TAGS)
    .setLegacyMode(true);
  return (include ? builder.include(include) : builder).analyze();
}

/** Each violation as "rule: the selectors of its nodes", for an assertion's message. */
export function violationLines(results: AxeResults): string[] {
  return results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}
