/**
 * The access ledger: a ledger of its own (`<STATE_DIR>/access.sqlite`, `ACCESS_LEDGER_DB`), with the
 * origin `integrity-platform.example/access` and its own checkpoint key, holding the API keys
 * (`apikey.issued`, `apikey.revoked`) and the audit log of every keyed access (`access`). It is the
 * same SQLite ledger as the main one (hash chain, RFC 9162 tree, C2SP checkpoints), so
 * `npm run ledger -- verify|export|checkpoint --ledger access` and `verify-export` work on it, and
 * an auditor checks an export offline with the access verifier key.
 *
 * The API appends to it but never holds its signing key: checkpoints are signed by the operator's
 * tools (the keys CLI after every key change, the ledger CLI, every export), so a compromised API
 * process cannot sign a rewritten history.
 */
import { join } from "node:path";
import { loadSigningKey, type KeySpec, type SigningKey } from "./keys.ts";
import { AccessLedgerFile, type AccessLedgerFileOptions } from "./access-ledger-file.ts";
import type { Ledger } from "./ledger.ts";
import { openLedgerStore, stateDir } from "./open-ledger.ts";

/** The access ledger as the API key store uses it: synchronous (see access-ledger-file.ts). */
export type AccessLedger = AccessLedgerFile;

export const ACCESS_KEY: KeySpec = { name: "integrity-platform.example/access", envVar: "ACCESS_SIGNING_KEY", fileName: "access.ed25519" };
export const ACCESS_ORIGIN = ACCESS_KEY.name;

export function accessLedgerPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.ACCESS_LEDGER_DB ?? join(stateDir(env), "access.sqlite");
}

/** Opens the access ledger for appending and reading; with `key`, it can also sign checkpoints. */
export function openAccessLedger(path: string, options: { key?: SigningKey } & Pick<AccessLedgerFileOptions, "now" | "durability"> = {}): AccessLedger {
  return new AccessLedgerFile(path, {
    origin: ACCESS_ORIGIN,
    ...(options.key ? { signer: { name: options.key.name, secretKeyHex: options.key.secretKeyHex } } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.durability ? { durability: options.durability } : {}),
  });
}

/** The access ledger as a ledger store like the platform's (the ledger CLI's `--ledger access`). */
export function openAccessLedgerStore(path: string, options: { key?: SigningKey } = {}): Promise<Ledger> {
  return openLedgerStore({
    path,
    origin: ACCESS_ORIGIN,
    ...(options.key ? { signer: { name: options.key.name, secretKeyHex: options.key.secretKeyHex } } : {}),
  });
}

/** The access ledger's checkpoint key (env, file, or a development key under `<stateDir>/keys/`). */
export function accessSigningKey(env: NodeJS.ProcessEnv = process.env, log?: (message: string) => void): SigningKey {
  return loadSigningKey(ACCESS_KEY, stateDir(env), env, log);
}
