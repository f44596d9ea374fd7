/**
 * The portal's crawl at 390 px: no sideways scroll, no clipped text and labelled scroll boxes on
 * every page; axe on each template's pages (test/portal-crawl-suite.ts).
 */
import { describe, expect, it } from "vitest";
import { auditedAtEveryWidth, portalCrawl } from "./portal-crawl-suite.ts";

portalCrawl([390], false);

describe("the pages axe audits at a second width", () => {
  it("are every page of its own template and the first of each route that makes many", () => {
    const pages = ["/", "/economy/", "/manual/", "/manual/b/", "/manual/a/", "/docs/", "/docs/x/", "/docs/y/"];
    const more = ["/pulse/timeline/", "/pulse/timeline/2/", "/pulse/timeline/3/", "/verify/"];
    expect([...auditedAtEveryWidth([...pages, ...more])].sort()).toEqual(
      [
        "/",
        "/docs/",
        "/docs/x/",
        "/economy/",
        "/manual/",
        "/manual/a/",
        "/pulse/timeline/",
        "/pulse/timeline/2/",
        "/verify/",
      ].sort(),
    );
  });
});
