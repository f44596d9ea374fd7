/**
 * The timeline table's rows: consecutive pulses that say the same thing share one row, a span
 * ("38 pulses, 21 Nov 2026, 01:25 UTC – 23 Nov 2026, 15:00 UTC"). "The same thing" is what the
 * row reports about integrity: GI, MII, every signal (measured or not, and its value), the cycle,
 * the branch and how the pulse was made (live, backfill, sample). The repository's size (the scope)
 * may grow inside a run: the row shows its range. Hashes always differ, so the row names the newest
 * and the oldest.
 */
import { count, percent, plural } from "../../../core/format/text.ts";
import type { PulseRecord } from "../../../core/pulse/history.ts";
import { signalLabel, signalNames, signalValue } from "./pulse-signals.ts";

export interface PulseRun {
  /** Newest first, as the table lists them. */
  records: PulseRecord[];
  newest: PulseRecord;
  oldest: PulseRecord;
  /** Position of its newest pulse in the whole list, newest first, from 0. */
  start: number;
}

/** What a row says about a pulse; two pulses with the same key collapse into one row. */
export function rowKey(record: PulseRecord, names: readonly string[]): string {
  const signals = names.map((n) => signalValue(record, n));
  return JSON.stringify([
    record.giScore,
    record.miiScore,
    record.cycle,
    record.branch,
    record.origin?.kind ?? "live",
    signals,
  ]);
}

/** `newest` (newest first) cut into runs of consecutive pulses with the same row key. */
export function pulseRuns(newest: readonly PulseRecord[]): PulseRun[] {
  const names = signalNames(newest);
  const runs: PulseRun[] = [];
  let key: string | null = null;
  for (const [i, record] of newest.entries()) {
    const k = rowKey(record, names);
    const last = runs.at(-1);
    if (last && k === key) {
      last.records.push(record);
      last.oldest = record;
    } else {
      runs.push({ records: [record], newest: record, oldest: record, start: i });
    }
    key = k;
  }
  return runs;
}

/** "4 of 9, all 100 %" / "4 of 9; Schema valid 80 %" / "not recorded" (a pulse from before scoring). */
export function signalsText(record: PulseRecord): string {
  const inputs = record.scoring?.inputs;
  if (!inputs) return "not recorded";
  const names = signalNames([record]);
  const measured = names.filter((n) => signalValue(record, n) !== null);
  const below = measured.filter((n) => signalValue(record, n)! < 1);
  const of = `${count(measured.length)} of ${count(names.length)}`;
  if (measured.length === 0) return `${of} measured`;
  if (below.length === 0) return `${of}, all ${percent(1)}`;
  return `${of}; ${below.map((n) => `${signalLabel(n)} ${percent(signalValue(record, n)!)}`).join(", ")}`;
}

const range = (values: readonly number[], one: string) => {
  const low = Math.min(...values);
  const high = Math.max(...values);
  return low === high ? plural(low, one) : `${count(low)}–${plural(high, one)}`;
};

/** The scope of a run: "3 apps · 0 sub-packages · 3 workflows", or ranges where it grew. */
export function runScope(run: PulseRun): string {
  const stats = run.records.map((r) => r.stats);
  return [
    range(
      stats.map((s) => s.appsCount),
      "app",
    ),
    range(
      stats.map((s) => s.packagesCount),
      "sub-package",
    ),
    range(
      stats.map((s) => s.workflowsCount),
      "workflow",
    ),
  ].join(" · ");
}

/** How the pulses of a run were made, for the line under its dates; null for live pulses. */
export function runOrigin(run: PulseRun): string | null {
  const origin = run.newest.origin;
  if (origin?.kind === "backfill") {
    return run.records.length === 1
      ? `measured afterwards at commit ${origin.commit.slice(0, 7)}`
      : `measured afterwards, each at its own past commit`;
  }
  if (origin?.kind === "sample") return "simulated (sample data)";
  return null;
}
