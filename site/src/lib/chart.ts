/**
 * The GI/MII sparkline of the whole history, computed once per build (every timeline page shows
 * the same chart) from core/pulse/sparkline.ts.
 */
import { dateTime, day, dayAndTime, duration, percent } from "../../../core/format/text.ts";
import {
  BASELINE_SCORE,
  baselineY,
  scoreDomain,
  sparkline,
  valueY,
  type Domain,
  type Sparkline,
} from "../../../core/pulse/sparkline.ts";
import type { PulseRecord } from "../../../core/pulse/history.ts";
import { timeAxis, type TimeAxis } from "./time-axis.ts";

/** The drawing area in SVG user units; the SVG is stretched to its box (strokes do not scale). */
export const CHART_WIDTH = 600;
export const CHART_HEIGHT = 160;

export interface Tick {
  label: string;
  /** Distance from the top of the chart in percent of its height. */
  topPercent: number;
}

/** A cut gap of the time axis, where the chart has a break (lib/time-axis.ts). */
export interface ChartGap {
  x0: number;
  x1: number;
  /** From the left edge, in percent of the width. */
  leftPercent: number;
  widthPercent: number;
  /** "2 days, 9 hours". */
  label: string;
  fromIso: string;
  toIso: string;
}

/** A label under the time axis: the start of each stretch, and the end of the last. */
export interface AxisLabel {
  text: string;
  iso: string;
  leftPercent: number;
  align: "start" | "end";
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
  /** The shared time axis (the signal strips use the same one). */
  axis: TimeAxis;
  gaps: ChartGap[];
  axisLabels: AxisLabel[];
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

/** The same points placed on the time axis: x proportional to generatedAt within a stretch. */
function byTime(line: Sparkline, records: readonly PulseRecord[], axis: TimeAxis): Sparkline {
  const points = line.points.map(
    ([, y], i) => [axis.x(Date.parse(records[line.indices[i]!]!.generatedAt)), y] as const,
  );
  return { ...line, points, polyline: points.map(([x, y]) => `${x},${y}`).join(" ") };
}

const pctOf = (x: number) => Math.round((x / CHART_WIDTH) * 10000) / 100;
const iso = (ms: number) => new Date(ms).toISOString();

/** The axis of the records' instants over the chart's width. */
export function recordsAxis(records: readonly PulseRecord[]): TimeAxis {
  return timeAxis(
    records.map((r) => Date.parse(r.generatedAt)),
    CHART_WIDTH,
  );
}

function gapsOf(axis: TimeAxis): ChartGap[] {
  return axis.gaps.map((g) => ({
    x0: g.x0,
    x1: g.x1,
    leftPercent: pctOf(g.x0),
    widthPercent: pctOf(g.x1 - g.x0),
    label: duration(g.to - g.from),
    fromIso: iso(g.from),
    toIso: iso(g.to),
  }));
}

/** Without a cut: the first and the last day. With cuts: where each stretch starts, and the end. */
function axisLabelsOf(axis: TimeAxis, records: readonly PulseRecord[]): AxisLabel[] {
  const first = records[0]!.generatedAt;
  const last = records[records.length - 1]!.generatedAt;
  if (records.length === 1) return [{ text: day(first), iso: first, leftPercent: 50, align: "start" }];
  if (axis.gaps.length === 0) {
    return [
      { text: day(first), iso: first, leftPercent: 0, align: "start" },
      { text: day(last), iso: last, leftPercent: 100, align: "end" },
    ];
  }
  return [
    ...axis.stretches.map((s) => ({
      text: dayAndTime(iso(s.from)),
      iso: iso(s.from),
      leftPercent: pctOf(s.x0),
      align: "start" as const,
    })),
    { text: dayAndTime(last), iso: last, leftPercent: 100, align: "end" as const },
  ];
}

/** The cut gaps in words, for the chart's description. */
export function gapsSentence(gaps: readonly ChartGap[]): string {
  if (gaps.length === 0) return "";
  const list = gaps.map((g) => `${g.label}, from ${dateTime(g.fromIso)} to ${dateTime(g.toIso)}`).join("; ");
  return ` The time axis is linear, except that ${gaps.length === 1 ? "one gap without pulses is" : `${gaps.length} gaps without pulses are`} cut out and drawn as a break: ${list}.`;
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
  const axis = recordsAxis(records);
  const gi = byTime(sparkline(giValues, options), records, axis);
  const mii = byTime(sparkline(miiValues, options), records, axis);
  const gaps = gapsOf(axis);
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
  const span =
    records.length === 1
      ? `1 pulse on ${firstDate}`
      : `${count(records.length)} pulses from ${firstDate} to ${lastDate}`;
  return {
    count: records.length,
    domain,
    gi: gi.polyline,
    mii: mii.polyline,
    giMarks: marks(gi.points),
    miiMarks: marks(mii.points),
    singleLabel:
      records.length === 1
        ? `GI ${pct(last.giScore)} · MII ${pct(last.miiScore)} on ${dateTime(last.generatedAt)}`
        : null,
    giPoints: gi.points.length,
    miiPoints: mii.points.length,
    baselineY: baselineY(CHART_HEIGHT, domain),
    ticks,
    title: `GI and MII over ${span}`,
    desc:
      records.length === 1
        ? `GI ${pct(last.giScore)}, MII ${pct(last.miiScore)} (${last.cycle}). The dashed line marks the ${tick(BASELINE_SCORE)} baseline; the vertical scale runs from ${tick(domain[0])} to ${tick(domain[1])}.`
        : `GI ranged from ${pct(giRange.min)} to ${pct(giRange.max)}, latest ${pct(last.giScore)} (${last.cycle}). ` +
          `MII ranged from ${pct(miiRange.min)} to ${pct(miiRange.max)}, latest ${pct(last.miiScore)}. ` +
          `The dashed line marks the ${tick(BASELINE_SCORE)} baseline; the vertical scale runs from ${tick(domain[0])} to ${tick(domain[1])}.` +
          (records.length > gi.points.length
            ? ` Drawn from ${count(gi.points.length)} of ${count(records.length)} points per line, keeping each stretch's lowest and highest value.`
            : "") +
          gapsSentence(gaps),
    firstDate,
    lastDate,
    axis,
    gaps,
    axisLabels: axisLabelsOf(axis, records),
  };
}

let cached: { records: readonly PulseRecord[]; chart: Chart | null } | undefined;

/** buildChart, memoised on the records array (the build's history is read once). */
export function chartOf(records: readonly PulseRecord[]): Chart | null {
  if (cached?.records !== records) cached = { records, chart: buildChart(records) };
  return cached.chart;
}
