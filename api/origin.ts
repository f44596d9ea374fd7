/**
 * Which web origins may open a connection that acts with a visitor's browser (the simulation
 * WebSocket): a guard against cross-site WebSocket hijacking. Browsers send `Origin` on every
 * WebSocket handshake and scripts cannot forge it, so:
 *
 * - no `Origin` header: not a browser (a CLI, a notebook kernel, a server): allowed;
 * - `Origin: null` (sandboxed frames, local files) or anything that is not an http(s) origin: refused;
 * - same origin — the Origin's host[:port] is the request's `Host` — allowed, over http or https
 *   (behind a TLS-terminating proxy the API sees http while the page is https);
 * - otherwise only an origin on the configured allow-list (`ALLOWED_ORIGINS`, comma-separated,
 *   e.g. `https://dashboard.example.org,http://localhost:3000`).
 */

/** The allow-list from its configuration text; throws naming an entry that is not an origin. */
export function parseAllowedOrigins(text: string | undefined): string[] {
  if (text === undefined || text.trim() === "") return [];
  return text.split(",").map((entry) => {
    const trimmed = entry.trim();
    const origin = originOf(trimmed);
    if (origin === null || origin !== trimmed.replace(/\/$/, "").toLowerCase()) {
      throw new Error(`ALLOWED_ORIGINS: ${JSON.stringify(trimmed)} is not an origin (scheme://host[:port], http or https, no path)`);
    }
    return origin;
  });
}

/** The serialized origin of an http(s) URL without path, query or credentials; else null. */
function originOf(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  if (url.username || url.password || url.search || url.hash || (url.pathname !== "/" && url.pathname !== "")) return null;
  return url.origin;
}

/** True when `host` (a Host header) names the origin's host and port, default ports compared as such. */
function sameHost(origin: string, host: string): boolean {
  const url = new URL(origin);
  try {
    return new URL(`${url.protocol}//${host}`).host === url.host;
  } catch {
    return false;
  }
}

export type OriginDecision = { allowed: true } | { allowed: false; reason: string };

export function checkOrigin(origin: string | undefined, host: string | undefined, allowList: readonly string[]): OriginDecision {
  if (origin === undefined) return { allowed: true };
  const normalized = originOf(origin);
  if (normalized === null) return { allowed: false, reason: "the Origin header is not an http(s) origin" };
  if (host !== undefined && sameHost(normalized, host)) return { allowed: true };
  if (allowList.includes(normalized)) return { allowed: true };
  return { allowed: false, reason: "this origin is not allowed to open the connection; set ALLOWED_ORIGINS on the server to allow it" };
}
