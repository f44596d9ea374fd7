/**
 * The one shape of a domain decision on the ledger: the events to append and the result, or a
 * refusal `F` in the domain's own terms. A consensus decision (core/consensus/decide.ts) refuses
 * with `{ refusal }`, an AVM operation (core/avm/operations.ts) with `{ code, message }`; the API
 * commits either at the ledger's tail the same way (api/openapi/write-route.ts).
 */
import type { NewEvent } from "./store.ts";

export type Decision<T, F extends object> = { ok: true; events: NewEvent[]; result: T } | ({ ok: false } & F);
