/**
 * /government/compliance-report.json (government key): the curated statuses of
 * `data/sources/government/compliance.json`, dated and with the overall status derived.
 *
 * Audit dates come from the ledger when it records audits (`compliance.audited`): a jurisdiction's
 * last_audit is its latest recorded audit, and next_audit the earliest next audit due among them;
 * the curated dates stand in only for what the ledger does not record.
 *
 * Overall status rule (so it can never contradict the jurisdictions):
 *   - "non_compliant"       if any regulation of any jurisdiction is non_compliant;
 *   - "partially_compliant" otherwise, if any regulation is under_review;
 *   - "compliant"           otherwise (every status is compatible, compliant, high_risk_compliant
 *                           or utility_token).
 */
import { z } from "zod";
import {
  ComplianceReport,
  IsoDate,
  type ComplianceStatus,
  type RegulationStatus,
} from "../../../core/schemas/index.ts";
import { documentInstant } from "../../lib/dating.ts";
import { publishJson } from "../../lib/json.ts";
import type { LedgerFacts } from "../../facts/types.ts";
import type { DocumentStep } from "../../step.ts";
import { government } from "../../../core/areas/government.ts";
import { declaredOutput } from "../../../core/areas/declaration.ts";

export const COMPLIANCE_SOURCE = "government/compliance.json";

/** The curated source: the report without timestamp, cycle and the derived overall status. */
export const ComplianceSource = z
  .strictObject({
    jurisdictions: ComplianceReport.shape.jurisdictions,
    next_audit: IsoDate,
  })
  .superRefine((source, ctx) => {
    for (const [name, jurisdiction] of Object.entries(source.jurisdictions)) {
      if (jurisdiction.last_audit > source.next_audit) {
        ctx.addIssue({
          code: "custom",
          path: ["next_audit"],
          message: `next_audit ${source.next_audit} is before ${name}'s last_audit ${jurisdiction.last_audit}`,
        });
      }
    }
  });
export type ComplianceSource = z.infer<typeof ComplianceSource>;

type Jurisdictions = ComplianceReport["jurisdictions"];

/** Every regulation status of every jurisdiction (last_audit excluded). */
export function regulationStatuses(jurisdictions: Jurisdictions): RegulationStatus[] {
  return Object.values(jurisdictions).flatMap((j) =>
    Object.entries(j)
      .filter(([key]) => key !== "last_audit")
      .map(([, status]) => status as RegulationStatus),
  );
}

export function overallComplianceStatus(jurisdictions: Jurisdictions): ComplianceStatus {
  const statuses = regulationStatuses(jurisdictions);
  if (statuses.includes("non_compliant")) return "non_compliant";
  if (statuses.includes("under_review")) return "partially_compliant";
  return "compliant";
}

/** The curated statuses with the audit dates the ledger records (see the module comment). */
export function auditedSchedule(
  source: ComplianceSource,
  audits: LedgerFacts["audits"],
): { jurisdictions: Jurisdictions; next_audit: string } {
  const recorded = Object.values(audits);
  if (recorded.length === 0) return { jurisdictions: source.jurisdictions, next_audit: source.next_audit };
  const jurisdictions = structuredClone(source.jurisdictions);
  for (const [name, audit] of Object.entries(audits) as [
    keyof Jurisdictions,
    NonNullable<LedgerFacts["audits"][keyof Jurisdictions]>,
  ][]) {
    jurisdictions[name].last_audit = audit.auditedOn;
  }
  const next_audit = recorded.map((a) => a!.nextAudit).sort()[0]!;
  return { jurisdictions, next_audit };
}

export const complianceReportStep: DocumentStep = {
  kind: "document",
  ...declaredOutput(government, "compliance-report.json"),
  name: "compliance-report",
  title: "Compliance report",
  description:
    "Regulatory status per jurisdiction (USA, EU, UK, International) with audit dates; the overall status is derived: non_compliant if any regulation is, partially_compliant if any is under review, else compliant.",
  schema: "government/compliance-report",
  inputs: ["ledger", "pulse", `sources/${COMPLIANCE_SOURCE}`],
  version: 1,
  generate({ facts, pulse, sources }) {
    const source = sources.json(COMPLIANCE_SOURCE, ComplianceSource);
    const { timestamp, cycle } = documentInstant(facts, pulse);
    const { jurisdictions, next_audit } = auditedSchedule(source, facts.audits);
    const report: ComplianceReport = {
      cycle,
      timestamp,
      compliance_status: overallComplianceStatus(jurisdictions),
      jurisdictions,
      next_audit,
    };
    return publishJson("government/compliance-report.json", ComplianceReport, report);
  },
};
