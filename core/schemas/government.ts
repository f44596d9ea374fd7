/**
 * Government area (/government, cathedral FOR-GOVERNMENTS).
 *
 * Every JSON document carries the `cycle` it describes (spec: "Every output carries the cycle it
 * describes"), added where the spec's field list omits it. The transparency report is a PDF and has
 * no JSON Schema.
 */
import { z } from "zod";
import {
  Alert,
  Cathedral,
  Cycle,
  Digest,
  Identifier,
  IsoDate,
  IsoTimestamp,
  NonEmptyString,
  NonNegativeNumber,
  Score01,
  Severity,
} from "./common.ts";

/**
 * Status of one regulation. Observed: compatible, compliant, high_risk_compliant, utility_token;
 * added: non_compliant and under_review so that a failing or pending status can be published.
 */
export const RegulationStatus = z.enum([
  "compatible",
  "compliant",
  "high_risk_compliant",
  "utility_token",
  "non_compliant",
  "under_review",
]);
export type RegulationStatus = z.infer<typeof RegulationStatus>;

/** Overall status of the compliance report. Observed: compliant; the others are added. */
export const ComplianceStatus = z.enum(["compliant", "partially_compliant", "non_compliant"]);
export type ComplianceStatus = z.infer<typeof ComplianceStatus>;

/** /government/compliance-report.json. Each jurisdiction has exactly its regulations plus last_audit. */
export const ComplianceReport = z.strictObject({
  cycle: Cycle,
  timestamp: IsoTimestamp,
  compliance_status: ComplianceStatus,
  jurisdictions: z.strictObject({
    USA: z.strictObject({
      SEC: RegulationStatus,
      CFTC: RegulationStatus,
      Federal_Reserve_Act: RegulationStatus,
      last_audit: IsoDate,
    }),
    EU: z.strictObject({
      GDPR: RegulationStatus,
      AI_Act: RegulationStatus,
      MiCA: RegulationStatus,
      last_audit: IsoDate,
    }),
    UK: z.strictObject({
      FCA: RegulationStatus,
      Data_Protection_Act: RegulationStatus,
      last_audit: IsoDate,
    }),
    International: z.strictObject({
      Basel_III: RegulationStatus,
      FATF: RegulationStatus,
      last_audit: IsoDate,
    }),
  }),
  next_audit: IsoDate,
});
export type ComplianceReport = z.infer<typeof ComplianceReport>;

/** Ledger event type as written in the event_type column: "attestation", "mic_mint", "avm.grant", … */
export const EventType = z.string().regex(/^[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)*$/);
export type EventType = z.infer<typeof EventType>;

/**
 * One row of the audit trail (/government/ledger/export, CSV columns or the JSON equivalent).
 * `data` is JSON text (the event payload); zod additionally checks that it parses as JSON, the JSON
 * Schema marks it with contentMediaType application/json.
 */
export const AuditTrailRow = z.strictObject({
  timestamp: IsoTimestamp,
  event_type: EventType,
  /** Agent (sentinel, office or identity) that caused the event. */
  agent: NonEmptyString,
  data: z
    .string()
    .refine(
      (text) => {
        try {
          JSON.parse(text);
          return true;
        } catch {
          return false;
        }
      },
      { message: "data must be JSON text" },
    )
    .meta({ contentMediaType: "application/json" }),
  attestation_hash: Digest,
});
export type AuditTrailRow = z.infer<typeof AuditTrailRow>;

/** Sentinel status values (observed: operational; the others are added). */
export const SentinelOperationalStatus = z.enum(["operational", "degraded", "offline"]);
export type SentinelOperationalStatus = z.infer<typeof SentinelOperationalStatus>;

/** Overall system health (observed: healthy; the others are added). */
export const SystemHealth = z.enum(["healthy", "degraded", "critical"]);
export type SystemHealth = z.infer<typeof SystemHealth>;

/**
 * /government/sentinel-status.json. A sentinel's status is its last heartbeat's, except that a
 * heartbeat older than the configured staleness threshold (or none at all) makes it offline; alerts
 * hold one item per sentinel that is not operational.
 */
export const SentinelStatus = z.strictObject({
  cycle: Cycle,
  timestamp: IsoTimestamp,
  sentinels: z.array(
    z.strictObject({
      id: Identifier,
      status: SentinelOperationalStatus,
      uptime_days: NonNegativeNumber,
      cathedral: Cathedral,
      /** Time of the sentinel's last heartbeat; null when it has not sent one yet (status offline). */
      last_heartbeat: IsoTimestamp.nullable(),
      performance: z.strictObject({
        /** GI reported by the last heartbeat; null without a heartbeat. */
        gi_score: Score01.nullable(),
        /**
         * Coordination score (spec formula; not bounded to [0, 1]) from the last heartbeat's apps,
         * packages, workflows and drift and the sentinel's uptime; null without a heartbeat.
         */
        coordination: z.number().nullable(),
      }),
    }),
  ),
  system_health: SystemHealth,
  alerts: z.array(Alert),
});
export type SentinelStatus = z.infer<typeof SentinelStatus>;

/** /government/policy-impact.json. Risk severity uses the shared low|medium|high|critical scale. */
export const PolicyImpact = z.strictObject({
  cycle: Cycle,
  timestamp: IsoTimestamp,
  projections: z.array(
    z.strictObject({
      policy: NonEmptyString,
      economic_impact: z.strictObject({
        debt_reduction_annual: z.string(),
        gdp_impact: z.string(),
        job_creation: z.string(),
      }),
      social_impact: z.strictObject({
        access_improvement: z.string(),
        equity_impact: z.string(),
        transparency: z.string(),
      }),
      risks: z.array(
        z.strictObject({
          risk: NonEmptyString,
          severity: Severity,
          mitigation: NonEmptyString,
        }),
      ),
      timeline: NonEmptyString,
    }),
  ),
});
export type PolicyImpact = z.infer<typeof PolicyImpact>;
