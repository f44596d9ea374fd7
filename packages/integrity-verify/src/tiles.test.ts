import { describe, expect, it } from "vitest";
import { inclusionProof, leafHash as coreLeafHash, verifyInclusion as coreVerifyInclusion } from "../../../core/merkle.ts";
import { TEST_DATASET_SIGNER } from "../../../test/support/api/helpers.ts";
import { sampleEntries, tlogFiles } from "../../../test/support/tlog-tiles.ts";
import { memorySource } from "./source.js";
import { TileReader, tileIndexPath, tilePath, verifyInclusion } from "./tiles.js";
import { parseCheckpoint } from "./ledger.js";

const signer = { ...TEST_DATASET_SIGNER, name: "test.example/ledger" };

function reader(count: number, edit?: (files: Map<string, Uint8Array>) => void) {
  const entries = sampleEntries(count);
  const files = tlogFiles(entries, signer);
  edit?.(files);
  const checkpoint = parseCheckpoint(Buffer.from(files.get("checkpoint")!).toString("utf8").split("\n\n")[0]! + "\n");
  return { entries, checkpoint, tiles: new TileReader(memorySource(files), count) };
}

describe("C2SP tile paths", () => {
  it("writes the index in groups of three digits, all but the last prefixed with x", () => {
    expect(tileIndexPath(0)).toBe("000");
    expect(tileIndexPath(67)).toBe("067");
    expect(tileIndexPath(1000)).toBe("x001/000");
    expect(tileIndexPath(1234067)).toBe("x001/x234/067");
    expect(tilePath(0, 46, 225)).toBe("tile/0/046.p/225");
    expect(tilePath(1, 3, 256)).toBe("tile/1/003");
    expect(tilePath("entries", 1234, 7)).toBe("tile/entries/x001/234.p/7");
  });
});

describe("inclusion proofs read from tiles", () => {
  // Sizes across tile boundaries and levels: one leaf, partial tiles, exactly full tiles, a level-2 tile.
  for (const size of [1, 2, 7, 255, 256, 257, 600, 65_537]) {
    it(`are RFC 9162's proofs and lead to the signed root (tree of ${size})`, async () => {
      const { entries, checkpoint, tiles } = reader(size);
      const leaves = entries.map((e) => coreLeafHash(e));
      const indexes = [...new Set([0, 1, Math.floor(size / 2), 255, 256, size - 2, size - 1].filter((i) => i >= 0 && i < size))];
      for (const i of indexes) {
        const proof = await tiles.inclusionProof(i);
        expect(proof.map((p) => Buffer.from(p).toString("hex")), `leaf ${i}`).toEqual(inclusionProof(leaves, i).map((p) => Buffer.from(p).toString("hex")));
        expect(Buffer.from(await tiles.entry(i)).equals(Buffer.from(entries[i]!))).toBe(true);
        expect(await verifyInclusion(leaves[i]!, i, size, proof, checkpoint.root)).toBe(true);
        expect(coreVerifyInclusion(leaves[i]!, i, size, proof, checkpoint.root)).toBe(true);
        // Another leaf, another index or another size does not verify.
        if (size > 1) {
          expect(await verifyInclusion(leaves[(i + 1) % size]!, i, size, proof, checkpoint.root)).toBe(false);
          expect(await verifyInclusion(leaves[i]!, (i + 1) % size, size, proof, checkpoint.root)).toBe(false);
        }
      }
    });
  }

  it("reads a full tile when the partial one is gone, and refuses a tile of the wrong length", async () => {
    const full = reader(200);
    const grown = tlogFiles(sampleEntries(512), signer);
    // A log that has grown: only full tiles remain, read for the older, smaller tree.
    const older = new TileReader(memorySource(new Map([...grown].filter(([p]) => !p.includes(".p/")))), 200);
    expect(await older.inclusionProof(199)).toEqual(await full.tiles.inclusionProof(199));
    expect(Buffer.from(await older.entry(199)).equals(Buffer.from(await full.tiles.entry(199)))).toBe(true);
    const { tiles } = reader(300, (files) => files.set("tile/0/001.p/44", new Uint8Array(43 * 32)));
    await expect(tiles.inclusionProof(3)).rejects.toMatchObject({ code: "tile-malformed" });
    const missing = reader(300, (files) => files.delete("tile/0/001.p/44"));
    await expect(missing.tiles.inclusionProof(3)).rejects.toMatchObject({ code: "missing" });
  });
});
