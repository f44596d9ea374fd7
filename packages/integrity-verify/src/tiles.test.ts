import { describe, expect, it } from "vitest";
import {
  consistencyProofWith,
  inclusionProof,
  leafHash as coreLeafHash,
  rangeHasher,
  rootHash,
  verifyConsistency as coreVerifyConsistency,
  verifyInclusion as coreVerifyInclusion,
} from "../../../core/merkle.ts";
import { TEST_DATASET_SIGNER } from "../../../test/support/api/helpers.ts";
import { sampleEntries, tlogFiles } from "../../../test/support/tlog-tiles.ts";
import { memorySource } from "./source.js";
import { CHECKPOINT_LIMIT } from "./limits.js";
import { TileReader, tileIndexPath, tilePath, verifyConsistency, verifyInclusion } from "./tiles.js";
import { parseCheckpoint, verifyLedgerEntry } from "./ledger.js";
import { pinnedKeys } from "./keys.js";
import { signCheckpoint, verifierKey } from "../../../core/checkpoint.ts";
import { publicKeyFromSecret } from "../../../core/signature.ts";

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

describe("envelope bundles", () => {
  it("are read at envelopes/ (not the C2SP entry bundle URL), with the same index encoding and partial widths", async () => {
    const entries = sampleEntries(300);
    const envelopes = entries.map((_, i) => Buffer.from(`{"seq":${i}}`));
    const files = tlogFiles(entries, signer, signer.name, envelopes);
    expect([...files.keys()].filter((p) => !p.startsWith("tile/") && p !== "checkpoint").sort()).toEqual([
      "envelopes/000",
      "envelopes/001.p/44",
    ]);
    expect([...files.keys()].some((p) => p.startsWith("tile/entries/"))).toBe(false);
    const read: string[] = [];
    const source = memorySource(files);
    const inner = source.read;
    source.read = async (path, limit) => (read.push(path), inner(path, limit));
    const tiles = new TileReader(source, 300);
    expect(Buffer.from(await tiles.envelope(260)).toString()).toBe(`{"seq":260}`);
    expect(read).toEqual(["envelopes/001.p/44"]);
    await expect(tiles.entry(260)).rejects.toMatchObject({ code: "missing" });
  });
});

describe("inclusion proofs read from tiles", () => {
  // Sizes across tile boundaries and levels: one leaf, partial tiles, exactly full tiles, a level-2 tile.
  for (const size of [1, 2, 7, 255, 256, 257, 600, 65_537]) {
    it(`are RFC 9162's proofs and lead to the signed root (tree of ${size})`, async () => {
      const { entries, checkpoint, tiles } = reader(size);
      const leaves = entries.map((e) => coreLeafHash(e));
      const indexes = [
        ...new Set([0, 1, Math.floor(size / 2), 255, 256, size - 2, size - 1].filter((i) => i >= 0 && i < size)),
      ];
      for (const i of indexes) {
        const proof = await tiles.inclusionProof(i);
        expect(
          proof.map((p) => Buffer.from(p).toString("hex")),
          `leaf ${i}`,
        ).toEqual(inclusionProof(leaves, i).map((p) => Buffer.from(p).toString("hex")));
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

describe("an older checkpoint whose partial tiles the log has removed", () => {
  /** The log as served at `current` entries (only its partial tiles), with `checkpoint` answering `older`'s first (a cached copy), then the current one. */
  function grownLog(older: number, current: number) {
    const old = tlogFiles(sampleEntries(older), signer);
    const files = tlogFiles(sampleEntries(current), signer);
    let reads = 0;
    const source = memorySource(files);
    const read = source.read;
    source.read = async (path, limit) =>
      path === "checkpoint" && reads++ === 0 ? old.get("checkpoint")! : read(path, limit);
    return { source, old, files };
  }

  it("reads the first W records of the current checkpoint's wider partial tile, at every level and in the bundle", async () => {
    for (const [older, current] of [
      [200, 230],
      [520, 800],
    ] as const) {
      const { source, old, files } = grownLog(older, current);
      // What a verifier of the older checkpoint would have read is gone.
      expect([...old.keys()].filter((p) => p.includes(".p/") && !files.has(p)).length).toBeGreaterThan(0);
      const checkpoint = parseCheckpoint(Buffer.from(old.get("checkpoint")!).toString("utf8").split("\n\n")[0]! + "\n");
      await source.read("checkpoint", CHECKPOINT_LIMIT); // the cached, older checkpoint
      const tiles = new TileReader(source, older);
      const leaves = sampleEntries(older).map((e) => coreLeafHash(e));
      for (const i of [0, older - 1, older - 2]) {
        const proof = await tiles.inclusionProof(i);
        expect(proof.map((p) => Buffer.from(p).toString("hex"))).toEqual(
          inclusionProof(leaves, i).map((p) => Buffer.from(p).toString("hex")),
        );
        expect(await verifyInclusion(leaves[i]!, i, older, proof, checkpoint.root)).toBe(true);
        expect(Buffer.from(await tiles.entry(i)).equals(Buffer.from(sampleEntries(older)[i]!))).toBe(true);
      }
    }
  });

  it("verifies an entry under the older signed checkpoint, and still says missing when no wider tile is there", async () => {
    const keys = await pinnedKeys(
      verifierKey(signer.name, publicKeyFromSecret("ed25519", signer.secretKeyHex)),
      "test",
    );
    const { source } = grownLog(520, 800);
    const report = await verifyLedgerEntry({ source, keys, entry: 519 });
    expect(report.failures).toEqual([]);
    expect(report.checkpoint?.size).toBe(520);
    const gone = grownLog(520, 800);
    gone.files.delete("tile/1/000.p/3");
    const missing = await verifyLedgerEntry({ source: gone.source, keys, entry: 519 });
    expect(missing.failures.map((c) => c.code)).toEqual(["missing"]);
  });
});

describe("consistency proofs read from the tiles of the current tree", () => {
  const hex = (hashes: Uint8Array[]) => hashes.map((h) => Buffer.from(h).toString("hex"));
  const keysOf = (s: typeof signer) =>
    pinnedKeys(verifierKey(s.name, publicKeyFromSecret("ed25519", s.secretKeyHex)), "test");
  /** The signed checkpoint of the first `size` of `entries`, as the log published it then. */
  const checkpointAt = (entries: Uint8Array[], size: number, by = signer) => ({
    bytes: Buffer.from(
      signCheckpoint(
        { origin: signer.name, size, rootHash: rootHash(entries.slice(0, size).map((e) => coreLeafHash(e))) },
        by,
      ),
    ),
    from: `checkpoint at ${size}`,
  });

  it("builds RFC 9162's PROOF(m, D[n]) from the tiles, across tile boundaries and levels, and it verifies", async () => {
    // 66,000 entries: a full level-2 subtree (65,536) and a partial level-1 and level-2 tile beyond it.
    const size = 66_000;
    const { entries, checkpoint, tiles } = reader(size);
    const leaves = entries.map((e) => coreLeafHash(e));
    const range = rangeHasher(leaves);
    for (const old of [1, 5, 200, 255, 256, 257, 600, 65_535, 65_536, 65_537, 65_999, 66_000]) {
      const proof = await tiles.consistencyProof(old);
      const oldRoot = rootHash(leaves.slice(0, old));
      expect(hex(proof), `old size ${old}`).toEqual(hex(consistencyProofWith(range, old, size)));
      expect(await verifyConsistency(old, size, oldRoot, checkpoint.root, proof), `old size ${old}`).toBe(true);
      expect(coreVerifyConsistency(old, size, oldRoot, checkpoint.root, proof)).toBe(true);
      // Another old root, or another old size, does not verify.
      expect(await verifyConsistency(old, size, rootHash(leaves.slice(1, old + 1)), checkpoint.root, proof)).toBe(
        false,
      );
      if (old < size) expect(await verifyConsistency(old + 1, size, oldRoot, checkpoint.root, proof)).toBe(false);
    }
  });

  it("passes the consistent pairs (1, 5), (200, 256), (256, 600), (300, 65,537) and equal sizes", async () => {
    const keys = await keysOf(signer);
    for (const [older, current] of [
      [1, 5],
      [200, 256],
      [256, 600],
      [300, 65_537],
      [200, 200],
      [256, 256],
    ] as const) {
      const entries = sampleEntries(current);
      const report = await verifyLedgerEntry({
        source: memorySource(tlogFiles(entries, signer)),
        keys,
        since: checkpointAt(entries, older),
      });
      expect(report.failures, `${older} → ${current}`).toEqual([]);
      expect(report.checks.map((c) => `${c.step} ${c.status}`)).toEqual([
        "key passed",
        "checkpoint passed",
        "since passed",
        "consistency passed",
      ]);
      expect(report.since?.size).toBe(older);
      expect(report.what).toBe("ledger checkpoint");
    }
  });

  it("refuses a current checkpoint older than the one seen (rolled back), a forked log, and an earlier checkpoint under another key", async () => {
    const keys = await keysOf(signer);
    const entries = sampleEntries(600);
    const files = tlogFiles(entries.slice(0, 300), signer);
    const rolledBack = await verifyLedgerEntry({
      source: memorySource(files),
      keys,
      entry: 3,
      since: checkpointAt(entries, 301),
    });
    expect(rolledBack.failures.map((c) => `${c.step} ${c.code}`)).toEqual(["consistency checkpoint-rolled-back"]);
    // No entry is verified against a rolled-back checkpoint.
    expect(rolledBack.checks.some((c) => c.step === "inclusion")).toBe(false);

    // A fork: the same origin and key over other entries from entry 100 on.
    const forked = entries.map((e, i) => (i >= 100 ? Buffer.from(`{"forked":${i}}`) : e));
    for (const [older, current] of [
      [150, 600],
      [256, 600],
      [600, 600],
      [101, 101],
    ] as const) {
      const fork = await verifyLedgerEntry({
        source: memorySource(tlogFiles(forked.slice(0, current), signer)),
        keys,
        since: checkpointAt(entries, older),
      });
      expect(
        fork.failures.map((c) => `${c.step} ${c.code}`),
        `${older} → ${current}`,
      ).toEqual(["consistency checkpoint-inconsistent"]);
    }
    // Before the fork point the logs agree.
    expect(
      (
        await verifyLedgerEntry({
          source: memorySource(tlogFiles(forked, signer)),
          keys,
          since: checkpointAt(entries, 100),
        })
      ).failures,
    ).toEqual([]);

    // A tile changed under the current checkpoint cannot fake consistency either.
    const tampered = tlogFiles(entries, signer);
    const tile = Buffer.from(tampered.get("tile/0/001")!);
    tile[32 * 10] = tile[32 * 10]! ^ 1; // entry 266's leaf hash: inside [256, 300), which the proof hashes up
    tampered.set("tile/0/001", tile);
    const changed = await verifyLedgerEntry({
      source: memorySource(tampered),
      keys,
      since: checkpointAt(entries, 300),
    });
    expect(changed.failures.map((c) => c.code)).toEqual(["checkpoint-inconsistent"]);

    const other = { name: signer.name, secretKeyHex: "3c".repeat(32) };
    const foreign = await verifyLedgerEntry({
      source: memorySource(tlogFiles(entries, signer)),
      keys,
      since: checkpointAt(entries, 300, other),
    });
    expect(foreign.failures.map((c) => `${c.step} ${c.code}`)).toEqual(["since checkpoint-untrusted"]);
    const otherLog = await verifyLedgerEntry({
      source: memorySource(tlogFiles(entries, signer)),
      keys,
      since: {
        bytes: Buffer.from(
          signCheckpoint(
            {
              origin: "other.example/log",
              size: 3,
              rootHash: rootHash(entries.slice(0, 3).map((e) => coreLeafHash(e))),
            },
            signer,
          ),
        ),
        from: "x",
      },
    });
    expect(otherLog.failures.map((c) => `${c.step} ${c.code}`)).toEqual(["since checkpoint-other-origin"]);
    const garbage = await verifyLedgerEntry({
      source: memorySource(tlogFiles(entries, signer)),
      keys,
      since: { bytes: Buffer.from("not a checkpoint\n"), from: "x" },
    });
    expect(garbage.failures.map((c) => `${c.step} ${c.code}`)).toEqual(["since checkpoint-malformed"]);
  });

  it("accepts the empty tree as a prefix of any log only with the empty tree's root", async () => {
    const entries = sampleEntries(10);
    const tiles = new TileReader(memorySource(tlogFiles(entries, signer)), 10);
    expect(await tiles.consistencyProof(0)).toEqual([]);
    expect(await verifyConsistency(0, 10, rootHash([]), rootHash(entries.map((e) => coreLeafHash(e))), [])).toBe(true);
    expect(
      await verifyConsistency(
        0,
        10,
        rootHash(entries.slice(0, 1).map((e) => coreLeafHash(e))),
        rootHash(entries.map((e) => coreLeafHash(e))),
        [],
      ),
    ).toBe(false);
  });
});
