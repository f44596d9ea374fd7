/**
 * The signals behind GI and MII, one strip each, from the scoring inputs every pulse records
 * (`scoring.inputs`: value, measured, weight; core/pulse/scoring.ts). Each strip spans the same
 * time axis as the GI/MII chart (lib/time-axis.ts), so a change lines up with the pulse it moved.
 * A measured stretch is a line on a 0–100 % scale; a stretch where the signal was not measured is a
 * shaded band, not a line at 0 or 100 %: an unmeasured signal is left out of the score.
 */
import { count, dateTime, percent, plural } from "../../../core/format/text.ts";
import { downsampleIndices } from "../../../core/pulse/sparkline.ts";
import type { PulseRecord } from "../../../core/pulse/history.ts";
import { CHART_WIDTH } from "./chart.ts";
import type { TimeAxis } from "./time-axis.ts";

export const STRIP_HEIGHT = 24;
/** The line runs between these y (100 % at the top, 0 % at the bottom), inside the strip. */
const TOP = 3;
const BOTTOM = STRIP_HEIGHT - 3;
/** Half the width of an unmeasured band around a single pulse, so it stays visible. */
const BAND_PAD = 1.5;

/** What each signal measures, in the order the indexer lists them (pipeline/pulse/signals/types.ts). */
const SIGNAL_WORDS: Readonly<Record<string, string>> = {
  "gi.ledger_verified": "Ledger verifies",
  "gi.history_verified": "Pulse history verifies",
  "gi.schema_valid": "Published files match their schemas",
  "gi.sentinel_heartbeats": "Sentinels report in on time",
  "gi.ci_success": "CI runs succeed",
  "gi.security_alerts": "No open security alerts",
  "mii.history_append_only": "History only appended to",
  "mii.generated_untouched": "Generated files not edited by hand",
  "mii.ci_green_before_merge": "CI green before merge",
};
const ORDER = Object.keys(SIGNAL_WORDS);

export interface Band {
  x0: number;
  x1: number;
}

export interface SignalStrip {
  /** The record's name: `gi.ledger_verified`. */
  name: string;
  score: "GI" | "MII";
  label: string;
  /** Weight in the newest pulse that records the signal. */
  weight: number;
  /** "M x y L x y …" per measured stretch; empty when never measured. */
  path: string;
  /** Dots for measured pulses that stand alone between unmeasured ones. */
  dots: string;
  unmeasured: Band[];
  measuredCount: number;
  /** The series in words (the strip's text alternative). */
  summary: string;
  latest: string;
}

const yOf = (v: number) => Math.round((BOTTOM - v * (BOTTOM - TOP)) * 100) / 100 + 0;

/** The words for a signal name: its description, or the name itself for one this page does not know. */
export function signalLabel(name: string): string {
  return SIGNAL_WORDS[name] ?? name;
}

/** Signal names recorded in any pulse, known ones in the indexer's order, others after by name. */
export function signalNames(records: readonly PulseRecord[]): string[] {
  const names = new Set<string>();
  for (const r of records) for (const name of Object.keys(r.scoring?.inputs ?? {})) names.add(name);
  const rank = (n: string) => (ORDER.includes(n) ? ORDER.indexOf(n) : ORDER.length);
  return [...names].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

/** The value a pulse recorded for `name`, or null when it did not measure it (or predates scoring). */
export function signalValue(record: PulseRecord, name: string): number | null {
  const input = record.scoring?.inputs[name];
  return input?.measured && typeof input.value === "number" ? input.value : null;
}

/** What one score of a pulse rests on: the signals it measured (their words) out of all it weighs. */
export interface ScoreBasis {
  score: "GI" | "MII";
  measured: string[];
  total: number;
}

/**
 * The signals each score of a pulse rests on (null for a pulse that predates scoring): an
 * unmeasured signal is left out of the mean, so a score of 100% may rest on a few of them, and the
 * portal says which beside it.
 */
export function scoreBasis(record: PulseRecord): ScoreBasis[] | null {
  const inputs = record.scoring?.inputs;
  if (!inputs) return null;
  const names = signalNames([record]);
  return (["GI", "MII"] as const).map((score) => {
    const own = names.filter((n) => n.startsWith(`${score.toLowerCase()}.`));
    return { score, measured: own.filter((n) => inputs[n]!.measured).map(signalLabel), total: own.length };
  });
}

/** Runs of consecutive indices with (measured) or without a value. */
function runs(values: readonly (number | null)[]): Array<{ measured: boolean; from: number; to: number }> {
  const out: Array<{ measured: boolean; from: number; to: number }> = [];
  values.forEach((v, i) => {
    const measured = v !== null;
    const last = out.at(-1);
    if (last && last.measured === measured) last.to = i;
    else out.push({ measured, from: i, to: i });
  });
  return out;
}

/** A measured run as path points: downsampled like the GI line, flat stretches reduced to their ends. */
function runPoints(
  values: readonly (number | null)[],
  xs: readonly number[],
  from: number,
  to: number,
): Array<[number, number]> {
  const run = values.slice(from, to + 1) as number[];
  const points = downsampleIndices(run).map((i) => [xs[from + i]!, yOf(run[i]!)] as [number, number]);
  return points.filter(
    (p, i) => i === 0 || i === points.length - 1 || !(points[i - 1]![1] === p[1] && points[i + 1]![1] === p[1]),
  );
}

function summaryOf(label: string, values: readonly (number | null)[], records: readonly PulseRecord[]): string {
  const measured = values.filter((v): v is number => v !== null);
  const total = plural(values.length, "pulse");
  if (measured.length === 0) return `${label}: not measured in any of the ${total}.`;
  const low = Math.min(...measured);
  const high = Math.max(...measured);
  const level = low === high ? `${percent(low)} in every measured pulse` : `from ${percent(low)} to ${percent(high)}`;
  const changes = measured.slice(1).filter((v, i) => v !== measured[i]).length;
  const unmeasured = values.length - measured.length;
  const missing =
    unmeasured === 0
      ? ""
      : `; not measured in ${count(unmeasured)} (${runs(values)
          .filter((r) => !r.measured)
          .map((r) =>
            r.from === r.to
              ? dateTime(records[r.from]!.generatedAt)
              : `${dateTime(records[r.from]!.generatedAt)} to ${dateTime(records[r.to]!.generatedAt)}`,
          )
          .slice(0, 3)
          .join("; ")}${runs(values).filter((r) => !r.measured).length > 3 ? "; …" : ""})`;
  const moved = changes === 0 ? "" : `, changing ${plural(changes, "time")}`;
  return `${label}: measured in ${count(measured.length)} of the ${total}, ${level}${moved}${missing}.`;
}

/** One strip per recorded signal over `records` (oldest first), placed on `axis`. */
export function signalStrips(records: readonly PulseRecord[], axis: TimeAxis): SignalStrip[] {
  const xs = records.map((r) => axis.x(Date.parse(r.generatedAt)));
  return signalNames(records).map((name) => {
    const values = records.map((r) => signalValue(r, name));
    const label = signalLabel(name);
    const parts = runs(values);
    const paths: string[] = [];
    const dots: string[] = [];
    const unmeasured: Band[] = [];
    for (const run of parts) {
      if (!run.measured) {
        const x0 = Math.max(0, xs[run.from]! - BAND_PAD);
        const x1 = Math.min(CHART_WIDTH, xs[run.to]! + BAND_PAD);
        unmeasured.push({ x0: Math.round(x0 * 100) / 100, x1: Math.round(x1 * 100) / 100 });
        continue;
      }
      const points = runPoints(values, xs, run.from, run.to);
      if (points.length === 1) dots.push(`M${points[0]![0]} ${points[0]![1]}h0`);
      else paths.push(`M${points.map(([x, y]) => `${x} ${y}`).join("L")}`);
    }
    const newest = [...records].reverse().find((r) => r.scoring?.inputs[name]);
    const latestValue = values.at(-1);
    return {
      name,
      score: name.startsWith("mii.") ? "MII" : "GI",
      label,
      weight: newest?.scoring?.inputs[name]?.weight ?? 0,
      path: paths.join(""),
      dots: dots.join(""),
      unmeasured,
      measuredCount: values.filter((v) => v !== null).length,
      summary: summaryOf(label, values, records),
      latest: latestValue === null || latestValue === undefined ? "not measured" : percent(latestValue),
    };
  });
}
