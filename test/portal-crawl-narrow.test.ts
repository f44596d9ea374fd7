/** The portal's crawl at 390 px: axe, no sideways scroll, no clipped text (test/portal-crawl-suite.ts). */
import { portalCrawl } from "./portal-crawl-suite.ts";

portalCrawl([390], false);
