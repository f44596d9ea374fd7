/**
 * The transparency report's chart (pipeline/areas/government/transparency-pdf.ts): GI and MII over
 * the 30 days to the document time, with the 0.95 baseline, drawn as vectors on the report's page
 * layout (pipeline/lib/pdf-layout.ts).
 */
import { rgb, type PDFFont } from "pdf-lib";
import { day, percent } from "../../../core/format/text.ts";
import { glossaryTerm } from "../../../core/glossary.ts";
import type { PulseRecord } from "../../../core/pulse/history.ts";
import { DAY_MS } from "../../../core/time.ts";
import { BLACK, CONTENT_WIDTH, GREY, LIGHT, Layout, MARGIN, RED, SIZE } from "../../lib/pdf-layout.ts";
import { WINDOW_DAYS } from "../../lib/dating.ts";

/** The GI/MII baseline of the chart: the spec's minimum GI for session participants. */
export const CHART_BASELINE = 0.95;

// ------------------------------------------------------------------------------------------------
// The series colours (the page layout is pipeline/lib/pdf-layout.ts)

const GI_COLOR = rgb(0.11, 0.31, 0.85);
const MII_COLOR = rgb(0.76, 0.25, 0.05);

// ------------------------------------------------------------------------------------------------
// Chart

export function dateOf(ms: number): string {
  return day(new Date(ms));
}

/** Points are marked up to this many (about daily pulses); denser series are lines only. */
const MARKERS_UP_TO = 40;

/**
 * GI and MII over [endMs − 30 days, endMs]: labelled axes ("Score" in percent, "Date (UTC)"), the
 * 0.95 baseline and a legend. GI is a solid line with round markers, MII a dashed line with square
 * markers drawn over it, so equal values show both; a single pulse is a pair of labelled markers.
 */
export function drawChart(layout: Layout, font: PDFFont, points: readonly PulseRecord[], endMs: number): void {
  const height = 150;
  const { page, bottom } = layout.block(height + 52);
  const left = MARGIN + 44;
  const width = CONTENT_WIDTH - 44;
  const y0 = bottom + 40;
  const startMs = endMs - WINDOW_DAYS * DAY_MS;
  const values = points.flatMap((p) => [p.giScore, p.miiScore]);
  let lo = Math.floor(Math.min(CHART_BASELINE, ...values) * 20) / 20;
  if (lo >= CHART_BASELINE) lo = 0.9;
  const hi = 1;
  const yOf = (v: number) => y0 + ((v - lo) / (hi - lo)) * height;
  const xOf = (ms: number) => left + ((ms - startMs) / (endMs - startMs)) * width;

  // Grid and y labels every 0.05, and the axis title.
  for (let step = 0; lo + step * 0.05 <= hi + 1e-9; step++) {
    const v = Math.round((lo + step * 0.05) * 100) / 100;
    page.drawLine({ start: { x: left, y: yOf(v) }, end: { x: left + width, y: yOf(v) }, thickness: 0.4, color: LIGHT });
    const label = percent(v, 0);
    page.drawText(label, {
      x: left - 4 - font.widthOfTextAtSize(label, SIZE.small),
      y: yOf(v) - 3,
      size: SIZE.small,
      font,
      color: GREY,
    });
  }
  page.drawText("Score", { x: MARGIN, y: y0 + height + 8, size: SIZE.small, font, color: GREY });
  // Axes.
  page.drawLine({ start: { x: left, y: y0 }, end: { x: left, y: y0 + height }, thickness: 0.8, color: BLACK });
  page.drawLine({ start: { x: left, y: y0 }, end: { x: left + width, y: y0 }, thickness: 0.8, color: BLACK });
  // Baseline.
  page.drawLine({
    start: { x: left, y: yOf(CHART_BASELINE) },
    end: { x: left + width, y: yOf(CHART_BASELINE) },
    thickness: 0.8,
    color: RED,
    dashArray: [4, 3],
  });
  // X labels: window start, middle, end; the axis title under them.
  for (const ms of [startMs, (startMs + endMs) / 2, endMs]) {
    const label = dateOf(ms);
    const w = font.widthOfTextAtSize(label, SIZE.small);
    page.drawText(label, {
      x: Math.max(left, Math.min(xOf(ms) - w / 2, left + width - w)),
      y: y0 - 12,
      size: SIZE.small,
      font,
      color: GREY,
    });
  }
  const axisTitle = "Date (UTC)";
  page.drawText(axisTitle, {
    x: left + width / 2 - font.widthOfTextAtSize(axisTitle, SIZE.small) / 2,
    y: y0 - 24,
    size: SIZE.small,
    font,
    color: GREY,
  });
  // Series: GI first, MII (dashed) over it.
  const marks = points.length <= MARKERS_UP_TO;
  for (const [key, color, dashed] of [
    ["giScore", GI_COLOR, false],
    ["miiScore", MII_COLOR, true],
  ] as const) {
    let previous: { x: number; y: number } | null = null;
    for (const p of points) {
      const at = { x: xOf(Date.parse(p.generatedAt)), y: yOf(p[key]) };
      if (previous)
        page.drawLine({
          start: previous,
          end: at,
          thickness: dashed ? 1.2 : 1.6,
          color,
          ...(dashed ? { dashArray: [3, 2] } : {}),
        });
      if (marks || points.length === 1) {
        const r = points.length === 1 ? 3.2 : 1.8;
        if (dashed)
          page.drawRectangle({
            x: at.x - r * 0.8,
            y: at.y - r * 0.8,
            width: r * 1.6,
            height: r * 1.6,
            borderColor: color,
            borderWidth: 0.9,
          });
        else page.drawCircle({ x: at.x, y: at.y, size: r, color });
      }
      previous = at;
    }
  }
  if (points.length === 1) {
    const p = points[0]!;
    const x = xOf(Date.parse(p.generatedAt));
    const label = `GI ${percent(p.giScore)}, MII ${percent(p.miiScore)}`;
    const w = font.widthOfTextAtSize(label, SIZE.small);
    page.drawText(label, {
      x: Math.max(left + 2, Math.min(x - w / 2, left + width - w)),
      y: yOf(Math.max(p.giScore, p.miiScore)) + 7,
      size: SIZE.small,
      font,
      color: BLACK,
    });
  }
  // Legend.
  let x = left;
  const legendY = bottom + 2;
  for (const [label, color, dash] of [
    [`GI (${glossaryTerm("gi").abbr})`, GI_COLOR, undefined],
    [`MII (${glossaryTerm("mii").abbr})`, MII_COLOR, [3, 2]],
    [`Baseline ${percent(CHART_BASELINE, 0)}`, RED, [4, 3]],
  ] as const) {
    page.drawLine({
      start: { x, y: legendY + 3 },
      end: { x: x + 18, y: legendY + 3 },
      thickness: 1.4,
      color,
      ...(dash ? { dashArray: [...dash] } : {}),
    });
    page.drawText(label, { x: x + 22, y: legendY, size: SIZE.small, font, color: BLACK });
    x += 40 + font.widthOfTextAtSize(label, SIZE.small);
  }
}
