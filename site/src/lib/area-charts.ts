/**
 * Small, pure chart helpers of the area pages: numbers in, geometry and accessible text out; the
 * components (LineChart.astro, BarChart.astro) draw them as inline SVG at build time.
 *
 * - Line charts reuse core/pulse/sparkline.ts (same min/max downsampling as the pulse timeline):
 *   the SVG stretches to its box with a fixed viewBox, strokes do not scale, labels are HTML.
 * - Bar charts are horizontal, one row per item, in an SVG without a viewBox whose bar lengths are
 *   percentages of its width: the text is never scaled, so labels stay readable on a phone.
 * Every chart carries a title and a description that states the data in words.
 */
import { parseCycle } from "../../../core/cycle.ts";
import { sparkline, valueY, type Domain } from "../../../core/pulse/sparkline.ts";

/** The drawing area of line charts in SVG user units (stretched to the box). */
export const LINE_WIDTH = 600;
export const LINE_HEIGHT = 160;

export interface Tick {
  label: string;
  /** Distance from the top in percent of the chart's height. */
  topPercent: number;
  /** The same distance in SVG user units (for the gridline). */
  y: number;
}

export interface LineChartModel {
  /** Prefix of the element ids (title, desc). */
  id: string;
  title: string;
  desc: string;
  /** SVG polyline points; a single value is one point repeated, drawn as a dot. */
  points: string;
  count: number;
  /** y of the dashed reference line, or null. */
  referenceY: number | null;
  referenceLabel: string | null;
  lineLabel: string;
  ticks: Tick[];
  startLabel: string;
  endLabel: string | null;
  /** Axis titles: what the vertical scale measures, what runs along the bottom. */
  yAxisLabel: string;
  xAxisLabel: string;
}

export interface LineChartInput {
  id: string;
  values: readonly number[];
  domain: Domain;
  /** Values to label on the vertical axis (top to bottom order is not required). */
  ticks: readonly number[];
  tickLabel: (value: number) => string;
  /** An optional dashed reference line (a threshold or baseline) and its legend text. */
  reference?: { value: number; label: string };
  lineLabel: string;
  title: string;
  desc: string;
  startLabel: string;
  endLabel: string;
  yAxisLabel: string;
  xAxisLabel: string;
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/** The model of a line chart; null for an empty series. */
export function lineChart(input: LineChartInput): LineChartModel | null {
  const n = input.values.length;
  if (n === 0) return null;
  const line = sparkline(input.values, { width: LINE_WIDTH, height: LINE_HEIGHT, domain: input.domain });
  let points = line.polyline;
  if (n === 1) {
    // A polyline of one point draws nothing: a zero-length segment, which a round cap draws as a dot.
    const [x, y] = line.points[0]!;
    points = `${x},${y} ${x},${y}`;
  }
  const top = (v: number) => round1((valueY(v, LINE_HEIGHT, input.domain) / LINE_HEIGHT) * 100);
  const ticks = [...new Set(input.ticks)]
    .sort((a, b) => b - a)
    .map((v) => ({ label: input.tickLabel(v), topPercent: top(v), y: valueY(v, LINE_HEIGHT, input.domain) }));
  return {
    id: input.id,
    title: input.title,
    desc: input.desc,
    points,
    count: n,
    referenceY: input.reference ? valueY(input.reference.value, LINE_HEIGHT, input.domain) : null,
    referenceLabel: input.reference?.label ?? null,
    lineLabel: input.lineLabel,
    ticks,
    startLabel: input.startLabel,
    endLabel: n > 1 ? input.endLabel : null,
    yAxisLabel: input.yAxisLabel,
    xAxisLabel: input.xAxisLabel,
  };
}

/** The smallest "nice" number (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 × 10^k) at or above `value` (> 0). */
export function niceCeiling(value: number): number {
  if (!(Number.isFinite(value) && value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) {
    const candidate = step * power;
    if (candidate >= value * (1 - 1e-12)) return candidate;
  }
  return 10 * power;
}

/** 4_000_000 → "4M", 2_500 → "2.5k", 0 → "0". */
export function compact(value: number): string {
  const abs = Math.abs(value);
  const fmt = (v: number, suffix: string) => `${Math.round(v * 10) / 10}${suffix}`;
  if (abs >= 1e9) return fmt(value / 1e9, "B");
  if (abs >= 1e6) return fmt(value / 1e6, "M");
  if (abs >= 1e3) return fmt(value / 1e3, "k");
  return `${Math.round(value * 100) / 100}`;
}

// ---------------------------------------------------------------------------------------------
// bars

export interface BarItem {
  label: string;
  /** null draws no bar (for example a cathedral without sentinels). */
  value: number | null;
  valueLabel: string;
}

export interface Bar extends BarItem {
  /** Bar length in percent of the chart width, 0–100, one decimal. */
  percent: number;
  /** Top of the row in px. */
  y: number;
}

export interface BarChartModel {
  id: string;
  title: string;
  desc: string;
  bars: Bar[];
  /** Total height in px. */
  height: number;
}

/** Row geometry in px: label line, then the bar under it. */
export const BAR_ROW = 40;
export const BAR_LABEL_Y = 15;
export const BAR_Y = 22;
export const BAR_HEIGHT = 12;

export interface BarChartInput {
  id: string;
  title: string;
  /** Text before the list of values in the description. */
  summary: string;
  items: readonly BarItem[];
  /** The value of a full-width bar; the largest value when absent. */
  max?: number;
}

export function barChart(input: BarChartInput): BarChartModel {
  const values = input.items.map((i) => i.value).filter((v): v is number => v !== null && Number.isFinite(v));
  const max = input.max ?? Math.max(0, ...values);
  const bars = input.items.map((item, i) => ({
    ...item,
    percent: item.value === null || max <= 0 ? 0 : round1(Math.min(100, Math.max(0, (item.value / max) * 100))),
    y: i * BAR_ROW,
  }));
  const list = input.items.map((i) => `${i.label}: ${i.valueLabel}`).join("; ");
  return {
    id: input.id,
    title: input.title,
    desc: `${input.summary} ${list}.`,
    bars,
    height: Math.max(1, bars.length) * BAR_ROW,
  };
}

// ---------------------------------------------------------------------------------------------
// series

export interface CyclePoint {
  cycle: number;
  /** Timestamp of the first row of the cycle (null for a cycle without rows). */
  firstAt: string | null;
  /** Sum of the rows up to and including this cycle. */
  cumulative: bigint;
  /** Rows in this cycle. */
  rows: number;
}

/**
 * Running totals per cycle of rows carrying a cycle label and an exact integer amount, one point
 * for every cycle from the first to the last (a cycle without rows repeats the total), so that x
 * is proportional to time.
 */
export function cumulativeByCycle(rows: readonly { cycle: string; timestamp: string; amount: bigint }[]): CyclePoint[] {
  const byCycle = new Map<number, { sum: bigint; firstAt: string; rows: number }>();
  for (const r of rows) {
    const c = parseCycle(r.cycle);
    const entry = byCycle.get(c);
    if (entry) {
      entry.sum += r.amount;
      entry.rows++;
      if (r.timestamp < entry.firstAt) entry.firstAt = r.timestamp;
    } else byCycle.set(c, { sum: r.amount, firstAt: r.timestamp, rows: 1 });
  }
  if (byCycle.size === 0) return [];
  const cycles = [...byCycle.keys()];
  const first = Math.min(...cycles);
  const last = Math.max(...cycles);
  const points: CyclePoint[] = [];
  let total = 0n;
  for (let c = first; c <= last; c++) {
    const entry = byCycle.get(c);
    if (entry) total += entry.sum;
    points.push({ cycle: c, firstAt: entry?.firstAt ?? null, cumulative: total, rows: entry?.rows ?? 0 });
  }
  return points;
}
