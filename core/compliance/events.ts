/**
 * The ledger event of compliance: an audit of one jurisdiction's regulations, and when the next one
 * is due. They join the ledger's event registry (core/events/registry.ts), as every domain's do: an
 * append with an invalid payload is refused before anything is written, and `verify` checks every
 * stored entry against the same schemas. The README lists these types.
 */
import { z } from "zod";
import { IsoDate, NonEmptyString } from "../schemas/common.ts";

export const complianceEventSchemas = {
  // Compliance: an audit of one jurisdiction's regulations, and when the next one is due.
  "compliance.audited": z
    .strictObject({
      jurisdiction: z.enum(["USA", "EU", "UK", "International"]),
      auditor: NonEmptyString,
      audited_on: IsoDate,
      next_audit: IsoDate,
    })
    .refine((a) => a.next_audit > a.audited_on, {
      message: "next_audit must be after audited_on",
      path: ["next_audit"],
    }),
} as const satisfies Record<string, z.ZodType>;
