/**
 * What a build of the portal knows about where it will be served (docs/portal.md, "Where a build is
 * served"). Read once from the environment when the build starts (astro.config.mjs) and by the
 * pages and islands that name an origin or talk to the API:
 *
 *   SITE_URL           the origin the static copy is served from (canonical links, sitemap, the
 *                      verifier's `npx` command). Required in CI (`GITHUB_ACTIONS=true`): a build
 *                      there without it fails naming it. Elsewhere it defaults to the development
 *                      origin of `npm start`, http://127.0.0.1:4321.
 *   PUBLIC_API_ORIGIN  the origin of the API the pages call (key requests, the live cycle, the
 *                      simulation, keyed files), or unset: a static copy with no API behind it,
 *                      whose pages offer no form or live panel and say how to ask instead. A
 *                      development build (no SITE_URL) is one server with its API (`npm start`).
 *   PUBLIC_CONTACT     where a reader of a copy with no API writes for a key or to see live
 *                      sessions: an e-mail address or an https:// page. In CI it defaults to the
 *                      repository's issues page (GITHUB_SERVER_URL/GITHUB_REPOSITORY/issues).
 *
 * A value that is not what it should be fails the build, naming the variable.
 */

export const DEVELOPMENT_SITE_URL = "http://127.0.0.1:4321";

/** Where the pages send the API's requests. */
export type ApiTarget =
  /** The page's own origin: the site and the API are one server (`npm start`); paths stay relative. */
  | { kind: "same-origin"; origin: string; base: "" }
  /** Another origin: every request and link to the API is absolute. */
  | { kind: "elsewhere"; origin: string; base: string }
  /** No API behind this copy of the site. */
  | { kind: "none" };

/** How a reader of a copy with no API gets in touch: a mailto: link or a web page. */
export interface Contact {
  href: string;
  /** What the link reads: the address, or the page's URL. */
  text: string;
}

export interface PublicOrigins {
  /** The site's origin, without a trailing slash. */
  site: string;
  /** SITE_URL was given (a production build), not the development default. */
  siteConfigured: boolean;
  api: ApiTarget;
  contact: Contact | null;
}

/** `scheme://host[:port]` of an http(s) URL with no path beyond `/`, or an error naming `name`. */
export function originOf(name: string, text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new Error(`${name}: ${JSON.stringify(text)} is not a URL; give the origin, e.g. https://data.example.org`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new Error(`${name}: ${JSON.stringify(text)} is not an http(s) origin`);
  if (url.pathname !== "/" || url.search || url.hash || url.username || url.password) {
    throw new Error(
      `${name}: ${JSON.stringify(text)} has a path, query or credentials; the portal is served at the root of its origin, so give only scheme://host[:port]`,
    );
  }
  return url.origin;
}

const EMAIL = /^[^\s@<>()"',;:]+@[^\s@<>()"',;:]+\.[a-z]{2,}$/i;

/** PUBLIC_CONTACT as a link, or an error naming it. */
export function contactOf(text: string): Contact {
  const value = text.trim().replace(/^mailto:/i, "");
  if (EMAIL.test(value)) {
    if (/\.example$/i.test(value))
      throw new Error(
        `PUBLIC_CONTACT: ${JSON.stringify(text)} is a placeholder address (.example); give one that reaches the operators`,
      );
    return { href: `mailto:${value}`, text: value };
  }
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== "https:")
    throw new Error(`PUBLIC_CONTACT: ${JSON.stringify(text)} is neither an e-mail address nor an https:// page`);
  return { href: url.href, text: url.href };
}

/** The build's origins from the environment (see the module comment); throws naming a missing or malformed variable. */
export function publicOrigins(env: Record<string, string | undefined> = process.env): PublicOrigins {
  const given = env.SITE_URL?.trim();
  if (!given && env.GITHUB_ACTIONS === "true") {
    throw new Error(
      "SITE_URL is not set: a build in CI must name the origin it is served from (e.g. SITE_URL=https://data.example.org), or its pages would point downloaders at the development address " +
        DEVELOPMENT_SITE_URL +
        '. Set the repository variable SITE_URL (docs/portal.md, "Where a build is served").',
    );
  }
  const site = given ? originOf("SITE_URL", given) : DEVELOPMENT_SITE_URL;
  const apiText = env.PUBLIC_API_ORIGIN?.trim();
  let api: ApiTarget;
  if (apiText) {
    const origin = originOf("PUBLIC_API_ORIGIN", apiText);
    api = origin === site ? { kind: "same-origin", origin, base: "" } : { kind: "elsewhere", origin, base: origin };
  } else if (!given) {
    // A development build: the site and the API are one server (npm start), wherever it listens.
    api = { kind: "same-origin", origin: site, base: "" };
  } else {
    api = { kind: "none" };
  }
  const contactText = env.PUBLIC_CONTACT?.trim();
  const repository =
    env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY
      ? `${env.GITHUB_SERVER_URL.replace(/\/$/, "")}/${env.GITHUB_REPOSITORY}/issues`
      : undefined;
  const contact = contactText ? contactOf(contactText) : repository ? contactOf(repository) : null;
  return { site, siteConfigured: Boolean(given), api, contact };
}

/** The absolute URL of an API path for a page to call or link (relative when the API is the page's own origin); null without an API. */
export function apiUrl(api: ApiTarget, path: string): string | null {
  return api.kind === "none" ? null : `${api.base}${path}`;
}

/** The origin the API reference's example requests name: the API's, or this site's when the copy has none (the page says so). */
export function apiExampleBase(origins: PublicOrigins): string {
  return origins.api.kind === "elsewhere" ? origins.api.origin : origins.site;
}
