/**
 * Cycles: `C-<n>`, one per UTC day, counted from a configured anchor (DESIGN: 2025-12-01 is C-151,
 * so C-1 is 2025-07-04). Pure: the caller passes the instant.
 */
import { DAY_MS } from "./time.ts";

export interface CycleCalendar {
  /** A UTC date `YYYY-MM-DD` and the cycle number it carries. */
  anchorDate: string;
  anchorCycle: number;
}

export const DEFAULT_CALENDAR: CycleCalendar = { anchorDate: "2025-12-01", anchorCycle: 151 };

function anchorMs(calendar: CycleCalendar): number {
  const ms = Date.parse(`${calendar.anchorDate}T00:00:00.000Z`);
  if (!Number.isFinite(ms)) throw new Error(`bad cycle anchor date "${calendar.anchorDate}"`);
  return ms;
}

/** The cycle number of an instant; throws before C-1. */
export function cycleNumber(at: Date, calendar: CycleCalendar = DEFAULT_CALENDAR): number {
  const n = calendar.anchorCycle + Math.floor((at.getTime() - anchorMs(calendar)) / DAY_MS);
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`${at.toISOString()} is before cycle C-1`);
  return n;
}

export function cycleLabel(at: Date, calendar: CycleCalendar = DEFAULT_CALENDAR): string {
  return `C-${cycleNumber(at, calendar)}`;
}

/** The first instant (00:00:00.000 UTC) of cycle n. */
export function cycleStart(n: number, calendar: CycleCalendar = DEFAULT_CALENDAR): Date {
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`bad cycle number ${n}`);
  return new Date(anchorMs(calendar) + (n - calendar.anchorCycle) * DAY_MS);
}

export function parseCycle(label: string): number {
  const match = /^C-([1-9][0-9]*)$/.exec(label);
  if (!match) throw new Error(`"${label}" is not a cycle label C-<n>`);
  return Number(match[1]);
}
