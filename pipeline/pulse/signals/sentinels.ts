/**
 * gi.sentinel_heartbeats: the share of sentinels registered on the ledger that are alive at `now` —
 * their latest heartbeat at or before `now` is at most `maxAgeHours` old and does not report
 * "offline" (a sentinel saying it is offline is not alive). null when no sentinel is registered.
 */
import type { LedgerEntry } from "../../../core/ledger/entry.ts";
import { measured, share, unmeasured, type Signal } from "./types.ts";

export async function sentinelHeartbeats(
  entries: AsyncIterable<LedgerEntry> | Iterable<LedgerEntry> | null,
  now: Date,
  maxAgeHours: number,
): Promise<Signal> {
  if (!entries) return unmeasured("no ledger: no sentinels to hear from");
  const registered = new Set<string>();
  const latest = new Map<string, { at: number; status: string }>();
  const until = now.getTime();
  for await (const entry of entries) {
    if (entry.type === "sentinel.registered") {
      registered.add(String((entry.payload as { sentinel: string }).sentinel));
    } else if (entry.type === "sentinel.heartbeat") {
      const at = Date.parse(entry.ts);
      if (at > until) continue; // after the pulse's instant: not yet heard
      const { sentinel, status } = entry.payload as { sentinel: string; status: string };
      const seen = latest.get(sentinel);
      if (!seen || at >= seen.at) latest.set(sentinel, { at, status });
    }
  }
  if (registered.size === 0) return unmeasured("no sentinel is registered on the ledger");
  const since = until - maxAgeHours * 3_600_000;
  let alive = 0;
  for (const id of registered) {
    const beat = latest.get(id);
    if (beat && beat.at > since && beat.status !== "offline") alive++;
  }
  return measured(
    share(alive, registered.size)!,
    `${alive} of ${registered.size} registered sentinels sent a live heartbeat in the ${maxAgeHours} h before ${now.toISOString()}`,
  );
}
