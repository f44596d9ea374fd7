// @ts-check
/**
 * C2SP signed notes (https://c2sp.org/signed-note), Ed25519 only, with golang.org/x/mod's verifier
 * keys (`<name>+<8 hex key id>+<base64(0x01 ‖ public key)>`), and the C2SP `tlog-checkpoint` bodies
 * they carry (`<origin>\n<size>\n<base64 root>\n[extension lines]`, ./checkpoint.js). Opening follows
 * Go's sumdb/note `Open` — unknown keys ignored, a known key's bad signature fails the note — and is
 * stricter on purpose: one canonical base64 spelling, every signature of a known key checked, several
 * known keys sharing one name and key ID refused. Every refusal is a NoteError whose code says why.
 */
import { CodedError } from "./errors.js";
import { concat, fromBase64, toHex, utf8 } from "./bytes.js";
import { sha256, verifyEd25519 } from "./crypto.js";

/**
 * @template T
 * @typedef {import("./crypto.js").Check<T>} Check
 */

/** Go's limit; C2SP asks verifiers to accept at least 16. */
export const MAX_SIGNATURES = 100;
/** The Ed25519 signature type of a note key. */
export const ED25519_TYPE = 0x01;
/** A signature line starts with an em dash and a space. */
export const SIGNATURE_PREFIX = "\u2014 ";

// Go's isValidName: non-empty, no Unicode space (unicode.IsSpace = White_Space), no '+'.
const NAME_FORBIDDEN = /[\p{White_Space}+]/u;
// Note rules: newline is the only control character allowed.
const CONTROL = /[\u0000-\u0009\u000b-\u001f]/;
// With the u flag a well-formed pair is one code point, so only an unpaired surrogate matches.
const LONE_SURROGATE = /\p{Cs}/u;
const KEY_ID_HEX = /^[0-9a-fA-F]{8}$/;

/**
 * Why a note, a checkpoint or a verifier key was refused: callers branch on `code`, never on the message.
 *  - malformed: not a signed note (a control character, no blank line before the signatures, a bad
 *    signature line, too many signatures)
 *  - ambiguous-key: several known keys share one name and key ID
 *  - bad-signature: a known key's signature does not verify
 *  - no-known-signature: no known key signed the note
 *  - checkpoint-malformed: the note's text is not a checkpoint (origin, decimal size, base64 of a
 *    32-byte root, extension lines)
 *  - key-malformed: a verifier key that is not `<name>+<key id>+<base64 key>`, or whose key ID does
 *    not match its name and key
 *  - key-unsupported: a verifier key of an algorithm other than Ed25519
 *  - invalid-input: something a note cannot carry, given to format or sign one (a name with a
 *    space, a text without its final newline, a key of the wrong length)
 * @typedef {"malformed" | "ambiguous-key" | "bad-signature" | "no-known-signature" | "checkpoint-malformed" | "key-malformed" | "key-unsupported" | "invalid-input"} NoteErrorCode
 */

/** @extends {CodedError<NoteErrorCode>} */
export class NoteError extends CodedError {
  /**
   * @param {NoteErrorCode} code
   * @param {string} message
   */
  constructor(code, message) {
    super(code, message);
    // Spelled out: a minified bundle in a browser renames classes.
    this.name = "NoteError";
  }
}

/**
 * A key a note may be signed by: its name and 32-byte Ed25519 public key.
 * @typedef {object} NoteKey
 * @property {string} name
 * @property {Uint8Array} publicKey
 */

/**
 * A parsed verifier key: a NoteKey and its key ID (8 lowercase hex).
 * @typedef {NoteKey & { id: string }} ParsedKey
 */

/**
 * Go's isValidName: non-empty, no Unicode space, no '+', valid Unicode.
 * @param {unknown} name
 * @returns {name is string}
 */
export function isValidName(name) {
  return typeof name === "string" && name !== "" && !NAME_FORBIDDEN.test(name) && !LONE_SURROGATE.test(name);
}

/**
 * A bounded, quoted rendering of untrusted input for error messages.
 * @param {unknown} value
 * @returns {string}
 */
export function preview(value) {
  if (typeof value !== "string") return typeof value;
  return JSON.stringify(value.length > 80 ? value.slice(0, 80) + "…" : value);
}

/**
 * Text that a note can carry: ends in a newline, no other control characters, valid Unicode.
 * @param {unknown} text
 * @param {string} what
 * @param {NoteErrorCode} code
 * @returns {asserts text is string}
 */
export function assertNoteText(text, what, code) {
  if (typeof text !== "string") throw new NoteError(code, `malformed ${what}: not a string`);
  if (!text.endsWith("\n")) throw new NoteError(code, `malformed ${what}: must end in a newline`);
  if (CONTROL.test(text)) throw new NoteError(code, `malformed ${what}: control character`);
  if (LONE_SURROGATE.test(text)) throw new NoteError(code, `malformed ${what}: not valid Unicode`);
}

/**
 * One non-empty line of note text.
 * @param {unknown} line
 * @param {string} what
 * @returns {asserts line is string}
 */
export function assertLine(line, what) {
  if (typeof line !== "string" || line === "")
    throw new NoteError("invalid-input", `checkpoint ${what} must be a non-empty string`);
  if (line.includes("\n") || CONTROL.test(line) || LONE_SURROGATE.test(line)) {
    throw new NoteError("invalid-input", `checkpoint ${what} ${preview(line)} must be one line of valid text`);
  }
}

/**
 * The 4-byte key ID of a note key: SHA-256(name ‖ 0x0A ‖ typed key)[:4], the typed key being the
 * signature type byte and the public key (0x01 ‖ key for Ed25519).
 * @param {string} name
 * @param {Uint8Array} typedKey
 * @returns {Check<Uint8Array>}
 */
export function* keyHash(name, typedKey) {
  return (yield* sha256(concat(utf8.encode(name), Uint8Array.of(0x0a), typedKey))).slice(0, 4);
}

/**
 * Parses a verifier key `<name>+<key id>+<base64(0x01 ‖ key)>`: refused (key-malformed,
 * key-unsupported) unless name, key ID, algorithm and key length all check out.
 * @param {unknown} vkey
 * @returns {Check<ParsedKey>}
 */
export function* parseVerifierKey(vkey) {
  if (typeof vkey !== "string") throw new NoteError("key-malformed", "verifier key must be a string");
  // Split at the first two '+' only: the base64 key data may itself contain '+'.
  const plus1 = vkey.indexOf("+");
  const plus2 = plus1 < 0 ? -1 : vkey.indexOf("+", plus1 + 1);
  if (plus2 < 0)
    throw new NoteError("key-malformed", `malformed verifier key ${preview(vkey)}: expected <name>+<key id>+<key>`);
  const name = vkey.slice(0, plus1);
  const idHex = vkey.slice(plus1 + 1, plus2);
  const key = fromBase64(vkey.slice(plus2 + 1));
  if (!isValidName(name) || !KEY_ID_HEX.test(idHex) || key === null || key.length === 0) {
    throw new NoteError("key-malformed", `malformed verifier key ${preview(vkey)}`);
  }
  // Like Go: the ID covers the algorithm byte, so it is checked before the algorithm is looked at.
  if (idHex.toLowerCase() !== toHex(yield* keyHash(name, key))) {
    throw new NoteError("key-malformed", `verifier key ${preview(vkey)}: key ID does not match name and key`);
  }
  if (key[0] !== ED25519_TYPE)
    throw new NoteError("key-unsupported", `verifier key ${preview(vkey)}: unknown algorithm ${key[0]}`);
  if (key.length !== 1 + 32)
    throw new NoteError("key-malformed", `verifier key ${preview(vkey)}: an Ed25519 key is 32 bytes`);
  return { name, id: idHex.toLowerCase(), publicKey: key.subarray(1) };
}

/**
 * The signature lines of a note and the text they sign, split at the last blank line; refused
 * (malformed) unless the note can be a signed note. Counted before any verification, so a huge
 * note costs no signature checks.
 * @param {unknown} note
 * @returns {{ text: string; lines: { name: string; id: string; signature: Uint8Array }[] }}
 */
export function splitNote(note) {
  if (typeof note !== "string") throw new NoteError("malformed", "malformed note: not a string");
  if (CONTROL.test(note)) throw new NoteError("malformed", "malformed note: control character");
  if (LONE_SURROGATE.test(note)) throw new NoteError("malformed", "malformed note: not valid Unicode");
  const split = note.lastIndexOf("\n\n");
  if (split < 0) throw new NoteError("malformed", "malformed note: no blank line before the signatures");
  const text = note.slice(0, split + 1);
  const block = note.slice(split + 2);
  if (block === "" || !block.endsWith("\n"))
    throw new NoteError("malformed", "malformed note: signature block must end in a newline");
  const raw = block.slice(0, -1).split("\n");
  if (raw.length > MAX_SIGNATURES)
    throw new NoteError("malformed", `malformed note: more than ${MAX_SIGNATURES} signatures`);
  const lines = raw.map((line) => {
    const rest = line.startsWith(SIGNATURE_PREFIX) ? line.slice(SIGNATURE_PREFIX.length) : null;
    const space = rest === null ? -1 : rest.indexOf(" ");
    const name = rest === null || space < 0 ? "" : rest.slice(0, space);
    const bytes = rest === null || space < 0 ? null : fromBase64(rest.slice(space + 1));
    if (!isValidName(name) || bytes === null || bytes.length < 5) {
      throw new NoteError("malformed", `malformed note: bad signature line ${preview(line)}`);
    }
    return { name, id: toHex(bytes.subarray(0, 4)), signature: bytes.subarray(4) };
  });
  return { text, lines };
}

/**
 * Opens a signed note: its text and the known keys that signed it (each once, in the note's order).
 * Refused if the note is malformed, if several known keys share a signature's name and key ID, if a
 * known key's signature fails, or if no known key signed it.
 * @param {unknown} note
 * @param {readonly NoteKey[]} keys the known keys
 * @returns {Check<{ text: string; signers: ParsedKey[] }>}
 */
export function* openNote(note, keys) {
  const { text, lines } = splitNote(note);
  if (!Array.isArray(keys)) throw new NoteError("invalid-input", "the known keys must be an array");
  /** @type {Map<string, ParsedKey[]>} "name\nkey ID" → distinct keys (a name never holds '\n') */
  const known = new Map();
  for (const { name, publicKey } of keys) {
    if (!isValidName(name) || !(publicKey instanceof Uint8Array) || publicKey.length !== 32) {
      throw new NoteError("invalid-input", `invalid known key ${preview(name)}: a name and a 32-byte Ed25519 key`);
    }
    const id = toHex(yield* keyHash(name, concat(Uint8Array.of(ED25519_TYPE), publicKey)));
    const slot = known.get(`${name}\n${id}`) ?? [];
    if (!slot.some((k) => toHex(k.publicKey) === toHex(publicKey))) slot.push({ name, id, publicKey });
    known.set(`${name}\n${id}`, slot);
  }
  const message = utf8.encode(text);
  /** @type {ParsedKey[]} */
  const signers = [];
  for (const { name, id, signature } of lines) {
    const candidates = known.get(`${name}\n${id}`);
    if (candidates === undefined) continue; // unknown key: ignored, as the spec requires
    if (candidates.length > 1)
      throw new NoteError("ambiguous-key", `ambiguous verifier key ${name}+${id}: several keys share it`);
    const key = /** @type {ParsedKey} */ (candidates[0]);
    if (signature.length !== 64 || !(yield* verifyEd25519(key.publicKey, message, signature))) {
      throw new NoteError("bad-signature", `invalid signature for key ${name}+${id}`);
    }
    if (!signers.includes(key)) signers.push(key);
  }
  if (signers.length === 0)
    throw new NoteError("no-known-signature", "note has no verifiable signatures: no known key signed it");
  return { text, signers };
}
