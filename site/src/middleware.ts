/**
 * Every HTML page leaves the build with the first use of each glossary term linked to its
 * definition (site/src/lib/first-use.ts); the glossary page itself defines them and is left as is.
 */
import { defineMiddleware } from "astro:middleware";
import { GLOSSARY } from "../../core/glossary.ts";
import { markFirstUses } from "./lib/first-use.ts";

export const onRequest = defineMiddleware(async (context, next) => {
  const response = await next();
  const type = response.headers.get("content-type") ?? "";
  if (!type.includes("text/html") || context.url.pathname.startsWith("/glossary/")) return response;
  const html = await response.text();
  return new Response(markFirstUses(html, GLOSSARY), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
});
