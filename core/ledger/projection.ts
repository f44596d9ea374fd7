/**
 * A projection: state derived from the ledger by folding its entries in order. Registries (AVM
 * identities and grants, consensus sessions, balances) are projections, so they can always be
 * rebuilt from the log, and a store can keep one caught up to the newest entry before it decides.
 */
import type { LedgerEntry } from "./entry.ts";

export interface Projection<S> {
  /** The state of an empty ledger. */
  initial(): S;
  /** The state after `entry`; may update `state` in place and return it. Entries arrive in seq order. */
  apply(state: S, entry: LedgerEntry): S;
}

/** The state after every entry of `entries`, from the projection's initial state. */
export function fold<S>(projection: Projection<S>, entries: Iterable<LedgerEntry>): S {
  let state = projection.initial();
  for (const entry of entries) state = projection.apply(state, entry);
  return state;
}

/** The same fold over entries streamed from a store (`LedgerReader.entries`). */
export async function foldAsync<S>(
  projection: Projection<S>,
  entries: AsyncIterable<LedgerEntry> | Iterable<LedgerEntry>,
): Promise<S> {
  let state = projection.initial();
  for await (const entry of entries) state = projection.apply(state, entry);
  return state;
}
