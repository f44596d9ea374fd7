import { readFileSync } from "node:fs";
import { join } from "node:path";
import { inflateSync } from "node:zlib";
import Papa from "papaparse";
import { beforeAll, describe, expect, it } from "vitest";
import { canonicalize } from "../../../core/canonical.ts";
import type { LedgerEntry } from "../../../core/ledger/entry.ts";
import { formatPercent } from "../../../core/pulse/badge.ts";
import {
  AuditTrailRow,
  ComplianceReport,
  PolicyImpact,
  SentinelStatus,
  publishedSchemas,
} from "../../../core/schemas/index.ts";
import type { LedgerFacts } from "../../facts/types.ts";
import { readPdf, type PdfReading } from "../../lib/pdf-read.ts";
import { createSourceReader } from "../../source-reader.ts";
import type { DocumentStep, GeneratorInputs, RowsStep, Step } from "../../step.ts";
import {
  REPO_ROOT,
  makeFacts,
  makeInputs,
  makeLedgerEntries,
  makePulseHistory,
  makeSentinel,
  patchedSources,
  publishedSchemaErrors,
  repoSources,
} from "../../../test/support/pipeline/areas/helpers.ts";
import { AUDIT_COLUMNS, agentOf, auditRow, auditTrailCsvStep, auditTrailJsonStep } from "./audit-trail.ts";
import { ComplianceSource, complianceReportStep, overallComplianceStatus } from "./compliance-report.ts";
import { steps } from "./index.ts";
import { steps as allSteps } from "../index.ts";
import { policyImpactStep } from "./policy-impact.ts";
import { authorityActivityStep } from "./authority-activity.ts";
import { SentinelStatusConfig, sentinelStatusStep } from "./sentinel-status.ts";
import { SECTION_HEADINGS, transparencyStep } from "./transparency-pdf.ts";
import { systemHealth, systemHealthWord } from "../../../core/health/system-health.ts";

// ------------------------------------------------------------------------------------------------
// Scenario: five sentinels as of 2025-12-20T12:00Z, 35 daily pulses (some before the 30-day window).

const AS_OF = "2025-12-20T12:00:00.000Z";

const atlasHb = {
  ts: "2025-12-20T11:00:00.000Z",
  status: "operational",
  gi_score: 0.97,
  apps: 3,
  packages: 2,
  workflows: 4,
  drift: 1.5,
} as const;

function scenarioFacts(overrides: Partial<LedgerFacts> = {}): LedgerFacts {
  return makeFacts({
    size: 240,
    rootHash: `sha256:${"ab".repeat(32)}`,
    firstTs: "2025-12-01T00:00:00.000Z",
    asOf: AS_OF,
    sample: { generator: "pipeline/seed", seed: "42", notice: "Simulated ledger for demonstration." },
    eventCounts: {
      attestation: 40,
      mic_mint: 30,
      "sentinel.heartbeat": 150,
      "sentinel.registered": 5,
      "avm.attempt": 15,
    },
    sentinels: [
      makeSentinel({
        id: "atlas",
        cathedral: "FOR-GOVERNMENTS",
        lastHeartbeat: { ...atlasHb },
        heartbeatCount: 40,
        uptimeDays: 19.5,
        rewardsShards: 1_500_250_000n,
        mintCount: 12,
      }),
      makeSentinel({
        id: "borealis",
        cathedral: "FOR-ACADEMICS",
        // 60 hours before AS_OF: stale (threshold 48 h).
        lastHeartbeat: {
          ts: "2025-12-18T00:00:00.000Z",
          status: "operational",
          gi_score: 0.96,
          apps: 1,
          packages: 1,
          workflows: 1,
          drift: 0,
        },
        uptimeDays: 19.5,
        rewardsShards: 250_000_000n,
        mintCount: 3,
      }),
      makeSentinel({
        id: "cygnus",
        cathedral: "FOR-ECONOMISTS",
        lastHeartbeat: {
          ts: "2025-12-20T10:00:00.000Z",
          status: "degraded",
          gi_score: 0.91,
          apps: 2,
          packages: 0,
          workflows: 1,
          drift: 6,
        },
        uptimeDays: 0.5,
      }),
      makeSentinel({ id: "delta", cathedral: "DIPLOMACY", registeredAt: "2025-12-19T00:00:00.000Z", uptimeDays: 1.5 }),
      makeSentinel({
        id: "echo",
        cathedral: "FOR-PHILOSOPHERS",
        lastHeartbeat: {
          ts: "2025-12-20T09:00:00.000Z",
          status: "offline",
          gi_score: 0.5,
          apps: 0,
          packages: 0,
          workflows: 0,
          drift: 10,
        },
        uptimeDays: 10,
      }),
    ],
    supply: { mintedShards: 1_750_250_000n, burnedShards: 50_000_000n, lockedShards: 200_125_000n },
    supplyByCycle: [
      {
        cycle: "C-160",
        ts: "2025-12-10T08:00:00.000Z",
        mintedShards: 900_000_000n,
        burnedShards: 0n,
        lockedShards: 0n,
      },
      {
        cycle: "C-170",
        ts: "2025-12-20T08:00:00.000Z",
        mintedShards: 1_750_250_000n,
        burnedShards: 50_000_000n,
        lockedShards: 200_125_000n,
      },
    ],
    consensus: { opened: 6, evaluated: 5, approved: 3, rejected: 1, noQuorum: 1, open: 1, sealedProofs: 5 },
    ...overrides,
  });
}

/** 35 daily pulses from 2025-11-15T06:00Z to 2025-12-19T06:00Z; MII rises 0.900 → 0.968. */
const PULSE = makePulseHistory(
  Array.from({ length: 35 }, (_, i) => [0.95 + (i % 5) * 0.01, 0.9 + i * 0.002] as const),
  "2025-11-15T06:00:00.000Z",
);

function inputs(facts = scenarioFacts(), pulse = PULSE): GeneratorInputs {
  return makeInputs(facts, pulse);
}

const text = (out: string | Uint8Array) => (typeof out === "string" ? out : new TextDecoder().decode(out));

function runDocument(step: DocumentStep, input = inputs(), outputs?: Map<string, Uint8Array>): string | Uint8Array {
  return step.generate(input, outputs ?? withDependencies(step, input));
}

/** Every `step:` input generated first (from the real sources, dependencies of dependencies too), as the runner does. */
function withDependencies(
  step: DocumentStep,
  input: GeneratorInputs,
  outputs = new Map<string, Uint8Array>(),
): Map<string, Uint8Array> {
  for (const name of step.inputs) {
    if (!name.startsWith("step:") || outputs.has(name.slice(5))) continue;
    const dep = allSteps.find((s) => s.id === name.slice(5));
    if (!dep || dep.kind !== "document") throw new Error(`no document step ${name}`);
    withDependencies(dep, input, outputs);
    const out = dep.generate({ ...input, sources: repoSources() }, outputs);
    outputs.set(dep.id, typeof out === "string" ? new TextEncoder().encode(out) : out);
  }
  return outputs;
}

function streamRows(step: RowsStep, entries: readonly LedgerEntry[]): string {
  const { head, sink } = step.start({ pulse: [], sources: repoSources() });
  let out = head;
  for (const entry of entries) out += sink.push(entry, canonicalize(entry.payload));
  return out + sink.end();
}

function parseJsonDocument(step: Step, out: string | Uint8Array): unknown {
  const doc: unknown = JSON.parse(text(out));
  expect(text(out)).toBe(`${JSON.stringify(doc, null, 2)}\n`);
  const schemaName = step.schema as keyof typeof publishedSchemas;
  expect(publishedSchemas[schemaName].safeParse(doc).success).toBe(true);
  expect(publishedSchemaErrors(schemaName, doc)).toEqual([]);
  return doc;
}

// ------------------------------------------------------------------------------------------------

describe("government steps", () => {
  it("declare unique ids, exact inputs and their area", () => {
    expect(new Set(steps.map((s) => s.id)).size).toBe(steps.length);
    for (const step of steps) {
      expect(step.id).toBe(`government/${step.path}`);
      expect(step.area).toBe("government");
      expect(step.version).toBe(step.kind === "rows" ? 3 : 1);
      expect(step.name).toMatch(/^[a-z0-9._-]+$/);
      if (step.schema) expect(Object.keys(publishedSchemas)).toContain(step.schema);
    }
    // Every step: input of a step comes before it.
    steps.forEach((step, i) => {
      for (const input of step.inputs) {
        if (input.startsWith("step:")) expect(steps.slice(0, i).map((s) => s.id)).toContain(input.slice(5));
      }
    });
    const access = Object.fromEntries(steps.map((s) => [s.path, s.access]));
    expect(access).toEqual({
      "compliance-report.json": "government",
      "ledger/export.json": "government",
      "ledger/export.csv": "government",
      "sentinel-status.json": "public",
      "policy-impact.json": "government",
      "authority-activity.json": "public",
      "transparency.pdf": "public",
    });
  });

  it("read only the sources they declare", () => {
    for (const step of steps) {
      if (step.kind !== "document") continue;
      const declared = step.inputs.filter((i) => i.startsWith("sources/")).map((i) => i.slice("sources/".length));
      const scoped = createSourceReader(join(REPO_ROOT, "data", "sources"), {
        allowed: new Set(declared),
        reader: step.id,
      });
      const input = makeInputs(scenarioFacts(), PULSE, scoped);
      expect(() => step.generate(input, withDependencies(step, input))).not.toThrow();
    }
  });
});

describe("compliance-report.json", () => {
  it("is the curated statuses with the derived overall status, timestamp and cycle", () => {
    const doc = parseJsonDocument(complianceReportStep, runDocument(complianceReportStep)) as ComplianceReport;
    const source = JSON.parse(
      readFileSync(join(REPO_ROOT, "data/sources/government/compliance.json"), "utf8"),
    ) as ComplianceSource;
    expect(doc.jurisdictions).toEqual(source.jurisdictions);
    expect(doc.next_audit).toBe(source.next_audit);
    // The newest pulse (2025-12-19T06:00Z) is older than the ledger's last entry: dated AS_OF.
    expect(doc.timestamp).toBe(AS_OF);
    expect(doc.cycle).toBe("C-170");
    expect(doc.compliance_status).toBe("compliant");
  });

  it("takes the audit dates the ledger records", () => {
    const audits = {
      EU: { ts: "2025-11-01T10:00:00.000Z", auditor: "A", auditedOn: "2025-11-01", nextAudit: "2026-05-01" },
      UK: { ts: "2025-12-01T10:00:00.000Z", auditor: "B", auditedOn: "2025-12-01", nextAudit: "2026-03-15" },
    };
    const doc = JSON.parse(
      text(runDocument(complianceReportStep, inputs(scenarioFacts({ audits })))),
    ) as ComplianceReport;
    const source = JSON.parse(
      readFileSync(join(REPO_ROOT, "data/sources/government/compliance.json"), "utf8"),
    ) as ComplianceSource;
    expect(doc.jurisdictions.EU.last_audit).toBe("2025-11-01");
    expect(doc.jurisdictions.UK.last_audit).toBe("2025-12-01");
    expect(doc.jurisdictions.USA.last_audit).toBe(source.jurisdictions.USA.last_audit);
    expect(doc.next_audit).toBe("2026-03-15");
  });

  it("is dated by the newest pulse when that is later than the ledger", () => {
    const later = makePulseHistory([[0.97, 0.98]], "2025-12-22T03:00:00.000Z");
    const doc = JSON.parse(text(runDocument(complianceReportStep, inputs(scenarioFacts(), later)))) as ComplianceReport;
    expect(doc.timestamp).toBe("2025-12-22T03:00:00.000Z");
    expect(doc.cycle).toBe("C-172");
  });

  it("derives the overall status from the jurisdictions", () => {
    const source = ComplianceSource.parse(
      JSON.parse(readFileSync(join(REPO_ROOT, "data/sources/government/compliance.json"), "utf8")),
    );
    const j = source.jurisdictions;
    expect(overallComplianceStatus(j)).toBe("compliant");
    expect(overallComplianceStatus({ ...j, UK: { ...j.UK, FCA: "under_review" } })).toBe("partially_compliant");
    expect(
      overallComplianceStatus({ ...j, UK: { ...j.UK, FCA: "under_review" }, EU: { ...j.EU, GDPR: "non_compliant" } }),
    ).toBe("non_compliant");
    const patched = { ...source, jurisdictions: { ...j, International: { ...j.International, FATF: "under_review" } } };
    const sources = patchedSources({ "government/compliance.json": JSON.stringify(patched) });
    const doc = JSON.parse(
      text(runDocument(complianceReportStep, makeInputs(scenarioFacts(), PULSE, sources))),
    ) as ComplianceReport;
    expect(doc.compliance_status).toBe("partially_compliant");
  });

  it("rejects a bad curated source naming the file and the field", () => {
    const source = JSON.parse(readFileSync(join(REPO_ROOT, "data/sources/government/compliance.json"), "utf8"));
    source.jurisdictions.EU.MiCA = "approved";
    const sources = patchedSources({ "government/compliance.json": JSON.stringify(source) });
    expect(() => runDocument(complianceReportStep, makeInputs(scenarioFacts(), PULSE, sources))).toThrow(
      /data\/sources\/government\/compliance\.json: jurisdictions\.EU\.MiCA/,
    );
    source.jurisdictions.EU.MiCA = "utility_token";
    source.next_audit = "2025-01-01";
    const early = patchedSources({ "government/compliance.json": JSON.stringify(source) });
    expect(() => runDocument(complianceReportStep, makeInputs(scenarioFacts(), PULSE, early))).toThrow(
      /compliance\.json: next_audit: next_audit 2025-01-01 is before USA's last_audit/,
    );
  });

  it("cannot be dated without a ledger entry or a pulse", () => {
    expect(() => runDocument(complianceReportStep, makeInputs(makeFacts(), []))).toThrow(/cannot date the document/);
  });
});

describe("policy-impact.json", () => {
  it("is the curated projections, validated and dated", () => {
    const doc = parseJsonDocument(policyImpactStep, runDocument(policyImpactStep)) as PolicyImpact;
    const source = JSON.parse(readFileSync(join(REPO_ROOT, "data/sources/government/policy-impact.json"), "utf8"));
    expect(doc.projections).toEqual(source.projections);
    expect([doc.timestamp, doc.cycle]).toEqual([AS_OF, "C-170"]);
  });

  it("rejects a bad severity naming the file and the field", () => {
    const source = JSON.parse(readFileSync(join(REPO_ROOT, "data/sources/government/policy-impact.json"), "utf8"));
    source.projections[1].risks[0].severity = "extreme";
    const sources = patchedSources({ "government/policy-impact.json": JSON.stringify(source) });
    expect(() => runDocument(policyImpactStep, makeInputs(scenarioFacts(), PULSE, sources))).toThrow(
      /data\/sources\/government\/policy-impact\.json: projections\[1\]\.risks\[0\]\.severity/,
    );
  });
});

describe("sentinel-status.json", () => {
  const config = SentinelStatusConfig.parse(
    JSON.parse(readFileSync(join(REPO_ROOT, "data/sources/government/sentinel-status.json"), "utf8")),
  );

  it("gives each sentinel its status, figures and alerts", () => {
    const doc = parseJsonDocument(
      sentinelStatusStep,
      runDocument(sentinelStatusStep, inputs(), withDependencies(sentinelStatusStep, inputs())),
    ) as SentinelStatus;
    expect([doc.timestamp, doc.cycle]).toEqual([AS_OF, "C-170"]);
    const byId = Object.fromEntries(doc.sentinels.map((s) => [s.id, s]));
    expect(doc.sentinels.map((s) => s.id)).toEqual(["atlas", "borealis", "cygnus", "delta", "echo"]);
    expect(byId.atlas).toEqual({
      id: "atlas",
      status: "operational",
      uptime_days: 19.5,
      cathedral: "FOR-GOVERNMENTS",
      last_heartbeat: "2025-12-20T11:00:00.000Z",
      performance: {
        gi_score: 0.97,
        coordination: (0.4 * 3 + 0.3 * 2 + 0.2 * 4 + 0.1 * (10 - 1.5)) * (1 + Math.log(19.5)),
      },
    });
    expect(byId.borealis?.status).toBe("offline"); // stale: 60 h > 48 h
    expect(byId.cygnus?.status).toBe("degraded");
    // Uptime below one day counts as one day: factor 1.
    expect(byId.cygnus?.performance.coordination).toBeCloseTo(0.4 * 2 + 0.2 * 1 + 0.1 * 4, 12);
    expect(byId.delta).toMatchObject({
      status: "offline",
      last_heartbeat: null,
      performance: { gi_score: null, coordination: null },
    });
    expect(byId.echo?.status).toBe("offline");
    // 1 operational of 5 = 0.2 < 0.6: critical.
    expect(doc.system_health).toBe("critical");
    expect(doc.alerts).toEqual([
      {
        id: "stale:borealis",
        severity: config.alert_severity.stale,
        source: "borealis",
        message:
          "The last heartbeat of sentinel borealis, on 18 Dec 2025, 00:00 UTC, is 2 days, 12 hours old (offline after 2 days of silence)",
        raised_at: "2025-12-20T00:00:00.000Z",
      },
      {
        id: "degraded:cygnus",
        severity: config.alert_severity.degraded,
        source: "cygnus",
        message: "Sentinel cygnus reported itself degraded in its heartbeat on 20 Dec 2025, 10:00 UTC",
        raised_at: "2025-12-20T10:00:00.000Z",
      },
      {
        id: "silent:delta",
        severity: config.alert_severity.silent,
        source: "delta",
        message: "Sentinel delta has not sent a heartbeat since it registered on 19 Dec 2025, 00:00 UTC",
        raised_at: "2025-12-19T00:00:00.000Z",
      },
      {
        id: "offline:echo",
        severity: config.alert_severity.offline,
        source: "echo",
        message: "Sentinel echo reported itself offline in its heartbeat on 20 Dec 2025, 09:00 UTC",
        raised_at: "2025-12-20T09:00:00.000Z",
      },
    ]);
  });

  it("states the one system health of core/health: sentinels, minting and compliance", () => {
    const input = inputs();
    const outputs = withDependencies(sentinelStatusStep, input);
    const doc = JSON.parse(text(runDocument(sentinelStatusStep, input, outputs))) as SentinelStatus;
    const compliance = JSON.parse(text(outputs.get("government/compliance-report.json")!)) as ComplianceReport;
    const latest = PULSE.at(-1)!;
    const report = systemHealth({
      asOf: doc.timestamp,
      sentinels: doc.sentinels,
      minting: { active: latest.miiScore >= 0.95, mii: latest.miiScore, threshold: 0.95 },
      compliance: { status: compliance.compliance_status, nextAudit: compliance.next_audit },
    });
    expect(doc.system_health).toBe(systemHealthWord(report.status));
    // All sentinels operational, but the curated audit date is long past: degraded.
    const healthy = (id: string) =>
      makeSentinel({ id, cathedral: "FOR-ACADEMICS", lastHeartbeat: { ...atlasHb }, uptimeDays: 3 });
    const allUp = inputs(scenarioFacts({ sentinels: [healthy("a"), healthy("b")] }));
    const overdue = JSON.parse(
      text(runDocument(sentinelStatusStep, allUp, withDependencies(sentinelStatusStep, allUp))),
    ) as SentinelStatus;
    expect(overdue.system_health).toBe(compliance.next_audit < AS_OF.slice(0, 10) ? "degraded" : "healthy");
  });

  it("grades system health by the share of operational sentinels", () => {
    const healthy = (id: string) =>
      makeSentinel({ id, cathedral: "FOR-ACADEMICS", lastHeartbeat: { ...atlasHb }, uptimeDays: 3 });
    const degraded = (id: string) =>
      makeSentinel({
        id,
        cathedral: "FOR-ACADEMICS",
        lastHeartbeat: { ...atlasHb, status: "degraded" },
        uptimeDays: 3,
      });
    const health = (sentinels: LedgerFacts["sentinels"]) =>
      (JSON.parse(text(runDocument(sentinelStatusStep, inputs(scenarioFacts({ sentinels }))))) as SentinelStatus)
        .system_health;
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `s${i}`);
    // 9/10 = 0.9 → healthy; 8/10 = 0.8 → degraded; 6/10 → degraded; 5/10 → critical; none → critical.
    expect(health([...ids(9).map(healthy), degraded("x")])).toBe("healthy");
    expect(health([...ids(8).map(healthy), degraded("x"), degraded("y")])).toBe("degraded");
    expect(health([...ids(6).map(healthy), ...["w", "x", "y", "z"].map(degraded)])).toBe("degraded");
    expect(health([...ids(5).map(healthy), ...["v", "w", "x", "y", "z"].map(degraded)])).toBe("critical");
    expect(health([])).toBe("critical");
    const doc = JSON.parse(
      text(runDocument(sentinelStatusStep, inputs(scenarioFacts({ sentinels: [healthy("a")] })))),
    ) as SentinelStatus;
    expect([doc.system_health, doc.alerts]).toEqual(["healthy", []]);
  });

  it("takes its thresholds from the curated configuration", () => {
    const patched = { ...config, stale_after_hours: 72 };
    const sources = patchedSources({ "government/sentinel-status.json": JSON.stringify(patched) }, [
      "economy/minting.json",
    ]);
    const doc = JSON.parse(
      text(runDocument(sentinelStatusStep, makeInputs(scenarioFacts(), PULSE, sources))),
    ) as SentinelStatus;
    expect(doc.sentinels.find((s) => s.id === "borealis")?.status).toBe("operational");
    // The health thresholds are core/health's, not curated: an old-style key is refused.
    const bad = patchedSources(
      {
        "government/sentinel-status.json": JSON.stringify({
          ...config,
          health: { healthy_min_operational_share: 0.5, degraded_min_operational_share: 0.8 },
        }),
      },
      ["economy/minting.json"],
    );
    expect(() => runDocument(sentinelStatusStep, makeInputs(scenarioFacts(), PULSE, bad))).toThrow(
      /sentinel-status\.json/,
    );
  });
});

// ------------------------------------------------------------------------------------------------

const DIGEST = `sha256:${"0f".repeat(32)}`;
const PK = "ab".repeat(32);
const SIG = "cd".repeat(64);
const LEDGER_ID = "3f0c6a4e-8d1b-4c2a-9e7f-1a2b3c4d5e6f";

const ENTRIES = makeLedgerEntries([
  {
    type: "sample.generated",
    payload: { generator: "pipeline/seed", seed: "42", notice: "SAMPLE DATA" },
    ts: "2025-12-01T00:00:00.000Z",
  },
  {
    type: "sentinel.registered",
    payload: { sentinel: "atlas", cathedral: "FOR-GOVERNMENTS", algorithm: "ed25519", public_key: PK },
    ts: "2025-12-01T00:00:01.000Z",
  },
  {
    type: "attestation",
    payload: {
      agent: "echo",
      subject: 'dataset "academics", v1\r\nline two',
      attestation_hash: DIGEST,
      algorithm: "ed25519",
      public_key: PK,
      signature: SIG,
    },
    ts: "2025-12-01T00:00:02.000Z",
  },
  {
    type: "mic_mint",
    payload: {
      sentinel: "atlas",
      cycle: "C-151",
      cathedral: "FOR-GOVERNMENTS",
      amount_shards: "1500000",
      coordination_score: 61.2,
      multiplier: 1.5,
    },
    ts: "2025-12-01T00:00:03.000Z",
  },
  {
    type: "avm.attempt",
    payload: {
      ledger_id: null,
      requested_scopes: ["api.read"],
      verified: false,
      failed_at_stage: "identity",
      code: "AVM_001",
      attestation_hash: null,
    },
    ts: "2025-12-01T00:00:04.000Z",
  },
  {
    type: "consensus.vote",
    payload: { session_id: "S-1", participant: "office-aurea", vote: "APPROVE", signature: SIG },
    ts: "2025-12-01T00:00:05.000Z",
  },
  {
    type: "pulse.recorded",
    payload: {
      id: LEDGER_ID,
      cycle: "C-151",
      hash: DIGEST,
      giScore: 0.97,
      miiScore: 0.99,
      generatedAt: "2025-12-01T06:00:00.000Z",
    },
    ts: "2025-12-01T06:00:00.001Z",
  },
  {
    type: "multiplier.changed",
    payload: { cathedral: "FOR-ACADEMICS", multiplier: 1.2, reason: "review" },
    ts: "2025-12-01T07:00:00.000Z",
  },
  {
    type: "mic_burn",
    payload: { account: "treasury", amount_shards: "1", reason: "fee" },
    ts: "2025-12-01T08:00:00.000Z",
  },
]);

describe("audit trail", () => {
  it("maps each entry to a row: agent, JCS data, attestation hash", () => {
    const rows = ENTRIES.map((e) => auditRow(e));
    expect(rows.map((r) => r.agent)).toEqual([
      "pipeline/seed",
      "atlas",
      "echo",
      "atlas",
      "unidentified",
      "office-aurea",
      "pulse-indexer",
      "FOR-ACADEMICS",
      "treasury",
    ]);
    rows.forEach((row, i) => {
      const entry = ENTRIES[i] as LedgerEntry;
      expect(row.timestamp).toBe(entry.ts);
      expect(row.event_type).toBe(entry.type);
      expect(row.data).toBe(canonicalize(entry.payload));
      expect(row.attestation_hash).toBe(entry.type === "attestation" ? DIGEST : entry.hash);
      expect(AuditTrailRow.safeParse(row).success).toBe(true);
      expect(publishedSchemaErrors("government/audit-trail-row", row)).toEqual([]);
    });
    expect(agentOf({ type: "future.event", payload: { account: "acme" } })).toBe("acme");
    expect(agentOf({ type: "future.event", payload: {} })).toBe("system");
    expect(agentOf({ type: "delibproof.validated", payload: { delib_id: "DP-1-1", validator: "JANUS" } })).toBe(
      "JANUS",
    );
  });

  it("streams the JSON export entry by entry as an array of rows", () => {
    const { head, sink } = auditTrailJsonStep.start({ pulse: [], sources: repoSources() });
    const pieces = [head, ...ENTRIES.map((e) => sink.push(e, canonicalize(e.payload))), sink.end()];
    expect(pieces[0]).toBe("[");
    expect(pieces[1]).toBe(`\n${JSON.stringify(auditRow(ENTRIES[0] as LedgerEntry))}`);
    expect(pieces[2]).toBe(`,\n${JSON.stringify(auditRow(ENTRIES[1] as LedgerEntry))}`);
    const out = pieces.join("");
    expect(out.startsWith("[\n{")).toBe(true);
    expect(out.endsWith("}\n]\n")).toBe(true);
    expect(JSON.parse(out)).toEqual(ENTRIES.map((e) => auditRow(e)));
    expect(streamRows(auditTrailJsonStep, [])).toBe("[]\n");
    expect(JSON.parse(streamRows(auditTrailJsonStep, []))).toEqual([]);
  });

  it("streams an RFC 4180 CSV export that parses back to the same rows", () => {
    const out = streamRows(auditTrailCsvStep, ENTRIES);
    expect(out.startsWith("timestamp,event_type,agent,data,attestation_hash\r\n")).toBe(true);
    expect(out.endsWith("\r\n")).toBe(true);
    expect(out.charCodeAt(0)).not.toBe(0xfeff);
    // The last record ends in CRLF too; parse without it so that no empty record is read.
    const parsed = Papa.parse<Record<string, string>>(out.slice(0, -2), {
      header: true,
      newline: "\r\n",
      skipEmptyLines: false,
    });
    expect(parsed.errors).toEqual([]);
    expect(parsed.meta.fields).toEqual([...AUDIT_COLUMNS]);
    expect(parsed.data).toEqual(ENTRIES.map((e) => auditRow(e)));
    // The attestation's data holds a comma, quotes and CR LF: quoted, quotes doubled.
    const attestation = auditRow(ENTRIES[2] as LedgerEntry);
    expect(attestation.data).toMatch(/[",\r\n]/);
    expect(out).toContain(`,"${attestation.data.replaceAll('"', '""')}",`);
    expect(streamRows(auditTrailCsvStep, [])).toBe("timestamp,event_type,agent,data,attestation_hash\r\n");
  });
});

// ------------------------------------------------------------------------------------------------

/** The decompressed content of every FlateDecode stream of a pdf-lib file. */
function contentStreams(bytes: Uint8Array): string[] {
  const raw = Buffer.from(bytes);
  const out: string[] = [];
  let at = 0;
  while ((at = raw.indexOf("stream\n", at)) >= 0) {
    const start = at + "stream\n".length;
    const end = raw.indexOf("\nendstream", start);
    try {
      out.push(inflateSync(raw.subarray(start, end)).toString("latin1"));
    } catch {
      // not compressed
    }
    at = end;
  }
  return out;
}

describe("authority-activity.json", () => {
  it("publishes the ledger's authority figures, dated like the other documents, valid against its schema", () => {
    const figures = {
      ...makeFacts().authorityActivity,
      attempts: 9,
      grants: 5,
      renewals: 1,
      denials: 4,
      revocations: 2,
    };
    figures.denials_by_stage = { identity: 1, stake: 1, attestation: 1, scope: 1, temporal: 0 };
    figures.revocations_by_reason = { ...figures.revocations_by_reason, drift_exceeded: 2 };
    figures.months = [{ month: "2025-12", attempts: 9, grants: 5, denials: 4, revocations: 2 }];
    const doc = parseJsonDocument(
      authorityActivityStep,
      runDocument(authorityActivityStep, inputs(scenarioFacts({ authorityActivity: figures }))),
    ) as Record<string, unknown>;
    expect(doc).toMatchObject({
      attempts: 9,
      grants: 5,
      renewals: 1,
      denials: 4,
      revocations: 2,
      months: figures.months,
      denials_by_stage: figures.denials_by_stage,
    });
    expect(doc.revocations_by_reason).toMatchObject({ drift_exceeded: 2, stake_withdrawn: 0 });
    expect(typeof doc.timestamp).toBe("string");
  });
});

describe("transparency.pdf", () => {
  const input = inputs();
  const generate = () => runDocument(transparencyStep, input, withDependencies(transparencyStep, input)) as Uint8Array;
  const bytes = generate();
  const render = (i: GeneratorInputs) =>
    runDocument(transparencyStep, i, withDependencies(transparencyStep, i)) as Uint8Array;
  let pdf: PdfReading;
  let content: string;
  beforeAll(async () => {
    pdf = await readPdf(bytes);
    content = pdf.flat;
  });

  it("is a PDF with the six sections", () => {
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(new TextDecoder().decode(bytes.slice(0, 8))).toBe("%PDF-1.7");
    for (const heading of SECTION_HEADINGS) expect(content).toContain(heading);
  });

  it("embeds its fonts (Inter subsets) and says who, what and in which language", () => {
    expect(pdf.fonts.length).toBe(2);
    for (const font of pdf.fonts) {
      expect(font.embedded, font.name).toBe(true);
      expect(font.name).toMatch(/^[A-Z]{6}\+Inter-(Regular|Bold)$/);
    }
    expect(pdf.info).toMatchObject({
      Title: "Integrity Platform Transparency Report",
      Author: "Integrity Platform",
      Subject: "Transparency report as of 20 Dec 2025, 12:00 UTC (C-170) - SAMPLE DATA",
      Language: "en",
    });
  });

  it("shows the key figures of the facts and the pulse, grouped and formatted", () => {
    const latest = PULSE[PULSE.length - 1];
    expect(content).toContain(
      `GI ${formatPercent(latest?.giScore ?? -1)}%, MII ${formatPercent(latest?.miiScore ?? -1)}%`,
    );
    expect(content).toContain("Total supply: 1,750.25 MIC minted; circulating 1,500.13 MIC."); // 1750.25 − 50 − 200.125
    expect(content).toContain(
      "Sentinels: 5 registered, 1 operational, 1 degraded, 3 offline; system health critical; 4 open alerts.",
    );
    expect(content).toContain(
      "System health: Critical: 1 of 5 sentinels operational, 1 degraded, 3 offline; MIC minting active; compliant with every regulation.",
    );
    expect(content).toContain("Ledger: 240 entries from 1 Dec 2025, 00:00 UTC to 20 Dec 2025, 12:00 UTC.");
    expect(content).toContain(`sha256:${"ab".repeat(32)}`);
    expect(content).toContain("Compliance: compliant; next audit 15 Apr 2026 (in 116 days).");
    expect(content).toContain(
      "6 sessions opened, 5 evaluated (3 approved, 1 rejected, 1 without quorum), 1 still open",
    );
    // 29 of the 35 daily pulses fall in the 30 days to AS_OF (2025-11-20T12:00Z .. 2025-12-20T12:00Z):
    // 2025-11-21T06:00Z (the 7th) to 2025-12-19T06:00Z (the 35th).
    expect(content).toContain("35 records in the history, 29 in the 30 days");
    expect(content).toContain("Figure 1: GI and MII, 20 Nov 2025 to 20 Dec 2025 (29 pulses).");
    const first = PULSE[6];
    const last = PULSE[34];
    expect(content).toContain(
      `Trend over the last 30 days: GI ${formatPercent(first?.giScore ?? -1)}% to ${formatPercent(last?.giScore ?? -1)}%, MII ${formatPercent(first?.miiScore ?? -1)}% to ${formatPercent(last?.miiScore ?? -1)}% (29 pulses).`,
    );
    // The chart's axes and legend are labelled.
    for (const label of ["Score", "Date (UTC)", "GI (global integrity)", "MII (integrity index)", "Baseline 95%"])
      expect(content).toContain(label);
    // No ISO instant, and no number of five or more integer digits without grouping.
    expect(content).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
    expect(content.replace(/sha256:[0-9a-f]{64}/g, "")).not.toMatch(/(?<![\d.,])\d{5,}/);
  });

  it("prints whole cathedral names in its tables", () => {
    for (const c of ["FOR-GOVERNMENTS", "FOR-ACADEMICS", "FOR-ECONOMISTS", "FOR-PHILOSOPHERS", "DIPLOMACY"])
      expect(content).toContain(`${c} `);
  });

  it("keeps the chart on the first page", () => {
    expect(pdf.pages[0]).toContain("Figure 1:");
  });

  it("marks every page as sample data when the ledger is sample data", async () => {
    expect(pdf.pages.length).toBeGreaterThan(1);
    for (const page of pdf.pages)
      expect(page.replace(/\s+/g, " ")).toContain(
        "SAMPLE DATA - Simulated ledger for demonstration. (generator pipeline/seed, seed 42)",
      );
    // A notice that starts with "SAMPLE DATA" is not repeated.
    const marked = inputs(scenarioFacts({ sample: { generator: "g", seed: "s", notice: "SAMPLE DATA — made up" } }));
    expect((await readPdf(render(marked))).flat).toContain("SAMPLE DATA - made up (generator g, seed s)");
    const real = inputs(scenarioFacts({ sample: null }));
    expect((await readPdf(render(real))).flat).not.toContain("SAMPLE DATA");
  });

  it("carries fixed metadata dated by the document", () => {
    expect(pdf.info).toMatchObject({
      Producer: "Integrity Platform pipeline (pdf-lib)",
      Creator: "Integrity Platform transparency report generator v1",
      CreationDate: "D:20251220120000Z",
      ModDate: "D:20251220120000Z",
    });
    const raw = Buffer.from(bytes).toString("latin1");
    expect(raw).toContain("/CreationDate (D:20251220120000Z)");
    expect(raw).toMatch(/\/ID \[ <[0-9a-f]{32}> <[0-9a-f]{32}> \]/);
  });

  it("is byte-identical across generations", () => {
    expect(Buffer.from(generate()).equals(Buffer.from(bytes))).toBe(true);
    const again = inputs();
    const other = runDocument(transparencyStep, again, withDependencies(transparencyStep, again)) as Uint8Array;
    expect(Buffer.from(other).equals(Buffer.from(bytes))).toBe(true);
  });

  it("draws the chart as vector paths", () => {
    const raw = Buffer.from(bytes).toString("latin1");
    expect(raw).not.toContain("/Image");
    const operators = contentStreams(bytes).join("\n");
    // The dashed 0.95 baseline, and one stroked line segment (m … l … S) per pair of points.
    expect(operators).toMatch(/\[4 3\] 0 d/);
    const segments = operators.match(/ m\n[-\d.]+ [-\d.]+ l\nS/g) ?? [];
    // 2 axes + grid lines + baseline + 2 × 28 segments + 3 legend strokes at least.
    expect(segments.length).toBeGreaterThanOrEqual(2 * 28 + 3);
  });

  it("handles an empty pulse history and no sentinel", async () => {
    const empty = inputs(scenarioFacts({ sentinels: [] }), []);
    const out = (await readPdf(render(empty))).flat;
    expect(out).toContain("No integrity pulse has been recorded yet.");
    expect(out).toContain("Figure 1: no pulse was recorded in the 30 days before this report.");
    for (const heading of SECTION_HEADINGS) expect(out).toContain(heading);
  });

  it("needs the outputs it declares", () => {
    expect(() => runDocument(transparencyStep, input, new Map())).toThrow(/government\/compliance-report\.json/);
  });
});
