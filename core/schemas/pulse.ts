/**
 * Integrity pulse: the pulse record, the history response and the badge body.
 */
import { z } from "zod";
import {
  Cycle,
  Digest,
  IsoTimestampMs,
  NonEmptyString,
  NonNegativeInt,
  NonNegativeNumber,
  Score01,
  Uuid,
} from "./common.ts";

/** Repository statistics of a pulse. All five keys are always present in records we write. */
export const PulseStats = z.strictObject({
  totalFiles: NonNegativeInt,
  totalLines: NonNegativeInt,
  appsCount: NonNegativeInt,
  packagesCount: NonNegativeInt,
  workflowsCount: NonNegativeInt,
});
export type PulseStats = z.infer<typeof PulseStats>;

/** One input signal of a score: its measured value (null when it could not be measured), and weight. */
export const ScoringInput = z.strictObject({
  /** Normalised value of the signal, or null when it was not measured this time. */
  value: z.number().nullable(),
  /** Whether the value was actually measured (false: signal unavailable, left out of the score). */
  measured: z.boolean(),
  /** Weight of the signal in its score, from the versioned scoring configuration. */
  weight: NonNegativeNumber,
});
export type ScoringInput = z.infer<typeof ScoringInput>;

/** Signal names: start with a letter; letters, digits, `_`, `.`, `:`, `-` (e.g. "gi.ledger_verified"). */
export const SignalName = z.string().regex(/^[A-Za-z][A-Za-z0-9_.:-]*$/);

/** Provenance of the scores: which scoring version and which inputs produced them. */
export const PulseScoring = z.strictObject({
  /** Version of the scoring configuration under data/sources/. */
  version: NonEmptyString,
  inputs: z.record(SignalName, ScoringInput),
});
export type PulseScoring = z.infer<typeof PulseScoring>;

/**
 * How a record came to be when it was not measured at its own instant (absent: measured live).
 * - backfill: measured later, at the repository's state of `commit`, and dated by that commit;
 * - sample: simulated (no repository to measure), marked as sample data with a notice.
 */
export const PulseOrigin = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("backfill"),
    commit: z.string().regex(/^[0-9a-f]{40}$/, "must be a 40-hex git commit"),
  }),
  z.strictObject({ kind: z.literal("sample"), notice: NonEmptyString }),
]);
export type PulseOrigin = z.infer<typeof PulseOrigin>;

/**
 * Pulse record, exactly the spec's fields, plus the optional extension keys the spec allows
 * (testCoverage, openIssues, openSecurityAlerts, sentinelConsensus, cycleNotes), the optional
 * `scoring` provenance, the `origin` of a backfilled or simulated record and the `prev` chain link.
 * Any other key is rejected.
 *
 * Extension key types (decided here): testCoverage and sentinelConsensus are shares in [0, 1];
 * openIssues and openSecurityAlerts are counts; cycleNotes is free text.
 */
export const PulseRecord = z.strictObject({
  id: Uuid,
  cycle: Cycle,
  /** Usually main. */
  branch: NonEmptyString,
  giScore: Score01,
  miiScore: Score01,
  /** sha256 digest of the pulse payload. */
  hash: Digest,
  stats: PulseStats,
  /** When the pulse was written: UTC with milliseconds. */
  generatedAt: IsoTimestampMs,
  testCoverage: Score01.optional(),
  openIssues: NonNegativeInt.optional(),
  openSecurityAlerts: NonNegativeInt.optional(),
  sentinelConsensus: Score01.optional(),
  cycleNotes: z.string().optional(),
  scoring: PulseScoring.optional(),
  origin: PulseOrigin.optional(),
  /**
   * Hash of the previous record in the history (null for the first): chains the append-only
   * history so that a removed or reordered record breaks every hash after it.
   */
  prev: Digest.nullable().optional(),
});
export type PulseRecord = z.infer<typeof PulseRecord>;

/** GET /v1/pulse/history response. zod additionally checks that count equals items.length. */
export const PulseHistoryResponse = z
  .strictObject({
    count: NonNegativeInt,
    items: z.array(PulseRecord),
  })
  .refine((h) => h.count === h.items.length, {
    message: "count must equal the number of items",
    path: ["count"],
  });
export type PulseHistoryResponse = z.infer<typeof PulseHistoryResponse>;

/**
 * Badge colors: the four of the spec's color table, plus lightgrey for an error badge
 * (isError true, e.g. no pulse recorded yet).
 */
export const BADGE_COLORS = ["brightgreen", "yellowgreen", "yellow", "red", "lightgrey"] as const;
export const BadgeColor = z.enum(BADGE_COLORS);
export type BadgeColor = z.infer<typeof BadgeColor>;

/** GET /v1/pulse/badge body: shields.io endpoint JSON. */
export const PulseBadge = z.strictObject({
  schemaVersion: z.literal(1),
  label: NonEmptyString,
  message: NonEmptyString,
  color: BadgeColor,
  isError: z.boolean().optional(),
  cacheSeconds: NonNegativeInt.optional(),
});
export type PulseBadge = z.infer<typeof PulseBadge>;
