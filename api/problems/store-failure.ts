/**
 * What a ledger-backed route answers when the store fails under it: a store that cannot be read or
 * written (closed, locked past its busy timeout, an I/O error) is 503 `ledger-unavailable` — a
 * refusal, never a pass (fail closed). Anything else is a bug and goes on to the app's 500 handler.
 */
import type { Context } from "hono";
import { failureReason } from "../../store/ledger/ledger.ts";
import { LedgerUnavailableError } from "../../store/ledger/backend.ts";
import { problem } from "./problem.ts";

/** Seconds a client refused for a failed ledger store is asked to wait. */
export const LEDGER_RETRY_AFTER_S = 2;

/** node:sqlite's error codes: a database error, and an operation on a closed database. */
const STORE_ERROR_CODES: ReadonlySet<string> = new Set(["ERR_SQLITE_ERROR", "ERR_INVALID_STATE"]);

export function isStoreFailure(error: unknown): boolean {
  if (error instanceof LedgerUnavailableError) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && STORE_ERROR_CODES.has(code);
}

/**
 * 503 `ledger-unavailable` for a store failure, with Retry-After (a restarted database or a released
 * lock answers again within seconds) and the store's error left for the request's log line (logged
 * at error level: the client is told nothing of it); rethrows anything else.
 */
export function storeUnavailable(c: Context, error: unknown): Response {
  if (!isStoreFailure(error)) throw error;
  noteStoreFailure(c, error);
  return problem(
    c,
    "ledger-unavailable",
    "The ledger cannot be read or written right now; nothing was decided. Try again later.",
    {
      headers: { "Retry-After": String(LEDGER_RETRY_AFTER_S) },
    },
  );
}

/** Leaves the store's error for the request's log line (api/middleware/request-log.ts: logged at error level). */
export function noteStoreFailure(c: Context, error: unknown): void {
  c.set("storeFailure", failureReason(error));
}
