/**
 * Where the platform's stores are: the ONE place that reads `DATABASE_URL` (and the embedded
 * fallbacks `LEDGER_DB`, `ACCESS_LEDGER_DB`, `STATE_DIR`, and a command's `--db` flag). Resolved once
 * per process to a location — its driver (store/drivers/registry.ts) and where each store is — and
 * handed as it is to the ledger, the access ledger and the request limits, so the three can never
 * be on different stores: either all in one database (PostgreSQL: the ledger in its schema, the
 * access ledger in `access`, the limits' tables beside the ledger's) or all embedded (two SQLite
 * files and this process's memory).
 *
 * `DATABASE_URL` unset or empty: embedded. Set: it must be a URL a database driver recognises —
 * a `postgres://` or `postgresql://` URL exactly as written, no white space around it or in it, a
 * host, parseable — or the process refuses to start with a StoreLocationError that names the
 * variable (never its value: the URL may hold a password). A value that does not parse is never
 * taken for "unset".
 */
import { join } from "node:path";
import type { StoreDriver } from "./drivers/driver.ts";
import { driverFor, FILE_DRIVER, URL_DRIVERS } from "./drivers/registry.ts";

export { StoreLocationError } from "./drivers/driver.ts";

export interface StoreLocation {
  /** The driver every store is kept with. */
  readonly driver: StoreDriver;
  /** The platform ledger's location as the driver takes it: the database URL as given (password included), or its file. */
  readonly ledger: string;
  /** The access ledger's: the same database (its own schema), or its own file. */
  readonly access: string;
  /** What may be shown of it: the database URL without its password, or the ledger's file. */
  readonly shown: string;
}

/** The state folder (`STATE_DIR`, default `.state`): development keys and the embedded stores. */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.STATE_DIR ?? ".state";
}

/**
 * Every store in the database at `url`, checked as the value of `name` by the driver that
 * recognises it (by the first database driver when none does: its refusal names what it expects).
 */
function inDatabase(url: string, name: string): StoreLocation {
  const driver = URL_DRIVERS.find((d) => d.recognises(url)) ?? URL_DRIVERS[0]!;
  return { driver, ledger: url, access: url, shown: driver.check(url, name) };
}

/**
 * The stores' location from the environment and a command's flag. `db` (a `--db` flag): the one
 * store the command works on — a database URL (checked as `--db`), or a file for whichever ledger
 * the command opens. Else `DATABASE_URL` (checked, see the module comment) when set and not empty,
 * else the embedded files (`LEDGER_DB`, else `<STATE_DIR>/ledger.sqlite`; `ACCESS_LEDGER_DB`, else
 * `<STATE_DIR>/access.sqlite`).
 */
export function resolveStoreLocation(
  env: NodeJS.ProcessEnv = process.env,
  flags: { db?: string | undefined } = {},
): StoreLocation {
  const db = flags.db;
  if (db !== undefined) {
    const driver = driverFor(db);
    return driver.names === "url"
      ? inDatabase(db, "--db")
      : { driver, ledger: db, access: db, shown: driver.check(db, "--db") };
  }
  const url = env.DATABASE_URL;
  if (url !== undefined && url !== "") return inDatabase(url, "DATABASE_URL");
  const ledger = env.LEDGER_DB ?? join(stateDir(env), "ledger.sqlite");
  return {
    driver: FILE_DRIVER,
    ledger,
    access: env.ACCESS_LEDGER_DB ?? join(stateDir(env), "access.sqlite"),
    shown: FILE_DRIVER.check(ledger, "LEDGER_DB"),
  };
}
