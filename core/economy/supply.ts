/**
 * The MIC supply (spec "Economists area": total_supply, circulating, locked, burned) as a projection
 * of the ledger: minted = Σ mic_mint, burned = Σ mic_burn, locked = Σ mic_lock − Σ mic_unlock, all in
 * integer shards. The pipeline's supply.json and the API's live figures fold the same projection, so
 * the two agree at every ledger size; the API keeps the state and applies only the new entries.
 */
import type { EconomyEventPayload as EventPayload } from "./events.ts";
import type { Projection } from "../ledger/projection.ts";
import { shardsToMicNumber } from "../money/units.ts";
import { cycleLabel } from "../cycle.ts";
import type { Supply } from "../schemas/economy.ts";

export interface SupplyShards {
  mintedShards: bigint;
  burnedShards: bigint;
  lockedShards: bigint;
}

/** Whether an entry of this type changes the supply. */
export function isSupplyEvent(type: string): boolean {
  return type === "mic_mint" || type === "mic_burn" || type === "mic_lock" || type === "mic_unlock";
}

export const supplyProjection: Projection<SupplyShards> = {
  initial: () => ({ mintedShards: 0n, burnedShards: 0n, lockedShards: 0n }),
  apply(supply, entry) {
    if (!isSupplyEvent(entry.type)) return supply;
    const amount = BigInt((entry.payload as EventPayload<"mic_mint">).amount_shards);
    if (entry.type === "mic_mint") supply.mintedShards += amount;
    else if (entry.type === "mic_burn") supply.burnedShards += amount;
    else if (entry.type === "mic_lock") supply.lockedShards += amount;
    else supply.lockedShards -= amount;
    return supply;
  },
};

/** The figures in MIC (numbers) and each one's exact shard count (`<figure>_shards`, a decimal string). */
export type SupplyFigures = Omit<Supply, "cycle" | "timestamp">;

/** The figure names: each has its exact shard count beside it as `<name>_shards`. */
export const SUPPLY_FIGURES = ["total_supply", "circulating", "locked", "burned"] as const;

/**
 * The published figures in MIC: total_supply = minted, circulating = minted − burned − locked.
 * Converted to numbers only here, each beside its exact shard count. A negative amount would mean the ledger burned or locked more than
 * was minted: that is refused instead of published.
 */
export function supplyFigures(supply: SupplyShards): SupplyFigures {
  const { mintedShards, burnedShards, lockedShards } = supply;
  const circulating = mintedShards - burnedShards - lockedShards;
  if (mintedShards < 0n || burnedShards < 0n || lockedShards < 0n || circulating < 0n) {
    throw new Error(
      `inconsistent supply (shards): minted ${mintedShards}, burned ${burnedShards}, locked ${lockedShards}, circulating would be ${circulating}`,
    );
  }
  return {
    total_supply: shardsToMicNumber(mintedShards),
    total_supply_shards: mintedShards.toString(),
    circulating: shardsToMicNumber(circulating),
    circulating_shards: circulating.toString(),
    locked: shardsToMicNumber(lockedShards),
    locked_shards: lockedShards.toString(),
    burned: shardsToMicNumber(burnedShards),
    burned_shards: burnedShards.toString(),
  };
}

/** The supply with the timestamp of the newest entry folded: the state behind the live figures. */
export interface SupplyAsOf {
  supply: SupplyShards;
  /** `ts` of the newest entry folded (any type), or null for an empty ledger. */
  asOf: string | null;
}

/** supplyProjection, plus the instant the figures hold at (the ledger's newest entry). */
export const supplyAsOfProjection: Projection<SupplyAsOf> = {
  initial: () => ({ supply: supplyProjection.initial(), asOf: null }),
  apply(state, entry) {
    state.supply = supplyProjection.apply(state.supply, entry);
    state.asOf = entry.ts;
    return state;
  },
};

/**
 * The live `/economy/supply` document (schema economy/supply): the figures of the ledger up to its
 * newest entry, dated at that entry (`whenEmpty` for an empty ledger) — the pipeline's supply.json
 * at the same ledger size has the same figures, and the same date unless a newer pulse dates it.
 */
export function liveSupplyDocument(state: SupplyAsOf, whenEmpty: Date): Supply {
  const at = state.asOf === null ? whenEmpty : new Date(state.asOf);
  return { cycle: cycleLabel(at), timestamp: at.toISOString(), ...supplyFigures(state.supply) };
}
