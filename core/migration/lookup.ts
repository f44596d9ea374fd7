/**
 * The migration lookup's verifier, run in the reader's browser (the /migration page's island): an
 * address's leaf and inclusion proof (`GET /migration/proof/{address}`, the output of
 * `npm run migration -- prove`) against the published signed checkpoint (`/migration/checkpoint`),
 * with the dataset key the page was built with (data/keys/datasets.vkey). Nothing the server says is
 * taken on its word: every step is computed here with WebCrypto (SHA-256, Ed25519) — the same checks
 * as core/checkpoint.ts and core/migration/verify.ts, which use node:crypto and so cannot run in a
 * page (a test holds the two to the same verdicts).
 *
 *   1. keys         each trusted key line is `<name>+<8 hex key id>+<base64(0x01 ‖ Ed25519 key)>`
 *                   and its key id is SHA-256(name ‖ 0x0A ‖ 0x01 ‖ key)[:4]
 *   2. checkpoint   the signed note splits at its last blank line; a signature line of a trusted key
 *                   must verify over the text (a failing one refuses the note), and one must exist;
 *                   the text is `<origin>\n<size>\n<base64 root>\n`, origin the migration's
 *   3. leaf         the leaf is a snapshot or correction leaf in canonical form (JCS), for the
 *                   address asked; a snapshot leaf's v1 text is exactly balance_shards / 10^6
 *   4. inclusion    RFC 9162 §2.1.3.2: the proof leads from the leaf's hash at its index to the
 *                   checkpoint's root at the checkpoint's size
 */
import { parseMic } from "../balance/units.ts";
import { CodedError } from "../errors.ts";

export type LookupCode =
  | "key-malformed"
  | "checkpoint-malformed"
  | "checkpoint-untrusted"
  | "wrong-origin"
  | "proof-malformed"
  | "leaf-malformed"
  | "wrong-address"
  | "conversion-mismatch"
  | "tree-size-mismatch"
  | "inclusion-failed";

export class LookupError extends CodedError<LookupCode> {
  // Spelled out: this module runs in the browser, where a minified bundle renames classes.
  override name = "LookupError";
}

export interface MigrationLeaf {
  address: string;
  balance_shards: string;
  v1_balance_gic?: string;
  correction?: string;
}

export interface VerifiedLookup {
  leaf: MigrationLeaf;
  index: number;
  treeSize: number;
  /** The checkpoint's root, base64. */
  root: string;
  /** Names of the trusted keys whose signatures verified. */
  signedBy: string[];
}

const encoder = new TextEncoder();
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DECIMAL = /^(0|[1-9][0-9]*)$/;
const SIGNATURE_PREFIX = "\u2014 ";

function fromBase64(text: string): Uint8Array | null {
  if (!BASE64.test(text)) return null;
  const binary = atob(text);
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  // One spelling per value: the canonical encoding only.
  return toBase64(bytes) === text ? bytes : null;
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

async function sha256(...parts: Uint8Array[]): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", concat(...parts)));
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

interface TrustedKey {
  name: string;
  id: Uint8Array;
  key: CryptoKey;
}

/** Step 1: the trusted keys, from verifier key lines (blank lines and `#` comments skipped). */
export async function trustedKeys(vkeys: string): Promise<TrustedKey[]> {
  const keys: TrustedKey[] = [];
  for (const raw of vkeys.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    // name+id+key: the name holds no "+", the base64 key may (so only the first two separate).
    const first = line.indexOf("+");
    const second = first < 0 ? -1 : line.indexOf("+", first + 1);
    const name = first < 0 ? "" : line.slice(0, first);
    const idHex = second < 0 ? "" : line.slice(first + 1, second);
    const typed = second < 0 ? null : fromBase64(line.slice(second + 1));
    if (name === "" || !/^[0-9a-f]{8}$/i.test(idHex) || !typed || typed.length !== 33 || typed[0] !== 0x01) {
      throw new LookupError("key-malformed", `not an Ed25519 verifier key: ${line.slice(0, 80)}`);
    }
    const id = (await sha256(encoder.encode(`${name}\n`), typed)).subarray(0, 4);
    if (Array.from(id, (b) => b.toString(16).padStart(2, "0")).join("") !== idHex.toLowerCase())
      throw new LookupError("key-malformed", `the key id of ${name} does not match its key`);
    const key = await crypto.subtle.importKey("raw", typed.slice(1), { name: "Ed25519" }, false, ["verify"]);
    keys.push({ name, id, key });
  }
  if (keys.length === 0) throw new LookupError("key-malformed", "no trusted key");
  return keys;
}

export interface OpenedCheckpoint {
  origin: string;
  size: number;
  root: Uint8Array;
  signedBy: string[];
}

/** Step 2: the signed checkpoint, opened with the trusted keys only. */
export async function openCheckpoint(note: string, keys: readonly TrustedKey[]): Promise<OpenedCheckpoint> {
  const split = note.lastIndexOf("\n\n");
  if (split < 0 || !note.endsWith("\n"))
    throw new LookupError("checkpoint-malformed", "the checkpoint is not a signed note");
  const text = note.slice(0, split + 1);
  const signedBy: string[] = [];
  for (const line of note.slice(split + 2, -1).split("\n")) {
    if (!line.startsWith(SIGNATURE_PREFIX))
      throw new LookupError("checkpoint-malformed", "a signature line does not start with an em dash");
    const [name = "", sigText = "", ...rest] = line.slice(SIGNATURE_PREFIX.length).split(" ");
    const bytes = fromBase64(sigText);
    if (rest.length > 0 || !bytes || bytes.length < 5)
      throw new LookupError("checkpoint-malformed", `malformed signature line of ${name}`);
    const key = keys.find((k) => k.name === name && equal(k.id, bytes.subarray(0, 4)));
    if (!key) continue; // a key this page does not trust proves nothing, and refutes nothing
    if (
      bytes.length !== 4 + 64 ||
      !(await crypto.subtle.verify("Ed25519", key.key, bytes.slice(4), encoder.encode(text)))
    ) {
      throw new LookupError("checkpoint-untrusted", `the signature of ${name} does not verify`);
    }
    signedBy.push(name);
  }
  if (signedBy.length === 0) throw new LookupError("checkpoint-untrusted", "no trusted key signed the checkpoint");
  const [origin = "", sizeLine = "", rootLine = "", ...extensions] = text.slice(0, -1).split("\n");
  const root = fromBase64(rootLine);
  if (
    origin === "" ||
    !DECIMAL.test(sizeLine) ||
    !Number.isSafeInteger(Number(sizeLine)) ||
    !root ||
    root.length !== 32 ||
    extensions.some((e) => e === "")
  ) {
    throw new LookupError("checkpoint-malformed", "the checkpoint's text is not origin, size and root hash");
  }
  return { origin, size: Number(sizeLine), root, signedBy };
}

/** Step 3: the leaf, strictly: canonical, one of the two kinds, for `address`, its conversion exact. */
export function checkLeaf(address: string, text: string): MigrationLeaf {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new LookupError("leaf-malformed", "the leaf is not JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new LookupError("leaf-malformed", "the leaf is not an object");
  const leaf = value as Record<string, unknown>;
  const keys = Object.keys(leaf).sort();
  const kind = keys.join(",");
  if (kind !== "address,balance_shards,v1_balance_gic" && kind !== "address,balance_shards,correction")
    throw new LookupError("leaf-malformed", `the leaf has the members ${kind}`);
  if (keys.some((k) => typeof leaf[k] !== "string"))
    throw new LookupError("leaf-malformed", "every member of a leaf is a string");
  // JCS of an object of strings: members sorted, JSON.stringify's string form (RFC 8785 §3.2.2.2).
  if (JSON.stringify(Object.fromEntries(keys.map((k) => [k, leaf[k]]))) !== text)
    throw new LookupError("leaf-malformed", "the leaf is not in canonical form (JCS)");
  const typed = leaf as unknown as MigrationLeaf;
  if (typed.address !== address)
    throw new LookupError("wrong-address", `the leaf is for ${typed.address}, not ${address}`);
  if (!DECIMAL.test(typed.balance_shards))
    throw new LookupError("leaf-malformed", "balance_shards is not a whole number of shards");
  if (typed.v1_balance_gic !== undefined) {
    const read = parseMic(typed.v1_balance_gic);
    if (!read.ok || read.shards !== BigInt(typed.balance_shards))
      throw new LookupError("conversion-mismatch", `${typed.v1_balance_gic} GIC is not ${typed.balance_shards} shards`);
  }
  return typed;
}

/** Step 4: RFC 9162 §2.1.3.2, with arithmetic that holds for any safe-integer size. */
export async function verifyInclusion(
  leafText: string,
  index: number,
  size: number,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): Promise<boolean> {
  if (index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = await sha256(new Uint8Array([0x00]), encoder.encode(leafText));
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = await sha256(new Uint8Array([0x01]), p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = await sha256(new Uint8Array([0x01]), r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equal(r, root);
}

/** The whole lookup: every step, or the LookupError of the first that fails. */
export async function verifyLookup(input: {
  address: string;
  proof: unknown;
  checkpoint: string;
  vkeys: string;
  origin: string;
}): Promise<VerifiedLookup> {
  const keys = await trustedKeys(input.vkeys);
  const checkpoint = await openCheckpoint(input.checkpoint, keys);
  if (checkpoint.origin !== input.origin)
    throw new LookupError("wrong-origin", `the checkpoint is of ${checkpoint.origin}, not ${input.origin}`);
  const p = input.proof as { index?: unknown; tree_size?: unknown; leaf?: unknown; proof?: unknown } | null;
  if (
    typeof p !== "object" ||
    p === null ||
    !Number.isSafeInteger(p.index) ||
    !Number.isSafeInteger(p.tree_size) ||
    typeof p.leaf !== "string" ||
    !Array.isArray(p.proof) ||
    p.proof.length > 64
  ) {
    throw new LookupError(
      "proof-malformed",
      "the proof needs an integer index and tree_size, a leaf and at most 64 hashes",
    );
  }
  const hashes = p.proof.map((h) => (typeof h === "string" ? fromBase64(h) : null));
  if (hashes.some((h) => h === null || h.length !== 32))
    throw new LookupError("proof-malformed", "a proof hash is not base64 of 32 bytes");
  const index = p.index as number;
  const treeSize = p.tree_size as number;
  const leaf = checkLeaf(input.address, p.leaf);
  if (treeSize !== checkpoint.size)
    throw new LookupError(
      "tree-size-mismatch",
      `the proof is for ${treeSize} leaves, the checkpoint signs ${checkpoint.size}`,
    );
  if (index < 0 || !(await verifyInclusion(p.leaf, index, treeSize, hashes as Uint8Array[], checkpoint.root))) {
    throw new LookupError("inclusion-failed", `the leaf at index ${index} does not lead to the signed root`);
  }
  return { leaf, index, treeSize, root: toBase64(checkpoint.root), signedBy: checkpoint.signedBy };
}
