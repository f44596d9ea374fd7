/**
 * Government area (/government, cathedral FOR-GOVERNMENTS): the steps, in an order where every
 * `step:` input comes before the step that reads it.
 */
import type { Step } from "../../step.ts";
import { authorityActivityStep } from "./authority-activity.ts";
import { auditTrailCsvStep, auditTrailJsonStep } from "./audit-trail.ts";
import { complianceReportStep } from "./compliance-report.ts";
import { policyImpactStep } from "./policy-impact.ts";
import { sentinelStatusStep } from "./sentinel-status.ts";
import { transparencyStep } from "./transparency-pdf.ts";

export const steps: Step[] = [
  complianceReportStep,
  auditTrailJsonStep,
  auditTrailCsvStep,
  sentinelStatusStep,
  policyImpactStep,
  authorityActivityStep,
  transparencyStep,
];
