/**
 * What every signal returns: a share in [0, 1], or null when it could not be measured, always with
 * a reason a person can check (what was counted, or why nothing could be).
 */
export interface Signal {
  value: number | null;
  reason: string;
}

/** Every signal the indexer can measure; data/sources/scoring.json weighs some or all of them. */
export const SIGNALS = [
  "gi.ledger_verified",
  "gi.history_verified",
  "gi.schema_valid",
  "gi.sentinel_heartbeats",
  "gi.ci_success",
  "gi.security_alerts",
  "mii.history_append_only",
  "mii.generated_untouched",
  "mii.ci_green_before_merge",
] as const;
export type SignalName = (typeof SIGNALS)[number];

export function measured(value: number, reason: string): Signal {
  return { value, reason };
}

export function unmeasured(reason: string): Signal {
  return { value: null, reason };
}

/** k of n as a share; null when n is 0 (nothing to measure). */
export function share(k: number, n: number): number | null {
  return n === 0 ? null : k / n;
}
