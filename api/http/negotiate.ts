/**
 * Proactive content negotiation on `Accept` (RFC 9110 §12.5.1): the quality of a media type is the
 * q-value of the most specific range that matches it (`type/subtype` over `type/*` over `*\/*`).
 */

interface Range {
  type: string;
  subtype: string;
  q: number;
}

function parseAccept(header: string): Range[] {
  const ranges: Range[] = [];
  for (const part of header.split(",")) {
    const [media = "", ...params] = part.split(";");
    const [type = "", subtype = ""] = media.trim().toLowerCase().split("/");
    if (!type || !subtype) continue;
    let q = 1;
    for (const param of params) {
      const [key = "", value = ""] = param.split("=");
      if (key.trim().toLowerCase() === "q") {
        const parsed = Number(value.trim());
        q = Number.isFinite(parsed) ? Math.min(1, Math.max(0, parsed)) : 0;
      }
    }
    ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** The q-value the Accept ranges give to `type/subtype` (0 when nothing matches). */
export function quality(ranges: readonly Range[], type: string, subtype: string): number {
  let best = -1;
  let specificity = -1;
  for (const r of ranges) {
    const s =
      r.type === type && r.subtype === subtype
        ? 2
        : r.type === type && r.subtype === "*"
          ? 1
          : r.type === "*" && r.subtype === "*"
            ? 0
            : -1;
    if (s > specificity || (s === specificity && s >= 0 && r.q > best)) {
      specificity = s;
      best = r.q;
    }
  }
  return specificity < 0 ? 0 : best;
}

const memo = new Map<string, boolean>();

/**
 * Whether the client prefers `image/svg+xml` to `application/json`: only when its q-value is
 * strictly higher. No `Accept`, a tie, or neither acceptable all mean JSON (the shields.io
 * endpoint format is the default representation). Results are memoized per header value.
 */
export function prefersSvg(accept: string | undefined): boolean {
  if (!accept || accept === "*/*" || accept === "application/json") return false;
  const known = memo.get(accept);
  if (known !== undefined) return known;
  const ranges = parseAccept(accept);
  const svg = quality(ranges, "image", "svg+xml") > quality(ranges, "application", "json");
  if (memo.size >= 256) memo.clear();
  if (accept.length <= 512) memo.set(accept, svg);
  return svg;
}

/**
 * Whether the client prefers an HTML page to a problem+json body: `text/html` ranks strictly
 * above `application/problem+json` (browsers send `text/html,…,*\/*;q=0.8`; `*\/*` alone or no
 * `Accept` is a tie, which means problem+json).
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept || accept === "*/*") return false;
  const ranges = parseAccept(accept);
  return quality(ranges, "text", "html") > quality(ranges, "application", "problem+json");
}
