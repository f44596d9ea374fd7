/**
 * Academics area (/academics, cathedral FOR-ACADEMICS).
 *
 * Every JSON document carries its `cycle`. citations.bib is BibTeX and has no JSON Schema.
 * CSV row schemas describe one row after typing its cells (numbers as numbers).
 */
import { z } from "zod";
import {
  Cathedral,
  Cycle,
  Identifier,
  IsoTimestamp,
  NonEmptyString,
  NonNegativeInt,
  NonNegativeNumber,
  Score01,
} from "./common.ts";

/**
 * Item of dataset `apps` (shape not shown in the spec; decided here): one application of the
 * platform, described from the curated `data/sources/academics/software.json` — not measured from
 * the repository, so that the dataset changes when the software's shape changes, not with every
 * commit (file and line counts are in the pulse `stats`).
 */
export const DatasetApp = z.strictObject({
  /** Application name. */
  name: NonEmptyString,
  /** Repository-relative directory. */
  path: NonEmptyString,
  /** What the application does. */
  description: NonEmptyString,
});
export type DatasetApp = z.infer<typeof DatasetApp>;

/** Item of dataset `packages` (shape not shown; decided here): a released package and its version. */
export const DatasetPackage = z.strictObject({
  name: NonEmptyString,
  /** Declared version (e.g. package.json version). */
  version: NonEmptyString,
  /** Repository-relative directory of the package (`.` for the root package). */
  path: NonEmptyString,
  description: NonEmptyString,
});
export type DatasetPackage = z.infer<typeof DatasetPackage>;

/** /academics/dataset.json. */
export const AcademicsDataset = z.strictObject({
  cycle: Cycle,
  /**
   * MII of the oldest pulse within the 30-day window that ends at the document time; when the
   * window holds no pulse, the newest pulse before it; null when no pulse was ever recorded.
   */
  mii_baseline: Score01.nullable(),
  sentinels: z.array(
    z.strictObject({
      id: Identifier,
      /** Coordination score (spec formula) from the last heartbeat; null without a heartbeat. */
      score: z.number().nullable(),
      cathedral: Cathedral,
    }),
  ),
  apps: z.array(DatasetApp),
  packages: z.array(DatasetPackage),
});
export type AcademicsDataset = z.infer<typeof AcademicsDataset>;

/** One row of /academics/mii-timeline.csv. */
export const MiiTimelineRow = z.strictObject({
  timestamp: IsoTimestamp,
  mii_score: Score01,
  cycle: Cycle,
  sentinel_count: NonNegativeInt,
});
export type MiiTimelineRow = z.infer<typeof MiiTimelineRow>;

/** /academics/sentinel-coordination.json. */
export const SentinelCoordination = z.strictObject({
  cycle: Cycle,
  timestamp: IsoTimestamp,
  sentinels: z.array(
    z.strictObject({
      id: Identifier,
      /** Coordination score (spec formula) from the last heartbeat; null without a heartbeat. */
      coordination_score: z.number().nullable(),
      uptime_days: NonNegativeNumber,
      cathedral: Cathedral,
    }),
  ),
  /** Mean of the non-null coordination scores; null when no sentinel has one. */
  average_coordination: z.number().nullable(),
  /**
   * Share of the sentinels' consensus votes that matched their session's evaluated outcome
   * (Σ votesWithOutcome / Σ votes). With no vote cast by a sentinel: the share of evaluated sessions
   * that reached a decision (APPROVED or REJECTED, not NO_QUORUM). Null when neither is defined.
   */
  consensus_rate: Score01.nullable(),
});
export type SentinelCoordination = z.infer<typeof SentinelCoordination>;

/** Publication status of a paper (value set not shown; decided here). */
export const PaperStatus = z.enum(["draft", "preprint", "submitted", "under_review", "accepted", "published"]);
export type PaperStatus = z.infer<typeof PaperStatus>;

/** /academics/papers.json. */
export const PapersIndex = z.strictObject({
  cycle: Cycle,
  papers: z.array(
    z.strictObject({
      id: Identifier,
      title: NonEmptyString,
      status: PaperStatus,
      venues: z.array(NonEmptyString),
      key_result: NonEmptyString,
      /** Path of the paper file, relative to the area. */
      path: NonEmptyString,
    }),
  ),
});
export type PapersIndex = z.infer<typeof PapersIndex>;
