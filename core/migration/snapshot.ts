/**
 * The verification tree of the migration snapshot.
 *
 * Leaves, one line each, each line's UTF-8 bytes an RFC 9162 leaf and the JCS (RFC 8785) of:
 *   snapshot leaf    {"address", "balance_shards", "v1_balance_gic"}  — the converted balance, and
 *                    the v1 export's number text it came from, so a reader can check
 *                    balance_shards / 1,000,000 = v1_balance_gic from the leaf alone;
 *   correction leaf  {"address", "balance_shards", "correction"}      — a balance settled during
 *                    the 24-hour review, with the reason.
 * The snapshot's leaves come first, sorted by address; corrections are appended after them, round
 * by round, so each new checkpoint is consistent with the earlier ones. An address's balance is its
 * last leaf.
 *
 * Checkpoints are C2SP tlog-checkpoints with origin MIGRATION_ORIGIN, signed with the dataset key.
 */
import { canonicalize } from "../canonical.ts";
import { signCheckpoint, type NoteSigner } from "../checkpoint.ts";
import { isAddress } from "../money/address.ts";
import { MAX_BALANCE_SHARDS } from "../money/units.ts";
import type { ConvertedBalance } from "./convert.ts";
import { StreamingRoot } from "../merkle-stream.ts";
import { LeafTree } from "./tree.ts";

export const MIGRATION_ORIGIN = "integrity-platform.example/migration/v1-v2";

export interface SnapshotLeaf {
  address: string;
  balance_shards: string;
  v1_balance_gic?: string;
  correction?: string;
}

const SHARDS = /^(0|[1-9][0-9]*)$/;
const V1_NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

/**
 * The leaf text of a converted balance. Every member is printable ASCII without quotes or
 * backslashes (an address, digits, a JSON number's text), so this template is its JCS.
 */
export function snapshotLeaf(b: Pick<ConvertedBalance, "address" | "shards" | "v1Text">): string {
  return `{"address":"${b.address}","balance_shards":"${b.shards}","v1_balance_gic":"${b.v1Text}"}`;
}

export interface Correction {
  address: string;
  shards: bigint;
  /** Why: the support decision, in words. */
  note: string;
}

export function correctionLeaf(c: Correction): string {
  return canonicalize({ address: c.address, balance_shards: c.shards.toString(), correction: c.note });
}

/** Reads a leaf line strictly: canonical, the members of one of the two kinds, a valid address and amount. */
export function parseLeaf(text: string): SnapshotLeaf | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const leaf = value as Record<string, unknown>;
  const keys = Object.keys(leaf).sort().join(",");
  if (keys !== "address,balance_shards,v1_balance_gic" && keys !== "address,balance_shards,correction") return null;
  if (!isAddress(leaf.address) || typeof leaf.balance_shards !== "string" || !SHARDS.test(leaf.balance_shards))
    return null;
  if (BigInt(leaf.balance_shards) > MAX_BALANCE_SHARDS) return null;
  if ("v1_balance_gic" in leaf && (typeof leaf.v1_balance_gic !== "string" || !V1_NUMBER.test(leaf.v1_balance_gic)))
    return null;
  if ("correction" in leaf && (typeof leaf.correction !== "string" || leaf.correction.trim() === "")) return null;
  if (canonicalize(leaf) !== text) return null;
  return leaf as unknown as SnapshotLeaf;
}

/** The address of a leaf line written by this module, read without parsing the line. */
export function leafAddress(text: string): string | null {
  const prefix = '{"address":"';
  if (!text.startsWith(prefix)) return null;
  const end = text.indexOf('"', prefix.length);
  return end < 0 ? null : text.slice(prefix.length, end);
}

/** Address → index of its last leaf. */
export function indexLeaves(leaves: readonly string[]): Map<string, number> {
  const index = new Map<string, number>();
  for (let i = 0; i < leaves.length; i++) {
    const address = leafAddress(leaves[i]!);
    if (address !== null) index.set(address, i);
  }
  return index;
}

/** The effective balances: address → shards of its last leaf. Throws on a leaf that does not parse. */
export function snapshotBalances(leaves: readonly string[]): Map<string, bigint> {
  const balances = new Map<string, bigint>();
  leaves.forEach((text, i) => {
    const leaf = parseLeaf(text);
    if (!leaf) throw new Error(`leaf ${i} is not a snapshot or correction leaf in canonical form`);
    balances.set(leaf.address, BigInt(leaf.balance_shards));
  });
  return balances;
}

/**
 * The RFC 9162 root of the leaves given as JSONL text (each leaf a line ending in "\n"), streamed:
 * one UTF-8 encoding and each hash computed once (core/merkle-stream.ts). JCS never holds a raw
 * newline or U+0000, so the newlines become the 0x00 leaf prefixes in place.
 */
export function jsonlRoot(jsonl: string): { size: number; rootHash: Uint8Array } {
  const stream = new StreamingRoot();
  if (jsonl !== "") {
    if (!jsonl.endsWith("\n")) throw new Error("JSONL text must end each line with a newline");
    const bytes = Buffer.allocUnsafe(Buffer.byteLength(jsonl));
    bytes[0] = 0x00;
    bytes.write(jsonl.slice(0, -1), 1);
    for (let at = bytes.indexOf(0x0a, 1); at >= 0; at = bytes.indexOf(0x0a, at + 1)) bytes[at] = 0x00;
    stream.appendLeafInputs(bytes);
  }
  return { size: stream.size, rootHash: stream.root() };
}

/** The signed checkpoint of leaves given as JSONL text, without building the whole tree (a snapshot needs only its root). */
export function signJsonl(
  jsonl: string,
  signer: NoteSigner,
): { size: number; rootHash: Uint8Array; checkpoint: string } {
  const { size, rootHash } = jsonlRoot(jsonl);
  return { size, rootHash, checkpoint: signCheckpoint({ origin: MIGRATION_ORIGIN, size, rootHash }, signer) };
}

export interface SignedTree {
  tree: LeafTree;
  /** The signed checkpoint note. */
  checkpoint: string;
}

/** Builds the whole tree over the leaves (for proofs) and signs its checkpoint. */
export function signTree(leaves: readonly string[], signer: NoteSigner): SignedTree {
  const tree = LeafTree.fromTexts(leaves);
  const checkpoint = signCheckpoint({ origin: MIGRATION_ORIGIN, size: tree.size, rootHash: tree.rootHash() }, signer);
  return { tree, checkpoint };
}

/** The inclusion proof of one leaf, as `npm run migration -- prove` prints it. */
export interface LeafProof {
  index: number;
  tree_size: number;
  /** The leaf's text (its UTF-8 bytes are the RFC 9162 leaf). */
  leaf: string;
  /** Base64 hashes, leaf side first. */
  proof: string[];
}

export function proveLeaf(tree: LeafTree, leaves: readonly string[], index: number): LeafProof {
  return {
    index,
    tree_size: tree.size,
    leaf: leaves[index]!,
    proof: tree.inclusionProof(index).map((h) => Buffer.from(h).toString("base64")),
  };
}

/** The consistency proof between two published checkpoints. */
export interface ConsistencyRecord {
  old_size: number;
  new_size: number;
  /** Base64 hashes (RFC 9162 §2.1.4). */
  proof: string[];
}

export function proveConsistency(tree: LeafTree, oldSize: number, newSize = tree.size): ConsistencyRecord {
  return {
    old_size: oldSize,
    new_size: newSize,
    proof: tree.consistencyProof(oldSize, newSize).map((h) => Buffer.from(h).toString("base64")),
  };
}
