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
 * Item of dataset `apps` (shape not shown in the spec; decided here): an application of the
 * repository with its size. Counts sum to the pulse `appsCount` / file statistics.
 */
export const DatasetApp = z.strictObject({
  /** Application name. */
  name: NonEmptyString,
  /** Repository-relative directory. */
  path: NonEmptyString,
  /** Number of tracked files under path. */
  files: NonNegativeInt,
  /** Number of lines in those files. */
  lines: NonNegativeInt,
});
export type DatasetApp = z.infer<typeof DatasetApp>;

/** Item of dataset `packages` (shape not shown; decided here): like an app, plus its version. */
export const DatasetPackage = z.strictObject({
  name: NonEmptyString,
  /** Declared version (e.g. package.json version). */
  version: NonEmptyString,
  path: NonEmptyString,
  files: NonNegativeInt,
  lines: NonNegativeInt,
});
export type DatasetPackage = z.infer<typeof DatasetPackage>;

/** /academics/dataset.json. */
export const AcademicsDataset = z.strictObject({
  cycle: Cycle,
  mii_baseline: Score01,
  sentinels: z.array(
    z.strictObject({
      id: Identifier,
      score: z.number(),
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
      coordination_score: z.number(),
      uptime_days: NonNegativeNumber,
      cathedral: Cathedral,
    }),
  ),
  average_coordination: z.number(),
  /** Share of sessions that reached consensus, in [0, 1]. */
  consensus_rate: Score01,
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
