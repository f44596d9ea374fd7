/**
 * The balance model: what each address holds, derived from the ledger's monetary events only.
 *
 * Per address three integer shard amounts:
 * - `available`: spendable MIC. mic_mint credits the minting sentinel; mic_burn debits the account;
 *   mic_lock moves MIC from available into a contract, mic_unlock moves it back.
 * - `locked`: MIC the address has locked in contracts (locks − unlocks).
 * - `staked`: the identity's stake, a bond posted with `stake.locked` and reduced by
 *   `stake.withdrawn` and `stake.slashed`. The ledger records no MIC moving into a stake, and the
 *   supply figures (core/economy/supply.ts) count none, so a stake is carried beside the MIC
 *   holdings and never enters `available`.
 *
 * The balance of an address (`balance_shards`, v1's `balance_gic`) is `available`; so the sum of
 * every address's balance is the circulating supply. Amounts are kept signed: a ledger that
 * overspends shows a negative balance here instead of a silently clamped one.
 */
import type { LedgerEntry } from "../ledger/entry.ts";
import type { AvmEventPayload } from "../avm/events.ts";
import type { EconomyEventPayload } from "../economy/events.ts";
import type { Projection } from "../ledger/projection.ts";

/** Event types that move money: the ones the migration freeze window holds (core/migration/phases.ts). */
export const MONETARY_EVENT_TYPES = [
  "mic_mint",
  "mic_burn",
  "mic_lock",
  "mic_unlock",
  "stake.locked",
  "stake.withdrawn",
  "stake.slashed",
] as const;
export type MonetaryEventType = (typeof MONETARY_EVENT_TYPES)[number];

const MONETARY = new Set<string>(MONETARY_EVENT_TYPES);

export function isMonetaryEvent(type: string): type is MonetaryEventType {
  return MONETARY.has(type);
}

export interface Holding {
  available: bigint;
  locked: bigint;
  staked: bigint;
}

/** One event's effect on one address: the change of each amount. */
export interface Movement extends Holding {
  address: string;
}

/** The movement an entry records, or null for an event that moves no money. */
export function movementOf(entry: Pick<LedgerEntry, "type" | "payload">): Movement | null {
  const p = entry.payload as Record<string, unknown>;
  switch (entry.type) {
    case "mic_mint": {
      const { sentinel, amount_shards } = p as EconomyEventPayload<"mic_mint">;
      return { address: sentinel, available: BigInt(amount_shards), locked: 0n, staked: 0n };
    }
    case "mic_burn": {
      const { account, amount_shards } = p as EconomyEventPayload<"mic_burn">;
      return { address: account, available: -BigInt(amount_shards), locked: 0n, staked: 0n };
    }
    case "mic_lock": {
      const { account, amount_shards } = p as EconomyEventPayload<"mic_lock">;
      const amount = BigInt(amount_shards);
      return { address: account, available: -amount, locked: amount, staked: 0n };
    }
    case "mic_unlock": {
      const { account, amount_shards } = p as EconomyEventPayload<"mic_unlock">;
      const amount = BigInt(amount_shards);
      return { address: account, available: amount, locked: -amount, staked: 0n };
    }
    case "stake.locked": {
      const { ledger_id, amount_shards } = p as AvmEventPayload<"stake.locked">;
      return { address: ledger_id, available: 0n, locked: 0n, staked: BigInt(amount_shards) };
    }
    case "stake.withdrawn":
    case "stake.slashed": {
      const { ledger_id, amount_shards } = p as AvmEventPayload<"stake.withdrawn">;
      return { address: ledger_id, available: 0n, locked: 0n, staked: -BigInt(amount_shards) };
    }
    default:
      return null;
  }
}

/** Holdings by address; an address appears once a monetary event names it. */
export type Holdings = Map<string, Holding>;

export function applyMovement(balances: Holdings, m: Movement): void {
  const h = balances.get(m.address);
  if (h) {
    h.available += m.available;
    h.locked += m.locked;
    h.staked += m.staked;
  } else {
    balances.set(m.address, { available: m.available, locked: m.locked, staked: m.staked });
  }
}

/**
 * The balances projection over the entries whose `ts` lies in [from, to) (either end open when
 * absent). Without a window it is every address's holdings; `{to: snapshot}` is the state the v1
 * export froze, `{from: snapshot}` the movements after it that v2 adds (core/balance/records.ts).
 * Timestamps compare as strings: the ledger writes them in one fixed ISO 8601 form.
 */
export function balancesProjection(window: { from?: string; to?: string } = {}): Projection<Holdings> {
  const { from, to } = window;
  return {
    initial: () => new Map(),
    apply(balances, entry) {
      if ((from !== undefined && entry.ts < from) || (to !== undefined && entry.ts >= to)) return balances;
      const m = movementOf(entry);
      if (m) applyMovement(balances, m);
      return balances;
    },
  };
}
