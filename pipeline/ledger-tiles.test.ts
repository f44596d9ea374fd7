import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { entryText } from "../core/ledger/entry.ts";
import { envelopeText } from "../core/ledger/envelope.ts";
import type { LedgerReader } from "../core/ledger/store.ts";
import { generateKeyPair } from "../core/signature.ts";
import { decodeBundle } from "../core/tlog-tiles.ts";
import type { Ledger } from "../store/ledger/ledger.ts";
import { openLedgerStore } from "../store/open-ledger.ts";
import { sampleEvent, steppingClock, tempDir } from "../test/support/store/helpers.ts";
import { LEDGER_CHECKPOINT, ledgerPublicationProblems, publishLedgerCheckpoint } from "./ledger-publication.ts";
import { BACKGROUND_WRITE_MIN_ENTRIES, ledgerTilesProblems, publishLedgerTiles } from "./ledger-tiles.ts";

const ORIGIN = "tiles.test/ledger";
const KEY = generateKeyPair("ed25519");
let dir: string;
let cleanup: () => void;
let tiles: string;
let ledger: Ledger;

beforeEach(async () => {
  ({ dir, cleanup } = tempDir("ledger-tiles-"));
  tiles = join(dir, "data", "ledger");
  ledger = await openLedgerStore({
    path: join(dir, "l.sqlite"),
    origin: ORIGIN,
    signer: { name: ORIGIN, secretKeyHex: KEY.secretKey },
    now: steppingClock(),
    durability: "normal",
  });
});
afterEach(async () => {
  await ledger.close();
  cleanup();
});

const append = async (from: number, count: number) =>
  await ledger.append(Array.from({ length: count }, (_, i) => sampleEvent(from + i)));

/** The ledger, recording where each read of stored entries started. */
function counting(reader: LedgerReader): { reader: LedgerReader; starts: number[] } {
  const starts: number[] = [];
  const proxy = Object.create(reader) as LedgerReader;
  proxy.storedEntries = (start = 0, end?: number) => {
    starts.push(start);
    return reader.storedEntries(start, end);
  };
  proxy.size = async () => await reader.size();
  return { reader: proxy, starts };
}

/** The ledger, failing after it has given `count` stored entries (a build interrupted mid-way). */
function failingAfter(reader: LedgerReader, count: number): LedgerReader {
  const proxy = Object.create(reader) as LedgerReader;
  proxy.storedEntries = async function* (start = 0, end?: number) {
    let given = 0;
    for await (const stored of reader.storedEntries(start, end)) {
      if (given++ === count) throw new Error("the disk went away");
      yield stored;
    }
  };
  return proxy;
}

/** Every file under the tiles folder with its bytes (hex) and mtime. */
function snapshot(): Map<string, { bytes: string; mtime: bigint; ino: bigint }> {
  const files = new Map<string, { bytes: string; mtime: bigint; ino: bigint }>();
  for (const rel of readdirSync(tiles, { recursive: true }) as string[]) {
    const path = join(tiles, rel);
    const stat = statSync(path, { bigint: true });
    if (stat.isFile())
      files.set(rel.split("\\").join("/"), {
        bytes: readFileSync(path).toString("hex"),
        mtime: stat.mtimeNs,
        ino: stat.ino,
      });
  }
  return files;
}

const publish = async (size: number, from: number, reader: LedgerReader = ledger) =>
  await publishLedgerTiles({ dir: tiles, ledger: reader, size, root: await ledger.rootHash(size), from });

describe("publishing the ledger as tiles", () => {
  it("writes the tiles of a checkpoint, then only what 300 new entries add, never touching a full tile", async () => {
    await append(0, 600);
    expect(await publish(600, 0)).toEqual({ size: 600, written: 7, removed: 0, strays: 0, rebuilt: false });
    const first = snapshot();
    expect([...first.keys()].sort()).toEqual([
      "envelopes/000",
      "envelopes/001",
      "envelopes/002.p/88",
      "tile/0/000",
      "tile/0/001",
      "tile/0/002.p/88",
      "tile/1/000.p/2",
    ]);
    expect(first.get("tile/0/000")!.bytes).toHaveLength(2 * 8192);

    await append(600, 300);
    const { reader, starts } = counting(ledger);
    expect(await publish(900, 600, reader)).toEqual({ size: 900, written: 5, removed: 3, strays: 0, rebuilt: false });
    expect(starts).toEqual([600]); // only the new entries were read
    const second = snapshot();
    expect([...second.keys()].sort()).toEqual([
      "envelopes/000",
      "envelopes/001",
      "envelopes/002",
      "envelopes/003.p/132",
      "tile/0/000",
      "tile/0/001",
      "tile/0/002",
      "tile/0/003.p/132",
      "tile/1/000.p/3",
    ]);
    for (const full of ["tile/0/000", "tile/0/001", "envelopes/000", "envelopes/001"]) {
      expect(second.get(full), full).toEqual(first.get(full)); // same bytes, same mtime, same inode: not rewritten
    }
    // The partial tile's hashes are the prefix of the tile that replaced it.
    expect(second.get("tile/0/002")!.bytes.startsWith(first.get("tile/0/002.p/88")!.bytes)).toBe(true);
    expect(second.get("tile/1/000.p/3")!.bytes.startsWith(first.get("tile/1/000.p/2")!.bytes)).toBe(true);
    expect(await ledgerTilesProblems({ dir: tiles, ledger, size: 900, root: await ledger.rootHash(900) })).toEqual([]);

    // Nothing new: nothing read past the size, nothing written.
    const again = counting(ledger);
    expect(await publish(900, 900, again.reader)).toEqual({
      size: 900,
      written: 0,
      removed: 0,
      strays: 0,
      rebuilt: false,
    });
    expect(again.starts).toEqual([]);
    expect(snapshot()).toEqual(second);
  });

  it("bundles each entry's envelope, never its payload, at envelopes/ and not at the C2SP entry bundle URL", async () => {
    await append(0, 260);
    await publish(260, 0);
    const entries = await Array.fromAsync(ledger.entries(0, 260));
    const bundle = decodeBundle(readFileSync(join(tiles, "envelopes/000"))).map((e) => Buffer.from(e).toString());
    const partial = decodeBundle(readFileSync(join(tiles, "envelopes/001.p/4"))).map((e) => Buffer.from(e).toString());
    expect([...bundle, ...partial]).toEqual(entries.map((e) => envelopeText(e)));
    expect(JSON.parse(bundle[3]!)).toEqual({
      seq: 3,
      type: entries[3]!.type,
      ts: entries[3]!.ts,
      prev: entries[2]!.hash,
      hash: entries[3]!.hash,
    });
    for (const e of [...bundle, ...partial]) expect(e).not.toContain("payload");
    expect(existsSync(join(tiles, "tile/entries"))).toBe(false);
  });

  it("serves leaf-data bundles at tile/entries/, and moves the bundles when what they hold changes", async () => {
    await append(0, 600);
    const as = async (bundle: "leaf" | "envelope", size: number, from: number) =>
      await publishLedgerTiles({ dir: tiles, ledger, size, root: await ledger.rootHash(size), from, bundle });
    expect(await as("leaf", 512, 0)).toEqual({ size: 512, written: 5, removed: 0, strays: 0, rebuilt: false });
    expect([...snapshot().keys()].sort()).toEqual([
      "tile/0/000",
      "tile/0/001",
      "tile/1/000.p/2",
      "tile/entries/000",
      "tile/entries/001",
    ]);
    const entries = await Array.fromAsync(ledger.storedEntries(0, 256));
    expect(decodeBundle(readFileSync(join(tiles, "tile/entries/000"))).map((e) => Buffer.from(e).toString())).toEqual(
      entries.map((e) => entryText(e.entry, e.payloadText)),
    );

    // Envelopes left at the C2SP URL (as this log once published them) are reported, then moved.
    const envelopes = join(dir, "envelope-copy");
    await publishLedgerTiles({ dir: envelopes, ledger, size: 512, root: await ledger.rootHash(512), from: 0 });
    rmSync(join(tiles, "tile/entries"), { recursive: true });
    cpSync(join(envelopes, "envelopes"), join(tiles, "tile/entries"), { recursive: true });
    expect(await ledgerTilesProblems({ dir: tiles, ledger, size: 512, root: await ledger.rootHash(512) })).toEqual([
      expect.stringMatching(/envelopes\/000 is missing$/),
      expect.stringMatching(/envelopes\/001 is missing$/),
      expect.stringMatching(
        /tile\/entries\/000 is not a bundle of this log \(the bundles hold envelopes, served at envelopes\/: C2SP's tile\/entries\/ is for leaf data only\)$/,
      ),
      expect.stringMatching(/tile\/entries\/001 is not a bundle of this log/),
    ]);
    // The size is a whole number of tiles: the missing last full bundle alone says to write them all.
    expect(await as("envelope", 512, 512)).toEqual({ size: 512, written: 2, removed: 2, strays: 0, rebuilt: true });
    expect([...snapshot().keys()].sort()).toEqual([
      "envelopes/000",
      "envelopes/001",
      "tile/0/000",
      "tile/0/001",
      "tile/1/000.p/2",
    ]);
    expect(await ledgerTilesProblems({ dir: tiles, ledger, size: 512, root: await ledger.rootHash(512) })).toEqual([]);

    // And back to leaf data, growing: envelopes/ goes.
    expect(await as("leaf", 600, 512)).toMatchObject({ size: 600, removed: 2, rebuilt: true });
    expect([...snapshot().keys()].sort()).toEqual([
      "tile/0/000",
      "tile/0/001",
      "tile/0/002.p/88",
      "tile/1/000.p/2",
      "tile/entries/000",
      "tile/entries/001",
      "tile/entries/002.p/88",
    ]);
    expect(
      await ledgerTilesProblems({ dir: tiles, ledger, size: 600, root: await ledger.rootHash(600), bundle: "leaf" }),
    ).toEqual([]);
  });

  it("publishes nothing when the entries do not hash to the checkpoint's root", async () => {
    await append(0, 300);
    await publish(260, 0);
    const before = snapshot();
    await expect(
      publishLedgerTiles({ dir: tiles, ledger, size: 300, root: await ledger.rootHash(299), from: 260 }),
    ).rejects.toThrow(expect.objectContaining({ code: "root-differs" }));
    expect(snapshot()).toEqual(before); // no tile replaced, no staged file left behind
  });

  it("builds a new tree in a hidden folder renamed into place once: an interrupted or refused build leaves no tile/ and no debris", async () => {
    await append(0, 700);
    mkdirSync(tiles, { recursive: true });
    writeFileSync(join(tiles, "checkpoint"), "the previous publication\n");
    await expect(publish(700, 0, failingAfter(ledger, 600))).rejects.toThrow("the disk went away"); // two full tiles and bundles staged by then
    expect(readdirSync(tiles)).toEqual(["checkpoint"]);
    await expect(
      publishLedgerTiles({ dir: tiles, ledger, size: 700, root: await ledger.rootHash(699), from: 0 }),
    ).rejects.toThrow(expect.objectContaining({ code: "root-differs" }));
    expect(readdirSync(tiles)).toEqual(["checkpoint"]);
    expect(await publish(700, 0)).toEqual({ size: 700, written: 7, removed: 0, strays: 0, rebuilt: false });
    expect(readdirSync(tiles).sort()).toEqual(["checkpoint", "envelopes", "tile"]);
    expect(await ledgerTilesProblems({ dir: tiles, ledger, size: 700, root: await ledger.rootHash(700) })).toEqual([]);
  });

  it("leaves the previous publication as it was when an update is interrupted, with no staged file left", async () => {
    await append(0, 1_000);
    await publish(300, 0);
    const before = snapshot();
    await expect(publish(1_000, 300, failingAfter(ledger, 500))).rejects.toThrow("the disk went away"); // tiles 1 and 2 and their bundles staged by then
    expect(snapshot()).toEqual(before);
  });

  it("writes a large new tree (on the helper thread) with the bytes the file-by-file update writes", async () => {
    const size = BACKGROUND_WRITE_MIN_ENTRIES + 300;
    for (let i = 0; i < size; i += 5_000) await append(i, Math.min(5_000, size - i));
    await publish(size, 0);
    const whole = snapshot();
    rmSync(join(tiles, "tile"), { recursive: true });
    await publish(300, 0);
    await publish(size, 300);
    const stepwise = snapshot();
    expect([...whole.keys()].sort()).toEqual([...stepwise.keys()].sort());
    for (const [path, file] of whole) expect(file.bytes, path).toBe(stepwise.get(path)!.bytes);
    expect(readdirSync(tiles).sort()).toEqual(["envelopes", "tile"]);
  });

  it("rebuilds when the previous checkpoint's tiles are missing, and refuses to rewrite a full tile that differs", async () => {
    await append(0, 700);
    await publish(520, 0);
    rmSync(join(tiles, "tile", "1"), { recursive: true });
    writeFileSync(join(tiles, "tile/0/002.p/7"), Buffer.alloc(7 * 32)); // a stale partial of another size
    expect(await publish(700, 520)).toMatchObject({ size: 700, rebuilt: true });
    expect(existsSync(join(tiles, "tile/0/002.p/7"))).toBe(false);
    expect(existsSync(join(tiles, "tile/0/002.p/8"))).toBe(false);
    expect(await ledgerTilesProblems({ dir: tiles, ledger, size: 700, root: await ledger.rootHash(700) })).toEqual([]);

    const tampered = Buffer.from(readFileSync(join(tiles, "tile/0/001")));
    tampered[5]! ^= 1;
    writeFileSync(join(tiles, "tile/0/001"), tampered);
    expect(await ledgerTilesProblems({ dir: tiles, ledger, size: 700, root: await ledger.rootHash(700) })).toEqual([
      expect.stringMatching(/tile\/0\/001 differs from the ledger's/),
    ]);
    rmSync(join(tiles, "tile/0/002.p"), { recursive: true });
    await expect(publish(700, 700)).rejects.toThrow(expect.objectContaining({ code: "tile-differs" }));
  });

  it("is published with the checkpoint by the pipeline, and --check reports tiles that are missing, differ or are stale", async () => {
    const dataDir = join(dir, "data");
    await append(0, 270);
    const sign = async () => ({
      note: await ledger.checkpoint(),
      signer: { name: ORIGIN, publicKeyHex: KEY.publicKey },
    });
    // A checkpoint published before tiles existed: the next run writes its tiles without a new checkpoint.
    expect(await publishLedgerCheckpoint({ dataDir, ledger, sign, trustNewKey: false })).toMatchObject({
      checkpoint: "written",
      size: 270,
    });
    rmSync(join(tiles, "tile"), { recursive: true });
    expect(await ledgerPublicationProblems(dataDir, ledger)).toContainEqual(
      expect.stringMatching(/tile\/0\/000 is missing/),
    );
    const note = readFileSync(join(dataDir, LEDGER_CHECKPOINT), "utf8");
    expect(await publishLedgerCheckpoint({ dataDir, ledger, sign, trustNewKey: false })).toMatchObject({
      checkpoint: "unchanged",
      tiles: { written: 5 },
    });
    expect(readFileSync(join(dataDir, LEDGER_CHECKPOINT), "utf8")).toBe(note);
    expect(await ledgerPublicationProblems(dataDir, ledger)).toEqual([]);

    await append(270, 10);
    expect(await publishLedgerCheckpoint({ dataDir, ledger, sign, trustNewKey: false })).toMatchObject({
      checkpoint: "written",
      size: 280,
      tiles: { written: 2, removed: 2 },
    }); // tile/1/000.p/1 is unchanged
    expect(existsSync(join(tiles, "tile/0/001.p/24"))).toBe(true);
    writeFileSync(join(tiles, "tile/0/001.p/14"), readFileSync(join(tiles, "tile/0/001.p/24")).subarray(0, 14 * 32));
    expect(await ledgerPublicationProblems(dataDir, ledger)).toEqual([
      expect.stringMatching(/001\.p\/14 is a superseded partial tile/),
    ]);
    expect(await publishLedgerCheckpoint({ dataDir, ledger, sign, trustNewKey: false })).toMatchObject({
      checkpoint: "unchanged",
      tiles: { written: 0, removed: 1, strays: 0 },
    });
    expect(await ledgerPublicationProblems(dataDir, ledger)).toEqual([]);
  });

  it("--check reports every file under tile/ or envelopes/ that is not of the checkpoint's size, and a run removes it", async () => {
    const dataDir = join(dir, "data");
    await append(0, 600);
    const sign = async () => ({
      note: await ledger.checkpoint(),
      signer: { name: ORIGIN, publicKeyHex: KEY.publicKey },
    });
    await publishLedgerCheckpoint({ dataDir, ledger, sign, trustNewKey: false });
    expect(await ledgerPublicationProblems(dataDir, ledger)).toEqual([]);
    // A full tile and bundle where the checkpoint has only the partial 002.p/88, a copy, and a staged file left behind.
    cpSync(join(tiles, "tile/0/001"), join(tiles, "tile/0/002"));
    cpSync(join(tiles, "envelopes/001"), join(tiles, "envelopes/002"));
    cpSync(join(tiles, "tile/0/000"), join(tiles, "tile/0/000 copy"));
    writeFileSync(join(tiles, "tile/1/.000.4242.tmp"), "");
    expect(await ledgerPublicationProblems(dataDir, ledger)).toEqual([
      `${join(tiles, "envelopes/002")} is not a tile or bundle of the checkpoint's 600 entries`,
      `${join(tiles, "tile/0/000 copy")} is not a tile or bundle of the checkpoint's 600 entries`,
      `${join(tiles, "tile/0/002")} is not a tile or bundle of the checkpoint's 600 entries`,
      `${join(tiles, "tile/1/.000.4242.tmp")} is not a tile or bundle of the checkpoint's 600 entries`,
    ]);
    expect(await publishLedgerCheckpoint({ dataDir, ledger, sign, trustNewKey: false })).toMatchObject({
      checkpoint: "unchanged",
      tiles: { written: 0, removed: 0, strays: 4 },
    });
    expect(await ledgerPublicationProblems(dataDir, ledger)).toEqual([]);

    // A stray full tile where the next checkpoint's full tile lands is removed before the update, which then writes it.
    writeFileSync(join(tiles, "tile/0/002"), Buffer.alloc(256 * 32));
    await append(600, 200);
    expect(await publishLedgerCheckpoint({ dataDir, ledger, sign, trustNewKey: false })).toMatchObject({
      checkpoint: "written",
      size: 800,
      tiles: { strays: 1 },
    });
    expect(await ledgerPublicationProblems(dataDir, ledger)).toEqual([]);
  });
});
