/**
 * /government/transparency.pdf (public): the transparency report, six sections — executive summary,
 * system operations overview, governance structure, financial transparency, compliance status,
 * future outlook — with figures from the ledger facts, the pulse history, the sentinel status and
 * the compliance report (declared `step:` inputs), and curated prose from
 * `data/sources/government/transparency.json`. A vector chart draws GI and MII over the 30 days to
 * the document time with the 0.95 baseline.
 *
 * The report is public while the compliance report is government-tier: it states the overall
 * status, per jurisdiction the number of regulations and of open findings (non_compliant or
 * under_review) and the audit dates, never the per-regulation statuses. Policy projections
 * (government-tier) are not included.
 *
 * Deterministic: dated by the document instant (pipeline/lib/dating.ts) — CreationDate, ModDate
 * and the text —, fixed Producer/Creator, trailer /ID from the ledger root, newest pulse hash and
 * timestamp. Standard Helvetica, all text reduced to WinAnsi. When the ledger is sample data every
 * page carries a red banner saying so.
 */
import { StandardFonts, rgb, type PDFDocument, type PDFFont, type PDFPage, type RGB } from "pdf-lib";
import { z } from "zod";
import { formatMicDecimal as formatMic } from "../../../core/balance/units.ts";
import { formatPercent } from "../../../core/pulse/badge.ts";
import type { PulseRecord } from "../../../core/pulse/history.ts";
import {
  CATHEDRALS,
  ComplianceReport,
  NonEmptyString,
  SentinelStatus,
  type Cathedral,
} from "../../../core/schemas/index.ts";
import { DAY_MS, WINDOW_DAYS, documentInstant, latestPulse, pulseWindow, type DocumentInstant } from "../../lib/dating.ts";
import { readStepJson } from "../../lib/json.ts";
import { PdfBuilder, winAnsiText, wrapText } from "../../lib/pdf.ts";
import type { LedgerFacts } from "../../facts/types.ts";
import type { DocumentStep } from "../../step.ts";
import { regulationStatuses } from "./compliance-report.ts";

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

/** The GI/MII baseline of the chart: the spec's minimum GI for session participants. */
export const CHART_BASELINE = 0.95;

export const PDF_CREATOR = "Integrity Platform transparency report generator v1";

// ------------------------------------------------------------------------------------------------
// Page layout

const PAGE = { width: 595.28, height: 841.89 } as const; // A4 in points
const MARGIN = 56;
const CONTENT_WIDTH = PAGE.width - 2 * MARGIN;
const SIZE = { title: 18, heading: 14, body: 10, small: 8 } as const;
const LEADING = 1.4;
const BLACK = rgb(0, 0, 0);
const GREY = rgb(0.45, 0.45, 0.45);
const LIGHT = rgb(0.85, 0.85, 0.85);
const RED = rgb(0.75, 0.05, 0.05);
const GI_COLOR = rgb(0.1, 0.3, 0.75);
const MII_COLOR = rgb(0.05, 0.55, 0.25);

class Layout {
  readonly pages: PDFPage[] = [];
  private page!: PDFPage;
  private y = 0;

  private readonly doc: PDFDocument;
  private readonly font: PDFFont;
  private readonly bold: PDFFont;
  private readonly banner: string | null;

  constructor(doc: PDFDocument, font: PDFFont, bold: PDFFont, banner: string | null) {
    this.doc = doc;
    this.font = font;
    this.bold = bold;
    this.banner = banner;
    this.newPage();
  }

  private newPage(): void {
    this.page = this.doc.addPage([PAGE.width, PAGE.height]);
    this.pages.push(this.page);
    this.y = PAGE.height - MARGIN;
    if (this.banner) {
      const lines = wrapText(winAnsiText(this.banner, this.bold), this.bold, SIZE.small, CONTENT_WIDTH - 8);
      const height = lines.length * SIZE.small * LEADING + 6;
      this.page.drawRectangle({
        x: MARGIN,
        y: this.y - height,
        width: CONTENT_WIDTH,
        height,
        borderColor: RED,
        borderWidth: 1,
      });
      let y = this.y - 3 - SIZE.small;
      for (const line of lines) {
        this.page.drawText(line, { x: MARGIN + 4, y, size: SIZE.small, font: this.bold, color: RED });
        y -= SIZE.small * LEADING;
      }
      this.y -= height + 14;
    }
  }

  /** Starts a new page unless `height` points fit above the bottom margin (and footer); true if it did. */
  ensure(height: number): boolean {
    if (this.y - height >= MARGIN + 20) return false;
    this.newPage();
    return true;
  }

  space(points: number): void {
    this.y -= points;
  }

  text(text: string, options: { size?: number; bold?: boolean; color?: RGB; indent?: number } = {}): void {
    const size = options.size ?? SIZE.body;
    const font = options.bold ? this.bold : this.font;
    const indent = options.indent ?? 0;
    for (const line of wrapText(winAnsiText(text, font), font, size, CONTENT_WIDTH - indent)) {
      this.ensure(size * LEADING);
      this.y -= size * LEADING;
      this.page.drawText(line, { x: MARGIN + indent, y: this.y + size * 0.3, size, font, color: options.color ?? BLACK });
    }
  }

  heading(text: string): void {
    this.ensure(SIZE.heading * LEADING + 4 * SIZE.body * LEADING); // keep a heading with its first lines
    this.space(10);
    this.text(text, { size: SIZE.heading, bold: true });
    this.space(4);
  }

  paragraph(text: string): void {
    this.text(text);
    this.space(4);
  }

  bullet(text: string): void {
    this.text(`- ${text}`, { indent: 10 });
  }

  /** A table: columns at fixed x offsets (fractions of the content width); header in bold, repeated on a new page. */
  table(columns: readonly { title: string; at: number }[], rows: readonly (readonly string[])[]): void {
    const size = SIZE.small + 1;
    const header = columns.map((c) => c.title);
    const drawRow = (cells: readonly string[], font: PDFFont) => {
      if (this.ensure(size * LEADING) && cells !== header) drawRow(header, this.bold);
      this.y -= size * LEADING;
      columns.forEach((column, i) => {
        const next = columns[i + 1];
        const width = ((next ? next.at : 1) - column.at) * CONTENT_WIDTH - 4;
        let cell = winAnsiText(cells[i] ?? "", font);
        while (cell.length > 1 && font.widthOfTextAtSize(cell, size) > width) cell = cell.slice(0, -1);
        this.page.drawText(cell, { x: MARGIN + column.at * CONTENT_WIDTH, y: this.y + size * 0.3, size, font });
      });
    };
    this.ensure(2 * size * LEADING); // never a header alone at the foot of a page
    drawRow(header, this.bold);
    for (const row of rows) drawRow(row, this.font);
    this.space(6);
  }

  /** Reserves `height` points and returns the page and the bottom y of the block. */
  block(height: number): { page: PDFPage; bottom: number } {
    this.ensure(height);
    this.y -= height;
    return { page: this.page, bottom: this.y };
  }

  footer(label: string): void {
    this.pages.forEach((page, i) => {
      const text = winAnsiText(`${label} - page ${i + 1} of ${this.pages.length}`, this.font);
      page.drawText(text, { x: MARGIN, y: MARGIN / 2, size: SIZE.small, font: this.font, color: GREY });
    });
  }
}

// ------------------------------------------------------------------------------------------------
// Chart

function dateOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Points are marked with a dot up to this many (about daily pulses); denser series are lines only. */
const MARKERS_UP_TO = 40;

/** GI and MII lines over [endMs − 30 days, endMs], axes, y labels, the 0.95 baseline and a legend. */
function drawChart(layout: Layout, font: PDFFont, points: readonly PulseRecord[], endMs: number): void {
  const height = 170;
  const { page, bottom } = layout.block(height + 40);
  const left = MARGIN + 36;
  const width = CONTENT_WIDTH - 36;
  const y0 = bottom + 40;
  const startMs = endMs - WINDOW_DAYS * DAY_MS;
  const values = points.flatMap((p) => [p.giScore, p.miiScore]);
  let lo = Math.floor(Math.min(CHART_BASELINE, ...values) * 20) / 20;
  if (lo >= CHART_BASELINE) lo = 0.9;
  const hi = 1;
  const yOf = (v: number) => y0 + ((v - lo) / (hi - lo)) * height;
  const xOf = (ms: number) => left + ((ms - startMs) / (endMs - startMs)) * width;

  // Grid and y labels every 0.05.
  for (let step = 0; lo + step * 0.05 <= hi + 1e-9; step++) {
    const v = Math.round((lo + step * 0.05) * 100) / 100;
    page.drawLine({ start: { x: left, y: yOf(v) }, end: { x: left + width, y: yOf(v) }, thickness: 0.4, color: LIGHT });
    page.drawText(`${formatPercent(v)}%`, { x: MARGIN, y: yOf(v) - 3, size: SIZE.small, font, color: GREY });
  }
  // Axes.
  page.drawLine({ start: { x: left, y: y0 }, end: { x: left, y: y0 + height }, thickness: 0.8, color: BLACK });
  page.drawLine({ start: { x: left, y: y0 }, end: { x: left + width, y: y0 }, thickness: 0.8, color: BLACK });
  // Baseline.
  page.drawLine({
    start: { x: left, y: yOf(CHART_BASELINE) },
    end: { x: left + width, y: yOf(CHART_BASELINE) },
    thickness: 0.8,
    color: RED,
    dashArray: [4, 3],
  });
  // X labels: window start, middle, end.
  for (const ms of [startMs, (startMs + endMs) / 2, endMs]) {
    const label = dateOf(ms);
    const w = font.widthOfTextAtSize(label, SIZE.small);
    page.drawText(label, { x: Math.min(xOf(ms) - w / 2, left + width - w), y: y0 - 12, size: SIZE.small, font, color: GREY });
  }
  // Series.
  for (const [key, color] of [["giScore", GI_COLOR], ["miiScore", MII_COLOR]] as const) {
    let previous: { x: number; y: number } | null = null;
    for (const p of points) {
      const at = { x: xOf(Date.parse(p.generatedAt)), y: yOf(p[key]) };
      if (previous) page.drawLine({ start: previous, end: at, thickness: 1.4, color });
      if (points.length <= MARKERS_UP_TO) page.drawCircle({ x: at.x, y: at.y, size: 1.6, color });
      previous = at;
    }
  }
  // Legend.
  let x = left;
  const legendY = bottom + 12;
  for (const [label, color, dashed] of [
    ["GI", GI_COLOR, false],
    ["MII", MII_COLOR, false],
    [`Baseline ${CHART_BASELINE}`, RED, true],
  ] as const) {
    page.drawLine({
      start: { x, y: legendY + 3 },
      end: { x: x + 18, y: legendY + 3 },
      thickness: 1.4,
      color,
      ...(dashed ? { dashArray: [4, 3] } : {}),
    });
    page.drawText(label, { x: x + 22, y: legendY, size: SIZE.small, font, color: BLACK });
    x += 40 + font.widthOfTextAtSize(label, SIZE.small);
  }
}

// ------------------------------------------------------------------------------------------------
// Content

function pct(score: number): string {
  return `${formatPercent(score)}%`;
}

function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export interface ReportData {
  facts: LedgerFacts;
  pulse: readonly PulseRecord[];
  instant: DocumentInstant;
  source: TransparencySource;
  compliance: ComplianceReport;
  status: SentinelStatus;
}

function statusCounts(status: SentinelStatus): Record<"operational" | "degraded" | "offline", number> {
  const counts = { operational: 0, degraded: 0, offline: 0 };
  for (const s of status.sentinels) counts[s.status]++;
  return counts;
}

function executiveSummary(l: Layout, d: ReportData): void {
  const { facts, instant, compliance, status } = d;
  const latest = latestPulse(d.pulse);
  const counts = statusCounts(status);
  l.heading(SECTION_HEADINGS[0]);
  l.paragraph(`This report describes the Integrity Platform as of ${instant.timestamp} (cycle ${instant.cycle}).`);
  if (latest) {
    l.bullet(`Latest integrity pulse: GI ${pct(latest.giScore)}, MII ${pct(latest.miiScore)} (pulse of ${latest.generatedAt}, cycle ${latest.cycle}).`);
  } else {
    l.bullet("No integrity pulse has been recorded yet.");
  }
  l.bullet(
    `Sentinels: ${facts.sentinels.length} registered; ${counts.operational} operational, ${counts.degraded} degraded, ${counts.offline} offline; system health ${status.system_health}.`,
  );
  l.bullet(`Total supply: ${formatMic(facts.supply.mintedShards)} MIC minted; circulating ${formatMic(circulating(facts))} MIC.`);
  l.bullet(`Ledger: ${count(facts.size, "entry", "entries")}${facts.firstTs ? ` from ${facts.firstTs} to ${facts.asOf}` : ""}.`);
  l.bullet(`Ledger Merkle root: ${facts.rootHash}`);
  l.bullet(`Compliance: ${compliance.compliance_status}; next audit ${compliance.next_audit}.`);
  l.space(4);
}

function circulating(facts: LedgerFacts): bigint {
  return facts.supply.mintedShards - facts.supply.burnedShards - facts.supply.lockedShards;
}

function operationsOverview(l: Layout, d: ReportData, font: PDFFont): void {
  const { facts, pulse, instant, status } = d;
  l.heading(SECTION_HEADINGS[1]);
  const types = Object.keys(facts.eventCounts).sort();
  l.paragraph(
    `The ledger holds ${count(facts.size, "entry", "entries")} of ${count(types.length, "event type")}. Every entry is hash-chained and is a leaf of an RFC 9162 Merkle tree; the root above commits to all of them.`,
  );
  l.table(
    [
      { title: "Event type", at: 0 },
      { title: "Entries", at: 0.5 },
    ],
    types.map((t) => [t, String(facts.eventCounts[t] ?? 0)]),
  );
  const window = pulseWindow(pulse, instant.ms);
  l.paragraph(
    `Integrity pulse: ${count(pulse.length, "record")} in the history, ${window.length} in the ${WINDOW_DAYS} days to ${instant.timestamp}. Figure 1 shows GI and MII over that window against the ${CHART_BASELINE} baseline.`,
  );
  if (window.length === 0) {
    l.paragraph(`Figure 1: no pulse was recorded in the ${WINDOW_DAYS} days before this report.`);
  } else {
    drawChart(l, font, window, instant.ms);
    l.text(`Figure 1: GI and MII, ${dateOf(instant.ms - WINDOW_DAYS * DAY_MS)} to ${dateOf(instant.ms)} (${count(window.length, "pulse")}).`, {
      size: SIZE.small,
      color: GREY,
    });
    l.space(6);
  }
  const counts = statusCounts(status);
  l.paragraph(
    `Sentinels: ${status.sentinels.length} registered, ${counts.operational} operational, ${counts.degraded} degraded, ${counts.offline} offline; system health ${status.system_health}; ${count(status.alerts.length, "open alert")}.`,
  );
  l.table(
    [
      { title: "Sentinel", at: 0 },
      { title: "Cathedral", at: 0.24 },
      { title: "Status", at: 0.43 },
      { title: "GI", at: 0.56 },
      { title: "Coordination", at: 0.65 },
      { title: "Last heartbeat", at: 0.8 },
    ],
    status.sentinels.map((s) => [
      s.id,
      s.cathedral,
      s.status,
      s.performance.gi_score === null ? "-" : pct(s.performance.gi_score),
      s.performance.coordination === null ? "-" : s.performance.coordination.toFixed(2),
      s.last_heartbeat === null ? "never" : s.last_heartbeat.slice(0, 16).replace("T", " "),
    ]),
  );
  for (const alert of status.alerts) l.bullet(`Alert (${alert.severity}): ${alert.message}.`);
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
      { title: "Cathedral", at: 0 },
      { title: "Multiplier", at: 0.35 },
      { title: "Sentinels", at: 0.55 },
      { title: "Rewards (MIC)", at: 0.72 },
    ],
    CATHEDRALS.map((c) => {
      const entry = byCathedral.get(c) ?? { sentinels: 0, rewards: 0n };
      return [c, String(facts.multipliers[c]), String(entry.sentinels), formatMic(entry.rewards)];
    }),
  );
  const c = facts.consensus;
  l.paragraph(
    `Consensus: ${count(c.opened, "session")} opened, ${c.evaluated} evaluated (${c.approved} approved, ${c.rejected} rejected, ${c.noQuorum} without quorum), ${c.open} still open; ${count(c.sealedProofs, "deliberation proof")} sealed on the ledger.`,
  );
  const approved = facts.deliberations.filter((x) => x.outcome === "approved").length;
  l.paragraph(`Deliberations recorded: ${facts.deliberations.length} (${approved} approved).`);
  const n = (type: string) => facts.eventCounts[type] ?? 0;
  l.paragraph(
    `Authority verification: ${count(n("avm.attempt"), "attempt")}, ${count(n("avm.grant"), "grant")}, ${count(n("avm.revoke"), "revocation")}; ${count(n("identity.registered"), "identity", "identities")} registered, ${count(n("attestation"), "attestation")} recorded.`,
  );
  if (facts.multiplierChanges.length > 0) {
    l.paragraph(`Multiplier changes recorded: ${facts.multiplierChanges.length}.`);
    for (const change of facts.multiplierChanges.slice(-5)) {
      l.bullet(`${change.ts} (${change.cycle}): ${change.cathedral} to ${change.multiplier} - ${change.reason}`);
    }
  }
}

function financial(l: Layout, d: ReportData): void {
  const { facts } = d;
  l.heading(SECTION_HEADINGS[3]);
  l.paragraph(
    "MIC amounts are kept on the ledger as integer shards (1 MIC = 1,000,000 shards) and are shown here with six decimals, computed without floating point.",
  );
  l.bullet(`Total supply (all MIC minted): ${formatMic(facts.supply.mintedShards)} MIC`);
  l.bullet(`Burned: ${formatMic(facts.supply.burnedShards)} MIC`);
  l.bullet(`Locked in contracts: ${formatMic(facts.supply.lockedShards)} MIC`);
  l.bullet(`Circulating (minted - burned - locked): ${formatMic(circulating(facts))} MIC`);
  const mints = facts.sentinels.reduce((a, s) => a + s.mintCount, 0);
  l.bullet(`Mints: ${mints} to ${facts.sentinels.filter((s) => s.mintCount > 0).length} sentinels.`);
  l.space(4);
  const recent = facts.supplyByCycle.slice(-10);
  if (recent.length > 0) {
    l.paragraph(`Cumulative supply at the end of the last ${count(recent.length, "cycle")} with supply events:`);
    l.table(
      [
        { title: "Cycle", at: 0 },
        { title: "Last event", at: 0.14 },
        { title: "Minted (MIC)", at: 0.44 },
        { title: "Burned (MIC)", at: 0.63 },
        { title: "Locked (MIC)", at: 0.82 },
      ],
      recent.map((r) => [
        r.cycle,
        r.ts.slice(0, 16).replace("T", " "),
        formatMic(r.mintedShards),
        formatMic(r.burnedShards),
        formatMic(r.lockedShards),
      ]),
    );
  }
}

function complianceStatus(l: Layout, d: ReportData): void {
  const { compliance } = d;
  l.heading(SECTION_HEADINGS[4]);
  l.paragraph(
    `Overall status: ${compliance.compliance_status}. Next audit: ${compliance.next_audit}. The detailed report per regulation is published for holders of a government key.`,
  );
  const rows = (Object.keys(compliance.jurisdictions) as (keyof ComplianceReport["jurisdictions"])[]).map((name) => {
    const jurisdiction = compliance.jurisdictions[name];
    const statuses = regulationStatuses({ [name]: jurisdiction } as unknown as ComplianceReport["jurisdictions"]);
    const open = statuses.filter((s) => s === "non_compliant" || s === "under_review").length;
    return [name, String(statuses.length), String(open), jurisdiction.last_audit];
  });
  l.table(
    [
      { title: "Jurisdiction", at: 0 },
      { title: "Regulations", at: 0.3 },
      { title: "Open findings", at: 0.5 },
      { title: "Last audit", at: 0.72 },
    ],
    rows,
  );
}

function outlook(l: Layout, d: ReportData): void {
  const { facts, pulse, instant, compliance } = d;
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
  const days = Math.ceil((Date.parse(`${compliance.next_audit}T00:00:00Z`) - instant.ms) / DAY_MS);
  l.bullet(
    days >= 0
      ? `Next compliance audit: ${compliance.next_audit} (in ${count(days, "day")}).`
      : `Next compliance audit: ${compliance.next_audit} (overdue by ${count(-days, "day")}).`,
  );
  l.bullet(`Consensus sessions still open: ${facts.consensus.open}.`);
}

/** The report's bytes. */
export function renderTransparencyPdf(data: ReportData): Uint8Array {
  const { facts, instant, source } = data;
  const latest = latestPulse(data.pulse);
  const pdf = new PdfBuilder({
    title: source.title,
    subject: `Transparency report as of ${instant.timestamp} (${instant.cycle})${facts.sample ? " - SAMPLE DATA" : ""}`,
    author: source.author,
    creator: PDF_CREATOR,
    keywords: ["integrity", "transparency", instant.cycle, ...(facts.sample ? ["sample data"] : [])],
    date: new Date(instant.ms),
    idSeed: `${facts.rootHash}|${latest?.hash ?? "no-pulse"}|${instant.timestamp}`,
  });
  const font = pdf.font(StandardFonts.Helvetica);
  const bold = pdf.font(StandardFonts.HelveticaBold);
  const banner = facts.sample
    ? `SAMPLE DATA - ${facts.sample.notice.replace(/^\s*sample data\s*[-:\u2013\u2014]?\s*/i, "")} (generator ${facts.sample.generator}, seed ${facts.sample.seed})`
    : null;
  const l = new Layout(pdf.doc, font, bold, banner);
  l.text(source.title, { size: SIZE.title, bold: true });
  l.text(`As of ${instant.timestamp} - cycle ${instant.cycle}`, { color: GREY });
  l.space(6);
  executiveSummary(l, data);
  operationsOverview(l, data, font);
  governance(l, data);
  financial(l, data);
  complianceStatus(l, data);
  outlook(l, data);
  l.footer(`${source.title}, as of ${instant.timestamp}${facts.sample ? " (SAMPLE DATA)" : ""}`);
  return pdf.bytes();
}

export const transparencyStep: DocumentStep = {
  kind: "document",
  id: "government/transparency.pdf",
  area: "government",
  path: "transparency.pdf",
  name: "transparency-report",
  title: "Transparency report",
  description:
    "PDF report: executive summary, system operations (with a GI/MII chart), governance structure, financial transparency, compliance status summary and future outlook.",
  mediatype: "application/pdf",
  access: "public",
  inputs: ["ledger", "pulse", `sources/${TRANSPARENCY_SOURCE}`, `step:${COMPLIANCE_STEP}`, `step:${SENTINEL_STEP}`],
  version: 1,
  generate({ facts, pulse, sources }, outputs) {
    return renderTransparencyPdf({
      facts,
      pulse,
      instant: documentInstant(facts, pulse),
      source: sources.json(TRANSPARENCY_SOURCE, TransparencySource),
      compliance: readStepJson(outputs, COMPLIANCE_STEP, ComplianceReport),
      status: readStepJson(outputs, SENTINEL_STEP, SentinelStatus),
    });
  },
};
