/**
 * The PostgreSQL driver: every store in one database named by a postgres:// URL — the ledger in its
 * schema, the access ledger in its own, the API's limits in tables beside them — for N API
 * instances. Its folder holds the backend (backend.ts), its statements, schema, failures,
 * connection, setup and limits. docs/postgresql.md explains the choices.
 */
import type { StoreDriver } from "../driver.ts";
import { PostgresBackend, postgresLedgerExists } from "./backend.ts";
import { openPostgresLimits } from "./limits.ts";
import { checkedPostgresUrl, isPostgresLocation, shownPostgresLocation } from "./location.ts";

/** How long a write waits for the ledger's lock (`DATABASE_LOCK_TIMEOUT_MS`; the backend's default when unset). */
function lockTimeoutMs(env: NodeJS.ProcessEnv): number | undefined {
  const text = env.DATABASE_LOCK_TIMEOUT_MS;
  if (text === undefined || text === "") return undefined;
  const ms = Number(text);
  if (!Number.isSafeInteger(ms) || ms <= 0)
    throw new Error(`DATABASE_LOCK_TIMEOUT_MS must be a positive whole number of milliseconds, got "${text}"`);
  return ms;
}

export const postgresDriver: StoreDriver = {
  kind: "postgresql",
  title: "PostgreSQL",
  limitsKind: "postgresql",
  names: "url",
  recognises: isPostgresLocation,
  check: (location, name) => checkedPostgresUrl(location, name).shown,
  shown: shownPostgresLocation,
  ledger(location, options) {
    const lockTimeout = options.busyTimeoutMs ?? lockTimeoutMs(options.env);
    return new PostgresBackend(location, {
      ...(lockTimeout !== undefined ? { lockTimeoutMs: lockTimeout } : {}),
      ...(options.schema !== undefined ? { schema: options.schema } : {}),
    });
  },
  exists: postgresLedgerExists,
  limits: (location, instanceId) => openPostgresLimits(location, { instanceId }),
};
