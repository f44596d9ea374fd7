/**
 * Opens a ledger: the one place that picks its backend. A ledger's location is either a
 * `postgres://` (or `postgresql://`) URL — PostgreSQL, for N API instances — or a SQLite file path,
 * the embedded default. The location comes from the caller (a CLI's `--db`/`--ledger` flag), else
 * `DATABASE_URL`, else `LEDGER_DB`, else `.state/ledger.sqlite` (read in one place only,
 * store/store-location.ts): with `DATABASE_URL` set, the API,
 * every CLI and the pipeline use PostgreSQL and no SQLite ledger file is created. `openLedger` signs
 * with the ledger key (see keys.ts). docs/postgresql.md says when to choose which.
 */
import { existsSync } from "node:fs";
import { LEDGER_KEY, loadSigningKey, type SigningKey } from "./keys.ts";
import type { LedgerBackend } from "./ledger/backend.ts";
import { Ledger, type LedgerOptions } from "./ledger/ledger.ts";
import { PostgresBackend, postgresLedgerExists } from "./drivers/postgres/backend.ts";
import { SqliteBackend } from "./drivers/sqlite/backend.ts";
import { isPostgresLocation, ledgerLocation, resolveStoreLocation, safeLocation, stateDir } from "./store-location.ts";

export { isPostgresLocation, stateDir } from "./store-location.ts";

export const LEDGER_ORIGIN = LEDGER_KEY.name;

/** A ledger location as it may be printed or logged: a postgres:// URL without its password. */
export function shownLocation(location: string): string {
  if (!isPostgresLocation(location)) return location;
  try {
    return safeLocation(new URL(location));
  } catch {
    return "a postgres:// URL that does not parse";
  }
}

/**
 * The configured ledger (store/store-location.ts): `DATABASE_URL` (PostgreSQL) when set, else
 * `LEDGER_DB`, else `.state/ledger.sqlite`; a DATABASE_URL that does not parse throws, naming it.
 */
export function defaultLedgerPath(env: NodeJS.ProcessEnv = process.env): string {
  return ledgerLocation(resolveStoreLocation(env));
}

/** Whether a ledger is there to read: the SQLite file exists, or the database holds the ledger's tables (in `schema`, if given). */
export function ledgerExists(location: string, schema?: string): Promise<boolean> {
  return isPostgresLocation(location) ? postgresLedgerExists(location, schema) : Promise.resolve(existsSync(location));
}

/** How long a PostgreSQL write waits for the ledger's lock (`DATABASE_LOCK_TIMEOUT_MS`; the backend's default when unset). */
function lockTimeoutMs(env: NodeJS.ProcessEnv): number | undefined {
  const text = env.DATABASE_LOCK_TIMEOUT_MS;
  if (text === undefined || text === "") return undefined;
  const ms = Number(text);
  if (!Number.isSafeInteger(ms) || ms <= 0)
    throw new Error(`DATABASE_LOCK_TIMEOUT_MS must be a positive whole number of milliseconds, got "${text}"`);
  return ms;
}

export interface StoreOptions {
  /** The ledger's location: a SQLite file (":memory:" for a private one) or a postgres:// URL; default `defaultLedgerPath(env)`. */
  path?: string;
  env?: NodeJS.ProcessEnv;
  /** "full" syncs every commit to disk (survives power loss); "normal" survives process crashes only. */
  durability?: "full" | "normal";
  /** How long a write waits for another writer's lock before it fails (default 10 s). */
  busyTimeoutMs?: number;
  /** In a PostgreSQL database: the schema of this ledger's tables (the access ledger's own); ignored for a SQLite file. */
  schema?: string;
}

/** The backend for a ledger location (not yet opened): PostgreSQL for a postgres:// URL, else SQLite. */
export function ledgerBackend(options: StoreOptions = {}): LedgerBackend {
  const env = options.env ?? process.env;
  const location = options.path ?? defaultLedgerPath(env);
  const lockTimeout = options.busyTimeoutMs ?? lockTimeoutMs(env);
  return isPostgresLocation(location)
    ? new PostgresBackend(location, {
        ...(lockTimeout !== undefined ? { lockTimeoutMs: lockTimeout } : {}),
        ...(options.schema !== undefined ? { schema: options.schema } : {}),
      })
    : new SqliteBackend(location, {
        ...(options.durability ? { durability: options.durability } : {}),
        ...(options.busyTimeoutMs !== undefined ? { busyTimeoutMs: options.busyTimeoutMs } : {}),
      });
}

/** Opens a ledger with the given origin and keys on the configured store. */
export function openLedgerStore(options: LedgerOptions & StoreOptions): Promise<Ledger> {
  const { path: _path, env: _env, durability: _durability, busyTimeoutMs: _busy, schema: _schema, ...ledger } = options;
  return Ledger.open(ledgerBackend(options), ledger);
}

export interface OpenedLedger {
  ledger: Ledger;
  key: SigningKey;
}

/** The platform's ledger, signed with the ledger key. */
export async function openLedger(
  options: { path?: string; env?: NodeJS.ProcessEnv; log?: (message: string) => void } & Pick<LedgerOptions, "now"> &
    Pick<StoreOptions, "durability"> = {},
): Promise<OpenedLedger> {
  const env = options.env ?? process.env;
  const key = loadSigningKey(LEDGER_KEY, stateDir(env), env, options.log);
  const ledger = await openLedgerStore({
    origin: LEDGER_ORIGIN,
    signer: { name: key.name, secretKeyHex: key.secretKeyHex },
    env,
    ...(options.path ? { path: options.path } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.durability ? { durability: options.durability } : {}),
  });
  return { ledger, key };
}
