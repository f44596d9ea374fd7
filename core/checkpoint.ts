/**
 * Signed tree heads as the project signs and opens them: C2SP `tlog-checkpoint` bodies in C2SP
 * `signed-note`s, Ed25519 only, with golang.org/x/mod's verifier keys (`<name>+<key id>+<base64 key>`).
 * Opening a note, reading a verifier key and a checkpoint are written once, in core/tlog/ (which the
 * published verifier and the portal run too, with WebCrypto); this module runs them synchronously
 * over node:crypto and strict RFC 8032 (./signature.ts), takes keys as hex, and signs. Every refusal
 * is a NoteError whose code says why.
 */
import { fromHex, toHex } from "./digest.ts";
import { nodeCrypto } from "./merkle.ts";
import { publicKeyFromSecret, sign } from "./signature.ts";
import { concat, toBase64, utf8 } from "./tlog/bytes.js";
import { runSync } from "./tlog/crypto.js";
import { formatCheckpoint, openCheckpoint, parseCheckpoint, type Checkpoint } from "./tlog/checkpoint.js";
import {
  assertNoteText,
  ED25519_TYPE,
  isValidName,
  keyHash,
  MAX_SIGNATURES,
  NoteError,
  openNote as openNoteWith,
  parseVerifierKey as parseKey,
  preview,
  SIGNATURE_PREFIX,
  type NoteKey,
} from "./tlog/note.js";

export { concat, formatCheckpoint, MAX_SIGNATURES, NoteError, parseCheckpoint, type Checkpoint };
export type { NoteErrorCode } from "./tlog/note.js";

/** `secretKeyHex`: the 32-byte Ed25519 seed, hex. */
export interface NoteSigner {
  name: string;
  secretKeyHex: string;
}
/** `publicKeyHex`: the 32-byte Ed25519 public key, hex. */
export interface NoteVerifier {
  name: string;
  publicKeyHex: string;
}

// ---------------------------------------------------------------------------------------------
// keys

/** The 4-byte note key ID of an Ed25519 key: SHA-256(name ‖ 0x0A ‖ 0x01 ‖ public key)[:4]. */
export function keyId(name: string, publicKeyHex: string): Uint8Array {
  assertName(name, "key name");
  return runSync(keyHash(name, typedKey(publicKeyBytes(publicKeyHex))), nodeCrypto);
}

/** golang.org/x/mod verifier key: `<name>+<8 hex key ID>+<base64(0x01 ‖ public key)>`. */
export function verifierKey(name: string, publicKeyHex: string): string {
  const id = keyId(name, publicKeyHex);
  return `${name}+${toHex(id)}+${toBase64(typedKey(publicKeyBytes(publicKeyHex)))}`;
}

/** Parses a verifier key; throws unless name, key ID, algorithm and key length all check out. */
export function parseVerifierKey(vkey: string): NoteVerifier {
  const { name, publicKey } = runSync(parseKey(vkey), nodeCrypto);
  return { name, publicKeyHex: toHex(publicKey) };
}

// ---------------------------------------------------------------------------------------------
// checkpoints and signed notes

/** A checkpoint signed by one key: the full signed note. */
export function signCheckpoint(c: Checkpoint, signer: NoteSigner): string {
  return signNote(formatCheckpoint(c), [signer]);
}

/** Opens a signed checkpoint: throws unless a known key signed it and the body is well-formed. */
export function verifyCheckpoint(note: string, verifiers: NoteVerifier[]): Checkpoint {
  return runSync(openCheckpoint(note, noteKeys(verifiers)), nodeCrypto).checkpoint;
}

/** Signs `text` (which must end in a newline) with every signer, in order. */
export function signNote(text: string, signers: NoteSigner[]): string {
  assertNoteText(text, "note text", "invalid-input");
  if (!Array.isArray(signers) || signers.length === 0)
    throw new NoteError("invalid-input", "signNote needs at least one signer");
  if (signers.length > MAX_SIGNATURES)
    throw new NoteError("invalid-input", `a note carries at most ${MAX_SIGNATURES} signatures`);
  const message = utf8.encode(text);
  let lines = "";
  for (const { name, secretKeyHex } of signers) {
    assertName(name, "signer name");
    const id = keyId(name, publicKeyFromSecret("ed25519", secretKeyHex));
    const sig = fromHex(sign("ed25519", secretKeyHex, message));
    lines += `${SIGNATURE_PREFIX}${name} ${toBase64(concat(id, sig))}\n`;
  }
  return `${text}\n${lines}`;
}

/**
 * Opens a signed note: returns its text and the names of the known keys that signed it. Throws if
 * the note is malformed, if a known key's signature fails, or if no known key signed it.
 */
export function openNote(note: string, verifiers: NoteVerifier[]): { text: string; verifiedBy: string[] } {
  const { text, signers } = runSync(openNoteWith(note, noteKeys(verifiers)), nodeCrypto);
  return { text, verifiedBy: [...new Set(signers.map((s) => s.name))] };
}

/** The known keys, checked: a bad name or key is refused, never silently ignored. */
function noteKeys(verifiers: NoteVerifier[]): NoteKey[] {
  if (!Array.isArray(verifiers)) throw new NoteError("invalid-input", "verifiers must be an array");
  return verifiers.map(({ name, publicKeyHex }) => {
    assertName(name, "key name");
    return { name, publicKey: publicKeyBytes(publicKeyHex) };
  });
}

// ---------------------------------------------------------------------------------------------
// helpers

function assertName(name: unknown, what: string): asserts name is string {
  if (!isValidName(name)) {
    throw new NoteError("invalid-input", `invalid ${what} ${preview(name)}: must be non-empty, without spaces or '+'`);
  }
}

function publicKeyBytes(publicKeyHex: string): Uint8Array {
  let pk: Uint8Array;
  try {
    pk = fromHex(publicKeyHex);
  } catch (error) {
    throw new NoteError("invalid-input", (error as Error).message);
  }
  if (pk.length !== 32) throw new NoteError("invalid-input", `an Ed25519 public key is 32 bytes, got ${pk.length}`);
  return pk;
}

/** 0x01 ‖ public key: the key encoding that both the key ID and the verifier key use. */
function typedKey(pk: Uint8Array): Uint8Array {
  return concat(Uint8Array.of(ED25519_TYPE), pk);
}
