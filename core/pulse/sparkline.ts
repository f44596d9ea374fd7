/**
 * Sparkline geometry for the pulse timeline: pure numbers in, SVG polyline points out.
 *
 * x runs over the index of the value in the full series (first value at x = 0, last at x = width),
 * y maps the value onto [0, height] with SVG's y axis pointing down: the low end of the domain
 * (0 by default) is the bottom (y = height), the high end (1) the top (y = 0). Values outside the
 * domain are clamped to its edges.
 *
 * Long histories are downsampled before they are drawn (see `downsampleIndices`), so the SVG stays
 * small whatever the length of the history, and the dips that matter stay visible.
 */

/** The score the timeline marks with a dashed line: below it the badge turns yellow (spec colors). */
export const BASELINE_SCORE = 0.95;

/** Default cap of drawn points per line. */
export const DEFAULT_MAX_POINTS = 300;

export type Domain = readonly [low: number, high: number];

export interface SparklineOptions {
  width: number;
  height: number;
  /** At most this many points per line (at least 2 when the series has 2 or more values). */
  maxPoints?: number;
  /** The values drawn at the bottom and at the top; [0, 1] by default. */
  domain?: Domain;
}

export type Point = readonly [x: number, y: number];

export interface Sparkline {
  /** Drawn points, in series order; x and y rounded to 2 decimals. */
  points: Point[];
  /** The same points as an SVG `points` attribute: "x,y x,y …". */
  polyline: string;
  /** Index in the input series of each drawn point. */
  indices: number[];
}

const UNIT: Domain = [0, 1];

function round2(n: number): number {
  // + 0 turns -0 into 0 so "0" is printed, never "-0".
  return Math.round(n * 100) / 100 + 0;
}

function checkSize(width: number, height: number): void {
  if (!(Number.isFinite(width) && width > 0 && Number.isFinite(height) && height > 0)) {
    throw new RangeError(`sparkline size must be positive, got ${width}x${height}`);
  }
}

function checkDomain([low, high]: Domain): void {
  if (!(Number.isFinite(low) && Number.isFinite(high) && low < high)) {
    throw new RangeError(`sparkline domain must be [low, high] with low < high, got [${low}, ${high}]`);
  }
}

/** The y of a value: `domain[0]` → height (bottom), `domain[1]` → 0 (top), clamped, 2 decimals. */
export function valueY(value: number, height: number, domain: Domain = UNIT): number {
  checkDomain(domain);
  const [low, high] = domain;
  const t = Math.min(1, Math.max(0, (value - low) / (high - low)));
  return round2(height * (1 - t));
}

/** The y of the dashed baseline (0.95 unless told otherwise). */
export function baselineY(height: number, domain: Domain = UNIT, score: number = BASELINE_SCORE): number {
  return valueY(score, height, domain);
}

/**
 * Which indices of `values` to draw so that at most `maxPoints` are drawn.
 *
 * Method: min/max per bucket. The first and the last value are always kept; the values between
 * are cut into (maxPoints - 2) / 2 buckets of consecutive indices, and from every bucket both its
 * minimum and its maximum are kept, in index order (one point when they coincide).
 *
 * Why not every n-th value, or an average per bucket: both can drop a one-pulse dip entirely, and
 * a dip of GI or MII is exactly what the timeline is for. Largest-triangle-three-buckets keeps the
 * shape well but picks a single point per bucket and can still prefer a neighbouring peak over a
 * dip. Min/max per bucket guarantees that every bucket's lowest value is drawn, so the global
 * minimum of the series (and the bottom of every dip wider than a bucket's share of pixels) is on
 * the line; at ~300 points across a few hundred pixels the line looks the same as the full series.
 */
export function downsampleIndices(values: readonly number[], maxPoints: number = DEFAULT_MAX_POINTS): number[] {
  const n = values.length;
  if (!Number.isInteger(maxPoints) || maxPoints < 2)
    throw new RangeError(`maxPoints must be an integer >= 2, got ${maxPoints}`);
  if (n <= maxPoints) return [...Array(n).keys()];
  const inner = n - 2; // indices 1 … n-2
  const kept: number[] = [0];
  const buckets = Math.floor((maxPoints - 2) / 2);
  if (buckets === 0) {
    // Room for one point between the ends (maxPoints 3): the lowest, so the deepest dip shows.
    if (maxPoints === 3) {
      let min = 1;
      for (let i = 2; i <= inner; i++) if (values[i]! < values[min]!) min = i;
      kept.push(min);
    }
    kept.push(n - 1);
    return kept;
  }
  for (let b = 0; b < buckets; b++) {
    const from = 1 + Math.floor((b * inner) / buckets);
    const to = 1 + Math.floor(((b + 1) * inner) / buckets); // exclusive
    if (from >= to) continue;
    let min = from;
    let max = from;
    for (let i = from + 1; i < to; i++) {
      const v = values[i]!;
      if (v < values[min]!) min = i;
      if (v > values[max]!) max = i;
    }
    if (min === max) kept.push(min);
    else kept.push(Math.min(min, max), Math.max(min, max));
  }
  kept.push(n - 1);
  return kept;
}

/**
 * Points of the polyline of `values`. 0 values → no points; 1 value → one point in the middle
 * (x = width / 2, clear of both edges); 2+ values → first at x = 0, last at x = width, the others
 * at their index's share of the width, downsampled to `maxPoints`.
 */
export function sparkline(values: readonly number[], options: SparklineOptions): Sparkline {
  const { width, height, maxPoints = DEFAULT_MAX_POINTS, domain = UNIT } = options;
  checkSize(width, height);
  checkDomain(domain);
  for (const v of values)
    if (!Number.isFinite(v)) throw new RangeError(`sparkline values must be finite numbers, got ${v}`);
  const n = values.length;
  const indices = downsampleIndices(values, maxPoints);
  const points = indices.map((i): Point => [
    round2(n === 1 ? width / 2 : (i * width) / (n - 1)),
    valueY(values[i]!, height, domain),
  ]);
  return { points, polyline: points.map(([x, y]) => `${x},${y}`).join(" "), indices };
}

/**
 * A vertical domain that shows the variation of scores that mostly sit near the top: from the
 * lowest value rounded down to `step` (never above `ceiling`, so the 0.95 baseline and some room
 * below it stay in view) up to 1. An empty series gets [ceiling, 1].
 */
export function scoreDomain(values: readonly number[], step = 0.1, ceiling = 0.9): Domain {
  let low = ceiling;
  for (const v of values) if (v < low) low = v;
  // Round down to the step, with a little tolerance so 0.7 stays 0.7 despite binary fractions.
  const stepped = Math.floor(low / step + 1e-9) * step;
  return [Math.max(0, Math.round(stepped * 1e6) / 1e6), 1];
}
