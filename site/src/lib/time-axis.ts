/**
 * A time axis that spaces points by time without bunching them: one linear scale (the same width
 * per hour everywhere), except that a long quiet gap between two points is cut out and drawn as a
 * break of fixed width, labelled with its length. Pure: instants in, x positions out.
 *
 * Which gaps are cut: those longer than GAP_FACTOR times the median interval between consecutive
 * points and at least MIN_CUT_MS long, at most MAX_CUTS of them (the longest). A history measured
 * at a steady rhythm has no cut and is a plain linear axis; two bursts of pulses days apart become
 * two stretches side by side with a break between them, instead of two dots at the two ends.
 */

export const GAP_FACTOR = 20;
export const MIN_CUT_MS = 3_600_000;
export const MAX_CUTS = 6;
/** Width of a cut gap, in the chart's user units. */
export const GAP_WIDTH = 36;

export interface AxisStretch {
  /** First and last instant (ms) of the stretch. */
  from: number;
  to: number;
  x0: number;
  x1: number;
}

export interface AxisGap {
  /** The instants (ms) on either side of the cut. */
  from: number;
  to: number;
  /** The break's extent in user units. */
  x0: number;
  x1: number;
}

export interface TimeAxis {
  stretches: AxisStretch[];
  gaps: AxisGap[];
  /** User units per millisecond, the same in every stretch (0 when all instants are equal). */
  scale: number;
  /** The x of an instant that is one of the axis's points (or inside a stretch). */
  x(t: number): number;
}

const round2 = (n: number) => Math.round(n * 100) / 100 + 0;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
}

/** The indices i whose interval (times[i], times[i+1]) is cut, ascending. */
export function cutGaps(times: readonly number[]): number[] {
  const intervals = times.slice(1).map((t, i) => t - times[i]!);
  if (intervals.length < 2) return [];
  const threshold = Math.max(MIN_CUT_MS, GAP_FACTOR * median(intervals));
  const cuts = intervals
    .map((d, i) => ({ d, i }))
    .filter(({ d }) => d > threshold)
    .sort((a, b) => b.d - a.d || a.i - b.i)
    .slice(0, MAX_CUTS)
    .map(({ i }) => i)
    .sort((a, b) => a - b);
  const kept = intervals.reduce((sum, d, i) => (cuts.includes(i) ? sum : sum + d), 0);
  // Stretches of no duration at all would leave nothing to scale: keep the plain axis then.
  return kept > 0 ? cuts : [];
}

/** The axis of `times` (ascending ms) over [0, width]. */
export function timeAxis(times: readonly number[], width: number): TimeAxis {
  const first = times[0];
  if (first === undefined) return { stretches: [], gaps: [], scale: 0, x: () => width / 2 };
  const cuts = cutGaps(times);
  const bounds: Array<[number, number]> = [];
  let start = 0;
  for (const i of [...cuts, times.length - 1]) {
    bounds.push([times[start]!, times[i]!]);
    start = i + 1;
  }
  const kept = bounds.reduce((sum, [a, b]) => sum + (b - a), 0);
  const scale = kept > 0 ? (width - cuts.length * GAP_WIDTH) / kept : 0;
  const stretches: AxisStretch[] = [];
  const gaps: AxisGap[] = [];
  let x = 0;
  for (const [i, [from, to]] of bounds.entries()) {
    if (i > 0) {
      gaps.push({ from: bounds[i - 1]![1], to: from, x0: round2(x), x1: round2(x + GAP_WIDTH) });
      x += GAP_WIDTH;
    }
    stretches.push({ from, to, x0: round2(x), x1: round2(x + (to - from) * scale) });
    x += (to - from) * scale;
  }
  const at = (t: number): number => {
    if (scale === 0) return width / 2;
    const s = stretches.find((st) => t <= st.to) ?? stretches.at(-1)!;
    return round2(s.x0 + (Math.max(s.from, Math.min(s.to, t)) - s.from) * scale);
  };
  return { stretches, gaps, scale, x: at };
}
