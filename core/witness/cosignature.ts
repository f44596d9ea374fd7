/**
 * C2SP `tlog-cosignature` v1 (Ed25519): a witness's timestamped note signature on a checkpoint.
 *
 *   key ID     SHA-256(<name> ‖ 0x0A ‖ 0x04 ‖ 32-byte public key)[:4]
 *   vkey       <name>+<8 hex key ID>+base64(0x04 ‖ public key)
 *   message    "cosignature/v1\n" ‖ "time <T>\n" ‖ the checkpoint's note body (with its final newline)
 *   line       "— <name> " ‖ base64(key ID ‖ u64 big-endian T ‖ 64-byte Ed25519 signature) ‖ "\n"
 *
 * A cosignature says: as of time T, the consistent tree head of the largest size this witness has
 * seen for the origin has this root. Signature lines of other keys are ignored (signed-note rules);
 * a line that names a known cosigner and key ID but does not verify is refused, never skipped.
 */
import { fromHex, sha256, toHex } from "../digest.ts";
import { publicKeyFromSecret, sign, verify } from "../signature.ts";
import { concat, NoteError } from "../checkpoint.ts";

export const COSIGNATURE_TYPE = 0x04;
const SIG_PREFIX = "\u2014 ";
const NAME = /^[^\p{White_Space}+]+$/u;
const KEY_ID_HEX = /^[0-9a-fA-F]{8}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const MAX_TIMESTAMP = (1n << 63n) - 1n;
const encoder = new TextEncoder();

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
  if (!NAME.test(name)) throw new NoteError("invalid-input", `invalid cosigner name ${JSON.stringify(name)}`);
  const pk = fromHex(publicKeyHex);
  if (pk.length !== 32) throw new NoteError("invalid-input", "an Ed25519 public key is 32 bytes");
  return sha256(concat(encoder.encode(name), Uint8Array.of(0x0a, COSIGNATURE_TYPE), pk)).slice(0, 4);
}

/** The cosigner's vkey: `<name>+<key ID>+base64(0x04 ‖ key)`. */
export function cosignerVkey(c: Cosigner): string {
  const typed = concat(Uint8Array.of(COSIGNATURE_TYPE), fromHex(c.publicKeyHex));
  return `${c.name}+${toHex(cosignerKeyId(c.name, c.publicKeyHex))}+${b64(typed)}`;
}

/** Parses a cosigner vkey (signature type 0x04); throws a NoteError `key-malformed`/`key-unsupported`. */
export function parseCosignerVkey(vkey: string): Cosigner {
  const plus1 = vkey.indexOf("+");
  const plus2 = plus1 < 0 ? -1 : vkey.indexOf("+", plus1 + 1);
  if (plus2 < 0) throw new NoteError("key-malformed", `not a vkey <name>+<key id>+<key>: ${preview(vkey)}`);
  const name = vkey.slice(0, plus1);
  const id = vkey.slice(plus1 + 1, plus2);
  const key = unb64(vkey.slice(plus2 + 1));
  if (!NAME.test(name) || !KEY_ID_HEX.test(id) || key === undefined || key.length === 0)
    throw new NoteError("key-malformed", `malformed vkey ${preview(vkey)}`);
  if (key[0] !== COSIGNATURE_TYPE)
    throw new NoteError(
      "key-unsupported",
      `vkey ${preview(vkey)}: signature type ${key[0]}, a cosigner's is 0x04 (Ed25519 cosignature/v1)`,
    );
  if (key.length !== 33) throw new NoteError("key-malformed", `vkey ${preview(vkey)}: an Ed25519 key is 32 bytes`);
  const publicKeyHex = toHex(key.subarray(1));
  if (toHex(cosignerKeyId(name, publicKeyHex)) !== id.toLowerCase())
    throw new NoteError("key-malformed", `vkey ${preview(vkey)}: the key ID does not match the name and key`);
  return { name, publicKeyHex };
}

/** The signed message of a cosignature/v1 over a note body (which ends in a newline). */
export function cosignedMessage(body: string, timestamp: number): Uint8Array {
  if (!body.endsWith("\n")) throw new NoteError("invalid-input", "a note body ends in a newline");
  if (!Number.isSafeInteger(timestamp) || timestamp < 0)
    throw new NoteError("invalid-input", `bad cosignature timestamp ${timestamp}`);
  return encoder.encode(`cosignature/v1\ntime ${timestamp}\n${body}`);
}

/** A cosignature line (with its newline) by the witness whose seed is `secretKeyHex`. */
export function cosign(body: string, name: string, secretKeyHex: string, timestamp: number): string {
  const publicKeyHex = publicKeyFromSecret("ed25519", secretKeyHex);
  const sig = fromHex(sign("ed25519", secretKeyHex, cosignedMessage(body, timestamp)));
  const ts = new Uint8Array(8);
  new DataView(ts.buffer).setBigUint64(0, BigInt(timestamp));
  return `${SIG_PREFIX}${name} ${b64(concat(cosignerKeyId(name, publicKeyHex), ts, sig))}\n`;
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
 * The valid cosignatures of `cosigners` on a note (each cosigner once). Lines of unknown keys are
 * ignored; a line with a known name and key ID that does not verify throws `bad-signature`.
 */
export function verifyCosignatures(note: string, cosigners: readonly Cosigner[]): Cosignature[] {
  const { body, lines } = splitNote(note);
  const byId = new Map(cosigners.map((c) => [`${c.name} ${toHex(cosignerKeyId(c.name, c.publicKeyHex))}`, c]));
  const found = new Map<string, Cosignature>();
  for (const line of lines) {
    const rest = line.slice(SIG_PREFIX.length);
    const space = rest.indexOf(" ");
    if (space < 0) throw new NoteError("malformed", `malformed signature line ${preview(line)}`);
    const raw = unb64(rest.slice(space + 1));
    if (raw === undefined || raw.length < 5)
      throw new NoteError("malformed", `malformed signature line ${preview(line)}`);
    const name = rest.slice(0, space);
    const keyIdHex = toHex(raw.subarray(0, 4));
    const cosigner = byId.get(`${name} ${keyIdHex}`);
    if (cosigner === undefined) continue;
    if (raw.length !== 4 + 8 + 64)
      throw new NoteError("bad-signature", `cosignature by ${name}+${keyIdHex} is not timestamp ‖ Ed25519 signature`);
    const ts = new DataView(raw.buffer, raw.byteOffset + 4, 8).getBigUint64(0);
    if (ts > MAX_TIMESTAMP || ts > BigInt(Number.MAX_SAFE_INTEGER))
      throw new NoteError("bad-signature", `cosignature by ${name}+${keyIdHex}: timestamp out of range`);
    const timestamp = Number(ts);
    if (!verify("ed25519", cosigner.publicKeyHex, cosignedMessage(body, timestamp), toHex(raw.subarray(12)))) {
      throw new NoteError("bad-signature", `cosignature by ${name}+${keyIdHex} does not verify`);
    }
    if (!found.has(name + keyIdHex)) found.set(name + keyIdHex, { name, keyIdHex, timestamp });
  }
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

export function b64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

/** Standard padded base64 in its canonical spelling, else undefined. */
export function unb64(s: string): Uint8Array | undefined {
  if (!BASE64.test(s)) return undefined;
  const bytes = Buffer.from(s, "base64");
  return bytes.toString("base64") === s ? new Uint8Array(bytes) : undefined;
}

function preview(s: string): string {
  return JSON.stringify(s.length > 80 ? `${s.slice(0, 80)}…` : s);
}
