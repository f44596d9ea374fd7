/**
 * Which keys `npm run migration -- verify` trusts: the dataset key's public half — from `--key`
 * (a note verifier key, a hex Ed25519 public key, or a .vkey file), else from
 * DATASET_SIGNING_KEY / DATASET_SIGNING_KEY_FILE — or else the published data/keys/datasets.vkey.
 * Never a key found inside the folder being verified: whoever wrote the folder could have put one
 * there, so a key file inside it is refused even when named explicitly.
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { parseVerifierKey, type NoteVerifier } from "../../core/checkpoint.ts";
import { DATASET_KEY, loadSigningKey } from "../../store/keys.ts";
import { parseTrustedKeys } from "../sign.ts";

export const PUBLISHED_DATASET_KEYS = join("data", "keys", "datasets.vkey");

function inside(dir: string, path: string): boolean {
  const real = (p: string) => (existsSync(p) ? realpathSync(p) : resolve(p));
  const rel = relative(real(dir), real(path));
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

export interface TrustedKeys {
  keys: NoteVerifier[];
  /** Where they came from, for the report. */
  source: string;
}

export function trustedDatasetKeys(options: {
  key?: string;
  dir: string;
  env?: NodeJS.ProcessEnv;
  stateDir?: string;
}): TrustedKeys {
  const env = options.env ?? process.env;
  const { key, dir } = options;
  if (key !== undefined) {
    if (/^[0-9a-f]{64}$/.test(key))
      return { keys: [{ name: DATASET_KEY.name, publicKeyHex: key }], source: "--key (public key)" };
    if (existsSync(key)) {
      if (inside(dir, key))
        throw new Error(`--key ${key} lies inside ${dir}: a key shipped with the data proves nothing`);
      return { keys: parseTrustedKeys(readFileSync(key, "utf8"), key), source: key };
    }
    return { keys: [parseVerifierKey(key)], source: "--key (verifier key)" };
  }
  if (env[DATASET_KEY.envVar] || env[`${DATASET_KEY.envVar}_FILE`]) {
    const fileVar = `${DATASET_KEY.envVar}_FILE`;
    if (!env[DATASET_KEY.envVar] && inside(dir, env[fileVar]!))
      throw new Error(`${fileVar} lies inside ${dir}: a key shipped with the data proves nothing`);
    const signing = loadSigningKey(DATASET_KEY, options.stateDir ?? ".state", env);
    return {
      keys: [{ name: signing.name, publicKeyHex: signing.publicKeyHex }],
      source: `${signing.source === "env" ? DATASET_KEY.envVar : fileVar} (public half)`,
    };
  }
  if (!existsSync(PUBLISHED_DATASET_KEYS))
    throw new Error(
      `no trusted key: pass --key, set ${DATASET_KEY.envVar}, or run from the repository (${PUBLISHED_DATASET_KEYS})`,
    );
  if (inside(dir, PUBLISHED_DATASET_KEYS)) throw new Error(`${PUBLISHED_DATASET_KEYS} lies inside ${dir}`);
  return {
    keys: parseTrustedKeys(readFileSync(PUBLISHED_DATASET_KEYS, "utf8"), PUBLISHED_DATASET_KEYS),
    source: PUBLISHED_DATASET_KEYS,
  };
}
