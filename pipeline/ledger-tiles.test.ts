import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { envelopeText } from "../core/ledger/envelope.ts";
import type { LedgerReader } from "../core/ledger/store.ts";
import { generateKeyPair } from "../core/signature.ts";
import { decodeBundle } from "../core/tlog-tiles.ts";
import { SqliteLedger } from "../store/sqlite-ledger.ts";
import { sampleEvent, steppingClock, tempDir } from "../test/support/store/helpers.ts";
import { LEDGER_CHECKPOINT, ledgerPublicationProblems, publishLedgerCheckpoint } from "./ledger-publication.ts";
import { BACKGROUND_WRITE_MIN_ENTRIES, ledgerTilesProblems, publishLedgerTiles } from "./ledger-tiles.ts";

const ORIGIN = "tiles.test/ledger";
const KEY = generateKeyPair("ed25519");
let dir: string;
let cleanup: () => void;
let tiles: string;
let ledger: SqliteLedger;

beforeEach(() => {
  ({ dir, cleanup } = tempDir("ledger-tiles-"));
  tiles = join(dir, "data", "ledger");
  ledger = new SqliteLedger(join(dir, "l.sqlite"), { origin: ORIGIN, signer: { name: ORIGIN, secretKeyHex: KEY.secretKey }, now: steppingClock(), durability: "normal" });
});
afterEach(() => {
  ledger.close();
  cleanup();
});

const append = (from: number, count: number) => ledger.append(Array.from({ length: count }, (_, i) => sampleEvent(from + i)));

/** The ledger, recording where each read of stored entries started. */
function counting(reader: LedgerReader): { reader: LedgerReader; starts: number[] } {
  const starts: number[] = [];
  const proxy = Object.create(reader) as LedgerReader;
  proxy.storedEntries = (start = 0, end?: number) => {
    starts.push(start);
    return reader.storedEntries(start, end);
  };
  proxy.size = () => reader.size();
  return { reader: proxy, starts };
}

/** The ledger, failing after it has given `count` stored entries (a build interrupted mid-way). */
function failingAfter(reader: LedgerReader, count: number): LedgerReader {
  const proxy = Object.create(reader) as LedgerReader;
  proxy.storedEntries = function* (start = 0, end?: number) {
    let given = 0;
    for (const stored of reader.storedEntries(start, end)) {
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
    if (stat.isFile()) files.set(rel.split("\\").join("/"), { bytes: readFileSync(path).toString("hex"), mtime: stat.mtimeNs, ino: stat.ino });
  }
  return files;
}

const publish = (size: number, from: number, reader: LedgerReader = ledger) => publishLedgerTiles({ dir: tiles, ledger: reader, size, root: ledger.rootHash(size), from });

describe("publishing the ledger as tiles", () => {
  it("writes the tiles of a checkpoint, then only what 300 new entries add, never touching a full tile", () => {
    append(0, 600);
    expect(publish(600, 0)).toEqual({ size: 600, written: 7, removed: 0, rebuilt: false });
    const first = snapshot();
    expect([...first.keys()].sort()).toEqual(["tile/0/000", "tile/0/001", "tile/0/002.p/88", "tile/1/000.p/2", "tile/entries/000", "tile/entries/001", "tile/entries/002.p/88"]);
    expect(first.get("tile/0/000")!.bytes).toHaveLength(2 * 8192);

    append(600, 300);
    const { reader, starts } = counting(ledger);
    expect(publish(900, 600, reader)).toEqual({ size: 900, written: 5, removed: 3, rebuilt: false });
    expect(starts).toEqual([600]); // only the new entries were read
    const second = snapshot();
    expect([...second.keys()].sort()).toEqual(["tile/0/000", "tile/0/001", "tile/0/002", "tile/0/003.p/132", "tile/1/000.p/3", "tile/entries/000", "tile/entries/001", "tile/entries/002", "tile/entries/003.p/132"]);
    for (const full of ["tile/0/000", "tile/0/001", "tile/entries/000", "tile/entries/001"]) {
      expect(second.get(full), full).toEqual(first.get(full)); // same bytes, same mtime, same inode: not rewritten
    }
    // The partial tile's hashes are the prefix of the tile that replaced it.
    expect(second.get("tile/0/002")!.bytes.startsWith(first.get("tile/0/002.p/88")!.bytes)).toBe(true);
    expect(second.get("tile/1/000.p/3")!.bytes.startsWith(first.get("tile/1/000.p/2")!.bytes)).toBe(true);
    expect(ledgerTilesProblems({ dir: tiles, ledger, size: 900, root: ledger.rootHash(900) })).toEqual([]);

    // Nothing new: nothing read past the size, nothing written.
    const again = counting(ledger);
    expect(publish(900, 900, again.reader)).toEqual({ size: 900, written: 0, removed: 0, rebuilt: false });
    expect(again.starts).toEqual([]);
    expect(snapshot()).toEqual(second);
  });

  it("bundles each entry's envelope, never its payload", () => {
    append(0, 260);
    publish(260, 0);
    const entries = [...ledger.entries(0, 260)];
    const bundle = decodeBundle(readFileSync(join(tiles, "tile/entries/000"))).map((e) => Buffer.from(e).toString());
    const partial = decodeBundle(readFileSync(join(tiles, "tile/entries/001.p/4"))).map((e) => Buffer.from(e).toString());
    expect([...bundle, ...partial]).toEqual(entries.map((e) => envelopeText(e)));
    expect(JSON.parse(bundle[3]!)).toEqual({ seq: 3, type: entries[3]!.type, ts: entries[3]!.ts, prev: entries[2]!.hash, hash: entries[3]!.hash });
    for (const e of [...bundle, ...partial]) expect(e).not.toContain("payload");
  });

  it("publishes nothing when the entries do not hash to the checkpoint's root", () => {
    append(0, 300);
    publish(260, 0);
    const before = snapshot();
    expect(() => publishLedgerTiles({ dir: tiles, ledger, size: 300, root: ledger.rootHash(299), from: 260 })).toThrow(expect.objectContaining({ code: "root-differs" }));
    expect(snapshot()).toEqual(before); // no tile replaced, no staged file left behind
  });

  it("builds a new tree in a hidden folder renamed into place once: an interrupted or refused build leaves no tile/ and no debris", () => {
    append(0, 700);
    mkdirSync(tiles, { recursive: true });
    writeFileSync(join(tiles, "checkpoint"), "the previous publication\n");
    expect(() => publish(700, 0, failingAfter(ledger, 600))).toThrow("the disk went away"); // two full tiles and bundles staged by then
    expect(readdirSync(tiles)).toEqual(["checkpoint"]);
    expect(() => publishLedgerTiles({ dir: tiles, ledger, size: 700, root: ledger.rootHash(699), from: 0 })).toThrow(expect.objectContaining({ code: "root-differs" }));
    expect(readdirSync(tiles)).toEqual(["checkpoint"]);
    expect(publish(700, 0)).toEqual({ size: 700, written: 7, removed: 0, rebuilt: false });
    expect(readdirSync(tiles).sort()).toEqual(["checkpoint", "tile"]);
    expect(ledgerTilesProblems({ dir: tiles, ledger, size: 700, root: ledger.rootHash(700) })).toEqual([]);
  });

  it("leaves the previous publication as it was when an update is interrupted, with no staged file left", () => {
    append(0, 1_000);
    publish(300, 0);
    const before = snapshot();
    expect(() => publish(1_000, 300, failingAfter(ledger, 500))).toThrow("the disk went away"); // tiles 1 and 2 and their bundles staged by then
    expect(snapshot()).toEqual(before);
  });

  it("writes a large new tree (on the helper thread) with the bytes the file-by-file update writes", () => {
    const size = BACKGROUND_WRITE_MIN_ENTRIES + 300;
    for (let i = 0; i < size; i += 5_000) append(i, Math.min(5_000, size - i));
    publish(size, 0);
    const whole = snapshot();
    rmSync(join(tiles, "tile"), { recursive: true });
    publish(300, 0);
    publish(size, 300);
    const stepwise = snapshot();
    expect([...whole.keys()].sort()).toEqual([...stepwise.keys()].sort());
    for (const [path, file] of whole) expect(file.bytes, path).toBe(stepwise.get(path)!.bytes);
    expect(readdirSync(tiles)).toEqual(["tile"]);
  });

  it("rebuilds when the previous checkpoint's tiles are missing, and refuses to rewrite a full tile that differs", () => {
    append(0, 700);
    publish(520, 0);
    rmSync(join(tiles, "tile", "1"), { recursive: true });
    writeFileSync(join(tiles, "tile/0/002.p/7"), Buffer.alloc(7 * 32)); // a stale partial of another size
    expect(publish(700, 520)).toMatchObject({ size: 700, rebuilt: true });
    expect(existsSync(join(tiles, "tile/0/002.p/7"))).toBe(false);
    expect(existsSync(join(tiles, "tile/0/002.p/8"))).toBe(false);
    expect(ledgerTilesProblems({ dir: tiles, ledger, size: 700, root: ledger.rootHash(700) })).toEqual([]);

    const tampered = Buffer.from(readFileSync(join(tiles, "tile/0/001")));
    tampered[5]! ^= 1;
    writeFileSync(join(tiles, "tile/0/001"), tampered);
    expect(ledgerTilesProblems({ dir: tiles, ledger, size: 700, root: ledger.rootHash(700) })).toEqual([expect.stringMatching(/tile\/0\/001 differs from the ledger's/)]);
    rmSync(join(tiles, "tile/0/002.p"), { recursive: true });
    expect(() => publish(700, 700)).toThrow(expect.objectContaining({ code: "tile-differs" }));
  });

  it("is published with the checkpoint by the pipeline, and --check reports tiles that are missing, differ or are stale", () => {
    const dataDir = join(dir, "data");
    append(0, 270);
    const sign = () => ({ note: ledger.checkpoint(), signer: { name: ORIGIN, publicKeyHex: KEY.publicKey } });
    // A checkpoint published before tiles existed: the next run writes its tiles without a new checkpoint.
    expect(publishLedgerCheckpoint({ dataDir, ledger, sign, trustNewKey: false })).toMatchObject({ checkpoint: "written", size: 270 });
    rmSync(join(tiles, "tile"), { recursive: true });
    expect(ledgerPublicationProblems(dataDir, ledger)).toContainEqual(expect.stringMatching(/tile\/0\/000 is missing/));
    const note = readFileSync(join(dataDir, LEDGER_CHECKPOINT), "utf8");
    expect(publishLedgerCheckpoint({ dataDir, ledger, sign, trustNewKey: false })).toMatchObject({ checkpoint: "unchanged", tiles: { written: 5 } });
    expect(readFileSync(join(dataDir, LEDGER_CHECKPOINT), "utf8")).toBe(note);
    expect(ledgerPublicationProblems(dataDir, ledger)).toEqual([]);

    append(270, 10);
    expect(publishLedgerCheckpoint({ dataDir, ledger, sign, trustNewKey: false })).toMatchObject({ checkpoint: "written", size: 280, tiles: { written: 2, removed: 2 } }); // tile/1/000.p/1 is unchanged
    expect(existsSync(join(tiles, "tile/0/001.p/24"))).toBe(true);
    writeFileSync(join(tiles, "tile/0/001.p/14"), readFileSync(join(tiles, "tile/0/001.p/24")).subarray(0, 14 * 32));
    expect(ledgerPublicationProblems(dataDir, ledger)).toEqual([expect.stringMatching(/001\.p\/14 is a superseded partial tile/)]);
  });
});
