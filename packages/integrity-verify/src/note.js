// @ts-check
/**
 * C2SP signed notes with Ed25519 note verifier keys (`<name>+<8 hex key id>+<base64(0x01 ‖ key)>`),
 * checked with WebCrypto — the format of the area manifests' `datapackage.json.sig` and of the ledger
 * checkpoint. Opening follows the spec (and the project's core/checkpoint.ts): a signature by an
 * unknown key is ignored, a known key's signature that fails refuses the note, and at least one
 * known key must have signed.
 */
import { VerifyError } from "./errors.js";
import { fromBase64, sha256, toHex, utf8 } from "./bytes.js";

const ED25519 = 0x01;
const SIGNATURE_PREFIX = "\u2014 "; // em dash, space
const NAME = /^[^\s+]+$/u;
const KEY_ID = /^[0-9a-fA-F]{8}$/;
// A note may hold no control character but the newline.
const CONTROL = /[\u0000-\u0009\u000b-\u001f]/;
const MAX_SIGNATURES = 100;

/**
 * @typedef {object} TrustedKey
 * @property {string} name
 * @property {string} id the key ID, 8 lowercase hex
 * @property {string} line the verifier key as given
 * @property {CryptoKey} key
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
    keys.push(await parseVerifierKey(line, `${from}:${i + 1}`));
  }
  if (keys.length === 0) throw new VerifyError("key-malformed", `${from}: no verifier key in it`);
  return keys;
}

/**
 * @param {string} line
 * @param {string} where
 * @returns {Promise<TrustedKey>}
 */
async function parseVerifierKey(line, where) {
  // Split at the first two '+' only: base64 key data may hold '+'.
  const plus1 = line.indexOf("+");
  const plus2 = plus1 < 0 ? -1 : line.indexOf("+", plus1 + 1);
  const name = line.slice(0, Math.max(plus1, 0));
  const id = plus2 < 0 ? "" : line.slice(plus1 + 1, plus2);
  const data = plus2 < 0 ? null : fromBase64(line.slice(plus2 + 1));
  if (plus2 < 0 || !NAME.test(name) || !KEY_ID.test(id) || data === null) {
    throw new VerifyError("key-malformed", `${where}: not a note verifier key <name>+<key id>+<base64 key>`);
  }
  if (data[0] !== ED25519 || data.length !== 33) throw new VerifyError("key-malformed", `${where}: not an Ed25519 key`);
  if (toHex(await keyId(name, data)) !== id.toLowerCase()) throw new VerifyError("key-malformed", `${where}: the key ID does not match the name and key`);
  const key = await crypto.subtle.importKey("raw", data.subarray(1), { name: "Ed25519" }, false, ["verify"]);
  return { name, id: id.toLowerCase(), line, key };
}

/**
 * The key ID: SHA-256(name ‖ 0x0A ‖ 0x01 ‖ key)[:4].
 * @param {string} name
 * @param {Uint8Array} typedKey
 */
async function keyId(name, typedKey) {
  return (await sha256(utf8.encode(name), Uint8Array.of(0x0a), typedKey)).subarray(0, 4);
}

/**
 * Opens a signed note: its text and the trusted keys that signed it (as `name+id`).
 * @param {string} note
 * @param {TrustedKey[]} trusted
 * @returns {Promise<{ text: string; signedBy: string[] }>}
 */
export async function openNote(note, trusted) {
  if (CONTROL.test(note)) throw new VerifyError("signature-malformed", "not a signed note: it holds a control character");
  const split = note.lastIndexOf("\n\n");
  if (split < 0) throw new VerifyError("signature-malformed", "not a signed note: no blank line before the signatures");
  const text = note.slice(0, split + 1);
  const block = note.slice(split + 2);
  if (block === "" || !block.endsWith("\n")) throw new VerifyError("signature-malformed", "not a signed note: the signature block must end in a newline");
  const lines = block.slice(0, -1).split("\n");
  if (lines.length > MAX_SIGNATURES) throw new VerifyError("signature-malformed", `not a signed note: more than ${MAX_SIGNATURES} signatures`);
  const message = utf8.encode(text);
  /** @type {string[]} */
  const signedBy = [];
  for (const line of lines) {
    const space = line.indexOf(" ", SIGNATURE_PREFIX.length);
    const name = line.slice(SIGNATURE_PREFIX.length, space < 0 ? undefined : space);
    const raw = space < 0 ? null : fromBase64(line.slice(space + 1));
    if (!line.startsWith(SIGNATURE_PREFIX) || !NAME.test(name) || raw === null || raw.length < 5) {
      throw new VerifyError("signature-malformed", `not a signed note: bad signature line ${JSON.stringify(line.slice(0, 80))}`);
    }
    const id = toHex(raw.subarray(0, 4));
    const candidates = trusted.filter((k) => k.name === name && k.id === id);
    if (candidates.length === 0) continue; // another key's signature: ignored, as the spec says
    for (const k of candidates) {
      if (!(await crypto.subtle.verify({ name: "Ed25519" }, k.key, raw.subarray(4), message))) {
        throw new VerifyError("signature-invalid", `the signature by ${name}+${id} does not verify: the signed text or the signature was changed`);
      }
    }
    if (!signedBy.includes(`${name}+${id}`)) signedBy.push(`${name}+${id}`);
  }
  if (signedBy.length === 0) {
    const names = [...new Set(trusted.map((k) => `${k.name}+${k.id}`))].join(", ");
    throw new VerifyError("signature-untrusted", `no trusted key signed it (trusted: ${names})`);
  }
  return { text, signedBy };
}

