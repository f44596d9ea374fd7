/**
 * The versioned scoring configuration, `data/sources/scoring.json`: weights of every signal, the
 * thresholds the signals use, what the scan counts as an app / package / workflow, and the rules
 * the MII signals check. Parsed strictly: an unknown key or a signal the indexer cannot measure is
 * an error naming it, never silently ignored.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { ScoringWeights } from "../../core/pulse/scoring.ts";
import { SIGNALS } from "./signals/types.ts";
import { formatIssues } from "../../core/zod-issues.ts";

const Glob = z.string().min(1);
const PathPrefix = z
  .string()
  .min(1)
  .refine((p) => !p.startsWith("/"), "a repository-relative path");

export const ScanRules = z.strictObject({
  /** An app: a directory matching one of `globs`, or a top-level directory directly holding one of `entryFiles`. */
  apps: z.strictObject({ globs: z.array(Glob), entryFiles: z.array(z.string().min(1)) }),
  /** A package: a file matching `globs` and none of `exclude`. */
  packages: z.strictObject({ globs: z.array(Glob), exclude: z.array(Glob) }),
  workflows: z.strictObject({ globs: z.array(Glob) }),
});
export type ScanRules = z.infer<typeof ScanRules>;

export const GeneratedRule = z.strictObject({
  /** Path prefix of generated files. */
  outputs: PathPrefix,
  /** Path prefixes of what generates them; a commit changing outputs must change one of these. */
  inputs: z.array(PathPrefix).min(1),
});
export type GeneratedRule = z.infer<typeof GeneratedRule>;

export const Thresholds = z.strictObject({
  /** Commits (and GitHub runs / pull requests) considered: committed in the windowDays before now… */
  windowDays: z.number().positive(),
  /** …and at most this many of the newest commits. */
  windowMaxCommits: z.int().positive(),
  /** A sentinel is alive when its last operational/degraded heartbeat is at most this old. */
  heartbeatMaxAgeHours: z.number().positive(),
  /** Open security alerts at which gi.security_alerts reaches 0 (linear from 1 at none). */
  securityAlertsAtZero: z.int().positive(),
  /** Merged pull requests inspected for mii.ci_green_before_merge (two API calls each). */
  maxPullRequests: z.int().positive(),
});
export type Thresholds = z.infer<typeof Thresholds>;

export const PulseConfig = z
  .strictObject({
    version: ScoringWeights.shape.version,
    description: z.string().optional(),
    gi: ScoringWeights.shape.gi,
    mii: ScoringWeights.shape.mii,
    thresholds: Thresholds,
    scan: ScanRules,
    rules: z.strictObject({
      /** The append-only history, relative to the scanned repository. */
      historyFile: PathPrefix,
      generated: z.array(GeneratedRule),
      /** Commit subjects starting with one of these are generator runs and may change outputs alone. */
      generatedMessagePrefixes: z.array(z.string().min(1)),
    }),
  })
  .superRefine((config, ctx) => {
    for (const score of ["gi", "mii"] as const) {
      for (const key of Object.keys(config[score])) {
        if (!SIGNALS.includes(`${score}.${key}` as (typeof SIGNALS)[number])) {
          ctx.addIssue({
            code: "custom",
            path: [score, key],
            message: `the indexer measures no signal ${score}.${key} (known: ${SIGNALS.join(", ")})`,
          });
        }
      }
    }
  });
export type PulseConfig = z.infer<typeof PulseConfig>;

export function parseConfig(text: string, file: string): PulseConfig {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file}: not valid JSON (${(error as Error).message})`);
  }
  const result = PulseConfig.safeParse(json);
  if (!result.success) {
    throw new Error(`${file}: ${formatIssues(result.error.issues, "(file)")}`);
  }
  return result.data;
}

export function loadConfig(path: string): PulseConfig {
  return parseConfig(readFileSync(path, "utf8"), path);
}
