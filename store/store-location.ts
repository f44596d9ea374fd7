/**
 * Where the platform's stores are: the ONE place that reads `DATABASE_URL` (and the embedded
 * fallbacks `LEDGER_DB`, `ACCESS_LEDGER_DB`, `STATE_DIR`). Resolved once per process and handed as
 * it is to the ledger, the access ledger and the request limits, so the three can never be on
 * different stores: either all in one PostgreSQL database (the ledger in its schema, the access
 * ledger in `access`, the limits' tables beside the ledger's) or all embedded (two SQLite files and
 * this process's memory).
 *
 * `DATABASE_URL` unset or empty: embedded. Set: it must be a `postgres://` or `postgresql://` URL
 * exactly as written — no white space around it or in it, a host, parseable — or the process
 * refuses to start with a StoreLocationError that names the variable (never its value: the URL
 * may hold a password). A value that does not parse is never taken for "unset".
 */
import { join } from "node:path";
import { CodedError } from "../core/errors.ts";

export type StoreLocation =
  /** Every store in one PostgreSQL database: `url` as given (password included), `shown` without the password. */
  | { kind: "postgresql"; url: string; shown: string }
  /** The embedded default: the ledger's and the access ledger's SQLite files; the limits in memory. */
  | { kind: "embedded"; ledger: string; access: string };

export class StoreLocationError extends CodedError<"bad-database-url"> {
  constructor(message: string) {
    super("bad-database-url", message);
  }
}

/** The state folder (`STATE_DIR`, default `.state`): development keys and the embedded stores. */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.STATE_DIR ?? ".state";
}

/** Whether a location names a PostgreSQL database (a postgres:// or postgresql:// URL) rather than a SQLite file. */
export function isPostgresLocation(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** The URL without its password: safe to show. */
export function safeLocation(url: URL): string {
  const shown = new URL(url.href);
  shown.password = "";
  return shown.href;
}

/**
 * A PostgreSQL URL checked as `name` (the variable or flag it came from, for the error): the whole
 * value, no white space or control character anywhere, the scheme postgres: or postgresql:, a host.
 */
export function checkedPostgresUrl(value: string, name: string): { url: string; shown: string } {
  const refuse = (why: string) =>
    new StoreLocationError(
      `${name} must be a postgres:// (or postgresql://) URL; the value set ${why}. Nothing was opened.`,
    );
  if (/[\s\u0000-\u001f\u007f]/.test(value))
    throw refuse(
      value.trim() !== value ? "has white space before or after it" : "holds white space or a control character",
    );
  if (!isPostgresLocation(value)) throw refuse(`does not start with postgres:// or postgresql://`);
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw refuse("does not parse as a URL");
  }
  if (parsed.hostname === "" && !parsed.searchParams.has("host")) throw refuse("names no host");
  return { url: value, shown: safeLocation(parsed) };
}

/**
 * The stores' location from the environment: `DATABASE_URL` (checked, see the module comment) when
 * set and not empty, else the embedded files (`LEDGER_DB`, else `<STATE_DIR>/ledger.sqlite`;
 * `ACCESS_LEDGER_DB`, else `<STATE_DIR>/access.sqlite`).
 */
export function resolveStoreLocation(env: NodeJS.ProcessEnv = process.env): StoreLocation {
  const url = env.DATABASE_URL;
  if (url !== undefined && url !== "") return { kind: "postgresql", ...checkedPostgresUrl(url, "DATABASE_URL") };
  return {
    kind: "embedded",
    ledger: env.LEDGER_DB ?? join(stateDir(env), "ledger.sqlite"),
    access: env.ACCESS_LEDGER_DB ?? join(stateDir(env), "access.sqlite"),
  };
}

/** The platform ledger's location in a resolution: the database URL, or its SQLite file. */
export function ledgerLocation(location: StoreLocation): string {
  return location.kind === "postgresql" ? location.url : location.ledger;
}

/** The access ledger's location in a resolution: the database URL (its `access` schema), or its SQLite file. */
export function accessLocation(location: StoreLocation): string {
  return location.kind === "postgresql" ? location.url : location.access;
}
