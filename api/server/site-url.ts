/**
 * Where `npm start` serves and which origin its built site names as canonical. The site is built
 * before the server listens, so the canonical origin comes from configuration: SITE_URL (the public
 * origin behind a proxy or CDN), else the origin HOST and PORT serve on.
 */

/** PORT (default 4321), checked. */
export function portOf(env: NodeJS.ProcessEnv): number {
  const text = env.PORT ?? "4321";
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535)
    throw new Error(`PORT must be an integer from 0 to 65535, not ${JSON.stringify(text)}`);
  return Number(text);
}

/**
 * The origin the built site names in `<link rel="canonical">` and the sitemap: SITE_URL, else
 * `http://HOST:PORT` (an unspecified host, 0.0.0.0 or ::, is named 127.0.0.1; an IPv6 one in brackets).
 */
export function publicSiteUrl(env: NodeJS.ProcessEnv): string {
  if (env.SITE_URL) return env.SITE_URL;
  const host = env.HOST || "127.0.0.1";
  const named = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  const port = portOf(env);
  return `http://${named.includes(":") ? `[${named}]` : named}${port === 80 ? "" : `:${port}`}`;
}
