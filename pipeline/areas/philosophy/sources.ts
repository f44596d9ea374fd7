/**
 * The curated inputs of the philosophy area (data/sources/philosophy/) and their strict schemas.
 * Every threshold and weight the area's generators apply is read from these files, never written
 * into the code.
 */
import { z } from "zod";
import { NonEmptyString, Score01 } from "../../../core/schemas/common.ts";
import { Decisions } from "../../../core/schemas/philosophy.ts";

export const VIRTUES_SOURCE = "philosophy/virtues.json";
export const DRIFT_SOURCE = "philosophy/drift.json";
export const DECISIONS_SOURCE = "philosophy/decisions.json";

/** Status bands and weight shared by every virtue: compliant at ≥ compliant_at, at risk at ≥ at_risk_at. */
const band = {
  /** Weight of the virtue in overall_compliance (weighted mean). */
  weight: z.number().positive(),
  compliant_at: Score01,
  at_risk_at: Score01,
};

const bandsInOrder = (v: { compliant_at: number; at_risk_at: number }): boolean => v.at_risk_at <= v.compliant_at;
const bandsMessage = { message: "at_risk_at must not exceed compliant_at", path: ["at_risk_at"] };

export const VirtuesConfig = z.strictObject({
  version: NonEmptyString,
  description: NonEmptyString,
  virtues: z.strictObject({
    /** Share of the latest `window_pulses` pulse records with GI ≥ `gi_min`. */
    integrity: z
      .strictObject({ ...band, window_pulses: z.int().min(1), gi_min: Score01 })
      .refine(bandsInOrder, bandsMessage),
    /** 1 − share of minting cycles whose issuance exceeded `spike_factor` × the median issuance. */
    temperance: z.strictObject({ ...band, spike_factor: z.int().min(1) }).refine(bandsInOrder, bandsMessage),
    /** 1 − Gini coefficient of total rewards across registered sentinels. */
    justice: z.strictObject(band).refine(bandsInOrder, bandsMessage),
    /** Share of evaluated consensus sessions that reached quorum. */
    prudence: z.strictObject(band).refine(bandsInOrder, bandsMessage),
    /**
     * Share of deliberations with at least one opposing position, against `target_share`: reaching
     * the target keeps the virtue fully (score 1), so its bands read like the others'.
     */
    courage: z
      .strictObject({ ...band, target_share: Score01.refine((v) => v > 0, "must be above 0") })
      .refine(bandsInOrder, bandsMessage),
  }),
});
export type VirtuesConfig = z.infer<typeof VirtuesConfig>;

export const DriftConfig = z
  .strictObject({
    version: NonEmptyString,
    description: NonEmptyString,
    /** The analysed window: pulses generated in the last `window_days` days up to the newest. */
    window_days: z.number().positive(),
    /** Records in the baseline (oldest) and current (newest) windows, each capped at half the window. */
    baseline_pulses: z.int().min(1),
    current_pulses: z.int().min(1),
    /** A trend whose |drift| is below this is "stable". */
    direction_epsilon: z.number().nonnegative(),
    /** drift_score (and a metric's |drift|) at or above which the status is drifting / critical. */
    drifting_at: z.number().positive(),
    critical_at: z.number().positive(),
    /** GI and MII a pulse must both reach to count towards charter_compliance. */
    charter_floor: z.strictObject({ gi: Score01, mii: Score01 }),
  })
  .refine((c) => c.drifting_at <= c.critical_at, {
    message: "drifting_at must not exceed critical_at",
    path: ["drifting_at"],
  });
export type DriftConfig = z.infer<typeof DriftConfig>;

/** data/sources/philosophy/decisions.json: the decisions list exactly as published. */
export const DecisionsSource = z.strictObject({ decisions: Decisions.shape.decisions });
export type DecisionsSource = z.infer<typeof DecisionsSource>;
