/**
 * /government/sentinel-status.json (public): every registered sentinel's status as of the document
 * time, the overall system health and one alert per sentinel that is not operational.
 *
 * Rules (thresholds in `data/sources/government/sentinel-status.json`):
 * - status: the status reported by the sentinel's last heartbeat, except "offline" when it has
 *   never sent one ("silent") or when its last heartbeat is more than `stale_after_hours` older than
 *   the document timestamp ("stale"; see pipeline/lib/dating.ts for that instant).
 * - uptime_days: `SentinelFacts.uptimeDays` (registration → last ledger entry).
 * - performance.gi_score: GI reported by the last heartbeat; performance.coordination: the spec's
 *   coordination score over the last heartbeat's inputs and the uptime (pipeline/lib/coordination.ts).
 *   Both null without a heartbeat.
 * - system_health: the platform's health from core/health/system-health.ts (the one derivation every
 *   page, the report and the API state) over these sentinel statuses, the minting state (the newest
 *   pulse's MII against data/sources/economy/minting.json, as economy/mii.json states it) and the
 *   compliance state of compliance-report.json; "operational" is written as the spec's "healthy".
 * - alerts: one per sentinel that is not operational, in sentinel order, kind and severity:
 *     silent   (no heartbeat yet)      raised_at = registration time
 *     stale    (heartbeat too old)     raised_at = last heartbeat + stale_after_hours
 *     offline  (heartbeat says so)     raised_at = that heartbeat's time
 *     degraded (heartbeat says so)     raised_at = that heartbeat's time
 *   The alert id is `<kind>:<sentinel id>`.
 */
import { z } from "zod";
import { Alert, SentinelStatus, Severity, type SentinelOperationalStatus } from "../../../core/schemas/index.ts";
import { dateTime, duration } from "../../../core/format/text.ts";
import { systemHealth, systemHealthWord, type SystemHealthReport } from "../../../core/health/system-health.ts";
import type { PulseRecord } from "../../../core/pulse/history.ts";
import { ComplianceReport } from "../../../core/schemas/index.ts";
import { mintingState } from "../economy/mii.ts";
import { MINTING_SOURCE, MintingConfig } from "../economy/sources.ts";
import { sentinelCoordination } from "../../lib/coordination.ts";
import { documentInstant } from "../../lib/dating.ts";
import { publishJson, readStepJson } from "../../lib/json.ts";
import type { LedgerFacts, SentinelFacts } from "../../facts/types.ts";
import type { DocumentStep } from "../../step.ts";
import { HOUR_MS } from "../../../core/time.ts";
import { government } from "../../../core/areas/government.ts";
import { declaredOutput } from "../../../core/areas/declaration.ts";

export const SENTINEL_STATUS_SOURCE = "government/sentinel-status.json";
const COMPLIANCE_STEP = "government/compliance-report.json";

export const SentinelStatusConfig = z.strictObject({
  /** A last heartbeat older than this (relative to the document timestamp) makes a sentinel offline. */
  stale_after_hours: z.number().positive(),
  alert_severity: z.strictObject({
    silent: Severity,
    stale: Severity,
    degraded: Severity,
    offline: Severity,
  }),
});
export type SentinelStatusConfig = z.infer<typeof SentinelStatusConfig>;

export type AlertKind = keyof SentinelStatusConfig["alert_severity"];

export interface SentinelAssessment {
  status: SentinelOperationalStatus;
  /** Why it is not operational; null when operational. */
  alert: AlertKind | null;
}

/** Status of one sentinel at `atMs` (see the module comment). */
export function assessSentinel(
  sentinel: SentinelFacts,
  atMs: number,
  config: SentinelStatusConfig,
): SentinelAssessment {
  const hb = sentinel.lastHeartbeat;
  if (!hb) return { status: "offline", alert: "silent" };
  if (atMs - Date.parse(hb.ts) > config.stale_after_hours * HOUR_MS) return { status: "offline", alert: "stale" };
  if (hb.status === "operational") return { status: "operational", alert: null };
  return { status: hb.status, alert: hb.status };
}

function alertFor(sentinel: SentinelFacts, kind: AlertKind, config: SentinelStatusConfig, atMs: number): Alert {
  const hb = sentinel.lastHeartbeat;
  let message: string;
  let raisedAt: string;
  switch (kind) {
    case "silent":
      message = `Sentinel ${sentinel.id} has not sent a heartbeat since it registered on ${dateTime(sentinel.registeredAt)}`;
      raisedAt = sentinel.registeredAt;
      break;
    case "stale": {
      const ts = hb?.ts ?? sentinel.registeredAt;
      message = `The last heartbeat of sentinel ${sentinel.id}, on ${dateTime(ts)}, is ${duration(atMs - Date.parse(ts))} old (offline after ${duration(config.stale_after_hours * HOUR_MS)} of silence)`;
      raisedAt = new Date(Date.parse(ts) + config.stale_after_hours * HOUR_MS).toISOString();
      break;
    }
    case "offline":
    case "degraded":
      message = `Sentinel ${sentinel.id} reported itself ${kind} in its heartbeat on ${hb ? dateTime(hb.ts) : "(none)"}`;
      raisedAt = hb?.ts ?? sentinel.registeredAt;
      break;
  }
  return {
    id: `${kind}:${sentinel.id}`.slice(0, 128),
    severity: config.alert_severity[kind],
    source: sentinel.id,
    message,
    raised_at: raisedAt,
  };
}

/** The state the health derivation needs besides the sentinels (null when not known). */
export interface HealthContext {
  compliance: ComplianceReport | null;
  minting: ReturnType<typeof mintingState>;
}

export function sentinelStatusDocument(
  facts: LedgerFacts,
  pulse: readonly PulseRecord[],
  config: SentinelStatusConfig,
  context: HealthContext = { compliance: null, minting: null },
): SentinelStatus {
  const { timestamp, cycle, ms } = documentInstant(facts, pulse);
  const sentinels: SentinelStatus["sentinels"] = [];
  const alerts: Alert[] = [];
  for (const sentinel of facts.sentinels) {
    const { status, alert } = assessSentinel(sentinel, ms, config);
    if (alert) alerts.push(alertFor(sentinel, alert, config, ms));
    sentinels.push({
      id: sentinel.id,
      status,
      uptime_days: sentinel.uptimeDays,
      cathedral: sentinel.cathedral,
      last_heartbeat: sentinel.lastHeartbeat?.ts ?? null,
      performance: {
        gi_score: sentinel.lastHeartbeat?.gi_score ?? null,
        coordination: sentinelCoordination(sentinel),
      },
    });
  }
  return {
    cycle,
    timestamp,
    sentinels,
    system_health: systemHealthWord(healthOf(timestamp, sentinels, context).status),
    alerts,
  };
}

/** The health report of a sentinel list and its context, at `asOf` (core/health/system-health.ts). */
export function healthOf(
  asOf: string,
  sentinels: SentinelStatus["sentinels"],
  context: HealthContext,
): SystemHealthReport {
  return systemHealth({
    asOf,
    sentinels,
    minting: context.minting,
    compliance: context.compliance
      ? { status: context.compliance.compliance_status, nextAudit: context.compliance.next_audit }
      : null,
  });
}

export const sentinelStatusStep: DocumentStep = {
  kind: "document",
  ...declaredOutput(government, "sentinel-status.json"),
  name: "sentinel-status",
  title: "Sentinel status",
  description:
    "Status, uptime, last heartbeat, office integrity (performance.gi_score) and coordination score of every sentinel, the overall system health and an alert per sentinel that is not operational (stale heartbeat thresholds in the curated configuration).",
  schema: "government/sentinel-status",
  inputs: [
    "ledger",
    "pulse",
    `sources/${SENTINEL_STATUS_SOURCE}`,
    `sources/${MINTING_SOURCE}`,
    `step:${COMPLIANCE_STEP}`,
  ],
  version: 1,
  generate({ facts, pulse, sources }, outputs) {
    const config = sources.json(SENTINEL_STATUS_SOURCE, SentinelStatusConfig);
    const context = {
      compliance: readStepJson(outputs, COMPLIANCE_STEP, ComplianceReport),
      minting: mintingState(pulse, sources.json(MINTING_SOURCE, MintingConfig)),
    };
    return publishJson(
      "government/sentinel-status.json",
      SentinelStatus,
      sentinelStatusDocument(facts, pulse, config, context),
    );
  },
};
