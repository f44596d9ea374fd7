import { afterEach, describe, expect, it } from "vitest";
import { verifyCheckpoint } from "../core/checkpoint.ts";
import { canonicalBytes } from "../core/canonical.ts";
import { leafHash, verifyInclusion } from "../core/merkle.ts";
import { generateKeyPair } from "../core/signature.ts";
import { entryInclusion } from "./entry-inclusion.ts";
import { SqliteLedger } from "./sqlite-ledger.ts";

const key = generateKeyPair("ed25519");
const signer = { name: "test/ledger", secretKeyHex: key.secretKey };
let ledger: SqliteLedger;
afterEach(() => ledger?.close());

const burn = (n: number) => ({ type: "mic_burn", payload: { account: "ATLAS", amount_shards: String(n), reason: "fee" } });

describe("entryInclusion", () => {
  it("proves an entry against a signed checkpoint that covers it, signing one only when none does", () => {
    ledger = new SqliteLedger(":memory:", { origin: "test/ledger", signer });
    ledger.append([1, 2, 3, 4, 5].map(burn));
    const first = entryInclusion(ledger, 3)!;
    const checkpoint = verifyCheckpoint(first.checkpoint, [{ name: signer.name, publicKeyHex: key.publicKey }]);
    expect(checkpoint.size).toBe(5);
    expect(verifyInclusion(leafHash(canonicalBytes(first.entry)), 3, first.treeSize, first.proof, checkpoint.rootHash)).toBe(true);
    // The stored checkpoint still covers seq 1: no new one.
    expect(entryInclusion(ledger, 1)!.checkpoint).toBe(first.checkpoint);
    ledger.append([burn(6)]);
    const later = entryInclusion(ledger, 5)!;
    expect(later.treeSize).toBe(6);
    expect(later.checkpoint).not.toBe(first.checkpoint);
  });

  it("is null past the tail and for a seq that is no index", () => {
    ledger = new SqliteLedger(":memory:", { origin: "test/ledger", signer });
    ledger.append([burn(1)]);
    expect(entryInclusion(ledger, 1)).toBeNull();
    expect(entryInclusion(ledger, -1)).toBeNull();
    expect(entryInclusion(ledger, 0.5)).toBeNull();
  });
});
