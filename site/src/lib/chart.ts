/**
 * The GI/MII sparkline of the whole history, computed once per build (every timeline page shows
 * the same chart) from core/pulse/sparkline.ts.
 */
import { dateTime, day, percent } from "../../../core/format/text.ts";
import { BASELINE_SCORE, baselineY, scoreDomain, sparkline, valueY, type Domain, type Sparkline } from "../../../core/pulse/sparkline.ts";
import type { PulseRecord } from "../../../core/pulse/history.ts";

/** The drawing area in SVG user units; the SVG is stretched to its box (strokes do not scale). */
export const CHART_WIDTH = 600;
export const CHART_HEIGHT = 160;

export interface Tick {
  label: string;
  /** Distance from the top of the chart in percent of its height. */
  topPercent: number;
}

export interface Chart {
  count: number;
  domain: Domain;
  gi: string;
  mii: string;
  /** Marker paths ("M x y h 0 …": round-capped dots) when the points are few enough to mark. */
  giMarks: string | null;
  miiMarks: string | null;
  /** For a single pulse: its values in words, shown beside the dot. */
  singleLabel: string | null;
  giPoints: number;
  miiPoints: number;
  baselineY: number;
  ticks: Tick[];
  title: string;
  desc: string;
  firstDate: string;
  lastDate: string;
}

function range(values: readonly number[]): { min: number; max: number } {
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return { min, max };
}

const pct = (v: number) => percent(v);
/** Points are marked with dots up to this many per line. */
export const MARKS_UP_TO = 60;
const marks = (points: readonly (readonly [number, number])[]) =>
  points.length <= MARKS_UP_TO ? points.map(([x, y]) => `M${x} ${y}h0`).join("") : null;
/** Axis labels: "100%", "95%", "72.5%" (no trailing ".0"). */
const tick = (v: number) => `${Math.round(v * 1000) / 10}%`;
const count = (n: number) => n.toLocaleString("en-US");


const round2 = (n: number) => Math.round(n * 100) / 100 + 0;

/** The same points with x proportional to each record's generatedAt (the middle for a single instant). */
function byTime(line: Sparkline, records: readonly PulseRecord[]): Sparkline {
  const t0 = Date.parse(records[0]!.generatedAt);
  const span = Date.parse(records[records.length - 1]!.generatedAt) - t0;
  const points = line.points.map(([, y], i) => {
    const t = Date.parse(records[line.indices[i]!]!.generatedAt);
    return [span > 0 ? round2(((t - t0) / span) * CHART_WIDTH) : CHART_WIDTH / 2, y] as const;
  });
  return { ...line, points, polyline: points.map(([x, y]) => `${x},${y}`).join(" ") };
}

/** The chart of `records` (oldest first); null for an empty history. */
export function buildChart(records: readonly PulseRecord[]): Chart | null {
  const first = records[0];
  const last = records[records.length - 1];
  if (!first || !last) return null;
  const giValues = records.map((r) => r.giScore);
  const miiValues = records.map((r) => r.miiScore);
  const domain = scoreDomain([...giValues, ...miiValues]);
  const options = { width: CHART_WIDTH, height: CHART_HEIGHT, domain };
  // Downsampled by index (core/pulse/sparkline.ts keeps every stretch's lowest and highest value),
  // then placed by time, so a gap between pulses reads as a gap on the date axis.
  const gi = byTime(sparkline(giValues, options), records);
  const mii = byTime(sparkline(miiValues, options), records);
  const top = (v: number) => Math.round((valueY(v, CHART_HEIGHT, domain) / CHART_HEIGHT) * 1000) / 10;
  const ticks: Tick[] = [{ label: tick(domain[1]), topPercent: 0 }];
  const baseTop = top(BASELINE_SCORE);
  // The baseline's own tick only where it does not collide with the top and bottom ones.
  if (baseTop >= 15 && baseTop <= 85) ticks.push({ label: tick(BASELINE_SCORE), topPercent: baseTop });
  ticks.push({ label: tick(domain[0]), topPercent: 100 });
  const giRange = range(giValues);
  const miiRange = range(miiValues);
  const firstDate = day(first.generatedAt);
  const lastDate = day(last.generatedAt);
  const span = records.length === 1 ? `1 pulse on ${firstDate}` : `${count(records.length)} pulses from ${firstDate} to ${lastDate}`;
  return {
    count: records.length,
    domain,
    gi: gi.polyline,
    mii: mii.polyline,
    giMarks: marks(gi.points),
    miiMarks: marks(mii.points),
    singleLabel: records.length === 1 ? `GI ${pct(last.giScore)} · MII ${pct(last.miiScore)} on ${dateTime(last.generatedAt)}` : null,
    giPoints: gi.points.length,
    miiPoints: mii.points.length,
    baselineY: baselineY(CHART_HEIGHT, domain),
    ticks,
    title: `GI and MII over ${span}`,
    desc: records.length === 1
      ? `GI ${pct(last.giScore)}, MII ${pct(last.miiScore)} (${last.cycle}). The dashed line marks the ${tick(BASELINE_SCORE)} baseline; the vertical scale runs from ${tick(domain[0])} to ${tick(domain[1])}.`
      :
      `GI ranged from ${pct(giRange.min)} to ${pct(giRange.max)}, latest ${pct(last.giScore)} (${last.cycle}). ` +
      `MII ranged from ${pct(miiRange.min)} to ${pct(miiRange.max)}, latest ${pct(last.miiScore)}. ` +
      `The dashed line marks the ${tick(BASELINE_SCORE)} baseline; the vertical scale runs from ${tick(domain[0])} to ${tick(domain[1])}.` +
      (records.length > gi.points.length ? ` Drawn from ${count(gi.points.length)} of ${count(records.length)} points per line, keeping each stretch's lowest and highest value.` : ""),
    firstDate,
    lastDate,
  };
}

let cached: { records: readonly PulseRecord[]; chart: Chart | null } | undefined;

/** buildChart, memoised on the records array (the build's history is read once). */
export function chartOf(records: readonly PulseRecord[]): Chart | null {
  if (cached?.records !== records) cached = { records, chart: buildChart(records) };
  return cached.chart;
}
