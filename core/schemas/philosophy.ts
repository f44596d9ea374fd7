/**
 * Philosophers area (/philosophy, cathedral FOR-PHILOSOPHERS), including the simulation WebSocket
 * messages. Every JSON document carries its `cycle`.
 */
import { z } from "zod";
import {
  Alert,
  Cathedral,
  Cycle,
  Digest,
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

/**
 * One virtue's assessment; score in [0, 1]. The status follows from the score and the virtue's own
 * bands, published with it: compliant at or above `compliant_at`, at risk at or above `at_risk_at`,
 * non-compliant below (each virtue has its own, so 77% may be compliant for one and 93% at risk for
 * another).
 */
export const VirtueAssessment = z
  .strictObject({
    score: Score01,
    /** How the score is measured. */
    measure: NonEmptyString,
    status: VirtueStatus,
    /** The score at or above which the virtue is compliant. */
    compliant_at: Score01,
    /** The score at or above which it is at risk (below: non-compliant); at most compliant_at. */
    at_risk_at: Score01,
  })
  .refine((v) => v.at_risk_at <= v.compliant_at, {
    message: "at_risk_at must not exceed compliant_at",
    path: ["at_risk_at"],
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

// The /philosophy/simulation WebSocket (spec: "Simulation"). What the simulation models and how each
// field is computed: core/philosophy/simulation.ts and the README ("Philosophy simulation").

/** Longest scenario, in UTF-16 code units (the message itself is capped in bytes by the API). */
export const SCENARIO_MAX_LENGTH = 500;

/** Client → server: start one simulation of `scenario` (exactly the spec's two fields). */
export const SimulationRequest = z.strictObject({
  action: z.literal("start_simulation"),
  scenario: z
    .string()
    .min(1)
    .max(SCENARIO_MAX_LENGTH)
    .regex(/\S/)
    .describe("The question put to the council: 1 to 500 characters, not only white space"),
});
export type SimulationRequest = z.infer<typeof SimulationRequest>;

/** A stance on the scenario: −1 fully opposed … +1 fully in support. */
export const Stance = z.number().min(-1).max(1);

/** Phase of a simulation message: the first reading (round 0), a round of deliberation, the last message. */
export const SimulationPhase = z.enum(["opening", "deliberating", "final"]);
export type SimulationPhase = z.infer<typeof SimulationPhase>;

/** Why a simulation ended: every member holds the same position, stances stopped moving, or the round limit. */
export const SimulationEndReason = z.enum(["unanimous", "settled", "round_limit"]);
export type SimulationEndReason = z.infer<typeof SimulationEndReason>;

/** What a sentinel does next: in the coming round, or (final message) what it records. */
export const SimulationAction = z.enum(["hold", "lean_support", "lean_oppose", "record_dissent"]);
export type SimulationAction = z.infer<typeof SimulationAction>;

/** One member of the council in a round. */
export const SimulationSentinel = z.strictObject({
  id: Identifier,
  cathedral: Cathedral,
  /** The stance read as a position: support ≥ 0.5, conditional ≥ 0.2, abstain > −0.2, oppose ≤ −0.2. */
  position: Position,
  stance: Stance,
  /** The member's share of the council's influence on this scenario; the shares sum to 1. */
  influence: Score01,
});
export type SimulationSentinel = z.infer<typeof SimulationSentinel>;

/**
 * Server → client: one round of the simulation (round 0 is the opening, the last message has phase
 * `final` with the outcome). The item shapes of sentinels and next_actions and the shape of
 * current_state are not shown in the spec; decided here.
 */
export const SimulationUpdate = z.strictObject({
  type: z.literal("simulation_update"),
  scenario: SimulationRequest.shape.scenario,
  sentinels: z.array(SimulationSentinel),
  current_state: z.strictObject({
    /** 0 for the opening, then 1, 2, … */
    round: NonNegativeInt,
    max_rounds: z.int().min(1),
    phase: SimulationPhase,
    /** Share of members in support (the spec's agreement score: approving / participants). */
    agreement: Score01,
    /** Share of members opposed. */
    opposition: Score01,
    /** Influence-weighted mean stance. */
    mean_stance: Stance,
    /** Largest change of a stance in this round (0 in the opening). */
    movement: NonNegativeNumber,
    /** approved: ≥ 3/4 support; rejected: ≥ 1/2 oppose; otherwise deferred. Null until the final message. */
    outcome: DeliberationOutcome.nullable(),
    /** Null until the final message. */
    end_reason: SimulationEndReason.nullable(),
    /** Sentinels left out of the council: GI below 0.95 (the spec's minimum for session participants). */
    excluded: z.array(Identifier),
    /** The published files the council was formed from, by their manifest digests. */
    inputs: z.strictObject({
      deliberations: Digest,
      virtues: Digest,
      sentinel_status: Digest,
    }),
  }),
  next_actions: z.array(
    z.strictObject({
      sentinel: Identifier,
      action: SimulationAction,
      /** The position the sentinel will hold after the next round (final message: the one it holds). */
      position: Position,
    }),
  ),
});
export type SimulationUpdate = z.infer<typeof SimulationUpdate>;

/**
 * Error codes of the simulation WebSocket, and the close code that follows each (null: the
 * connection stays open).
 */
export const SIMULATION_ERRORS = {
  /** Not JSON, or JSON that is not a valid start_simulation message. */
  "malformed-message": 1008,
  /** A binary frame, or a JSON message with another action. */
  "unsupported-message": 1003,
  /** A message larger than the server accepts. */
  "message-too-large": 1009,
  /** start_simulation while one is still running on this connection: refused, the connection stays. */
  "simulation-running": null,
  /** The philosophy area's daily quota is spent (each further simulation on a connection counts). */
  "rate-limited": 1008,
  /** The request limits could not be checked (a shared limits store failed): try again later. */
  "limits-unavailable": 1013,
  /** No message and no simulation for the idle timeout. */
  "idle-timeout": 1000,
  /** The published philosophy files failed verification against their manifests. */
  "data-unverified": 1011,
  "internal-error": 1011,
} as const satisfies Record<string, number | null>;
export type SimulationErrorCode = keyof typeof SIMULATION_ERRORS;

/** Server → client: an error, with a stable `code`; the close frame (if any) follows it. */
export const SimulationError = z.strictObject({
  type: z.literal("error"),
  code: z.enum(Object.keys(SIMULATION_ERRORS) as [SimulationErrorCode, ...SimulationErrorCode[]]),
  message: NonEmptyString,
});
export type SimulationError = z.infer<typeof SimulationError>;

/** Every message the server sends on the simulation WebSocket. */
export const SimulationServerMessage = z.discriminatedUnion("type", [SimulationUpdate, SimulationError]);
export type SimulationServerMessage = z.infer<typeof SimulationServerMessage>;
