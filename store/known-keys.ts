/**
 * The keys an offline check trusts for a ledger checkpoint when none is given (`--key`): the
 * published ones (`data/keys/ledger.vkey`, every line) and this installation's own — the ledger and
 * access ledger keys it signs with (`LEDGER_SIGNING_KEY`/`_FILE`, `ACCESS_SIGNING_KEY`/`_FILE`, or
 * the development keys under `STATE_DIR/keys/`). A fresh `npm start` signs its ledger with its own
 * development key, which is not the published one; without it the installation could not check its
 * own exports and proofs. Nothing here generates a key: a key file that is not there is skipped.
 * `signedBy` names the key that verified a note, so the output can say which was trusted.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { openNote, parseVerifierKey, type NoteVerifier } from "../core/checkpoint.ts";
import { ACCESS_KEY } from "./access-ledger.ts";
import { LEDGER_KEY, loadSigningKey, type KeySpec } from "./keys.ts";
import { stateDir } from "./open-ledger.ts";

export interface KnownKey extends NoteVerifier {
  /** Where the key came from, for the output: the published file, or this installation's key. */
  source: string;
}

export const PUBLISHED_LEDGER_VKEY = join("data", "keys", "ledger.vkey");

/** The published verifier keys of a `.vkey` file (one per line, `#` comments), or none when it is absent. */
function publishedKeys(path: string): KnownKey[] {
  if (!existsSync(path)) return [];
  const lines = readFileSync(path, "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
  return lines.map((line) => ({ ...parseVerifierKey(line), source: `published key (${path})` }));
}

/** This installation's key of `spec` when it has one (environment or state folder); never generated. */
function ownKey(spec: KeySpec, env: NodeJS.ProcessEnv): KnownKey | null {
  const dir = stateDir(env);
  const configured = env[spec.envVar] || env[`${spec.envVar}_FILE`];
  const file = join(dir, "keys", spec.fileName);
  if (!configured && !existsSync(file)) return null;
  const key = loadSigningKey(spec, dir, env);
  const where = env[spec.envVar] ? spec.envVar : env[`${spec.envVar}_FILE`] ? `${spec.envVar}_FILE` : file;
  return { name: key.name, publicKeyHex: key.publicKeyHex, source: `this installation's key (${where})` };
}

/** The published ledger keys and this installation's ledger and access keys, without repeats. */
export function knownLedgerKeys(
  env: NodeJS.ProcessEnv = process.env,
  publishedPath: string = PUBLISHED_LEDGER_VKEY,
): KnownKey[] {
  const all = [...publishedKeys(publishedPath), ownKey(LEDGER_KEY, env), ownKey(ACCESS_KEY, env)].filter(
    (k): k is KnownKey => k !== null,
  );
  const seen = new Set<string>();
  return all.filter((k) => {
    const id = `${k.name}\n${k.publicKeyHex}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** The first of `keys` that alone verifies `note`'s signature, or null. */
export function signedBy<K extends NoteVerifier>(note: string, keys: readonly K[]): K | null {
  for (const key of keys) {
    try {
      openNote(note, [key]);
      return key;
    } catch {
      // not this key
    }
  }
  return null;
}

/** How the output names a key: its source, name and public key. */
export function describeKey(key: NoteVerifier & { source?: string }): string {
  return `${key.source ?? "the given key"}: ${key.name} ${key.publicKeyHex}`;
}
