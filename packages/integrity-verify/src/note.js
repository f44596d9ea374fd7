// @ts-check
/**
 * C2SP signed notes with Ed25519 note verifier keys (`<name>+<8 hex key id>+<base64(0x01 ‖ key)>`),
 * checked with WebCrypto — the format of the area manifests' `datapackage.json.sig` and of the ledger
 * checkpoint. The opening is the project's one (src/tlog/note.js, built from the repository's
 * core/tlog/): a signature by an unknown key is ignored, a known key's signature that fails refuses
 * the note, and at least one known key must have signed. Here its refusals become VerifyErrors.
 */
import { VerifyError } from "./errors.js";
import { runAsync, webCrypto } from "../../../core/tlog/crypto.js";
import { NoteError, openNote as openWith, parseVerifierKey as parseKey } from "../../../core/tlog/note.js";

/**
 * @typedef {object} TrustedKey
 * @property {string} name
 * @property {string} id the key ID, 8 lowercase hex
 * @property {string} line the verifier key as given
 * @property {Uint8Array} publicKey the 32-byte Ed25519 key
 */

/**
 * Parses the verifier keys of a `.vkey` text: one per line, blank lines and `#` comments ignored.
 * @param {string} text
 * @param {string} from where the text came from, for messages
 * @returns {Promise<TrustedKey[]>}
 */
export async function parseVerifierKeys(text, from) {
  /** @type {TrustedKey[]} */
  const keys = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? "").trim();
    if (line === "" || line.startsWith("#")) continue;
    try {
      keys.push({ ...(await runAsync(parseKey(line), webCrypto)), line });
    } catch (error) {
      if (!(error instanceof NoteError)) throw error;
      throw new VerifyError("key-malformed", `${from}:${i + 1}: ${error.message}`);
    }
  }
  if (keys.length === 0) throw new VerifyError("key-malformed", `${from}: no verifier key in it`);
  return keys;
}

/**
 * Opens a signed note: its text and the trusted keys that signed it (as `name+id`).
 * @param {string} note
 * @param {TrustedKey[]} trusted
 * @returns {Promise<{ text: string; signedBy: string[] }>}
 */
export async function openNote(note, trusted) {
  try {
    const { text, signers } = await runAsync(openWith(note, trusted), webCrypto);
    return { text, signedBy: signers.map((k) => `${k.name}+${k.id}`) };
  } catch (error) {
    throw refusal(error, trusted);
  }
}

/**
 * A signed note's refusal (a NoteError from opening it) as the verifier's error; anything else as it is.
 * @param {unknown} error
 * @param {readonly { name: string; id: string }[]} trusted the keys it was opened under
 * @returns {unknown}
 */
export function refusal(error, trusted) {
  if (!(error instanceof NoteError)) return error;
  if (error.code === "no-known-signature") {
    const names = [...new Set(trusted.map((k) => `${k.name}+${k.id}`))].join(", ");
    return new VerifyError("signature-untrusted", `no trusted key signed it (trusted: ${names})`);
  }
  if (error.code === "bad-signature") {
    return new VerifyError("signature-invalid", `${error.message}: the signed text or the signature was changed`);
  }
  if (error.code === "ambiguous-key") return new VerifyError("key-malformed", error.message);
  return new VerifyError("signature-malformed", `not a signed note: ${error.message}`);
}
