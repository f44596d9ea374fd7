/**
 * Signed tree heads: C2SP `tlog-checkpoint` bodies (`<origin>\n<size>\n<base64 root>\n[extension
 * lines]`) in C2SP `signed-note`s, Ed25519 only, with golang.org/x/mod's verifier keys
 * (`<name>+<key id>+<base64 key>`). Opening follows Go's sumdb/note `Open` — unknown keys ignored, a
 * known key's bad signature fails the note — and is stricter on purpose: one canonical base64
 * spelling, every signature of a known key checked, strict RFC 8032 (./signature.ts). Every refusal
 * is a NoteError whose code says why.
 */
import { fromHex, sha256, toHex } from "./digest.ts";
import { publicKeyFromSecret, sign, verify } from "./signature.ts";
import { CodedError } from "./errors.ts";

export interface Checkpoint {
  origin: string;
  size: number;
  rootHash: Uint8Array;
  extensions?: string[];
}
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

/** Go's limit; C2SP asks verifiers to accept at least 16. */
export const MAX_SIGNATURES = 100;

const ED25519_TYPE = 0x01;
const SIG_PREFIX = "\u2014 "; // em dash, space
const ROOT_HASH_SIZE = 32;

// Go's isValidName: non-empty, no Unicode space (unicode.IsSpace = White_Space), no '+'.
const NAME_FORBIDDEN = /[\p{White_Space}+]/u;
// Note rules: newline is the only control character allowed.
const CONTROL = /[\u0000-\u0009\u000b-\u001f]/;
// With the u flag a well-formed pair is one code point, so only an unpaired surrogate matches.
const LONE_SURROGATE = /\p{Cs}/u;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DECIMAL = /^(?:0|[1-9][0-9]*)$/;
const KEY_ID_HEX = /^[0-9a-fA-F]{8}$/;

const encoder = new TextEncoder();

/** Why a note, a checkpoint or a verifier key was refused: callers branch on `code`, never on the message. */
export type NoteErrorCode =
  /** Not a signed note: a control character, no blank line before the signatures, a bad signature line, too many signatures. */
  | "malformed"
  /** Several known keys share one name and key ID. */
  | "ambiguous-key"
  /** A known key's signature does not verify. */
  | "bad-signature"
  /** No known key signed the note. */
  | "no-known-signature"
  /** The note's text is not a checkpoint: origin, decimal size, base64 of a 32-byte root, extension lines. */
  | "checkpoint-malformed"
  /** A verifier key that is not `<name>+<key id>+<base64 key>`, or whose key ID does not match its name and key. */
  | "key-malformed"
  /** A verifier key of an algorithm other than Ed25519. */
  | "key-unsupported"
  /** Something a note cannot carry, given to format or sign one: a name with a space, a text without its final newline, a key of the wrong length. */
  | "invalid-input";

/** The one error of this module. */
export class NoteError extends CodedError<NoteErrorCode> {}

// ---------------------------------------------------------------------------------------------
// keys

/** The 4-byte note key ID of an Ed25519 key: SHA-256(name ‖ 0x0A ‖ 0x01 ‖ public key)[:4]. */
export function keyId(name: string, publicKeyHex: string): Uint8Array {
  assertName(name, "key name");
  return keyHash(name, typedKey(publicKeyBytes(publicKeyHex)));
}

/** golang.org/x/mod verifier key: `<name>+<8 hex key ID>+<base64(0x01 ‖ public key)>`. */
export function verifierKey(name: string, publicKeyHex: string): string {
  const id = keyId(name, publicKeyHex);
  return `${name}+${toHex(id)}+${base64(typedKey(publicKeyBytes(publicKeyHex)))}`;
}

/** Parses a verifier key; throws unless name, key ID, algorithm and key length all check out. */
export function parseVerifierKey(vkey: string): NoteVerifier {
  if (typeof vkey !== "string") throw new NoteError("key-malformed", "verifier key must be a string");
  // Split at the first two '+' only: the base64 key data may itself contain '+'.
  const plus1 = vkey.indexOf("+");
  const plus2 = plus1 < 0 ? -1 : vkey.indexOf("+", plus1 + 1);
  if (plus2 < 0)
    throw new NoteError("key-malformed", `malformed verifier key ${preview(vkey)}: expected <name>+<key id>+<key>`);
  const name = vkey.slice(0, plus1);
  const idHex = vkey.slice(plus1 + 1, plus2);
  const key = decodeBase64(vkey.slice(plus2 + 1));
  if (!isValidName(name) || !KEY_ID_HEX.test(idHex) || key === undefined || key.length === 0) {
    throw new NoteError("key-malformed", `malformed verifier key ${preview(vkey)}`);
  }
  // Like Go: the ID covers the algorithm byte, so it is checked before the algorithm is looked at.
  if (idHex.toLowerCase() !== toHex(keyHash(name, key))) {
    throw new NoteError("key-malformed", `verifier key ${preview(vkey)}: key ID does not match name and key`);
  }
  if (key[0] !== ED25519_TYPE)
    throw new NoteError("key-unsupported", `verifier key ${preview(vkey)}: unknown algorithm ${key[0]}`);
  if (key.length !== 1 + 32)
    throw new NoteError("key-malformed", `verifier key ${preview(vkey)}: an Ed25519 key is 32 bytes`);
  return { name, publicKeyHex: toHex(key.subarray(1)) };
}

// ---------------------------------------------------------------------------------------------
// checkpoint body

/** The checkpoint's note text. Throws on anything that would not parse back to the same value. */
export function formatCheckpoint(c: Checkpoint): string {
  assertLine(c.origin, "origin");
  if (!Number.isSafeInteger(c.size) || c.size < 0) {
    throw new NoteError("invalid-input", `checkpoint size must be a non-negative safe integer, got ${String(c.size)}`);
  }
  if (!(c.rootHash instanceof Uint8Array) || c.rootHash.length !== ROOT_HASH_SIZE) {
    throw new NoteError("invalid-input", `checkpoint root hash must be ${ROOT_HASH_SIZE} bytes`);
  }
  const lines = [c.origin, String(c.size), base64(c.rootHash)];
  for (const ext of c.extensions ?? []) {
    assertLine(ext, "extension line");
    lines.push(ext);
  }
  return lines.join("\n") + "\n";
}

/** Parses a checkpoint's note text; throws a clear Error on any deviation from the format. */
export function parseCheckpoint(text: string): Checkpoint {
  assertNoteText(text, "checkpoint", "checkpoint-malformed");
  const lines = text.slice(0, -1).split("\n");
  const [origin, sizeLine, rootLine, ...extensions] = lines;
  if (origin === undefined || sizeLine === undefined || rootLine === undefined) {
    throw new NoteError(
      "checkpoint-malformed",
      `malformed checkpoint: ${lines.length} lines, need origin, size and root hash`,
    );
  }
  if (origin === "") throw new NoteError("checkpoint-malformed", "malformed checkpoint: empty origin line");
  // DECIMAL refuses signs, spaces and leading zeros; the safe-integer check refuses the rest.
  const size = Number(sizeLine);
  if (!DECIMAL.test(sizeLine) || !Number.isSafeInteger(size)) {
    throw new NoteError(
      "checkpoint-malformed",
      `malformed checkpoint: tree size ${preview(sizeLine)} is not a decimal safe integer`,
    );
  }
  const rootHash = decodeBase64(rootLine);
  if (rootHash === undefined || rootHash.length !== ROOT_HASH_SIZE) {
    throw new NoteError(
      "checkpoint-malformed",
      `malformed checkpoint: root hash ${preview(rootLine)} is not base64 of ${ROOT_HASH_SIZE} bytes`,
    );
  }
  if (extensions.some((e) => e === ""))
    throw new NoteError("checkpoint-malformed", "malformed checkpoint: empty extension line");
  return extensions.length > 0 ? { origin, size, rootHash, extensions } : { origin, size, rootHash };
}

/** A checkpoint signed by one key: the full signed note. */
export function signCheckpoint(c: Checkpoint, signer: NoteSigner): string {
  return signNote(formatCheckpoint(c), [signer]);
}

/** Opens a signed checkpoint: throws unless a known key signed it and the body is well-formed. */
export function verifyCheckpoint(note: string, verifiers: NoteVerifier[]): Checkpoint {
  return parseCheckpoint(openNote(note, verifiers).text);
}

// ---------------------------------------------------------------------------------------------
// signed note

/** Signs `text` (which must end in a newline) with every signer, in order. */
export function signNote(text: string, signers: NoteSigner[]): string {
  assertNoteText(text, "note text", "invalid-input");
  if (!Array.isArray(signers) || signers.length === 0)
    throw new NoteError("invalid-input", "signNote needs at least one signer");
  if (signers.length > MAX_SIGNATURES)
    throw new NoteError("invalid-input", `a note carries at most ${MAX_SIGNATURES} signatures`);
  const message = encoder.encode(text);
  let lines = "";
  for (const { name, secretKeyHex } of signers) {
    assertName(name, "signer name");
    const id = keyId(name, publicKeyFromSecret("ed25519", secretKeyHex));
    const sig = fromHex(sign("ed25519", secretKeyHex, message));
    lines += `${SIG_PREFIX}${name} ${base64(concat(id, sig))}\n`;
  }
  return `${text}\n${lines}`;
}

/**
 * Opens a signed note: returns its text and the names of the known keys that signed it. Throws if
 * the note is malformed, if a known key's signature fails, or if no known key signed it.
 */
export function openNote(note: string, verifiers: NoteVerifier[]): { text: string; verifiedBy: string[] } {
  if (typeof note !== "string") throw new NoteError("malformed", "malformed note: not a string");
  if (CONTROL.test(note)) throw new NoteError("malformed", "malformed note: control character");
  if (LONE_SURROGATE.test(note)) throw new NoteError("malformed", "malformed note: not valid Unicode");
  const split = note.lastIndexOf("\n\n");
  if (split < 0) throw new NoteError("malformed", "malformed note: no blank line before the signatures");
  const text = note.slice(0, split + 1);
  const block = note.slice(split + 2);
  if (block === "" || !block.endsWith("\n"))
    throw new NoteError("malformed", "malformed note: signature block must end in a newline");
  const lines = block.slice(0, -1).split("\n");
  // Counted before any verification, so a huge note costs no signature checks.
  if (lines.length > MAX_SIGNATURES)
    throw new NoteError("malformed", `malformed note: more than ${MAX_SIGNATURES} signatures`);

  const known = knownKeys(verifiers);
  const message = encoder.encode(text);
  const verifiedBy: string[] = [];
  for (const line of lines) {
    if (!line.startsWith(SIG_PREFIX))
      throw new NoteError("malformed", `malformed note: bad signature line ${preview(line)}`);
    const rest = line.slice(SIG_PREFIX.length);
    const space = rest.indexOf(" ");
    const name = space < 0 ? rest : rest.slice(0, space);
    const raw = space < 0 ? undefined : decodeBase64(rest.slice(space + 1));
    if (!isValidName(name) || raw === undefined || raw.length < 5) {
      throw new NoteError("malformed", `malformed note: bad signature line ${preview(line)}`);
    }
    const id = toHex(raw.subarray(0, 4));
    const candidates = known.get(`${name}\n${id}`);
    if (candidates === undefined) continue; // unknown key: ignored, as the spec requires
    if (candidates.length > 1)
      throw new NoteError("ambiguous-key", `ambiguous verifier key ${name}+${id}: several keys share it`);
    if (!verify("ed25519", candidates[0]!, message, toHex(raw.subarray(4)))) {
      throw new NoteError("bad-signature", `invalid signature for key ${name}+${id}`);
    }
    if (!verifiedBy.includes(name)) verifiedBy.push(name);
  }
  if (verifiedBy.length === 0)
    throw new NoteError("no-known-signature", "note has no verifiable signatures: no known key signed it");
  return { text, verifiedBy };
}

/** "name\nkeyID hex" → distinct public keys. A name never holds '\n', so the join is unambiguous. */
function knownKeys(verifiers: NoteVerifier[]): Map<string, string[]> {
  if (!Array.isArray(verifiers)) throw new NoteError("invalid-input", "verifiers must be an array");
  const known = new Map<string, string[]>();
  for (const { name, publicKeyHex } of verifiers) {
    const slot = `${name}\n${toHex(keyId(name, publicKeyHex))}`;
    const keys = known.get(slot) ?? [];
    if (!keys.includes(publicKeyHex)) keys.push(publicKeyHex);
    known.set(slot, keys);
  }
  return known;
}

// ---------------------------------------------------------------------------------------------
// helpers

function isValidName(name: unknown): name is string {
  return typeof name === "string" && name !== "" && !NAME_FORBIDDEN.test(name) && !LONE_SURROGATE.test(name);
}

function assertName(name: unknown, what: string): asserts name is string {
  if (!isValidName(name)) {
    throw new NoteError("invalid-input", `invalid ${what} ${preview(name)}: must be non-empty, without spaces or '+'`);
  }
}

/** Text that a note can carry: ends in a newline, no other control characters, valid Unicode. */
function assertNoteText(text: unknown, what: string, code: NoteErrorCode): asserts text is string {
  if (typeof text !== "string") throw new NoteError(code, `malformed ${what}: not a string`);
  if (!text.endsWith("\n")) throw new NoteError(code, `malformed ${what}: must end in a newline`);
  if (CONTROL.test(text)) throw new NoteError(code, `malformed ${what}: control character`);
  if (LONE_SURROGATE.test(text)) throw new NoteError(code, `malformed ${what}: not valid Unicode`);
}

/** One non-empty line of note text. */
function assertLine(line: unknown, what: string): asserts line is string {
  if (typeof line !== "string" || line === "")
    throw new NoteError("invalid-input", `checkpoint ${what} must be a non-empty string`);
  if (line.includes("\n") || CONTROL.test(line) || LONE_SURROGATE.test(line)) {
    throw new NoteError("invalid-input", `checkpoint ${what} ${preview(line)} must be one line of valid text`);
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

/** SHA-256(name ‖ 0x0A ‖ typed key)[:4]. */
function keyHash(name: string, typed: Uint8Array): Uint8Array {
  return sha256(concat(encoder.encode(name), Uint8Array.of(0x0a), typed)).slice(0, 4);
}

/** The bytes of the parts, one after another. */
export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

/** Standard padded base64 in its one canonical spelling (zero trailing bits), else undefined. */
function decodeBase64(s: string): Uint8Array | undefined {
  if (!BASE64.test(s)) return undefined;
  const bytes = Buffer.from(s, "base64");
  if (bytes.toString("base64") !== s) return undefined;
  return new Uint8Array(bytes);
}

/** A bounded, quoted rendering of untrusted input for error messages. */
function preview(value: unknown): string {
  if (typeof value !== "string") return typeof value;
  return JSON.stringify(value.length > 80 ? value.slice(0, 80) + "…" : value);
}
