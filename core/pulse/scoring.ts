/**
 * GI and MII from measured signals. Pure: the caller measures, this module only weighs.
 *
 * A score is the weighted mean of the signals of that score that were MEASURED this time; a signal
 * that could not be measured is left out of the mean (not counted as 0 or 1) and recorded as
 * `{value: null, measured: false, weight}`. A score with no measured signal (or only weight-0 ones)
 * has no value, and the caller must refuse to write a record: there is no default score.
 *
 * Rounding: every signal value is rounded to 4 decimals first, the mean is taken over the rounded
 * values and rounded to 4 decimals again. The record's `scoring.inputs` therefore hold exactly the
 * numbers the score was computed from, so anyone can recompute the score from the record.
 */
import { z } from "zod";
import type { PulseScoring, ScoringInput } from "../schemas/pulse.ts";
import { CodedError } from "../errors.ts";

export const SCORES = ["gi", "mii"] as const;
export type ScoreName = (typeof SCORES)[number];

/** Names of signals inside a score's weight table: `gi.<key>` / `mii.<key>` in the record. */
const SIGNAL_KEY = /^[a-z][a-z0-9_]*$/;

const Weights = z.record(
  z.string().regex(SIGNAL_KEY, "signal names are lowercase letters, digits and _"),
  z.number().finite().nonnegative(),
);

/** The part of `data/sources/scoring.json` this module reads: the version and the weight tables. */
export const ScoringWeights = z.object({
  version: z.string().min(1),
  gi: Weights,
  mii: Weights,
});
export type ScoringWeights = z.infer<typeof ScoringWeights>;

/** Measured signal values by full name (`gi.ledger_verified`): a share in [0, 1], or null when unmeasured. */
export type SignalValues = Readonly<Record<string, number | null>>;

export interface ScoreResult {
  giScore: number | null;
  miiScore: number | null;
  scoring: PulseScoring;
}

export class ScoringError extends CodedError<"scoring-input"> {
  constructor(message: string) {
    super("scoring-input", message);
  }
}

/** To 4 decimals: toFixed rounds the exact binary value half-up, the same on every platform. */
export function round4(x: number): number {
  const rounded = Number(x.toFixed(4));
  return rounded === 0 ? 0 : rounded; // no -0
}

/**
 * Weighs the measured signals. Throws ScoringError on a value outside [0, 1] or a measured signal
 * the weight tables do not name (a measurement nobody asked for is a bug, not an input).
 */
export function computeScores(weights: ScoringWeights, signals: SignalValues): ScoreResult {
  const inputs: Record<string, ScoringInput> = {};
  const known = new Set<string>();
  const result: Record<ScoreName, number | null> = { gi: null, mii: null };
  for (const score of SCORES) {
    let sum = 0;
    let total = 0;
    for (const key of Object.keys(weights[score]).sort()) {
      const name = `${score}.${key}`;
      const weight = weights[score][key]!;
      known.add(name);
      const raw = signals[name] ?? null;
      if (raw === null) {
        inputs[name] = { value: null, measured: false, weight };
        continue;
      }
      if (typeof raw !== "number" || !Number.isFinite(raw) || raw < 0 || raw > 1) {
        throw new ScoringError(`signal ${name} is ${String(raw)}, expected a number in [0, 1] or null`);
      }
      const value = round4(raw);
      inputs[name] = { value, measured: true, weight };
      sum += weight * value;
      total += weight;
    }
    // Clamp: the mean of values in [0, 1] is in [0, 1], but float sums can overshoot by an ulp.
    result[score] = total > 0 ? Math.min(1, Math.max(0, round4(sum / total))) : null;
  }
  for (const name of Object.keys(signals)) {
    if (!known.has(name)) throw new ScoringError(`signal ${name} has no weight in scoring version ${weights.version}`);
  }
  return { giScore: result.gi, miiScore: result.mii, scoring: { version: weights.version, inputs } };
}

/** The scores, or a ScoringError naming each score that had nothing measured. */
export function requireScores(result: ScoreResult): { giScore: number; miiScore: number; scoring: PulseScoring } {
  const missing: string[] = [];
  if (result.giScore === null) missing.push("GI");
  if (result.miiScore === null) missing.push("MII");
  if (missing.length > 0 || result.giScore === null || result.miiScore === null) {
    throw new ScoringError(
      `no signal of ${missing.join(" or ")} was measured (with a weight above 0): refusing to write a record without a measured score`,
    );
  }
  return { giScore: result.giScore, miiScore: result.miiScore, scoring: result.scoring };
}
