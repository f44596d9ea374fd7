/**
 * The system health every page states: core/health/system-health.ts over the verified files of
 * this build — the sentinels of government/sentinel-status.json, the minting state of
 * economy/mii.json and the overall status and next audit of government/compliance-report.json —
 * at the sentinel-status file's as-of instant. The pipeline writes the same derivation into
 * sentinel-status.json's `system_health` and the transparency report, and the API's /health reads
 * it too, so a page, the report and the API cannot disagree.
 */
import { economy } from "../../../core/areas/economy.ts";
import { government } from "../../../core/areas/government.ts";
import { systemHealth, type SystemHealthReport } from "../../../core/health/system-health.ts";
import { ComplianceReport, SentinelStatus } from "../../../core/schemas/government.ts";
import { EconomyMii } from "../../../core/schemas/economy.ts";
import { AREA_SLUGS, areaPackage, COMPLIANCE_REPORT, jsonDocument } from "./areas.ts";

let cached: SystemHealthReport | null | undefined;

/** The health of this build's data; null when the government area has not been generated. */
export function siteHealth(): SystemHealthReport | null {
  if (cached !== undefined) return cached;
  const governmentFiles = areaPackage(government.name);
  const economyFiles = areaPackage(economy.name);
  const status = governmentFiles && jsonDocument(governmentFiles, "sentinel-status.json", SentinelStatus);
  if (!status) return (cached = null);
  const compliance = governmentFiles && jsonDocument(governmentFiles, COMPLIANCE_REPORT, ComplianceReport);
  const mii = economyFiles && jsonDocument(economyFiles, "mii.json", EconomyMii);
  cached = systemHealth({
    asOf: status.timestamp,
    sentinels: status.sentinels,
    minting: mii ? { active: mii.minting_active, mii: mii.mii, threshold: mii.threshold } : null,
    compliance: compliance ? { status: compliance.compliance_status, nextAudit: compliance.next_audit } : null,
  });
  return cached;
}

/** Whether any generated area says its data is sample data. */
export function isSampleData(): boolean {
  return AREA_SLUGS.some((a) => areaPackage(a)?.manifest.sample === true);
}
