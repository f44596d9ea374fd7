/**
 * Opens the embedded default ledger: `.state/ledger.sqlite` (or `LEDGER_DB`), signed with the ledger
 * key (see keys.ts). The CLI, the API and the pipeline all open it this way.
 */
import { join } from "node:path";
import { LEDGER_KEY, loadSigningKey, type SigningKey } from "./keys.ts";
import { SqliteLedger, type SqliteLedgerOptions } from "./sqlite-ledger.ts";

export const LEDGER_ORIGIN = LEDGER_KEY.name;

export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.STATE_DIR ?? ".state";
}

export function defaultLedgerPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.LEDGER_DB ?? join(stateDir(env), "ledger.sqlite");
}

export interface OpenedLedger {
  ledger: SqliteLedger;
  key: SigningKey;
}

export function openLedger(
  options: { path?: string; env?: NodeJS.ProcessEnv; log?: (message: string) => void } & Pick<SqliteLedgerOptions, "now" | "durability"> = {},
): OpenedLedger {
  const env = options.env ?? process.env;
  const key = loadSigningKey(LEDGER_KEY, stateDir(env), env, options.log);
  const ledger = new SqliteLedger(options.path ?? defaultLedgerPath(env), {
    origin: LEDGER_ORIGIN,
    signer: { name: key.name, secretKeyHex: key.secretKeyHex },
    ...(options.now ? { now: options.now } : {}),
    ...(options.durability ? { durability: options.durability } : {}),
  });
  return { ledger, key };
}
