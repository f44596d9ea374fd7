/**
 * Small, hand-made published documents for the simulation's tests: a council described in a few
 * lines becomes the deliberations, virtues and sentinel-status documents the real files hold.
 */
import type { Deliberations, Position, SentinelStatus, Virtue, Virtues } from "../../../../core/schemas/index.ts";
import type { CouncilDocuments, CouncilInputs } from "../../../../core/philosophy/council.ts";

export const TEST_INPUTS: CouncilInputs = {
  deliberations: `sha256:${"11".repeat(32)}`,
  virtues: `sha256:${"22".repeat(32)}`,
  sentinel_status: `sha256:${"33".repeat(32)}`,
};

export interface TestSentinel {
  id: string;
  gi?: number | null;
  cathedral?: SentinelStatus["sentinels"][number]["cathedral"];
}

export interface TestStatement {
  topic: string;
  positions: Record<string, Position>;
  tags?: Record<string, Virtue[]>;
}

const T = "2026-01-01T00:00:00.000Z";

export function documents(
  sentinels: TestSentinel[],
  statements: TestStatement[],
  scores: Partial<Record<Virtue, number>> = {},
): CouncilDocuments {
  const deliberations: Deliberations = {
    cycle: "C-200",
    timestamp: T,
    deliberations: statements.map((s, i) => ({
      id: `D-${i + 1}`,
      topic: s.topic,
      sentinels: Object.entries(s.positions).map(([id, position]) => ({
        id,
        position,
        reasoning: "Recorded.",
        virtue_tags: s.tags?.[id] ?? [],
      })),
      consensus: 0.5,
      outcome: "deferred",
    })),
  };
  const virtue = (v: Virtue) => ({
    score: scores[v] ?? 1,
    measure: "test",
    status: "compliant" as const,
    compliant_at: 0,
    at_risk_at: 0,
  });
  const virtues: Virtues = {
    cycle: "C-200",
    timestamp: T,
    virtues: {
      integrity: virtue("integrity"),
      temperance: virtue("temperance"),
      justice: virtue("justice"),
      prudence: virtue("prudence"),
      courage: virtue("courage"),
    },
    overall_compliance: 1,
  };
  const sentinelStatus: SentinelStatus = {
    cycle: "C-200",
    timestamp: T,
    sentinels: sentinels.map((s) => ({
      id: s.id,
      status: "operational",
      uptime_days: 10,
      cathedral: s.cathedral ?? "FOR-PHILOSOPHERS",
      last_heartbeat: T,
      performance: { gi_score: s.gi === undefined ? 0.99 : s.gi, coordination: 1 },
    })),
    system_health: "healthy",
    alerts: [],
  };
  return { deliberations, virtues, sentinelStatus, inputs: TEST_INPUTS };
}
