/**
 * The access ledger: a ledger of its own, with the origin `integrity-platform.example/access` and
 * its own checkpoint key, holding the API keys (`apikey.issued`, `apikey.revoked`) and the audit
 * log of every keyed access (`access`). It is the same ledger as the main one (store/ledger/:
 * hash chain, RFC 9162 tree, C2SP checkpoints), opened through the same one place
 * (store/open-ledger.ts), so `npm run ledger -- verify|export|checkpoint --ledger access` and
 * `verify-export` work on it, and an auditor checks an export offline with the access verifier key.
 *
 * Where it lives (store/store-location.ts resolves it with the other stores): with `DATABASE_URL`
 * set, in the platform's PostgreSQL database, in the schema `access` (tables and write lock of its
 * own), so every API instance sees every key and writes one audit log; else in the SQLite file
 * `ACCESS_LEDGER_DB`, default `<STATE_DIR>/access.sqlite`.
 *
 * The API appends to it but never holds its signing key: checkpoints are signed by the operator's
 * tools (the keys CLI after every key change, the ledger CLI, every export), so a compromised API
 * process cannot sign a rewritten history.
 */
import { loadSigningKey, type KeySpec, type SigningKey } from "./keys.ts";
import type { Ledger, LedgerOptions } from "./ledger/ledger.ts";
import type { StoreDriver } from "./drivers/driver.ts";
import { ledgerExists, openLedgerStore, stateDir, type StoreOptions } from "./open-ledger.ts";
import { resolveStoreLocation } from "./store-location.ts";

export const ACCESS_KEY: KeySpec = {
  name: "integrity-platform.example/access",
  envVar: "ACCESS_SIGNING_KEY",
  fileName: "access.ed25519",
};
export const ACCESS_ORIGIN = ACCESS_KEY.name;
/** The PostgreSQL schema of the access ledger's tables, beside the platform ledger's. */
export const ACCESS_SCHEMA = "access";

/** Where the access ledger is: `DATABASE_URL` (PostgreSQL, schema `access`) when set, else `ACCESS_LEDGER_DB`, else `<STATE_DIR>/access.sqlite`. */
export function accessLedgerPath(env: NodeJS.ProcessEnv = process.env): string {
  return resolveStoreLocation(env).access;
}

/** Whether an access ledger is there to read at `location` (a SQLite file, or the `access` schema's tables). */
export function accessLedgerExists(location: string): Promise<boolean> {
  return ledgerExists(location, ACCESS_SCHEMA);
}

/**
 * Opens the access ledger at `location` (a SQLite file, ":memory:", or a postgres:// URL: its
 * `access` schema) with `driver` when the caller resolved it (store/store-location.ts), else the
 * driver that recognises it; with `key`, it can also sign checkpoints.
 */
export function openAccessLedgerStore(
  location: string,
  options: { key?: SigningKey; driver?: StoreDriver } & Pick<LedgerOptions, "now"> &
    Pick<StoreOptions, "durability" | "env"> = {},
): Promise<Ledger> {
  return openLedgerStore({
    path: location,
    ...(options.driver ? { driver: options.driver } : {}),
    origin: ACCESS_ORIGIN,
    schema: ACCESS_SCHEMA,
    ...(options.key ? { signer: { name: options.key.name, secretKeyHex: options.key.secretKeyHex } } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.durability ? { durability: options.durability } : {}),
    ...(options.env ? { env: options.env } : {}),
  });
}

/** The access ledger's checkpoint key (env, file, or a development key under `<stateDir>/keys/`). */
export function accessSigningKey(env: NodeJS.ProcessEnv = process.env, log?: (message: string) => void): SigningKey {
  return loadSigningKey(ACCESS_KEY, stateDir(env), env, log);
}
