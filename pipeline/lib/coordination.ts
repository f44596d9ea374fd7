/**
 * A sentinel's coordination score as the data areas publish it: `coordinationScore` (spec formula,
 * core/economy/formulas.ts) over the apps, packages, workflows and drift of the sentinel's LAST
 * heartbeat and its uptime in days (`SentinelFacts.uptimeDays`, registration → ledger's last
 * entry). A sentinel that never sent a heartbeat has no measured inputs, so no score: null.
 */
import { coordinationScore } from "../../core/economy/formulas.ts";
import type { SentinelFacts } from "../facts/types.ts";

export function sentinelCoordination(sentinel: SentinelFacts): number | null {
  const hb = sentinel.lastHeartbeat;
  if (!hb) return null;
  return coordinationScore({
    apps: hb.apps,
    packages: hb.packages,
    workflows: hb.workflows,
    drift: hb.drift,
    uptimeDays: sentinel.uptimeDays,
  });
}

/** Arithmetic mean of the non-null scores, or null when there is none. */
export function meanOf(scores: readonly (number | null)[]): number | null {
  const present = scores.filter((s): s is number => s !== null);
  if (present.length === 0) return null;
  return present.reduce((a, b) => a + b, 0) / present.length;
}
