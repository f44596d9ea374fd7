/**
 * gi.history_verified: 1 when the pulse history and its signed checkpoint verify against the
 * trusted keys, 0 when they do not, null while the history is empty (nothing to verify yet).
 * The indexer refuses to append to a history that fails, so a written record carries 1 or null;
 * a 0 shows in `--dry-run`.
 */
import type { PublishedCheck } from "../published.ts";
import { measured, unmeasured, type Signal } from "./types.ts";

export function historyVerified(check: PublishedCheck): Signal {
  if (check.problems.length > 0) return measured(0, `${check.problems.length} problem(s): ${check.problems[0]}`);
  if (check.records.length === 0) return unmeasured("the pulse history is empty: nothing to verify yet");
  return measured(1, `${check.records.length} history line(s) and the signed checkpoint verified`);
}
