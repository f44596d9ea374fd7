import { beforeAll, describe, expect, it } from "vitest";
import { canonicalize } from "../canonical.ts";
import { parseCheckpoint, signCheckpoint, type NoteVerifier } from "../checkpoint.ts";
import { generateKeyPair } from "../signature.ts";
import { convertV1Export } from "./convert.ts";
import {
  MIGRATION_ORIGIN,
  correctionLeaf,
  indexLeaves,
  jsonlRoot,
  parseLeaf,
  proveConsistency,
  proveLeaf,
  signTree,
  snapshotBalances,
  snapshotLeaf,
  type LeafProof,
} from "./snapshot.ts";
import { LeafTree } from "./tree.ts";
import {
  MigrationVerifyError,
  verifyCheckpointConsistency,
  verifyLeafProof,
  verifyMigrationCheckpoint,
  type MigrationVerifyCode,
} from "./verify.ts";

const KEY_NAME = "integrity-platform.example/datasets";
const key = generateKeyPair("ed25519");
const signer = { name: KEY_NAME, secretKeyHex: key.secretKey };
const trusted: NoteVerifier[] = [{ name: KEY_NAME, publicKeyHex: key.publicKey }];

const EXPORT = [
  '{"address":"ATLAS","balance_gic":1.005}',
  '{"address":"HERMES","balance_gic":1E2}',
  '{"address":"legacy-1","balance_gic":9223372036854.775807}',
  '{"address":"AURORA","balance_gic":0.000001}',
  '{"address":"dup","balance_gic":3}',
  '{"address":"dup","balance_gic":4}',
  '{"address":"ZENITH","balance_gic":12}',
];

function expectCode(fn: () => unknown, code: MigrationVerifyCode): void {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(MigrationVerifyError);
    expect((error as MigrationVerifyError).code).toBe(code);
    return;
  }
  throw new Error(`expected a ${code} failure`);
}

describe("snapshot leaves", () => {
  const c = convertV1Export(EXPORT);
  const leaves = c.balances.map(snapshotLeaf);

  it("are the JCS of {address, balance_shards, v1_balance_gic}, sorted by address", () => {
    expect(leaves).toEqual([
      '{"address":"ATLAS","balance_shards":"1005000","v1_balance_gic":"1.005"}',
      '{"address":"AURORA","balance_shards":"1","v1_balance_gic":"0.000001"}',
      '{"address":"HERMES","balance_shards":"100000000","v1_balance_gic":"1E2"}',
      '{"address":"ZENITH","balance_shards":"12000000","v1_balance_gic":"12"}',
      '{"address":"legacy-1","balance_shards":"9223372036854775807","v1_balance_gic":"9223372036854.775807"}',
    ]);
    for (const leaf of leaves) expect(canonicalize(JSON.parse(leaf))).toBe(leaf);
  });

  it("parse strictly", () => {
    for (const leaf of leaves) expect(parseLeaf(leaf)).toEqual(JSON.parse(leaf));
    const correction = correctionLeaf({
      address: "dup",
      shards: 4_000_000n,
      note: "support ticket 7: the later line is right",
    });
    expect(parseLeaf(correction)).toEqual({
      address: "dup",
      balance_shards: "4000000",
      correction: "support ticket 7: the later line is right",
    });
    for (const bad of [
      '{"balance_shards":"1","address":"a","v1_balance_gic":"1"}', // not canonical
      '{"address":"a","balance_shards":"01","v1_balance_gic":"1"}',
      '{"address":"a","balance_shards":"1.5","v1_balance_gic":"1"}',
      '{"address":"a b","balance_shards":"1","v1_balance_gic":"1"}',
      '{"address":"a","balance_shards":"1"}',
      '{"address":"a","balance_shards":"1","correction":" "}',
      '{"address":"a","balance_shards":"1","extra":"1","v1_balance_gic":"1"}',
      '{"address":"a","balance_shards":"9223372036854775808","correction":"over the maximum"}',
      "[]",
      "",
    ]) {
      expect(parseLeaf(bad), bad).toBeNull();
    }
  });

  it("give each address its last leaf", () => {
    const all = [
      ...leaves,
      correctionLeaf({ address: "ATLAS", shards: 7n, note: "fixed" }),
      correctionLeaf({ address: "dup", shards: 4n, note: "settled" }),
    ];
    const index = indexLeaves(all);
    expect(index.get("ATLAS")).toBe(5);
    expect(index.get("dup")).toBe(6);
    expect(index.get("HERMES")).toBe(2);
    expect(snapshotBalances(all).get("ATLAS")).toBe(7n);
  });
});

describe("the streamed root of a JSONL text", () => {
  it("is the whole tree's root", () => {
    for (const n of [0, 1, 2, 3, 7, 8, 33]) {
      const leaves = Array.from({ length: n }, (_, i) =>
        correctionLeaf({ address: `a${i}`, shards: BigInt(i), note: i % 2 ? "é ✓" : "note" }),
      );
      const text = leaves.map((l) => `${l}\n`).join("");
      expect(jsonlRoot(text)).toEqual({ size: n, rootHash: LeafTree.fromTexts(leaves).rootHash() });
    }
    expect(() => jsonlRoot('{"a":1}')).toThrow(/newline/);
  });
});

describe("proofs against the signed checkpoint", () => {
  const leaves = convertV1Export(EXPORT).balances.map(snapshotLeaf);
  const { tree, checkpoint } = signTree(leaves, signer);
  let verified: ReturnType<typeof verifyMigrationCheckpoint>;
  beforeAll(() => {
    verified = verifyMigrationCheckpoint(checkpoint, trusted);
  });

  it("verify for every address", () => {
    expect(verified.origin).toBe(MIGRATION_ORIGIN);
    expect(verified.size).toBe(5);
    for (const [address, index] of indexLeaves(leaves)) {
      const proof = proveLeaf(tree, leaves, index);
      expect(verifyLeafProof(address, proof, verified).address).toBe(address);
    }
  });

  it("fail when one byte of the leaf changes", () => {
    const proof = proveLeaf(tree, leaves, 0);
    const tampered = { ...proof, leaf: proof.leaf.replace('"1005000"', '"1005001"') };
    expect(tampered.leaf).not.toBe(proof.leaf);
    expectCode(() => verifyLeafProof("ATLAS", tampered, verified), "inclusion-failed");
  });

  it("fail when one byte of a proof hash changes", () => {
    const proof = proveLeaf(tree, leaves, 2);
    const bytes = Buffer.from(proof.proof[0]!, "base64");
    bytes[0]! ^= 1;
    expectCode(
      () =>
        verifyLeafProof("HERMES", { ...proof, proof: [bytes.toString("base64"), ...proof.proof.slice(1)] }, verified),
      "inclusion-failed",
    );
  });

  it("fail at another index, another size, or for another address", () => {
    const proof = proveLeaf(tree, leaves, 1);
    expectCode(() => verifyLeafProof("AURORA", { ...proof, index: 0 }, verified), "inclusion-failed");
    expectCode(() => verifyLeafProof("AURORA", { ...proof, tree_size: 4 }, verified), "tree-size-mismatch");
    expectCode(() => verifyLeafProof("ATLAS", proof, verified), "wrong-address");
    expectCode(() => verifyLeafProof("AURORA", { ...proof, proof: ["nope"] }, verified), "proof-malformed");
    expectCode(
      () => verifyLeafProof("AURORA", { ...proof, leaf: proof.leaf.replace("{", "{ ") }, verified),
      "leaf-malformed",
    );
    expectCode(() => verifyLeafProof("AURORA", null as unknown as LeafProof, verified), "proof-malformed");
  });

  it("trust only the keys they are given", () => {
    const other = generateKeyPair("ed25519");
    // A key with the same name is still another key.
    expectCode(
      () => verifyMigrationCheckpoint(checkpoint, [{ name: KEY_NAME, publicKeyHex: other.publicKey }]),
      "checkpoint-untrusted",
    );
    // A forged checkpoint over a forged tree, signed with an attacker's key, fails against the real one.
    const forgedLeaves = [...leaves];
    forgedLeaves[0] = forgedLeaves[0]!.replace('"1005000"', '"9005000"');
    const forged = signTree(forgedLeaves, { name: KEY_NAME, secretKeyHex: other.secretKey });
    expectCode(() => verifyMigrationCheckpoint(forged.checkpoint, trusted), "checkpoint-untrusted");
    // One byte of the note changed.
    expectCode(() => verifyMigrationCheckpoint(checkpoint.replace(`\n5\n`, `\n6\n`), trusted), "checkpoint-untrusted");
  });

  it("refuse a checkpoint of another log", () => {
    const note = signCheckpoint(
      { origin: "integrity-platform.example/pulse", size: tree.size, rootHash: tree.rootHash() },
      signer,
    );
    expectCode(() => verifyMigrationCheckpoint(note, trusted), "wrong-origin");
  });
});

describe("review rounds", () => {
  const leaves = convertV1Export(EXPORT).balances.map(snapshotLeaf);
  const first = signTree(leaves, signer);
  const corrected = [
    ...leaves,
    correctionLeaf({ address: "dup", shards: 4_000_000n, note: "support: the second line is the account's balance" }),
  ];
  const second = signTree(corrected, signer);

  it("publish a checkpoint consistent with the first", () => {
    const older = verifyMigrationCheckpoint(first.checkpoint, trusted);
    const newer = verifyMigrationCheckpoint(second.checkpoint, trusted);
    const record = proveConsistency(second.tree, older.size);
    expect(record.old_size).toBe(5);
    expect(record.new_size).toBe(6);
    expect(() => verifyCheckpointConsistency(older, newer, record)).not.toThrow();
    // The corrected balance proves against the new checkpoint.
    const proof = proveLeaf(second.tree, corrected, 5);
    expect(verifyLeafProof("dup", proof, newer).balance_shards).toBe("4000000");
    // And the old leaves still prove against the new one.
    expect(verifyLeafProof("ATLAS", proveLeaf(second.tree, corrected, 0), newer).balance_shards).toBe("1005000");
  });

  it("expose a rewritten history: a changed leaf is not consistent with the first checkpoint", () => {
    const rewritten = [...corrected];
    rewritten[0] = correctionLeaf({ address: "ATLAS", shards: 1n, note: "rewritten in place" });
    const third = signTree(rewritten, signer);
    const older = parseCheckpoint(first.checkpoint.slice(0, first.checkpoint.indexOf("\n\n") + 1));
    const newer = verifyMigrationCheckpoint(third.checkpoint, trusted);
    expectCode(() => verifyCheckpointConsistency(older, newer, proveConsistency(third.tree, 5)), "consistency-failed");
    expectCode(
      () => verifyCheckpointConsistency(older, newer, { ...proveConsistency(third.tree, 4), new_size: 6 }),
      "consistency-failed",
    );
  });

  it("a tree of one leaf still proves", () => {
    const one = LeafTree.fromTexts([leaves[0]!]);
    expect(one.inclusionProof(0)).toEqual([]);
  });
});
