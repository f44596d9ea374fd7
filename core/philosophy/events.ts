/**
 * The ledger event of the philosophers' council: a deliberation, each sentinel's position and
 * reasoning, and its outcome. They join the ledger's event registry (core/events/registry.ts), as
 * every domain's do: an append with an invalid payload is refused before anything is written, and
 * `verify` checks every stored entry against the same schemas. The README lists these types.
 */
import { z } from "zod";
import { Identifier, NonEmptyString, Score01 } from "../schemas/common.ts";

export const philosophyEventSchemas = {
  // A recorded deliberation of the council (the philosophy area publishes them).
  "deliberation.recorded": z.strictObject({
    id: Identifier,
    topic: NonEmptyString,
    sentinels: z
      .array(
        z.strictObject({
          id: Identifier,
          position: z.enum(["support", "oppose", "abstain"]),
          reasoning: NonEmptyString,
          virtue_tags: z.array(Identifier),
        }),
      )
      .min(1),
    consensus: Score01,
    outcome: z.enum(["approved", "rejected", "deferred"]),
  }),
} as const satisfies Record<string, z.ZodType>;
