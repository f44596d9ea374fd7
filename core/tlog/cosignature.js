// @ts-check
/**
 * C2SP `tlog-cosignature` v1 (https://c2sp.org/tlog-cosignature), Ed25519: a witness's timestamped
 * note signature on a checkpoint, as a reader checks it.
 *
 *   key ID     SHA-256(<name> ‖ 0x0A ‖ 0x04 ‖ 32-byte public key)[:4]
 *   vkey       <name>+<8 hex key ID>+base64(0x04 ‖ public key)
 *   message    "cosignature/v1\n" ‖ "time <T>\n" ‖ the checkpoint's note body (with its final newline)
 *   line       "— <name> " ‖ base64(key ID ‖ u64 big-endian T ‖ 64-byte Ed25519 signature) ‖ "\n"
 *
 * A cosignature says: as of time T, the consistent tree head of the largest size this witness has
 * seen for the origin has this root. Signature lines of other keys are ignored (signed-note rules);
 * a line that names a known cosigner and key ID but does not verify refuses the note, never skipped.
 */
import { concat, fromBase64, toHex, utf8 } from "./bytes.js";
import { verifyEd25519 } from "./crypto.js";
import { isValidName, keyHash, NoteError, preview, splitNote } from "./note.js";

/**
 * @template T
 * @typedef {import("./crypto.js").Check<T>} Check
 */

/** The signature type of a cosigner key (cosignature/v1, Ed25519). */
export const COSIGNATURE_TYPE = 0x04;
const KEY_ID_HEX = /^[0-9a-fA-F]{8}$/;
const MAX_TIMESTAMP = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * A cosigner: its name and 32-byte Ed25519 public key.
 * @typedef {object} CosignerKey
 * @property {string} name
 * @property {Uint8Array} publicKey
 */

/**
 * Why a cosignature line of a known cosigner was refused: not key ID ‖ timestamp ‖ signature
 * (`length`), a time past 2^53 − 1 (`timestamp`), or a signature that does not verify (`signature`).
 * @typedef {"length" | "timestamp" | "signature"} CosignatureFault
 */

/**
 * A known cosigner's line that does not verify (code `bad-signature`): which cosigner, under which
 * `<name>+<key ID>`, and why.
 * @template {CosignerKey} [T=CosignerKey]
 */
export class CosignatureError extends NoteError {
  /**
   * @param {T} cosigner
   * @param {string} signer `<name>+<key ID>` as the line names it
   * @param {CosignatureFault} fault
   */
  constructor(cosigner, signer, fault) {
    const why = {
      length: " is not timestamp ‖ Ed25519 signature",
      timestamp: ": timestamp out of range",
      signature: " does not verify",
    };
    super("bad-signature", `cosignature by ${signer}${why[fault]}`);
    this.name = "CosignatureError";
    /** @readonly */
    this.cosigner = cosigner;
    /** @readonly */
    this.signer = signer;
    /** @readonly */
    this.fault = fault;
  }
}

/**
 * The 4-byte key ID of a cosigner: SHA-256(name ‖ 0x0A ‖ 0x04 ‖ public key)[:4].
 * @param {string} name
 * @param {Uint8Array} publicKey
 * @returns {Check<Uint8Array>}
 */
export function* cosignerKeyHash(name, publicKey) {
  return yield* keyHash(name, concat(Uint8Array.of(COSIGNATURE_TYPE), publicKey));
}

/**
 * Parses a cosigner vkey `<name>+<key ID>+base64(0x04 ‖ key)`: refused (key-malformed,
 * key-unsupported) unless name, signature type, key length and key ID all check out.
 * @param {string} vkey
 * @returns {Check<CosignerKey & { keyId: string }>}
 */
export function* parseCosignerKey(vkey) {
  const plus1 = vkey.indexOf("+");
  const plus2 = plus1 < 0 ? -1 : vkey.indexOf("+", plus1 + 1);
  if (plus2 < 0) throw new NoteError("key-malformed", `not a vkey <name>+<key id>+<key>: ${preview(vkey)}`);
  const name = vkey.slice(0, plus1);
  const id = vkey.slice(plus1 + 1, plus2);
  const key = fromBase64(vkey.slice(plus2 + 1));
  if (!isValidName(name) || !KEY_ID_HEX.test(id) || key === null || key.length === 0)
    throw new NoteError("key-malformed", `malformed vkey ${preview(vkey)}`);
  if (key[0] !== COSIGNATURE_TYPE)
    throw new NoteError(
      "key-unsupported",
      `vkey ${preview(vkey)}: signature type ${key[0]}, a cosigner's is 0x04 (Ed25519 cosignature/v1)`,
    );
  if (key.length !== 33) throw new NoteError("key-malformed", `vkey ${preview(vkey)}: an Ed25519 key is 32 bytes`);
  const publicKey = key.subarray(1);
  const keyId = toHex(yield* cosignerKeyHash(name, publicKey));
  if (keyId !== id.toLowerCase())
    throw new NoteError("key-malformed", `vkey ${preview(vkey)}: the key ID does not match the name and key`);
  return { name, keyId, publicKey };
}

/**
 * The signed message of a cosignature/v1 over a note body (which ends in a newline).
 * @param {string} body
 * @param {number} timestamp POSIX seconds
 * @returns {Uint8Array}
 */
export function cosignedMessage(body, timestamp) {
  if (!body.endsWith("\n")) throw new NoteError("invalid-input", "a note body ends in a newline");
  if (!Number.isSafeInteger(timestamp) || timestamp < 0)
    throw new NoteError("invalid-input", `bad cosignature timestamp ${timestamp}`);
  return utf8.encode(`cosignature/v1\ntime ${timestamp}\n${body}`);
}

/**
 * The cosigners whose cosignature/v1 lines on a signed note verify, each once, in the order of the
 * note's lines, with the time each states. The note must be a signed note (else NoteError
 * `malformed`); lines of other keys are ignored; a line with a known cosigner's name and key ID that
 * does not verify throws a CosignatureError.
 * @template {CosignerKey} T
 * @param {string} note
 * @param {readonly T[]} cosigners
 * @returns {Check<{ cosigner: T; keyId: string; timestamp: number }[]>}
 */
export function* verifyCosignatures(note, cosigners) {
  const { text, lines } = splitNote(note);
  /** @type {Map<string, T[]>} "name\nkey ID" → the cosigners under it (a name never holds '\n') */
  const known = new Map();
  for (const c of cosigners) {
    if (!isValidName(c.name) || !(c.publicKey instanceof Uint8Array) || c.publicKey.length !== 32)
      throw new NoteError("invalid-input", `invalid cosigner ${preview(c.name)}: a name and a 32-byte Ed25519 key`);
    const at = `${c.name}\n${toHex(yield* cosignerKeyHash(c.name, c.publicKey))}`;
    known.set(at, [...(known.get(at) ?? []), c]);
  }
  /** @type {{ cosigner: T; keyId: string; timestamp: number }[]} */
  const found = [];
  for (const { name, id, signature } of lines) {
    for (const cosigner of known.get(`${name}\n${id}`) ?? []) {
      // `signature` is what follows the key ID: the u64 time, then the Ed25519 signature.
      if (signature.length !== 8 + 64) throw new CosignatureError(cosigner, `${name}+${id}`, "length");
      const time = new DataView(signature.buffer, signature.byteOffset, 8).getBigUint64(0);
      if (time > MAX_TIMESTAMP) throw new CosignatureError(cosigner, `${name}+${id}`, "timestamp");
      const timestamp = Number(time);
      if (!(yield* verifyEd25519(cosigner.publicKey, cosignedMessage(text, timestamp), signature.subarray(8))))
        throw new CosignatureError(cosigner, `${name}+${id}`, "signature");
      if (!found.some((f) => f.cosigner === cosigner)) found.push({ cosigner, keyId: id, timestamp });
    }
  }
  return found;
}
