/**
 * The /migration page's in-browser verifier (core/migration/lookup.ts, WebCrypto) against
 * the project's own (core/checkpoint.ts, core/migration/verify.ts, node:crypto): every address of
 * the published tree verifies in both, and every tampered proof, leaf, checkpoint or key is refused
 * by both — the browser's with the named code.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { verifierKey } from "../core/checkpoint.ts";
import { parseTrustedKeys } from "../core/datapackage/index.ts";
import { generateKeyPair } from "../core/signature.ts";
import { indexLeaves, MIGRATION_ORIGIN, proveLeaf, type LeafProof } from "../core/migration/snapshot.ts";
import { LeafTree } from "../core/migration/tree.ts";
import { verifyLeafProof, verifyMigrationCheckpoint } from "../core/migration/verify.ts";
import { LookupError, verifyLookup, type LookupCode } from "../core/migration/lookup.ts";
import { readMigrationDir } from "../store/migration-dir.ts";

const DATA = join(import.meta.dirname, "../data");
const dir = readMigrationDir(join(DATA, "migration"));
const vkeys = readFileSync(join(DATA, "keys", "datasets.vkey"), "utf8");
const trusted = parseTrustedKeys(vkeys);
const tree = LeafTree.fromTexts(dir.leaves);
const index = indexLeaves(dir.leaves);
const proofOf = (address: string): LeafProof => proveLeaf(tree, dir.leaves, index.get(address)!);

/** The node verdict: the leaf, or the error's code. */
function nodeVerdict(address: string, proof: LeafProof, checkpoint: string): string {
  try {
    return verifyLeafProof(address, proof, verifyMigrationCheckpoint(checkpoint, trusted)).address;
  } catch (error) {
    return `refused ${(error as { code?: string }).code}`;
  }
}

async function browserVerdict(
  address: string,
  proof: unknown,
  checkpoint = dir.checkpoint,
  keys = vkeys,
): Promise<string> {
  try {
    return (await verifyLookup({ address, proof, checkpoint, vkeys: keys, origin: MIGRATION_ORIGIN })).leaf.address;
  } catch (error) {
    if (!(error instanceof LookupError)) throw error;
    return `refused ${error.code}`;
  }
}

describe("the browser's verifier", () => {
  it("verifies every address of the published tree, as the node verifier does", async () => {
    expect(index.size).toBeGreaterThan(10);
    for (const address of index.keys()) {
      expect(nodeVerdict(address, proofOf(address), dir.checkpoint)).toBe(address);
      expect(await browserVerdict(address, proofOf(address))).toBe(address);
    }
    const verified = await verifyLookup({
      address: "sample-legacy-0001",
      proof: proofOf("sample-legacy-0001"),
      checkpoint: dir.checkpoint,
      vkeys,
      origin: MIGRATION_ORIGIN,
    });
    expect(verified).toMatchObject({
      leaf: { balance_shards: "1005000", v1_balance_gic: "1.005" },
      treeSize: dir.leaves.length,
      signedBy: ["integrity-platform.example/datasets"],
    });
  });

  it("refuses every tampering, and the node verifier refuses each too", async () => {
    const address = "ATLAS";
    const good = proofOf(address);
    const other = proofOf("HERMES");
    const flip = (b64: string) =>
      Buffer.from(Buffer.from(b64, "base64").map((x, i) => (i === 0 ? x ^ 1 : x))).toString("base64");
    const [text, signatures] = [
      dir.checkpoint.slice(0, dir.checkpoint.lastIndexOf("\n\n") + 1),
      dir.checkpoint.slice(dir.checkpoint.lastIndexOf("\n\n") + 1),
    ];
    const lines = text.split("\n");
    const cases: [string, unknown, string, LookupCode][] = [
      [
        "a flipped proof hash",
        { ...good, proof: [flip(good.proof[0]!), ...good.proof.slice(1)] },
        dir.checkpoint,
        "inclusion-failed",
      ],
      ["a proof hash left out", { ...good, proof: good.proof.slice(1) }, dir.checkpoint, "inclusion-failed"],
      ["another index", { ...good, index: good.index + 1 }, dir.checkpoint, "inclusion-failed"],
      [
        "a raised balance",
        { ...good, leaf: good.leaf.replace('"balance_shards":"5', '"balance_shards":"6') },
        dir.checkpoint,
        "conversion-mismatch",
      ],
      [
        "a raised balance and its v1 text",
        {
          ...good,
          leaf: good.leaf
            .replace('"balance_shards":"5', '"balance_shards":"6')
            .replace('"v1_balance_gic":"5', '"v1_balance_gic":"6'),
        },
        dir.checkpoint,
        "inclusion-failed",
      ],
      ["another address's proof", other, dir.checkpoint, "wrong-address"],
      [
        "a leaf that is not canonical",
        { ...good, leaf: good.leaf.replace('{"address"', '{ "address"') },
        dir.checkpoint,
        "leaf-malformed",
      ],
      ["another tree size", { ...good, tree_size: good.tree_size + 1 }, dir.checkpoint, "tree-size-mismatch"],
      ["a proof that is no proof", { leaf: good.leaf }, dir.checkpoint, "proof-malformed"],
      [
        "a checkpoint with another root",
        good,
        [lines[0], lines[1], flip(lines[2]!), ""].join("\n") + signatures,
        "checkpoint-untrusted",
      ],
      [
        "a checkpoint with another size",
        good,
        [lines[0], String(Number(lines[1]) + 1), lines[2], ""].join("\n") + signatures,
        "checkpoint-untrusted",
      ],
      ["a checkpoint without signatures", good, `${text}\n`, "checkpoint-malformed"],
    ];
    for (const [what, proof, checkpoint, code] of cases) {
      expect(await browserVerdict(address, proof, checkpoint), what).toBe(`refused ${code}`);
      expect(nodeVerdict(address, proof as LeafProof, checkpoint), what).toMatch(/^refused /);
    }
    // Signed only by keys the page does not trust; a key line whose id does not match its key.
    const stranger = verifierKey("integrity-platform.example/datasets", generateKeyPair("ed25519").publicKey);
    // A trusted key whose base64 holds a "+" (the separator of the key line) is read whole.
    let plus = stranger;
    while (plus.split("+").length < 4)
      plus = verifierKey("integrity-platform.example/datasets", generateKeyPair("ed25519").publicKey);
    expect(await browserVerdict(address, good, dir.checkpoint, plus)).toBe("refused checkpoint-untrusted");
    expect(await browserVerdict(address, good, dir.checkpoint, stranger)).toBe("refused checkpoint-untrusted");
    expect(await browserVerdict(address, good, dir.checkpoint, stranger.replace(/\+[0-9a-f]{8}\+/, "+00000000+"))).toBe(
      "refused key-malformed",
    );
  });
});
