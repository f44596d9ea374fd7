/**
 * /government/transparency.pdf (public): the transparency report, six sections — executive summary,
 * system operations overview, governance structure, financial transparency, compliance status,
 * future outlook — with figures from the ledger facts, the pulse history, the sentinel status and
 * the compliance report (declared `step:` inputs), and curated prose from
 * `data/sources/government/transparency.json`. A vector chart draws GI and MII over the 30 days to
 * the document time with the 0.95 baseline (transparency-chart.ts).
 *
 * The report is public while the compliance report is government-tier: it states the overall
 * status, per jurisdiction the number of regulations and of open findings (non_compliant or
 * under_review) and the audit dates, never the per-regulation statuses. Policy projections
 * (government-tier) are not included.
 *
 * The system health is core/health's one derivation (sentinels, minting, compliance), stated in
 * the same words as the portal; numbers, MIC, percentages and instants are written with
 * core/format/text.ts. Tables size their columns to their content and wrap a cell rather than cut it.
 *
 * Deterministic: dated by the document instant (pipeline/lib/dating.ts) — CreationDate, ModDate
 * and the text —, fixed Producer/Creator, trailer /ID from the ledger root, newest pulse hash and
 * timestamp. The text is set in Inter (embedded subsets, pipeline/lib/pdf.ts), with Title, Author,
 * Subject and /Lang en. When the ledger is sample data every page carries a red banner saying so.
 */
import { AVM_ERROR_CODES, AVM_STAGES, REVOKE_REASONS, ROLES } from "../../../core/schemas/avm.ts";
import type { PDFFont } from "pdf-lib";
import { z } from "zod";
import {
  count as grouped,
  dateTime,
  day,
  decimal,
  mic,
  micAmount,
  percent,
  plural,
} from "../../../core/format/text.ts";
import { healthSummary, type SystemHealthReport } from "../../../core/health/system-health.ts";
import type { PulseRecord } from "../../../core/pulse/history.ts";
import {
  CATHEDRALS,
  ComplianceReport,
  NonEmptyString,
  SentinelStatus,
  type Cathedral,
} from "../../../core/schemas/index.ts";
import { DAY_MS } from "../../../core/time.ts";
import { CHART_BASELINE, dateOf, drawChart } from "./transparency-chart.ts";
import { WINDOW_DAYS, documentInstant, latestPulse, pulseWindow, type DocumentInstant } from "../../lib/dating.ts";
import { readStepJson } from "../../lib/json.ts";
import { PdfBuilder, bodyFonts } from "../../lib/pdf.ts";
import { GREY, Layout, SIZE } from "../../lib/pdf-layout.ts";
import { mintingState } from "../economy/mii.ts";
import { MINTING_SOURCE, MintingConfig } from "../economy/sources.ts";
import { healthOf } from "./sentinel-status.ts";
import type { LedgerFacts } from "../../facts/types.ts";
import type { DocumentStep } from "../../step.ts";
import { regulationStatuses } from "./compliance-report.ts";
import { government } from "../../../core/areas/government.ts";
import { declaredOutput } from "../../../core/areas/declaration.ts";

export { CHART_BASELINE } from "./transparency-chart.ts";

export const TRANSPARENCY_SOURCE = "government/transparency.json";
const COMPLIANCE_STEP = "government/compliance-report.json";
const SENTINEL_STEP = "government/sentinel-status.json";

/** Curated prose of the report. */
export const TransparencySource = z.strictObject({
  title: NonEmptyString,
  author: NonEmptyString,
  governance: z.array(NonEmptyString).min(1),
  outlook: z.array(NonEmptyString).min(1),
});
export type TransparencySource = z.infer<typeof TransparencySource>;

/** The six section headings, in order (the spec's list). */
export const SECTION_HEADINGS = [
  "1. Executive summary",
  "2. System operations overview",
  "3. Governance structure",
  "4. Financial transparency",
  "5. Compliance status",
  "6. Future outlook",
] as const;

export const PDF_CREATOR = "Integrity Platform transparency report generator v1";

// ------------------------------------------------------------------------------------------------
// Content

const pct = (score: number) => percent(score);
const count = plural;

export interface ReportData {
  facts: LedgerFacts;
  pulse: readonly PulseRecord[];
  instant: DocumentInstant;
  source: TransparencySource;
  compliance: ComplianceReport;
  status: SentinelStatus;
  /** core/health's report over the sentinels, minting and compliance. */
  health: SystemHealthReport;
}

function executiveSummary(l: Layout, d: ReportData): void {
  const { facts, instant, compliance, health } = d;
  const latest = latestPulse(d.pulse);
  l.heading(SECTION_HEADINGS[0]);
  l.paragraph(
    `This report describes the Integrity Platform as of ${dateTime(instant.timestamp)} (cycle ${instant.cycle}).`,
  );
  l.bullet(`System health: ${healthSummary(health)}`);
  if (latest) {
    l.bullet(
      `Latest integrity pulse: GI ${pct(latest.giScore)}, MII ${pct(latest.miiScore)} (${dateTime(latest.generatedAt)}, cycle ${latest.cycle}). GI and MII measure the repository and its published data; the sentinel counts above measure the running system.`,
    );
  } else {
    l.bullet("No integrity pulse has been recorded yet.");
  }
  l.bullet(`Total supply: ${mic(facts.supply.mintedShards)} minted; circulating ${mic(circulating(facts))}.`);
  l.bullet(
    `Ledger: ${count(facts.size, "entry", "entries")}${facts.firstTs ? ` from ${dateTime(facts.firstTs)} to ${dateTime(facts.asOf!)}` : ""}.`,
  );
  l.bullet(`Ledger Merkle root: ${facts.rootHash}`);
  l.bullet(`Compliance: ${compliance.compliance_status.replaceAll("_", " ")}; next audit ${auditText(d)}.`);
  l.space(4);
}

/** "15 Apr 2026 (overdue by 222 days)" / "15 Jan 2027 (in 53 days)". */
function auditText(d: ReportData): string {
  const audit = d.health.compliance;
  const when = day(d.compliance.next_audit);
  if (!audit) return when;
  return audit.daysToAudit >= 0
    ? `${when} (in ${count(audit.daysToAudit, "day")})`
    : `${when} (overdue by ${count(-audit.daysToAudit, "day")})`;
}

function circulating(facts: LedgerFacts): bigint {
  return facts.supply.mintedShards - facts.supply.burnedShards - facts.supply.lockedShards;
}

function operationsOverview(l: Layout, d: ReportData, font: PDFFont): void {
  const { facts, pulse, instant, status, health } = d;
  l.heading(SECTION_HEADINGS[1]);
  const window = pulseWindow(pulse, instant.ms);
  l.paragraph(
    `Integrity pulse: ${count(pulse.length, "record")} in the history, ${grouped(window.length)} in the ${WINDOW_DAYS} days to ${dateTime(instant.timestamp)}. Figure 1 shows GI and MII over that window against the ${percent(CHART_BASELINE, 0)} baseline.`,
  );
  if (window.length === 0) {
    l.paragraph(`Figure 1: no pulse was recorded in the ${WINDOW_DAYS} days before this report.`);
  } else {
    drawChart(l, font, window, instant.ms);
    l.text(
      `Figure 1: GI and MII, ${dateOf(instant.ms - WINDOW_DAYS * DAY_MS)} to ${dateOf(instant.ms)} (${count(window.length, "pulse")}).`,
      {
        size: SIZE.small,
        color: GREY,
      },
    );
    l.space(6);
  }
  const s = health.sentinels;
  l.paragraph(
    `Sentinels: ${grouped(s.total)} registered, ${grouped(s.operational)} operational, ${grouped(s.degraded)} degraded, ${grouped(s.offline)} offline; system health ${health.status}; ${count(status.alerts.length, "open alert")}.`,
  );
  l.table(
    [
      { title: "Sentinel" },
      { title: "Cathedral" },
      { title: "Status" },
      { title: "Office integrity", right: true },
      { title: "Coordination", right: true },
      { title: "Last heartbeat" },
    ],
    status.sentinels.map((x) => [
      x.id,
      x.cathedral,
      x.status,
      x.performance.gi_score === null ? "-" : pct(x.performance.gi_score),
      x.performance.coordination === null ? "-" : decimal(x.performance.coordination, 1),
      x.last_heartbeat === null ? "never" : dateTime(x.last_heartbeat),
    ]),
  );
  for (const alert of status.alerts) l.bullet(`Alert (${alert.severity}): ${alert.message}.`);
  const types = Object.keys(facts.eventCounts).sort();
  l.paragraph(
    `The ledger holds ${count(facts.size, "entry", "entries")} of ${count(types.length, "event type")}. Every entry is hash-chained and is a leaf of an RFC 9162 Merkle tree; the root above commits to all of them.`,
  );
  l.table(
    [{ title: "Event type" }, { title: "Entries", right: true }],
    types.map((t) => [t, grouped(facts.eventCounts[t] ?? 0)]),
  );
}

function governance(l: Layout, d: ReportData): void {
  const { facts } = d;
  l.heading(SECTION_HEADINGS[2]);
  for (const paragraph of d.source.governance) l.paragraph(paragraph);
  const byCathedral = new Map<Cathedral, { sentinels: number; rewards: bigint }>();
  for (const c of CATHEDRALS) byCathedral.set(c, { sentinels: 0, rewards: 0n });
  for (const s of facts.sentinels) {
    const entry = byCathedral.get(s.cathedral);
    if (entry) {
      entry.sentinels++;
      entry.rewards += s.rewardsShards;
    }
  }
  l.table(
    [
      { title: "Cathedral" },
      { title: "Multiplier", right: true },
      { title: "Sentinels", right: true },
      { title: "Rewards", right: true },
    ],
    CATHEDRALS.map((c) => {
      const entry = byCathedral.get(c) ?? { sentinels: 0, rewards: 0n };
      return [c, `×${decimal(facts.multipliers[c], 2)}`, grouped(entry.sentinels), mic(entry.rewards)];
    }),
  );
  const c = facts.consensus;
  l.paragraph(
    `Consensus: ${count(c.opened, "session")} opened, ${grouped(c.evaluated)} evaluated (${grouped(c.approved)} approved, ${grouped(c.rejected)} rejected, ${grouped(c.noQuorum)} without quorum), ${grouped(c.open)} still open; ${count(c.sealedProofs, "deliberation proof")} sealed on the ledger.`,
  );
  const approved = facts.deliberations.filter((x) => x.outcome === "approved").length;
  l.paragraph(`Deliberations recorded: ${grouped(facts.deliberations.length)} (${grouped(approved)} approved).`);
  const n = (type: string) => facts.eventCounts[type] ?? 0;
  // Authority activity, folded from the ledger (core/avm/activity.ts), as authority-activity.json publishes it.
  const a = facts.authorityActivity;
  const identities = ROLES.reduce((sum, r) => sum + a.identities_by_role[r], 0);
  l.paragraph(
    `Authority verification: ${count(a.attempts, "attempt")}, ${count(a.grants, "grant")} (${grouped(a.renewals)} of them renewals), ${count(a.denials, "denial")} (${grouped(a.malformed)} of them bodies that did not parse), ${count(a.revocations, "revocation")}; ${count(identities, "identity", "identities")} registered (${ROLES.map((r) => `${grouped(a.identities_by_role[r])} ${r}`).join(", ")}), ${count(a.companions, "companion")}, ${count(n("attestation"), "attestation")} recorded.`,
  );
  l.table(
    [{ title: "Denied at stage" }, { title: "Denials", right: true }],
    AVM_STAGES.map((stage) => [stage, grouped(a.denials_by_stage[stage])]),
  );
  l.table(
    [{ title: "Denied with code" }, { title: "Denials", right: true }],
    AVM_ERROR_CODES.map((code) => [code, grouped(a.denials_by_code[code])]),
  );
  l.table(
    [{ title: "Revocation reason" }, { title: "Revocations", right: true }],
    REVOKE_REASONS.map((reason) => [reason.replaceAll("_", " "), grouped(a.revocations_by_reason[reason])]),
  );
  if (facts.multiplierChanges.length > 0) {
    l.paragraph(`Multiplier changes recorded: ${grouped(facts.multiplierChanges.length)}; the latest:`);
    for (const change of facts.multiplierChanges.slice(-5)) {
      l.bullet(
        `${dateTime(change.ts)} (${change.cycle}): ${change.cathedral} to ×${decimal(change.multiplier, 2)} - ${change.reason}`,
      );
    }
  }
}

function financial(l: Layout, d: ReportData): void {
  const { facts } = d;
  l.heading(SECTION_HEADINGS[3]);
  l.paragraph(
    "MIC amounts are kept on the ledger as integer shards (1 MIC = 1,000,000 shards) and are shown here rounded to two decimals, computed without floating point; the published datasets carry every shard.",
  );
  l.bullet(`Total supply (all MIC minted): ${mic(facts.supply.mintedShards)}`);
  l.bullet(`Burned: ${mic(facts.supply.burnedShards)}`);
  l.bullet(`Locked in contracts: ${mic(facts.supply.lockedShards)}`);
  l.bullet(`Circulating (minted - burned - locked): ${mic(circulating(facts))}`);
  const mints = facts.sentinels.reduce((a, s) => a + s.mintCount, 0);
  l.bullet(`Mints: ${grouped(mints)} to ${count(facts.sentinels.filter((s) => s.mintCount > 0).length, "sentinel")}.`);
  l.space(4);
  const recent = facts.supplyByCycle.slice(-10);
  if (recent.length > 0) {
    l.paragraph(`Cumulative supply at the end of the last ${count(recent.length, "cycle")} with supply events:`);
    l.table(
      [
        { title: "Cycle" },
        { title: "Last event" },
        { title: "Minted (MIC)", right: true },
        { title: "Burned (MIC)", right: true },
        { title: "Locked (MIC)", right: true },
      ],
      recent.map((r) => [
        r.cycle,
        dateTime(r.ts),
        micAmount(r.mintedShards),
        micAmount(r.burnedShards),
        micAmount(r.lockedShards),
      ]),
    );
  }
}

function complianceStatus(l: Layout, d: ReportData): void {
  const { compliance } = d;
  l.heading(SECTION_HEADINGS[4]);
  l.paragraph(
    `Overall status: ${compliance.compliance_status.replaceAll("_", " ")}. Next audit: ${auditText(d)}. The detailed report per regulation is published for holders of a government key.`,
  );
  const rows = (Object.keys(compliance.jurisdictions) as (keyof ComplianceReport["jurisdictions"])[]).map((name) => {
    const jurisdiction = compliance.jurisdictions[name];
    const statuses = regulationStatuses({ [name]: jurisdiction } as unknown as ComplianceReport["jurisdictions"]);
    const open = statuses.filter((s) => s === "non_compliant" || s === "under_review").length;
    return [name, grouped(statuses.length), grouped(open), day(jurisdiction.last_audit)];
  });
  l.table(
    [
      { title: "Jurisdiction" },
      { title: "Regulations", right: true },
      { title: "Open findings", right: true },
      { title: "Last audit" },
    ],
    rows,
  );
}

function outlook(l: Layout, d: ReportData): void {
  const { facts, pulse, instant } = d;
  l.heading(SECTION_HEADINGS[5]);
  for (const paragraph of d.source.outlook) l.paragraph(paragraph);
  const window = pulseWindow(pulse, instant.ms);
  const first = window[0];
  const last = window[window.length - 1];
  if (first && last && window.length > 1) {
    l.bullet(
      `Trend over the last ${WINDOW_DAYS} days: GI ${pct(first.giScore)} to ${pct(last.giScore)}, MII ${pct(first.miiScore)} to ${pct(last.miiScore)} (${count(window.length, "pulse")}).`,
    );
  }
  l.bullet(`Next compliance audit: ${auditText(d)}.`);
  l.bullet(`Consensus sessions still open: ${grouped(facts.consensus.open)}.`);
}

/** The report's bytes. */
export function renderTransparencyPdf(data: ReportData): Uint8Array {
  const { facts, instant, source } = data;
  const latest = latestPulse(data.pulse);
  const pdf = new PdfBuilder({
    title: source.title,
    subject: `Transparency report as of ${dateTime(instant.timestamp)} (${instant.cycle})${facts.sample ? " - SAMPLE DATA" : ""}`,
    author: source.author,
    creator: PDF_CREATOR,
    keywords: ["integrity", "transparency", instant.cycle, ...(facts.sample ? ["sample data"] : [])],
    date: new Date(instant.ms),
    idSeed: `${facts.rootHash}|${latest?.hash ?? "no-pulse"}|${instant.timestamp}`,
  });
  const { regular: font, bold } = bodyFonts(pdf);
  const banner = facts.sample
    ? `SAMPLE DATA - ${facts.sample.notice.replace(/^\s*sample data\s*[-:\u2013\u2014]?\s*/i, "")} (generator ${facts.sample.generator}, seed ${facts.sample.seed})`
    : null;
  const l = new Layout(pdf.doc, font, bold, banner);
  l.text(source.title, { size: SIZE.title, bold: true });
  l.text(`As of ${dateTime(instant.timestamp)} - cycle ${instant.cycle}`, { color: GREY });
  l.space(6);
  executiveSummary(l, data);
  operationsOverview(l, data, font);
  governance(l, data);
  financial(l, data);
  complianceStatus(l, data);
  outlook(l, data);
  l.footer(`${source.title}, as of ${dateTime(instant.timestamp)}${facts.sample ? " (SAMPLE DATA)" : ""}`);
  return pdf.bytes();
}

export const transparencyStep: DocumentStep = {
  kind: "document",
  ...declaredOutput(government, "transparency.pdf"),
  name: "transparency-report",
  title: "Transparency report",
  description:
    "PDF report: executive summary, system operations (with a GI/MII chart), governance structure, financial transparency, compliance status summary and future outlook.",
  inputs: [
    "ledger",
    "pulse",
    `sources/${TRANSPARENCY_SOURCE}`,
    `sources/${MINTING_SOURCE}`,
    `step:${COMPLIANCE_STEP}`,
    `step:${SENTINEL_STEP}`,
  ],
  version: 1,
  generate({ facts, pulse, sources }, outputs) {
    const compliance = readStepJson(outputs, COMPLIANCE_STEP, ComplianceReport);
    const status = readStepJson(outputs, SENTINEL_STEP, SentinelStatus);
    const minting = mintingState(pulse, sources.json(MINTING_SOURCE, MintingConfig));
    return renderTransparencyPdf({
      facts,
      pulse,
      instant: documentInstant(facts, pulse),
      source: sources.json(TRANSPARENCY_SOURCE, TransparencySource),
      compliance,
      status,
      health: healthOf(status.timestamp, status.sentinels, { compliance, minting }),
    });
  },
};
