/**
 * C2SP `tlog-cosignature` v1 (Ed25519): a witness's timestamped note signature on a checkpoint.
 *
 *   key ID     SHA-256(<name> ‖ 0x0A ‖ 0x04 ‖ 32-byte public key)[:4]
 *   vkey       <name>+<8 hex key ID>+base64(0x04 ‖ public key)
 *   message    "cosignature/v1\n" ‖ "time <T>\n" ‖ the checkpoint's note body (with its final newline)
 *   line       "— <name> " ‖ base64(key ID ‖ u64 big-endian T ‖ 64-byte Ed25519 signature) ‖ "\n"
 *
 * Reading a cosigner key and checking cosignatures are written once, in core/tlog/cosignature.js
 * (which the published verifier runs too, with WebCrypto); this module runs them synchronously over
 * node:crypto (`nodeCrypto`), takes keys as hex, signs (`cosign`) and edits a note's signature lines.
 * Signature lines of other keys are ignored (signed-note rules); a line that names a known cosigner
 * and key ID but does not verify is refused, never skipped.
 */
import { fromHex, toHex } from "../digest.ts";
import { nodeCrypto } from "../merkle.ts";
import { publicKeyFromSecret, sign } from "../signature.ts";
import { concat, NoteError } from "../checkpoint.ts";
import { toBase64 } from "../tlog/bytes.js";
import { runSync } from "../tlog/crypto.js";
import {
  COSIGNATURE_TYPE,
  cosignedMessage,
  cosignerKeyHash,
  parseCosignerKey,
  verifyCosignatures as verifyWith,
} from "../tlog/cosignature.js";

export { COSIGNATURE_TYPE, cosignedMessage };
export { CosignatureError } from "../tlog/cosignature.js";
const SIG_PREFIX = "\u2014 ";
const NAME = /^[^\p{White_Space}+]+$/u;

/** A witness (cosigner): its name and Ed25519 public key. */
export interface Cosigner {
  name: string;
  publicKeyHex: string;
}

/** A cosignature found valid on a note: who, and the time it states (POSIX seconds). */
export interface Cosignature {
  name: string;
  keyIdHex: string;
  timestamp: number;
}

/** SHA-256(name ‖ "\n" ‖ 0x04 ‖ public key)[:4]. */
export function cosignerKeyId(name: string, publicKeyHex: string): Uint8Array {
  return runSync(cosignerKeyHash(name, cosignerKey({ name, publicKeyHex })), nodeCrypto);
}

/** The cosigner's vkey: `<name>+<key ID>+base64(0x04 ‖ key)`. */
export function cosignerVkey(c: Cosigner): string {
  const typed = concat(Uint8Array.of(COSIGNATURE_TYPE), fromHex(c.publicKeyHex));
  return `${c.name}+${toHex(cosignerKeyId(c.name, c.publicKeyHex))}+${toBase64(typed)}`;
}

/** Parses a cosigner vkey (signature type 0x04); throws a NoteError `key-malformed`/`key-unsupported`. */
export function parseCosignerVkey(vkey: string): Cosigner {
  const { name, publicKey } = runSync(parseCosignerKey(vkey), nodeCrypto);
  return { name, publicKeyHex: toHex(publicKey) };
}

/** A cosignature line (with its newline) by the witness whose seed is `secretKeyHex`. */
export function cosign(body: string, name: string, secretKeyHex: string, timestamp: number): string {
  const publicKeyHex = publicKeyFromSecret("ed25519", secretKeyHex);
  const sig = fromHex(sign("ed25519", secretKeyHex, cosignedMessage(body, timestamp)));
  const ts = new Uint8Array(8);
  new DataView(ts.buffer).setBigUint64(0, BigInt(timestamp));
  return `${SIG_PREFIX}${name} ${toBase64(concat(cosignerKeyId(name, publicKeyHex), ts, sig))}\n`;
}

/** A note split into its body (with its final newline) and its signature lines (without newlines). */
export function splitNote(note: string): { body: string; lines: string[] } {
  const at = note.lastIndexOf("\n\n");
  if (at < 0 || !note.endsWith("\n"))
    throw new NoteError("malformed", "malformed note: no blank line before the signatures, or no final newline");
  const lines = note.slice(at + 2, -1).split("\n");
  if (lines.some((l) => !l.startsWith(SIG_PREFIX)))
    throw new NoteError("malformed", "malformed note: a signature line does not start with an em dash");
  return { body: note.slice(0, at + 1), lines };
}

/**
 * The valid cosignatures of `cosigners` on a signed note (each cosigner once). Lines of unknown keys
 * are ignored; a line with a known name and key ID that does not verify throws `bad-signature`.
 */
export function verifyCosignatures(note: string, cosigners: readonly Cosigner[]): Cosignature[] {
  const keys = cosigners.map((c) => ({ name: c.name, publicKey: cosignerKey(c) }));
  const found = new Map<string, Cosignature>();
  for (const { cosigner, keyId, timestamp } of runSync(verifyWith(note, keys), nodeCrypto))
    if (!found.has(`${cosigner.name}+${keyId}`))
      found.set(`${cosigner.name}+${keyId}`, { name: cosigner.name, keyIdHex: keyId, timestamp });
  return [...found.values()];
}

/** Appends signature lines to a note, skipping lines it already carries. */
export function addSignatureLines(note: string, lines: readonly string[]): string {
  const have = new Set(splitNote(note).lines);
  let out = note;
  for (const raw of lines) {
    const line = raw.endsWith("\n") ? raw.slice(0, -1) : raw;
    if (line === "" || have.has(line)) continue;
    if (!line.startsWith(SIG_PREFIX) || line.includes("\n"))
      throw new NoteError("malformed", `not a signature line: ${preview(line)}`);
    have.add(line);
    out += `${line}\n`;
  }
  return out;
}

/** A cosigner's name and key, checked: a bad name or key is refused, never silently ignored. */
function cosignerKey(c: Cosigner): Uint8Array {
  if (!NAME.test(c.name)) throw new NoteError("invalid-input", `invalid cosigner name ${JSON.stringify(c.name)}`);
  const pk = fromHex(c.publicKeyHex);
  if (pk.length !== 32) throw new NoteError("invalid-input", "an Ed25519 public key is 32 bytes");
  return pk;
}

function preview(s: string): string {
  return JSON.stringify(s.length > 80 ? `${s.slice(0, 80)}…` : s);
}
