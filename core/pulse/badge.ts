/**
 * The pulse badge: shields.io endpoint JSON and the same badge as a standalone SVG.
 * Colors follow the spec: brightgreen when every metric shown is >= 0.98, yellowgreen >= 0.95,
 * yellow >= 0.90, red below; lightgrey with isError when there is no pulse yet. The SVG draws each
 * colour darker than shields does (BADGE_FILL), for text contrast.
 */
import type { BadgeColor, PulseBadge } from "../schemas/pulse.ts";

export type BadgeMetric = "combined" | "gi" | "mii";
export const BADGE_METRICS: readonly BadgeMetric[] = ["combined", "gi", "mii"];
export const BADGE_CACHE_SECONDS = 300;

const LABELS: Record<BadgeMetric, string> = { combined: "integrity", gi: "GI", mii: "MII" };

export interface Scores {
  giScore: number;
  miiScore: number;
}

/** A score in [0, 1] as a percentage with one decimal, rounded half-up on the exact binary value. */
export function formatPercent(score: number): string {
  // toFixed rounds the exact double (not score * 100, which adds its own error): 0.9005 → "0.900".
  const [whole, fraction] = score.toFixed(3).split(".") as [string, string];
  const thousandths = Number(whole) * 1000 + Number(fraction);
  return `${Math.floor(thousandths / 10)}.${thousandths % 10}`;
}

/** The color earned by the weakest of the given scores. */
export function colorFor(scores: readonly number[]): BadgeColor {
  const weakest = Math.min(...scores);
  if (weakest >= 0.98) return "brightgreen";
  if (weakest >= 0.95) return "yellowgreen";
  if (weakest >= 0.9) return "yellow";
  return "red";
}

export function badgeFor(latest: Scores | null, metric: BadgeMetric): PulseBadge {
  const label = LABELS[metric];
  if (!latest) {
    return {
      schemaVersion: 1,
      label,
      message: "no data",
      color: "lightgrey",
      isError: true,
      cacheSeconds: BADGE_CACHE_SECONDS,
    };
  }
  const shown =
    metric === "gi" ? [latest.giScore] : metric === "mii" ? [latest.miiScore] : [latest.giScore, latest.miiScore];
  return {
    schemaVersion: 1,
    label,
    message: shown.map((s) => `${formatPercent(s)}%`).join(" / "),
    color: colorFor(shown),
    cacheSeconds: BADGE_CACHE_SECONDS,
  };
}

/**
 * The SVG's fill for each shields colour name. Darker than shields' own so that the white 11 px
 * value text keeps a contrast of at least 4.5:1 (WCAG 2.1 AA) even under the badge's light top
 * gradient; the endpoint JSON keeps the colour names.
 */
export const BADGE_FILL: Readonly<Record<BadgeColor, string>> = {
  brightgreen: "#17702f",
  yellowgreen: "#5b6b00",
  yellow: "#7a5c00",
  red: "#b42318",
  lightgrey: "#616161",
};
/** The label half's fill. */
export const BADGE_LABEL_FILL = "#555";
const HEX = BADGE_FILL;

/** Approximate advance widths of 11px Verdana, enough to size the two halves of the badge. */
function textWidth(text: string): number {
  let width = 0;
  for (const ch of text) {
    if ("ilI.:|!' ".includes(ch)) width += 3.7;
    else if ("mwMW%".includes(ch)) width += 10.5;
    else if (/[A-Z]/.test(ch)) width += 7.6;
    else width += 6.9;
  }
  return Math.round(width);
}

function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** A flat shields-style SVG of the badge, with a title for screen readers. */
export function badgeSvg(badge: PulseBadge): string {
  const label = escapeXml(badge.label);
  const message = escapeXml(badge.message);
  const lw = textWidth(badge.label) + 10;
  const mw = textWidth(badge.message) + 10;
  const w = lw + mw;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="20" role="img" aria-label="${label}: ${message}">` +
    `<title>${label}: ${message}</title>` +
    `<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>` +
    `<clipPath id="r"><rect width="${w}" height="20" rx="3" fill="#fff"/></clipPath>` +
    `<g clip-path="url(#r)"><rect width="${lw}" height="20" fill="${BADGE_LABEL_FILL}"/><rect x="${lw}" width="${mw}" height="20" fill="${HEX[badge.color]}"/>` +
    `<rect width="${w}" height="20" fill="url(#s)"/></g>` +
    `<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">` +
    `<text x="${lw / 2}" y="15" fill="#010101" fill-opacity=".3">${label}</text><text x="${lw / 2}" y="14">${label}</text>` +
    `<text x="${lw + mw / 2}" y="15" fill="#010101" fill-opacity=".3">${message}</text><text x="${lw + mw / 2}" y="14">${message}</text>` +
    `</g></svg>\n`
  );
}
