import { afterEach, describe, expect, it } from "vitest";
import { verifyCheckpoint } from "../../core/checkpoint.ts";
import { canonicalBytes } from "../../core/canonical.ts";
import { leafHash, verifyInclusion } from "../../core/merkle.ts";
import { generateKeyPair } from "../../core/signature.ts";
import { join } from "node:path";
import { coverTail, entryInclusion } from "./entry-inclusion.ts";
import { Ledger } from "./ledger.ts";
import { openLedgerStore } from "../open-ledger.ts";
import { tempDir } from "../../test/support/store/helpers.ts";

const key = generateKeyPair("ed25519");
const signer = { name: "test/ledger", secretKeyHex: key.secretKey };
let ledger: Ledger;
afterEach(() => ledger?.close());

const burn = (n: number) => ({
  type: "mic_burn",
  payload: { account: "ATLAS", amount_shards: String(n), reason: "fee" },
});

const checkpointRows = async (l: Ledger) =>
  (await l.verify()).problems.length === 0 ? (await l.verify()).checkpointsChecked : -1;

describe("entryInclusion", () => {
  it("proves an entry against the checkpoint its write signed, and never writes", async () => {
    ledger = await openLedgerStore({ path: ":memory:", origin: "test/ledger", signer });
    await ledger.append([1, 2, 3, 4, 5].map(burn));
    expect(await checkpointRows(ledger)).toBe(1); // the write signed its tail
    const first = await entryInclusion(ledger, 3);
    if (first?.status !== "proved") throw new Error("not proved");
    const checkpoint = verifyCheckpoint(first.checkpoint, [{ name: signer.name, publicKeyHex: key.publicKey }]);
    expect(checkpoint.size).toBe(5);
    expect(
      verifyInclusion(leafHash(canonicalBytes(first.entry)), 3, first.treeSize, first.proof, checkpoint.rootHash),
    ).toBe(true);
    await ledger.append([burn(6)]);
    const later = await entryInclusion(ledger, 1);
    expect(later).toMatchObject({ status: "proved", treeSize: 6 });
    expect(await checkpointRows(ledger)).toBe(2); // the reads wrote nothing
  });

  it("is pending while no signed checkpoint covers the entry (a writer without the key appended it); coverTail signs one", async () => {
    const { dir, cleanup } = tempDir();
    const path = join(dir, "l.sqlite");
    const own = await openLedgerStore({ path: path, origin: "test/ledger", signer });
    const keyless = await openLedgerStore({ path: path, origin: "test/ledger" });
    try {
      await own.append([burn(1)]);
      keyless.append([burn(2), burn(3)]);
      expect(await entryInclusion(own, 0)).toMatchObject({ status: "proved", treeSize: 1 });
      expect(await entryInclusion(own, 2)).toMatchObject({ status: "pending", checkpointSize: 1, entry: { seq: 2 } });
      expect((await own.verify()).checkpointsChecked).toBe(1);
      expect(await coverTail(own)).toBe(true);
      expect(await coverTail(own)).toBe(false); // covered: nothing to sign
      expect(await entryInclusion(own, 2)).toMatchObject({ status: "proved", treeSize: 3 });
    } finally {
      own.close();
      keyless.close();
      cleanup();
    }
  });

  it("is null past the tail and for a seq that is no index", async () => {
    ledger = await openLedgerStore({ path: ":memory:", origin: "test/ledger", signer });
    await ledger.append([burn(1)]);
    expect(await entryInclusion(ledger, 1)).toBeNull();
    expect(await entryInclusion(ledger, -1)).toBeNull();
    expect(await entryInclusion(ledger, 0.5)).toBeNull();
  });
});
