/** /robots.txt: everything may be crawled; the sitemap's absolute address (SITE_URL, src/lib/public-origins.ts). */
import type { APIRoute } from "astro";
import { publicOrigins } from "../lib/public-origins.ts";

export const GET: APIRoute = () => {
  const sitemap = new URL("/sitemap-index.xml", publicOrigins().site).href;
  return new Response(`User-agent: *\nAllow: /\n\nSitemap: ${sitemap}\n`, {
    headers: { "Content-Type": "text/plain; charset=utf-8" },
  });
};
