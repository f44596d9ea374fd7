/**
 * The migration lookup's verification, as the reader's browser runs it (the /migration page's
 * island): an address's leaf and inclusion proof (`GET /migration/proof/{address}`, the output of
 * `npm run migration -- prove`) against the published signed checkpoint (`/migration/checkpoint`),
 * with the dataset key the page was built with (data/keys/datasets.vkey). Nothing the server says is
 * taken on its word: every step is computed in the page. The keys, the signed checkpoint and the
 * inclusion proof are checked by the project's one verifier (core/tlog/) with WebCrypto — the same
 * checks that ./verify.ts runs over node:crypto (a test holds the two to the same verdicts).
 *
 *   1. keys         each trusted key line is a note verifier key (core/tlog/note.js)
 *   2. checkpoint   a signed note that a trusted key signed, holding a checkpoint, of the migration's origin
 *   3. leaf         the leaf is a snapshot or correction leaf in canonical form (JCS), for the
 *                   address asked; a snapshot leaf's v1 text is exactly balance_shards / 10^6
 *   4. inclusion    RFC 9162 §2.1.3.2: the proof leads from the leaf's hash at its index to the
 *                   checkpoint's root at the checkpoint's size
 */
import { parseMic } from "../money/units.ts";
import { CodedError } from "../errors.ts";
import { fromBase64, toBase64, utf8 } from "../tlog/bytes.js";
import { openCheckpoint } from "../tlog/checkpoint.js";
import { runAsync, webCrypto } from "../tlog/crypto.js";
import { inclusionCheck, leafHash } from "../tlog/merkle.js";
import { NoteError, parseVerifierKey, type ParsedKey } from "../tlog/note.js";

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

const DECIMAL = /^(0|[1-9][0-9]*)$/;

/** Step 1: the trusted keys, from verifier key lines (blank lines and `#` comments skipped). */
export async function trustedKeys(vkeys: string): Promise<ParsedKey[]> {
  const keys: ParsedKey[] = [];
  for (const raw of vkeys.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    try {
      keys.push(await runAsync(parseVerifierKey(line), webCrypto));
    } catch (error) {
      if (!(error instanceof NoteError)) throw error;
      throw new LookupError("key-malformed", error.message);
    }
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
export async function verifiedCheckpoint(note: string, keys: readonly ParsedKey[]): Promise<OpenedCheckpoint> {
  try {
    const { checkpoint, signers } = await runAsync(openCheckpoint(note, keys), webCrypto);
    return {
      origin: checkpoint.origin,
      size: checkpoint.size,
      root: checkpoint.rootHash,
      signedBy: [...new Set(signers.map((k) => k.name))],
    };
  } catch (error) {
    if (!(error instanceof NoteError)) throw error;
    const untrusted = error.code === "bad-signature" || error.code === "no-known-signature";
    throw new LookupError(untrusted ? "checkpoint-untrusted" : "checkpoint-malformed", error.message);
  }
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

/** Step 4: RFC 9162 §2.1.3.2, from the leaf's text. */
export async function verifyInclusion(
  leafText: string,
  index: number,
  size: number,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): Promise<boolean> {
  const leaf = await runAsync(leafHash(utf8.encode(leafText)), webCrypto);
  return runAsync(inclusionCheck(leaf, index, size, proof, root), webCrypto);
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
  const checkpoint = await verifiedCheckpoint(input.checkpoint, keys);
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
