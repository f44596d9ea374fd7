/**
 * /philosophy/drift-analysis.json: how far GI and MII have moved within the recent pulse history.
 * Parameters from data/sources/philosophy/drift.json.
 *
 * - Window: the pulse records generated in the last `window_days` days up to the newest record
 *   (inclusive), oldest first; n records.
 * - Baseline: its first kb = max(1, min(baseline_pulses, ⌊n/2⌋)) records; current: its last
 *   kc = max(1, min(current_pulses, ⌊n/2⌋)) records. With n ≥ 2 the two never overlap; with a single
 *   record both are that record, so every drift is 0 (measured: nothing has moved yet).
 * - Trends, for metric gi (giScore) and mii (miiScore): baseline = mean over the baseline records,
 *   current = mean over the current records, drift = current − baseline, direction increasing /
 *   decreasing when |drift| ≥ direction_epsilon, stable otherwise.
 * - drift_score = mean of |drift| over the trends; status critical at ≥ critical_at, drifting at
 *   ≥ drifting_at, else stable.
 * - Means, drifts and drift_score are rounded to 6 decimals (SCALE) before they are compared or
 *   published: scores carry no more precision than that, and rounding keeps binary floating-point
 *   noise (0.9699999999999999, a drift of 0.009999999999999898 against a 0.01 threshold) out of the
 *   document and out of the threshold decisions.
 * - Alerts: one per metric with |drift| ≥ drifting_at (severity medium; high at ≥ critical_at),
 *   raised at the newest pulse's generatedAt, the instant the analysis observed it.
 * - analysis.virtue_alignment = overall_compliance of /philosophy/virtues.json (same computation);
 *   analysis.principle_adherence = mean MII of the current records (MII measures how well changes
 *   follow the integrity rules); analysis.charter_compliance = share of the current records whose
 *   GI and MII both reach charter_floor.
 *
 * Without any pulse record there is nothing to analyse: the step fails ("no pulse history") rather
 * than publish figures no measurement produced.
 */
import type { Alert } from "../../../core/schemas/common.ts";
import { DriftAnalysis, type DriftStatus, type TrendDirection } from "../../../core/schemas/philosophy.ts";
import type { PulseRecord } from "../../../core/pulse/history.ts";
import { documentInstant } from "../../lib/dating.ts";
import { publishJson } from "../../lib/json.ts";
import type { DocumentStep } from "../../step.ts";
import { DRIFT_SOURCE, DriftConfig, VIRTUES_SOURCE, VirtuesConfig } from "./sources.ts";
import { assessVirtues } from "./virtues.ts";
import { DAY_MS } from "../../../core/time.ts";
import { philosophy } from "../../../core/areas/philosophy.ts";
import { declaredOutput } from "../../../core/areas/declaration.ts";

const METRICS = [
  { metric: "gi", label: "GI", value: (r: PulseRecord) => r.giScore },
  { metric: "mii", label: "MII", value: (r: PulseRecord) => r.miiScore },
] as const;

export interface DriftWindows {
  window: PulseRecord[];
  baseline: PulseRecord[];
  current: PulseRecord[];
}

export function driftWindows(pulse: readonly PulseRecord[], config: DriftConfig): DriftWindows {
  const newest = pulse[pulse.length - 1];
  if (!newest)
    throw new Error(
      "philosophy/drift-analysis.json: no pulse history: drift is measured on pulse records and none has been recorded",
    );
  const from = Date.parse(newest.generatedAt) - config.window_days * DAY_MS;
  const window = pulse.filter((r) => Date.parse(r.generatedAt) >= from);
  const half = Math.floor(window.length / 2);
  const kb = Math.max(1, Math.min(config.baseline_pulses, half));
  const kc = Math.max(1, Math.min(config.current_pulses, half));
  return { window, baseline: window.slice(0, kb), current: window.slice(window.length - kc) };
}

const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / values.length;

/** Decimal places kept in the published statistics. */
const SCALE = 1e6;
export const round6 = (x: number): number => Math.round(x * SCALE) / SCALE;

export function driftStatus(score: number, config: DriftConfig): DriftStatus {
  if (score >= config.critical_at) return "critical";
  if (score >= config.drifting_at) return "drifting";
  return "stable";
}

function span(records: readonly PulseRecord[]): string {
  const first = records[0];
  const last = records[records.length - 1];
  if (!first || !last) return "no records";
  const n = records.length === 1 ? "1 pulse" : `${records.length} pulses`;
  return first === last ? `${n} at ${first.generatedAt}` : `${n} from ${first.generatedAt} to ${last.generatedAt}`;
}

export function analyseDrift(
  pulse: readonly PulseRecord[],
  config: DriftConfig,
  virtueAlignment: number,
): Omit<DriftAnalysis, "cycle" | "timestamp"> {
  const { baseline, current } = driftWindows(pulse, config);
  const newest = pulse[pulse.length - 1] as PulseRecord;
  const trends = METRICS.map(({ metric, value }) => {
    const b = round6(mean(baseline.map(value)));
    const c = round6(mean(current.map(value)));
    const drift = round6(c - b);
    const direction: TrendDirection =
      Math.abs(drift) < config.direction_epsilon ? "stable" : drift > 0 ? "increasing" : "decreasing";
    return { metric, baseline: b, current: c, drift, direction };
  });
  const driftScore = round6(mean(trends.map((t) => Math.abs(t.drift))));
  const alerts: Alert[] = [];
  trends.forEach((t, i) => {
    const size = Math.abs(t.drift);
    if (size < config.drifting_at) return;
    const critical = size >= config.critical_at;
    const label = METRICS[i]?.label ?? t.metric;
    alerts.push({
      id: `drift-${t.metric}`,
      severity: critical ? "high" : "medium",
      source: t.metric,
      message:
        `${label} mean moved from ${t.baseline.toFixed(4)} (baseline: ${span(baseline)}) to ${t.current.toFixed(4)} ` +
        `(current: ${span(current)}), a drift of ${t.drift >= 0 ? "+" : ""}${t.drift.toFixed(4)}, at or past the ` +
        `${critical ? "critical" : "drifting"} threshold ${critical ? config.critical_at : config.drifting_at}.`,
      raised_at: newest.generatedAt,
    });
  });
  const charter = current.filter(
    (r) => r.giScore >= config.charter_floor.gi && r.miiScore >= config.charter_floor.mii,
  ).length;
  return {
    drift_score: driftScore,
    status: driftStatus(driftScore, config),
    analysis: {
      virtue_alignment: virtueAlignment,
      principle_adherence: round6(mean(current.map((r) => r.miiScore))),
      charter_compliance: charter / current.length,
    },
    trends,
    alerts,
  };
}

export const driftAnalysisStep: DocumentStep = {
  kind: "document",
  ...declaredOutput(philosophy, "drift-analysis.json"),
  name: "drift-analysis",
  title: "Drift analysis",
  description:
    "Drift of GI and MII within the recent pulse history window: baseline (oldest records) against current (newest records), per-metric trends, the drift score and status, alerts past the thresholds, and the alignment with the virtues, the integrity rules (MII) and the charter floor. Windows and thresholds: data/sources/philosophy/drift.json.",
  schema: "philosophy/drift-analysis",
  inputs: ["ledger", "pulse", `sources/${DRIFT_SOURCE}`, `sources/${VIRTUES_SOURCE}`],
  version: 1,
  generate({ facts, pulse, sources }) {
    const config = sources.json(DRIFT_SOURCE, DriftConfig);
    const virtues = sources.json(VIRTUES_SOURCE, VirtuesConfig);
    const body = analyseDrift(pulse, config, assessVirtues(facts, pulse, virtues).overall_compliance);
    const { timestamp, cycle } = documentInstant(facts, pulse);
    return publishJson("philosophy/drift-analysis.json", DriftAnalysis, {
      cycle,
      timestamp,
      drift_score: body.drift_score,
      status: body.status,
      analysis: body.analysis,
      trends: body.trends,
      alerts: body.alerts,
    });
  },
};
