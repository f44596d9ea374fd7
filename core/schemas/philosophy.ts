/**
 * Philosophers area (/philosophy, cathedral FOR-PHILOSOPHERS), including the simulation WebSocket
 * messages. Every JSON document carries its `cycle`.
 */
import { z } from "zod";
import {
  Alert,
  Cathedral,
  Cycle,
  Identifier,
  IsoDate,
  IsoTimestamp,
  NonEmptyString,
  NonNegativeInt,
  NonNegativeNumber,
  Score01,
} from "./common.ts";

/** The five virtues (keys of virtues.json, values of virtue_tags). */
export const VIRTUES = ["integrity", "temperance", "justice", "prudence", "courage"] as const;
export const Virtue = z.enum(VIRTUES);
export type Virtue = z.infer<typeof Virtue>;

/** A sentinel's position in a deliberation (observed: support; the others are added). */
export const Position = z.enum(["support", "oppose", "abstain", "conditional"]);
export type Position = z.infer<typeof Position>;

/** Outcome of a deliberation (observed: approved; the others are added). */
export const DeliberationOutcome = z.enum(["approved", "rejected", "deferred"]);
export type DeliberationOutcome = z.infer<typeof DeliberationOutcome>;

/** /philosophy/deliberations.json. `consensus` is the agreement score in [0, 1] (type not shown). */
export const Deliberations = z.strictObject({
  cycle: Cycle,
  timestamp: IsoTimestamp,
  deliberations: z.array(
    z.strictObject({
      id: Identifier,
      topic: NonEmptyString,
      sentinels: z.array(
        z.strictObject({
          id: Identifier,
          position: Position,
          reasoning: NonEmptyString,
          virtue_tags: z.array(Virtue),
        }),
      ),
      consensus: Score01,
      outcome: DeliberationOutcome,
    }),
  ),
});
export type Deliberations = z.infer<typeof Deliberations>;

/** Status of a virtue (observed: compliant; the others are added). */
export const VirtueStatus = z.enum(["compliant", "at_risk", "non_compliant"]);
export type VirtueStatus = z.infer<typeof VirtueStatus>;

/** One virtue's assessment; score in [0, 1]. */
export const VirtueAssessment = z.strictObject({
  score: Score01,
  /** How the score is measured. */
  measure: NonEmptyString,
  status: VirtueStatus,
});
export type VirtueAssessment = z.infer<typeof VirtueAssessment>;

/** /philosophy/virtues.json. overall_compliance in [0, 1]. */
export const Virtues = z.strictObject({
  cycle: Cycle,
  timestamp: IsoTimestamp,
  virtues: z.strictObject({
    integrity: VirtueAssessment,
    temperance: VirtueAssessment,
    justice: VirtueAssessment,
    prudence: VirtueAssessment,
    courage: VirtueAssessment,
  }),
  overall_compliance: Score01,
});
export type Virtues = z.infer<typeof Virtues>;

/** /philosophy/decisions.json. `outcome` and `lessons_learned` are free text. */
export const Decisions = z.strictObject({
  cycle: Cycle,
  timestamp: IsoTimestamp,
  decisions: z.array(
    z.strictObject({
      id: Identifier,
      date: IsoDate,
      topic: NonEmptyString,
      frameworks_applied: z.array(NonEmptyString),
      sentinels_involved: z.array(Identifier),
      reasoning: NonEmptyString,
      outcome: NonEmptyString,
      lessons_learned: NonEmptyString,
    }),
  ),
});
export type Decisions = z.infer<typeof Decisions>;

/** Drift status (observed: stable; the others are added). */
export const DriftStatus = z.enum(["stable", "drifting", "critical"]);
export type DriftStatus = z.infer<typeof DriftStatus>;

/** Direction of a trend metric (value set not shown; decided here). */
export const TrendDirection = z.enum(["increasing", "decreasing", "stable"]);
export type TrendDirection = z.infer<typeof TrendDirection>;

/** /philosophy/drift-analysis.json. The analysis values are scores in [0, 1] (types not shown). */
export const DriftAnalysis = z.strictObject({
  cycle: Cycle,
  timestamp: IsoTimestamp,
  drift_score: NonNegativeNumber,
  status: DriftStatus,
  analysis: z.strictObject({
    virtue_alignment: Score01,
    principle_adherence: Score01,
    charter_compliance: Score01,
  }),
  trends: z.array(
    z.strictObject({
      metric: NonEmptyString,
      baseline: z.number(),
      current: z.number(),
      drift: z.number(),
      direction: TrendDirection,
    }),
  ),
  alerts: z.array(Alert),
});
export type DriftAnalysis = z.infer<typeof DriftAnalysis>;

/** Client → server message of the /philosophy/simulation WebSocket. */
export const SimulationRequest = z.strictObject({
  action: z.literal("start_simulation"),
  scenario: NonEmptyString,
});
export type SimulationRequest = z.infer<typeof SimulationRequest>;

/**
 * Server → client message of the simulation WebSocket. The item shapes of sentinels and
 * next_actions and the shape of current_state are not shown in the spec; decided here:
 * sentinels [{id, cathedral, position, confidence}], current_state {step, agreement, gi_score,
 * converged}, next_actions [{sentinel, action}].
 */
export const SimulationUpdate = z.strictObject({
  type: z.literal("simulation_update"),
  scenario: NonEmptyString,
  sentinels: z.array(
    z.strictObject({
      id: Identifier,
      cathedral: Cathedral,
      position: Position,
      /** Confidence of the sentinel in its position, [0, 1]. */
      confidence: Score01,
    }),
  ),
  current_state: z.strictObject({
    /** Step number, 0 for the initial state. */
    step: NonNegativeInt,
    /** Share of sentinels supporting, [0, 1]. */
    agreement: Score01,
    gi_score: Score01,
    /** True once positions no longer change; the last message of a run. */
    converged: z.boolean(),
  }),
  next_actions: z.array(
    z.strictObject({
      sentinel: Identifier,
      action: NonEmptyString,
    }),
  ),
});
export type SimulationUpdate = z.infer<typeof SimulationUpdate>;
