/**
 * Signing keys of the embedded default. A key comes from an environment variable (hex Ed25519 seed),
 * or a file named by `<VAR>_FILE`, or — on a development machine — a file under the state folder,
 * generated on first use. Secret keys never leave this module except as the signer object.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateKeyPair, publicKeyFromSecret } from "../core/signature.ts";

export interface SigningKey {
  /** The signer name written in signed notes. */
  name: string;
  secretKeyHex: string;
  publicKeyHex: string;
  source: "env" | "file" | "generated" | "state";
}

export interface KeySpec {
  /** Signer name, e.g. the checkpoint origin. */
  name: string;
  /** Environment variable holding the hex seed; `<envVar>_FILE` may name a file holding it instead. */
  envVar: string;
  /** File name under `<stateDir>/keys/` for the development key. */
  fileName: string;
}

const SEED = /^[0-9a-f]{64}$/;

function checkedSeed(value: string, where: string): string {
  const seed = value.trim();
  if (!SEED.test(seed)) throw new Error(`${where} must hold a 32-byte Ed25519 seed as 64 lowercase hex digits`);
  return seed;
}

export function loadSigningKey(
  spec: KeySpec,
  stateDir: string,
  env: NodeJS.ProcessEnv = process.env,
  log: (message: string) => void = () => {},
): SigningKey {
  const fromEnv = env[spec.envVar];
  const fileVar = `${spec.envVar}_FILE`;
  let secretKeyHex: string;
  let source: SigningKey["source"];
  if (fromEnv) {
    secretKeyHex = checkedSeed(fromEnv, spec.envVar);
    source = "env";
  } else if (env[fileVar]) {
    secretKeyHex = checkedSeed(readFileSync(env[fileVar]!, "utf8"), `${fileVar} (${env[fileVar]})`);
    source = "file";
  } else {
    const dir = join(stateDir, "keys");
    const path = join(dir, spec.fileName);
    if (existsSync(path)) {
      secretKeyHex = checkedSeed(readFileSync(path, "utf8"), path);
      source = "state";
    } else {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      secretKeyHex = generateKeyPair("ed25519").secretKey;
      writeFileSync(path, `${secretKeyHex}\n`, { mode: 0o600, flag: "wx" });
      source = "generated";
      log(`generated a development key for ${spec.name} at ${path} (set ${spec.envVar} in production)`);
    }
  }
  return { name: spec.name, secretKeyHex, publicKeyHex: publicKeyFromSecret("ed25519", secretKeyHex), source };
}

export const LEDGER_KEY: KeySpec = {
  name: "integrity-platform.example/ledger",
  envVar: "LEDGER_SIGNING_KEY",
  fileName: "ledger.ed25519",
};
export const DATASET_KEY: KeySpec = {
  name: "integrity-platform.example/datasets",
  envVar: "DATASET_SIGNING_KEY",
  fileName: "datasets.ed25519",
};
/** Signs the operator tokens of the write routes (core/avm/token.ts): JWTs with EdDSA. */
export const TOKEN_KEY: KeySpec = {
  name: "integrity-platform.example/tokens",
  envVar: "TOKEN_SIGNING_KEY",
  fileName: "tokens.ed25519",
};
