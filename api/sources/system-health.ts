/**
 * The system health /health states: core/health/system-health.ts over the published files it
 * derives from — government/sentinel-status.json (sentinels, as-of instant), economy/mii.json
 * (minting) and government/compliance-report.json (overall status, next audit) — the same
 * derivation the pipeline writes into sentinel-status.json and the portal shows. A file is used only
 * while its bytes match the hash its area manifest lists; without a verified sentinel-status file
 * there is no system health to state (null).
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { z } from "zod";
import { declaredOutput, type DeclaredOutput } from "../../core/areas/declaration.ts";
import { economy } from "../../core/areas/economy.ts";
import { government } from "../../core/areas/government.ts";
import { systemHealth, type SystemHealthReport } from "../../core/health/system-health.ts";
import { EconomyMii } from "../../core/schemas/economy.ts";
import { ComplianceReport, SentinelStatus } from "../../core/schemas/government.ts";
import { listedResources } from "../../core/datapackage/references.ts";

/** A published JSON document of an area, parsed, when it exists and matches its manifest hash. */
function verifiedDocument<T>(dataDir: string, { area, path }: DeclaredOutput, schema: z.ZodType<T>): T | null {
  const manifestPath = join(dataDir, "areas", area, "datapackage.json");
  const file = join(dataDir, "areas", area, path);
  if (!existsSync(manifestPath) || !existsSync(file)) return null;
  try {
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as Record<string, unknown>;
    const listed = listedResources<{ path: string; hash: string }>(manifest).find((r) => r.path === path);
    const bytes = readFileSync(file);
    if (!listed || listed.hash !== `sha256:${createHash("sha256").update(bytes).digest("hex")}`) return null;
    const parsed = schema.safeParse(JSON.parse(bytes.toString("utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

const SENTINEL_STATUS = declaredOutput(government, "sentinel-status.json");
const MII = declaredOutput(economy, "mii.json");
const COMPLIANCE_REPORT = declaredOutput(government, "compliance-report.json");

export function systemHealthOf(dataDir: string): SystemHealthReport | null {
  const status = verifiedDocument(dataDir, SENTINEL_STATUS, SentinelStatus);
  if (!status) return null;
  const mii = verifiedDocument(dataDir, MII, EconomyMii);
  const compliance = verifiedDocument(dataDir, COMPLIANCE_REPORT, ComplianceReport);
  return systemHealth({
    asOf: status.timestamp,
    sentinels: status.sentinels,
    minting: mii ? { active: mii.minting_active, mii: mii.mii, threshold: mii.threshold } : null,
    compliance: compliance ? { status: compliance.compliance_status, nextAudit: compliance.next_audit } : null,
  });
}
