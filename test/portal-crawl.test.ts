/**
 * The whole portal as a person meets it: the site built from the repository's own data, served by
 * the embedded default (`npm start`), crawled in Debian's chromium from `/` along every same-origin
 * link. Every link and asset answers 200; every page passes axe (WCAG 2.1 A and AA) at 1280 px wide
 * (at 390 px every page of its own template and the first page of each route that makes many pages
 * from one: the manual, the API reference's tags, the pulse timeline), never scrolls sideways at
 * either width, clips no text in a box with hidden overflow, shows no ISO instant
 * and no ungrouped number of five digits or more; and every page that states the system health
 * states the same one (`data-system-health`), which is core/health's over the published files.
 * The manual (docs/*.md at /manual/) is crawled like every page: each docs page is found from the
 * menu, and every link between docs pages lands on a page and an anchor the build has.
 */
import { portalCrawl } from "./portal-crawl-suite.ts";

portalCrawl([1280], true);
