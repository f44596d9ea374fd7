/**
 * The platform's health at the data's as-of instant: the one derivation that the sentinel-status
 * file, the transparency report, every portal page and the API's /health state, so that no two can
 * disagree. From published facts (sentinel statuses, minting, compliance), worst rule wins, each
 * rule that fires a reason with a stable `code`; the rules are in the README ("The portal as a
 * person reads it"). Pure: the as-of instant is an input, never the clock.
 */
import { day, daysUntil, percent, plural } from "../format/text.ts";

export const HEALTH_STATUSES = ["operational", "degraded", "critical"] as const;
export type HealthStatus = (typeof HEALTH_STATUSES)[number];

export type SentinelState = "operational" | "degraded" | "offline";
export type ComplianceState = "compliant" | "partially_compliant" | "non_compliant";

/** Shares of operational sentinels at or above which the sentinels count as operational / degraded. */
export const HEALTH_POLICY = { operationalMinShare: 0.9, degradedMinShare: 0.6 } as const;

export interface HealthInputs {
  /** The data's as-of instant (ISO 8601 UTC). */
  asOf: string;
  sentinels: readonly { id: string; status: SentinelState }[];
  /** null when the minting state is not known (no pulse yet, or no economy data). */
  minting: { active: boolean; mii: number; threshold: number } | null;
  /** null when the compliance state is not known. */
  compliance: { status: ComplianceState; nextAudit: string } | null;
}

export type HealthReasonCode =
  "no-sentinels" | "sentinels-down" | "minting-paused" | "non-compliant" | "compliance-under-review" | "audit-overdue";

export interface HealthReason {
  code: HealthReasonCode;
  status: Exclude<HealthStatus, "operational">;
  /** One sentence for people. */
  text: string;
}

export interface SystemHealthReport {
  status: HealthStatus;
  asOf: string;
  sentinels: { total: number; operational: number; degraded: number; offline: number };
  minting: HealthInputs["minting"];
  compliance: (NonNullable<HealthInputs["compliance"]> & { daysToAudit: number; overdue: boolean }) | null;
  reasons: HealthReason[];
}

const RANK: Record<HealthStatus, number> = { operational: 0, degraded: 1, critical: 2 };

/** The worse of two statuses. */
export function worse(a: HealthStatus, b: HealthStatus): HealthStatus {
  return RANK[b] > RANK[a] ? b : a;
}

export function systemHealth(inputs: HealthInputs): SystemHealthReport {
  const sentinels = { total: inputs.sentinels.length, operational: 0, degraded: 0, offline: 0 };
  for (const s of inputs.sentinels) sentinels[s.status]++;
  const reasons: HealthReason[] = [];

  const share = sentinels.total === 0 ? 0 : sentinels.operational / sentinels.total;
  if (sentinels.total === 0) {
    reasons.push({ code: "no-sentinels", status: "critical", text: "No sentinel is registered." });
  } else if (share < HEALTH_POLICY.operationalMinShare) {
    const down = sentinels.total - sentinels.operational;
    reasons.push({
      code: "sentinels-down",
      status: share >= HEALTH_POLICY.degradedMinShare ? "degraded" : "critical",
      text: `${plural(down, "sentinel")} of ${sentinels.total} not operational (${percent(share, 0)} operational; ${percent(HEALTH_POLICY.operationalMinShare, 0)} needed).`,
    });
  }

  if (inputs.minting && !inputs.minting.active) {
    const { mii, threshold } = inputs.minting;
    reasons.push({
      code: "minting-paused",
      status: "degraded",
      text: `MIC minting is paused: MII ${percent(mii)} is below the ${percent(threshold)} threshold.`,
    });
  }

  let compliance: SystemHealthReport["compliance"] = null;
  if (inputs.compliance) {
    const daysToAudit = daysUntil(inputs.compliance.nextAudit, inputs.asOf);
    compliance = { ...inputs.compliance, daysToAudit, overdue: daysToAudit < 0 };
    if (inputs.compliance.status === "non_compliant") {
      reasons.push({
        code: "non-compliant",
        status: "critical",
        text: "At least one regulation is not complied with.",
      });
    } else if (inputs.compliance.status === "partially_compliant") {
      reasons.push({
        code: "compliance-under-review",
        status: "degraded",
        text: "At least one regulation is under review.",
      });
    }
    if (daysToAudit < 0) {
      reasons.push({
        code: "audit-overdue",
        status: "degraded",
        text: `The compliance audit due ${day(inputs.compliance.nextAudit)} is overdue by ${plural(-daysToAudit, "day")}.`,
      });
    }
  }

  const status = reasons.reduce<HealthStatus>((s, r) => worse(s, r.status), "operational");
  return { status, asOf: inputs.asOf, sentinels, minting: inputs.minting, compliance, reasons };
}

/** The sentinel-status file's `system_health` word for a status (the spec's observed "healthy"). */
export function systemHealthWord(status: HealthStatus): "healthy" | "degraded" | "critical" {
  return status === "operational" ? "healthy" : status;
}

/** "Operational", "Degraded", "Critical". */
export function healthLabel(status: HealthStatus): string {
  return status[0]!.toUpperCase() + status.slice(1);
}

const COMPLIANCE_WORDS: Record<ComplianceState, string> = {
  compliant: "compliant with every regulation",
  partially_compliant: "partially compliant (a regulation under review)",
  non_compliant: "not compliant with every regulation",
};

/**
 * One paragraph that states the health and why, the same on every page and in the report:
 * "Operational: 11 of 12 sentinels operational, 1 degraded; MIC minting active; compliant with every regulation."
 */
export function healthSummary(report: SystemHealthReport): string {
  const s = report.sentinels;
  const parts = [
    `${s.operational} of ${plural(s.total, "sentinel")} operational${s.degraded > 0 ? `, ${s.degraded} degraded` : ""}${s.offline > 0 ? `, ${s.offline} offline` : ""}`,
  ];
  if (report.minting) parts.push(`MIC minting ${report.minting.active ? "active" : "paused"}`);
  if (report.compliance) parts.push(COMPLIANCE_WORDS[report.compliance.status]);
  const why = report.reasons.length > 0 ? ` ${report.reasons.map((r) => r.text).join(" ")}` : "";
  return `${healthLabel(report.status)}: ${parts.join("; ")}.${why}`;
}
