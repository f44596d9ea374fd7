/**
 * Detached signatures of the area manifests.
 *
 * `data/areas/<area>/datapackage.json.sig` is the contract's signed note (core/datapackage/signature.ts)
 * over `<area> datapackage` and the sha256 of the manifest bytes, signed with the dataset key
 * (store/keys.ts DATASET_KEY: `DATASET_SIGNING_KEY`, `…_FILE`, or a development key under `.state/keys/`). The note names the area, so a valid signature of one
 * area's manifest cannot be passed off as another's. Ed25519 is deterministic: the same manifest
 * signed with the same key gives the same file.
 *
 * The keys a downloader trusts are `data/keys/datasets.vkey`, one note verifier key
 * (`<name>+<key id>+<base64>`) per line. A key is added to that file only when the file does not
 * exist yet or when the operator passes `--trust-new-key`; otherwise signing with an unknown key
 * fails and says how to proceed (the pulse indexer follows the same policy for the same file).
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { verifierKey, type NoteSigner, type NoteVerifier } from "../core/checkpoint.ts";
import {
  checkManifest,
  DataPackageError,
  parseTrustedKeys,
  signManifest as signNoteOfManifest,
  type Area,
} from "../core/datapackage/index.ts";

export {
  manifestSignatureText as signatureText,
  openManifestSignature as verifyManifestSignature,
  parseTrustedKeys,
} from "../core/datapackage/index.ts";

export const SIGNATURE_SUFFIX = ".sig";

/**
 * Signs a manifest after checking it against the published-data contract (core/datapackage): a
 * manifest that lists a file the contract does not publish, or gives one another access tier, is
 * never signed. Throws the contract's DataPackageError.
 */
export function signManifest(area: Area, manifest: Uint8Array | string, signer: NoteSigner): string {
  checkManifest(area, manifest);
  return signNoteOfManifest(area, manifest, signer);
}

export { DataPackageError };

/** Signs the manifest of a package that is no area (data/migration/): its own code checks its contents. */
export { signNoteOfManifest as signPackageManifest };

export function readTrustedKeys(path: string): NoteVerifier[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new Error(`${path}: trusted key file not found`);
    throw error;
  }
  return parseTrustedKeys(text, path);
}

export interface TrustResult {
  vkey: string;
  /** "present": already listed; "created": the file was new; "added": appended under --trust-new-key. */
  action: "present" | "created" | "added";
}

/**
 * Makes sure the signing key is listed in the trusted key file before anything is signed with it.
 * Throws, explaining the two ways forward, when the file exists without the key and trustNewKey is off.
 */
export function ensureTrustedKey(
  path: string,
  signer: { name: string; publicKeyHex: string },
  trustNewKey: boolean,
): TrustResult {
  const vkey = verifierKey(signer.name, signer.publicKeyHex);
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${vkey}\n`, { flag: "wx" });
    return { vkey, action: "created" };
  }
  const text = readFileSync(path, "utf8");
  const listed = parseTrustedKeys(text, path).some(
    (k) => k.name === signer.name && k.publicKeyHex === signer.publicKeyHex,
  );
  if (listed) return { vkey, action: "present" };
  if (!trustNewKey) {
    throw new Error(
      `the dataset signing key ${vkey} is not listed in ${path}. ` +
        `Sign with a trusted key (set DATASET_SIGNING_KEY or DATASET_SIGNING_KEY_FILE), ` +
        `or pass --trust-new-key to append this key to ${path} (review and commit that change).`,
    );
  }
  appendFileSync(path, `${text === "" || text.endsWith("\n") ? "" : "\n"}${vkey}\n`);
  return { vkey, action: "added" };
}
