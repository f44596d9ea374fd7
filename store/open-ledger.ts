/**
 * Opens a ledger: the one place that picks its backend. Today that is always the embedded SQLite
 * file, `.state/ledger.sqlite` (or `LEDGER_DB`, or the path given); `openLedger` signs with the
 * ledger key (see keys.ts). The CLI, the API and the pipeline all open it this way.
 */
import { join } from "node:path";
import { LEDGER_KEY, loadSigningKey, type SigningKey } from "./keys.ts";
import { Ledger, type LedgerOptions } from "./ledger.ts";
import { SqliteBackend } from "./sqlite-backend.ts";

export const LEDGER_ORIGIN = LEDGER_KEY.name;

export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.STATE_DIR ?? ".state";
}

export function defaultLedgerPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.LEDGER_DB ?? join(stateDir(env), "ledger.sqlite");
}

export interface StoreOptions {
  /** The SQLite file (":memory:" for a private one); default `defaultLedgerPath(env)`. */
  path?: string;
  env?: NodeJS.ProcessEnv;
  /** "full" syncs every commit to disk (survives power loss); "normal" survives process crashes only. */
  durability?: "full" | "normal";
  /** How long a write waits for another writer's lock before it fails (default 10 s). */
  busyTimeoutMs?: number;
}

/** Opens a ledger with the given origin and keys on the configured store. */
export function openLedgerStore(options: LedgerOptions & StoreOptions): Promise<Ledger> {
  const env = options.env ?? process.env;
  const backend = new SqliteBackend(options.path ?? defaultLedgerPath(env), {
    ...(options.durability ? { durability: options.durability } : {}),
    ...(options.busyTimeoutMs !== undefined ? { busyTimeoutMs: options.busyTimeoutMs } : {}),
  });
  const { path: _path, env: _env, durability: _durability, busyTimeoutMs: _busy, ...ledger } = options;
  return Ledger.open(backend, ledger);
}

export interface OpenedLedger {
  ledger: Ledger;
  key: SigningKey;
}

/** The platform's ledger, signed with the ledger key. */
export async function openLedger(
  options: { path?: string; env?: NodeJS.ProcessEnv; log?: (message: string) => void } & Pick<LedgerOptions, "now"> & Pick<StoreOptions, "durability"> = {},
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
