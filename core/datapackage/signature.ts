/**
 * The detached manifest signature `datapackage.json.sig`: a C2SP signed note (core/checkpoint.ts)
 * whose text is
 *
 *     <area> datapackage
 *     sha256:<64 hex of the datapackage.json bytes>
 *
 * signed with the dataset key. The text names the area, so a valid signature of one area's manifest
 * cannot be passed off as another's. The trusted keys are the note verifier keys of
 * `data/keys/datasets.vkey`, one per line (blank lines and `#` comments ignored). Opening a
 * signature fails with a DataPackageError whose code says why.
 */
import {
  NoteError,
  openNote,
  parseVerifierKey,
  signNote,
  type NoteErrorCode,
  type NoteSigner,
  type NoteVerifier,
} from "../checkpoint.ts";
import { sha256Hex } from "../digest.ts";
import type { PackageName } from "./contract.ts";
import { DataPackageError, type DataPackageErrorCode, type DataPackageSubject } from "./errors.ts";

/** The signed text: the area and the sha256 of the manifest bytes. */
export function manifestSignatureText(area: PackageName, manifest: Uint8Array | string): string {
  return `${area} datapackage\nsha256:${sha256Hex(manifest)}\n`;
}

export function signManifest(area: PackageName, manifest: Uint8Array | string, signer: NoteSigner): string {
  return signNote(manifestSignatureText(area, manifest), [signer]);
}

/** What each refusal of the note means for the signature file (or, for a bad trusted key, the key file). */
const NOTE_CODES: Record<NoteErrorCode, [DataPackageErrorCode, DataPackageSubject]> = {
  malformed: ["signature-malformed", "signature"],
  "checkpoint-malformed": ["signature-malformed", "signature"],
  "ambiguous-key": ["signature-invalid", "signature"],
  "bad-signature": ["signature-invalid", "signature"],
  "no-known-signature": ["signature-untrusted", "signature"],
  "key-malformed": ["keys-malformed", "keys"],
  "key-unsupported": ["keys-malformed", "keys"],
  "invalid-input": ["keys-malformed", "keys"],
};

/**
 * Checks a manifest signature: a trusted key signed it and the signed text names this area and these
 * exact bytes. Returns the names of the keys that signed; throws a DataPackageError otherwise.
 */
export function openManifestSignature(
  area: PackageName,
  manifest: Uint8Array | string,
  note: string,
  trusted: readonly NoteVerifier[],
): string[] {
  if (trusted.length === 0) throw new DataPackageError("keys-empty", "keys", "no trusted dataset key");
  let opened: { text: string; verifiedBy: string[] };
  try {
    opened = openNote(note, [...trusted]);
  } catch (error) {
    if (error instanceof NoteError) throw new DataPackageError(...NOTE_CODES[error.code], error.message);
    throw error;
  }
  const expected = manifestSignatureText(area, manifest);
  if (opened.text !== expected) {
    const [signedFor, signedHash] = opened.text.split("\n");
    if (signedFor !== `${area} datapackage`) {
      throw new DataPackageError(
        "signature-other-area",
        "signature",
        `the signature is for "${signedFor}", not "${area} datapackage"`,
      );
    }
    throw new DataPackageError(
      "signature-other-manifest",
      "manifest",
      `the signature covers ${signedHash ?? "(nothing)"}, the manifest hashes to ${expected.split("\n")[1]}`,
    );
  }
  return opened.verifiedBy;
}

/** The verifier keys of a `.vkey` text: one per line, blank lines and `#` comments ignored. */
export function parseTrustedKeys(text: string, file = "datasets.vkey"): NoteVerifier[] {
  const keys: NoteVerifier[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    try {
      keys.push(parseVerifierKey(line));
    } catch (error) {
      throw new DataPackageError("keys-malformed", "keys", `${file}:${i + 1}: ${(error as Error).message}`);
    }
  });
  return keys;
}
