/**
 * Opens a ledger: its location goes straight to the driver that recognises it
 * (store/drivers/registry.ts), whose backend the ledger engine (store/ledger/) opens. A ledger's
 * location is either a database URL — `postgres://` (or `postgresql://`): PostgreSQL, for N API
 * instances — or a SQLite file path, the embedded default. It comes from the caller (a resolved
 * StoreLocation, or a CLI's `--db`/`--ledger` flag), else the stores' one location
 * (store/store-location.ts: `DATABASE_URL`, else `LEDGER_DB`, else `.state/ledger.sqlite`): with
 * `DATABASE_URL` set, the API, every CLI and the pipeline use PostgreSQL and no SQLite ledger file
 * is created. `openLedger` signs with the ledger key (see keys.ts). docs/postgresql.md says when to
 * choose which.
 */
import type { DriverOptions, StoreDriver } from "./drivers/driver.ts";
import { driverFor } from "./drivers/registry.ts";
import { LEDGER_KEY, loadSigningKey, type SigningKey } from "./keys.ts";
import type { LedgerBackend } from "./ledger/backend.ts";
import { Ledger, type LedgerOptions } from "./ledger/ledger.ts";
import { resolveStoreLocation, stateDir, type StoreLocation } from "./store-location.ts";

export { stateDir } from "./store-location.ts";
export { isPostgresLocation } from "./drivers/postgres/location.ts";

export const LEDGER_ORIGIN = LEDGER_KEY.name;

/** A ledger location as it may be printed or logged: a database URL without its password. */
export function shownLocation(location: string): string {
  return driverFor(location).shown(location);
}

/**
 * The configured ledger (store/store-location.ts): `DATABASE_URL` (PostgreSQL) when set, else
 * `LEDGER_DB`, else `.state/ledger.sqlite`; a DATABASE_URL that does not parse throws, naming it.
 */
export function defaultLedgerPath(env: NodeJS.ProcessEnv = process.env): string {
  return resolveStoreLocation(env).ledger;
}

/** Whether a ledger is there to read: the SQLite file exists, or the database holds the ledger's tables (in `schema`, if given). */
export function ledgerExists(location: string, schema?: string): Promise<boolean> {
  return driverFor(location).exists(location, schema);
}

export interface StoreOptions {
  /** The ledger's location: a SQLite file (":memory:" for a private one) or a postgres:// URL; default `defaultLedgerPath(env)`. */
  path?: string;
  /** The driver of `path`, when the caller resolved it (store/store-location.ts); else the one that recognises `path`. */
  driver?: StoreDriver;
  env?: NodeJS.ProcessEnv;
  /** "full" syncs every commit to disk (survives power loss); "normal" survives process crashes only. */
  durability?: "full" | "normal";
  /** How long a write waits for another writer's lock before it fails (default 10 s). */
  busyTimeoutMs?: number;
  /** In a PostgreSQL database: the schema of this ledger's tables (the access ledger's own); ignored for a SQLite file. */
  schema?: string;
}

/** The backend for a ledger location (not yet opened), by the driver that recognises it. */
export function ledgerBackend(options: StoreOptions = {}): LedgerBackend {
  const env = options.env ?? process.env;
  const driverOptions: DriverOptions = {
    env,
    ...(options.durability ? { durability: options.durability } : {}),
    ...(options.busyTimeoutMs !== undefined ? { busyTimeoutMs: options.busyTimeoutMs } : {}),
    ...(options.schema !== undefined ? { schema: options.schema } : {}),
  };
  if (options.path === undefined) {
    const location = resolveStoreLocation(env);
    return location.driver.ledger(location.ledger, driverOptions);
  }
  return (options.driver ?? driverFor(options.path)).ledger(options.path, driverOptions);
}

/** Opens a ledger with the given origin and keys on the configured store. */
export function openLedgerStore(options: LedgerOptions & StoreOptions): Promise<Ledger> {
  const {
    path: _path,
    driver: _driver,
    env: _env,
    durability: _durability,
    busyTimeoutMs: _busy,
    schema: _schema,
    ...ledger
  } = options;
  return Ledger.open(ledgerBackend(options), ledger);
}

export interface OpenedLedger {
  ledger: Ledger;
  key: SigningKey;
}

/** The platform's ledger, signed with the ledger key. */
export async function openLedger(
  options: {
    /** The stores' resolved location (store/store-location.ts): its ledger, by its driver. */
    location?: StoreLocation;
    path?: string;
    env?: NodeJS.ProcessEnv;
    log?: (message: string) => void;
  } & Pick<LedgerOptions, "now"> &
    Pick<StoreOptions, "durability"> = {},
): Promise<OpenedLedger> {
  const env = options.env ?? process.env;
  const key = loadSigningKey(LEDGER_KEY, stateDir(env), env, options.log);
  const ledger = await openLedgerStore({
    origin: LEDGER_ORIGIN,
    signer: { name: key.name, secretKeyHex: key.secretKeyHex },
    env,
    ...(options.location ? { path: options.location.ledger, driver: options.location.driver } : {}),
    ...(options.path ? { path: options.path } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.durability ? { durability: options.durability } : {}),
  });
  return { ledger, key };
}
