/**
 * The ledger events of the MIC economy: mints, burns, locks and unlocks, and the cathedral
 * multipliers. They join the ledger's event registry (core/events/registry.ts), as every domain's do:
 * an append with an invalid payload is refused before anything is written, and `verify` checks
 * every stored entry against the same schemas. The README lists these types.
 */
import { z } from "zod";
import { Cathedral, Cycle, Identifier, NonEmptyString, ShardString } from "../schemas/common.ts";

const Multiplier = z.number().min(1).max(2);

export const economyEventSchemas = {
  // MIC economy.
  mic_mint: z.strictObject({
    sentinel: Identifier,
    cycle: Cycle,
    cathedral: Cathedral,
    amount_shards: ShardString,
    coordination_score: z.number().nonnegative(),
    multiplier: Multiplier,
  }),
  mic_burn: z.strictObject({ account: Identifier, amount_shards: ShardString, reason: NonEmptyString }),
  mic_lock: z.strictObject({ account: Identifier, amount_shards: ShardString, contract: Identifier }),
  mic_unlock: z.strictObject({ account: Identifier, amount_shards: ShardString, contract: Identifier }),
  "multiplier.changed": z.strictObject({ cathedral: Cathedral, multiplier: Multiplier, reason: NonEmptyString }),
} as const satisfies Record<string, z.ZodType>;

/** The economy event types, and the payload of each as its schema reads it. */
export type EconomyEventType = keyof typeof economyEventSchemas;
export type EconomyEventPayload<T extends EconomyEventType> = z.infer<(typeof economyEventSchemas)[T]>;
