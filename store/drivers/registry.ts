/**
 * The store drivers, one line each: the one list from which the store kinds are derived (what
 * /health names, the ledger's `store.kind`) and by which a location is recognised: a database
 * driver that recognises its URL opens it, else the embedded driver (SQLite), which takes any path.
 * Adding a driver: a folder under store/drivers/ and one line here (docs/ledger-store.md, "Adding a
 * store driver").
 */
import type { StoreDriver } from "./driver.ts";
import { postgresDriver } from "./postgres/driver.ts";
import { sqliteDriver } from "./sqlite/driver.ts";

export const STORE_DRIVERS: readonly [StoreDriver, ...StoreDriver[]] = [sqliteDriver, postgresDriver];

/** The kinds of store a ledger may be kept in, one per driver. */
export const STORE_KINDS = nonEmpty(STORE_DRIVERS.map((d) => d.kind));

/** The kinds of store the API's limits may be kept in (a driver's database, or "memory"). */
export const LIMITS_KINDS = nonEmpty([...new Set(STORE_DRIVERS.map((d) => d.limitsKind))]);

/** The embedded driver: each ledger a file of its own (exactly one is registered). */
export const FILE_DRIVER: StoreDriver = only(STORE_DRIVERS.filter((d) => d.names === "file"));

/** The drivers whose stores live in a database named by a URL. */
export const URL_DRIVERS: readonly StoreDriver[] = STORE_DRIVERS.filter((d) => d.names === "url");

/** The driver that opens `location`: the database driver that recognises its URL, else the embedded one. */
export function driverFor(location: string): StoreDriver {
  return URL_DRIVERS.find((d) => d.recognises(location)) ?? FILE_DRIVER;
}

/** The driver of the kind named (a ledger's `store.kind`); throws for a kind no driver has. */
export function driverOfKind(kind: string): StoreDriver {
  const driver = STORE_DRIVERS.find((d) => d.kind === kind);
  if (!driver) throw new Error(`no store driver of kind "${kind}"`);
  return driver;
}

function only(drivers: StoreDriver[]): StoreDriver {
  if (drivers.length !== 1) throw new Error(`${drivers.length} embedded store drivers registered; one is needed`);
  return drivers[0]!;
}

function nonEmpty(list: string[]): readonly [string, ...string[]] {
  if (list.length === 0) throw new Error("no store driver registered");
  return list as [string, ...string[]];
}
