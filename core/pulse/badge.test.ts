import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import {
  BADGE_FILL,
  BADGE_LABEL_FILL,
  badgeFor,
  badgeSvg,
  colorFor,
  formatPercent,
  type BadgeMetric,
} from "./badge.ts";

/** The shields.io endpoint badge schema, written from https://shields.io/badges/endpoint-badge. */
const shieldsEndpointSchema = {
  type: "object",
  required: ["schemaVersion", "label", "message"],
  additionalProperties: false,
  properties: {
    schemaVersion: { const: 1 },
    label: { type: "string" },
    message: { type: "string", minLength: 1 },
    color: { type: "string" },
    labelColor: { type: "string" },
    isError: { type: "boolean" },
    namedLogo: { type: "string" },
    logoSvg: { type: "string" },
    logoColor: { type: "string" },
    logoWidth: { type: "number" },
    style: { enum: ["plastic", "flat", "flat-square", "for-the-badge", "social"] },
    cacheSeconds: { type: "integer", minimum: 300 },
  },
};
const validShields = new Ajv2020({ strict: true }).compile(shieldsEndpointSchema);

const below = (x: number) => x - Number.EPSILON * x; // one ulp below for these magnitudes
const scores = (gi: number, mii: number) => ({ giScore: gi, miiScore: mii });

describe("badge color thresholds", () => {
  const cases: [number, string][] = [
    [1, "brightgreen"],
    [0.98, "brightgreen"],
    [below(0.98), "yellowgreen"],
    [0.95, "yellowgreen"],
    [below(0.95), "yellow"],
    [0.9, "yellow"],
    [below(0.9), "red"],
    [0, "red"],
  ];
  it("one ulp below really is below", () => {
    for (const x of [0.98, 0.95, 0.9]) {
      expect(below(x)).toBeLessThan(x);
      expect(below(x)).toBe(x - Number.EPSILON * x);
    }
  });
  it.each(cases)("single metric %d → %s, for gi and for mii alone", (x, color) => {
    expect(badgeFor(scores(x, 0), "gi").color).toBe(color);
    expect(badgeFor(scores(0, x), "mii").color).toBe(color);
  });
  it.each(cases)("combined: the weaker metric (%d) decides → %s", (x, color) => {
    expect(badgeFor(scores(x, 1), "combined").color).toBe(color);
    expect(badgeFor(scores(1, x), "combined").color).toBe(color);
    expect(badgeFor(scores(x, x), "combined").color).toBe(color);
  });
  it("needs both metrics at a level for the combined color", () => {
    expect(colorFor([0.99, 0.97])).toBe("yellowgreen");
    expect(colorFor([0.97, 0.91])).toBe("yellow");
  });
});

describe("badge message", () => {
  it("shows percentages with one decimal, rounding half up on the exact value", () => {
    expect(formatPercent(1)).toBe("100.0");
    expect(formatPercent(0)).toBe("0.0");
    expect(formatPercent(0.98)).toBe("98.0");
    expect(formatPercent(0.9876)).toBe("98.8");
    expect(formatPercent(0.98749)).toBe("98.7");
    expect(formatPercent(0.0005)).toBe("0.1"); // 0.0005 is slightly above one half of 0.001
    expect(formatPercent(0.9745)).toBe("97.5"); // the double 0.9745 is 0.974500000000000032…
    expect(formatPercent(0.9005)).toBe("90.0"); // …and 0.9005 is 0.900499999999999967…
    expect(formatPercent(0.125)).toBe("12.5");
  });
  it("combined is `<gi>% / <mii>%`; single shows that metric alone", () => {
    expect(badgeFor(scores(0.9912, 0.9561), "combined")).toMatchObject({
      label: "integrity",
      message: "99.1% / 95.6%",
      color: "yellowgreen",
    });
    expect(badgeFor(scores(0.9912, 0.9561), "gi")).toMatchObject({
      label: "GI",
      message: "99.1%",
      color: "brightgreen",
    });
    expect(badgeFor(scores(0.9912, 0.9561), "mii")).toMatchObject({
      label: "MII",
      message: "95.6%",
      color: "yellowgreen",
    });
  });
  it("says `no data` as an error badge when there is no pulse", () => {
    for (const metric of ["combined", "gi", "mii"] as BadgeMetric[]) {
      expect(badgeFor(null, metric)).toMatchObject({ message: "no data", color: "lightgrey", isError: true });
    }
  });
  it("every badge body is a valid shields.io endpoint response", () => {
    for (const latest of [null, scores(0.5, 0.99), scores(1, 1)]) {
      for (const metric of ["combined", "gi", "mii"] as BadgeMetric[]) {
        const body = badgeFor(latest, metric);
        expect(validShields(body), JSON.stringify(validShields.errors)).toBe(true);
      }
    }
  });
});

describe("badge SVG", () => {
  it("is a titled, escaped SVG carrying the same text and color", () => {
    const svg = badgeSvg(badgeFor(scores(0.99, 0.99), "combined"));
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svg).toContain("<title>integrity: 99.0% / 99.0%</title>");
    expect(svg).toContain(`fill="${BADGE_FILL.brightgreen}"`);
    expect(badgeSvg({ schemaVersion: 1, label: "<a&b>", message: '"x"', color: "red" })).toContain(
      "&lt;a&amp;b&gt;: &quot;x&quot;",
    );
  });
});

describe("badge contrast", () => {
  /** WCAG 2.1 relative luminance of #rrggbb / #rgb. */
  const luminance = (hex: string) => {
    const h = hex.length === 4 ? [...hex.slice(1)].map((c) => c + c).join("") : hex.slice(1);
    const [r, g, b] = [0, 2, 4]
      .map((i) => parseInt(h.slice(i, i + 2), 16) / 255)
      .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  };
  /** The fill under the badge's top gradient stop (#bbb at 10 %), the lightest the text sits on. */
  const underGradient = (hex: string) => {
    const h = hex.length === 4 ? [...hex.slice(1)].map((c) => c + c).join("") : hex.slice(1);
    return `#${[0, 2, 4]
      .map((i) =>
        Math.round(0.9 * parseInt(h.slice(i, i + 2), 16) + 0.1 * 0xbb)
          .toString(16)
          .padStart(2, "0"),
      )
      .join("")}`;
  };
  const contrastWithWhite = (hex: string) => (1 + 0.05) / (luminance(hex) + 0.05);

  it("keeps white 11 px text at 4.5:1 or more on every colour, and the JSON keeps shields' names", () => {
    for (const [name, fill] of Object.entries(BADGE_FILL)) {
      expect(contrastWithWhite(underGradient(fill)), name).toBeGreaterThanOrEqual(4.5);
      expect(
        badgeSvg({ schemaVersion: 1, label: "GI", message: "1%", color: name as keyof typeof BADGE_FILL }),
      ).toContain(`fill="${fill}"`);
    }
    expect(contrastWithWhite(underGradient(BADGE_LABEL_FILL))).toBeGreaterThanOrEqual(4.5);
    expect(badgeFor({ giScore: 0.99, miiScore: 0.99 }, "combined").color).toBe("brightgreen");
  });
});
