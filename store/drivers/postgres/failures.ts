/**
 * Which errors from PostgreSQL are failures of the store itself (LedgerUnavailableError: nothing was
 * decided, try again) and which are refusals of the data (the schema's guards: bugs or attacks,
 * passed on as they are), and the backend's own refusals (PostgresLedgerError). Kept apart from the
 * backend so the rule is read and tested in one place.
 */
import pg from "pg";
import { CodedError } from "../../../core/errors.ts";
import { LedgerUnavailableError } from "../../ledger/backend.ts";

/**
 * SQLSTATEs that mean the server, the connection or a timeout failed, not the statement's content:
 * 55P03 lock_not_available (lock_timeout), 57014 query_canceled (statement_timeout), 25P03
 * idle_in_transaction_session_timeout, 40001/40P01 serialization failure and deadlock (retryable by
 * definition), 25006 read-only transaction (a standby or a read-only database: a failover under way).
 */
const UNAVAILABLE_CODES = new Set(["55P03", "57014", "25P03", "25006", "40001", "40P01"]);
/**
 * Whole SQLSTATE classes of the same kind: 08 connection exception, 53 insufficient resources (too
 * many connections, disk full, out of memory), 57 operator intervention (admin shutdown 57P01, crash
 * shutdown 57P02, cannot connect now 57P03), 58 system error (I/O), XX internal error.
 */
const UNAVAILABLE_CLASSES = new Set(["08", "53", "57", "58", "XX"]);

/** The SQLSTATE of a server error, or null for anything else (a socket error, a closed client). */
export function sqlState(error: unknown): string | null {
  return error instanceof pg.DatabaseError && typeof error.code === "string" ? error.code : null;
}

/**
 * Whether `error`, thrown by a pg call, is a failure of the store. Server errors count by SQLSTATE;
 * every error that is not a server error (connection refused or reset, "Connection terminated",
 * a client that already lost its connection, a pool that could not connect in time) is one too:
 * pg raises nothing else from a well-formed call.
 */
export function isPgStoreFailure(error: unknown): boolean {
  const state = sqlState(error);
  if (state === null) return true;
  return UNAVAILABLE_CODES.has(state) || UNAVAILABLE_CLASSES.has(state.slice(0, 2));
}

/**
 * Whether the connection that raised `error` is gone (so a read may be retried once on another, and
 * the client must be destroyed, not returned to the pool). A timeout leaves the connection usable.
 */
export function isConnectionLost(error: unknown): boolean {
  const state = sqlState(error);
  return state === null || state.startsWith("08") || state.startsWith("57P") || state === "25P03";
}

/** A store failure as LedgerUnavailableError (with the cause); anything else unchanged. */
export function classifyFailure(error: unknown, where: string): unknown {
  if (error instanceof LedgerUnavailableError || !isPgStoreFailure(error)) return error;
  const state = sqlState(error);
  const detail = error instanceof Error ? error.message : String(error);
  return new LedgerUnavailableError(`PostgreSQL ledger unavailable (${where}): ${state ? `${state} ` : ""}${detail}`, {
    cause: error,
  });
}

export type PostgresLedgerCode =
  | "not-postgres-url"
  | "bad-schema"
  | "format-mismatch"
  | "origin-mismatch"
  | "not-utf8"
  | "rolled-back"
  | "unsendable-value"
  | "not-set-up";
/**
 * Not the store failing, so never retryable: the database cannot hold this ledger (a URL that is
 * not postgres://, another format or origin, not UTF-8), or a write's body swallowed the failure of
 * one of its statements (`rolled-back`: a bug), or a row to insert holds what no sealed entry
 * holds (`unsendable-value`: an empty text, or U+001F, which the group insert splits on).
 */
export class PostgresLedgerError extends CodedError<PostgresLedgerCode> {}
