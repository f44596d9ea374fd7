/**
 * The typed events of the ledger: each type and the strict schema of its payload. Each domain
 * declares its own events beside its rules (`core/<domain>/events.ts`) and this registry joins
 * them; the ledger's own is `sample.generated`. An append with an unknown type or an invalid payload
 * is refused before anything is written, and `verify` checks every stored entry against the same
 * registry. The README lists these types.
 */
import { z } from "zod";
import { accessEventSchemas } from "../access/events.ts";
import { avmEventSchemas } from "../avm/events.ts";
import { complianceEventSchemas } from "../compliance/events.ts";
import { consensusEventSchemas } from "../consensus/events.ts";
import { economyEventSchemas } from "../economy/events.ts";
import { philosophyEventSchemas } from "../philosophy/events.ts";
import { pulseEventSchemas } from "../pulse/events.ts";
import { NonEmptyString } from "../schemas/common.ts";
import { formatIssues } from "../zod-issues.ts";

export const eventSchemas = {
  // Marks a ledger written by the sample simulator: every output fed by it says it is sample data.
  "sample.generated": z.strictObject({ generator: NonEmptyString, seed: NonEmptyString, notice: NonEmptyString }),
  ...avmEventSchemas,
  ...consensusEventSchemas,
  ...philosophyEventSchemas,
  ...economyEventSchemas,
  ...complianceEventSchemas,
  ...pulseEventSchemas,
  // Access ledger (core/access/events.ts): API keys issued and revoked, every keyed access.
  ...accessEventSchemas,
} as const satisfies Record<string, z.ZodType>;

export type EventType = keyof typeof eventSchemas;
export type EventPayload<T extends EventType> = z.infer<(typeof eventSchemas)[T]>;
export const EVENT_TYPES = Object.keys(eventSchemas).sort() as EventType[];

export function isEventType(type: unknown): type is EventType {
  return typeof type === "string" && Object.hasOwn(eventSchemas, type);
}

/** Null when the payload is valid for the type; otherwise a message naming the fields at fault. */
export function validateEvent(type: unknown, payload: unknown): string | null {
  if (!isEventType(type)) return `unknown event type ${JSON.stringify(type)}`;
  const result = eventSchemas[type].safeParse(payload);
  if (result.success) return null;
  return `invalid ${type} payload: ${formatIssues(result.error.issues, "(payload)")}`;
}
