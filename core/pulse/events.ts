/**
 * The ledger event of the integrity pulse: one pulse record, as the pulse history holds it. They
 * join the ledger's event registry (core/events/registry.ts), as every domain's do: an append with an
 * invalid payload is refused before anything is written, and `verify` checks every stored entry
 * against the same schemas. The README lists these types.
 */
import { z } from "zod";
import { Cycle, Digest, IsoTimestampMs, Score01, Uuid } from "../schemas/common.ts";

export const pulseEventSchemas = {
  // Integrity pulse.
  "pulse.recorded": z.strictObject({
    id: Uuid,
    cycle: Cycle,
    hash: Digest,
    giScore: Score01,
    miiScore: Score01,
    generatedAt: IsoTimestampMs,
  }),
} as const satisfies Record<string, z.ZodType>;
