/**
 * Detached signatures of the area manifests.
 *
 * `data/areas/<area>/datapackage.json.sig` is a C2SP signed note (core/checkpoint.ts) whose text is
 *
 *     <area> datapackage
 *     sha256:<64 hex of the datapackage.json bytes>
 *
 * signed with the dataset key (store/keys.ts DATASET_KEY: `DATASET_SIGNING_KEY`, `…_FILE`, or a
 * development key under `.state/keys/`). The note names the area, so a valid signature of one
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
import { openNote, parseVerifierKey, signNote, verifierKey, type NoteSigner, type NoteVerifier } from "../core/checkpoint.ts";
import { sha256Hex } from "../core/digest.ts";

export const SIGNATURE_SUFFIX = ".sig";

/** The signed text: the area and the sha256 of the manifest bytes. */
export function signatureText(area: string, manifest: Uint8Array | string): string {
  if (!/^[a-z0-9][a-z0-9._-]*$/.test(area)) throw new Error(`invalid area name ${JSON.stringify(area)}`);
  return `${area} datapackage\nsha256:${sha256Hex(manifest)}\n`;
}

export function signManifest(area: string, manifest: Uint8Array | string, signer: NoteSigner): string {
  return signNote(signatureText(area, manifest), [signer]);
}

/**
 * Checks a manifest signature: a trusted key signed it (core/checkpoint.ts openNote) and the signed
 * text names this area and these exact bytes. Throws with the reason otherwise.
 */
export function verifyManifestSignature(area: string, manifest: Uint8Array | string, note: string, trusted: NoteVerifier[]): string[] {
  if (trusted.length === 0) throw new Error("no trusted dataset keys");
  const { text, verifiedBy } = openNote(note, trusted);
  const expected = signatureText(area, manifest);
  if (text !== expected) {
    const [signedArea, signedHash] = text.split("\n");
    if (signedArea !== `${area} datapackage`) throw new Error(`the signature is for "${signedArea}", not "${area} datapackage"`);
    throw new Error(`the signature covers ${signedHash ?? "(nothing)"}, the manifest hashes to ${expected.split("\n")[1]}`);
  }
  return verifiedBy;
}

/** The verifier keys of a `.vkey` file: one per line, blank lines and `#` comments ignored. */
export function parseTrustedKeys(text: string, file = "datasets.vkey"): NoteVerifier[] {
  const keys: NoteVerifier[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    try {
      keys.push(parseVerifierKey(line));
    } catch (error) {
      throw new Error(`${file}:${i + 1}: ${(error as Error).message}`);
    }
  });
  return keys;
}

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
export function ensureTrustedKey(path: string, signer: { name: string; publicKeyHex: string }, trustNewKey: boolean): TrustResult {
  const vkey = verifierKey(signer.name, signer.publicKeyHex);
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${vkey}\n`, { flag: "wx" });
    return { vkey, action: "created" };
  }
  const text = readFileSync(path, "utf8");
  const listed = parseTrustedKeys(text, path).some((k) => k.name === signer.name && k.publicKeyHex === signer.publicKeyHex);
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
