import { describe, expect, it } from "vitest";
import { leafHash, rangeHasher, rootHash } from "./merkle.ts";
import {
  bundlePath,
  decodeBundle,
  encodeBundle,
  encodeTileIndex,
  fullTileCount,
  partialDir,
  partialTiles,
  rootFromPartials,
  TileBuilder,
  TileError,
  tileHashes,
  tilePath,
  publishedTilePaths,
  tilesProblems,
  type TileFile,
} from "./tlog-tiles.ts";

const hex = (h: Uint8Array) => Buffer.from(h).toString("hex");
const N = 70_000;
const leaves = Array.from({ length: N }, (_, i) => leafHash(Buffer.from(`entry ${i}`)));
const entry = (i: number) => Buffer.from(`entry ${i}`);

/** Builds every file for `size` leaves from scratch: full files in order, then the partials. */
function build(
  size: number,
  from = TileBuilder.empty(),
): { full: TileFile[]; partial: TileFile[]; builder: TileBuilder } {
  const full: TileFile[] = [];
  for (let i = from.size; i < size; i++) from.append(leaves[i]!, entry(i), (f) => full.push(f));
  return { full, partial: from.partials(), builder: from };
}

describe("tile paths", () => {
  it("encodes the index in x-prefixed 3-digit groups (C2SP examples)", () => {
    expect(encodeTileIndex(0)).toBe("000");
    expect(encodeTileIndex(7)).toBe("007");
    expect(encodeTileIndex(999)).toBe("999");
    expect(encodeTileIndex(1000)).toBe("x001/000");
    expect(encodeTileIndex(1234067)).toBe("x001/x234/067");
    expect(tilePath({ level: 0, index: 1234067, width: 256 })).toBe("tile/0/x001/x234/067");
    expect(tilePath({ level: 2, index: 5, width: 17 })).toBe("tile/2/005.p/17");
    expect(bundlePath(1000, 3)).toBe("tile/entries/x001/000.p/3");
    expect(bundlePath(4, 256)).toBe("tile/entries/004");
    // Bundles in another encoding than the leaf data are served at their own URL (C2SP).
    expect(bundlePath(1000, 3, "envelopes")).toBe("envelopes/x001/000.p/3");
    expect(bundlePath(4, 256, "envelopes")).toBe("envelopes/004");
    expect(partialDir(2, 5)).toBe("tile/2/005.p");
    expect(partialDir("entries", 1000)).toBe("tile/entries/x001/000.p");
    expect(partialDir("envelopes", 1000)).toBe("envelopes/x001/000.p");
  });

  it("refuses coordinates outside the spec", () => {
    for (const bad of [
      { level: 64, index: 0, width: 1 },
      { level: 0, index: -1, width: 1 },
      { level: 0, index: 0, width: 0 },
      { level: 0, index: 0, width: 257 },
      { level: 0, index: 0.5, width: 2 },
    ]) {
      expect(() => tilePath(bad)).toThrow(TileError);
    }
  });

  it("lists the partial tiles of a tree as the spec's examples say", () => {
    // "a tree of size 70,000 will be represented by 273 full level 0 tiles, one partial level 0
    // tile of width 112, one full level 1 tile, one partial level 1 tile of width 17, and one
    // partial level 2 tile of width 1"
    expect(fullTileCount(70_000, 0)).toBe(273);
    expect(fullTileCount(70_000, 1)).toBe(1);
    expect(partialTiles(70_000)).toEqual([
      { level: 0, index: 273, width: 112 },
      { level: 1, index: 1, width: 17 },
      { level: 2, index: 0, width: 1 },
    ]);
    // "a tree of size 256 will be represented by a full level 0 tile and a partial level 1 tile of width 1"
    expect(partialTiles(256)).toEqual([{ level: 1, index: 0, width: 1 }]);
    expect(partialTiles(0)).toEqual([]);
  });
});

describe("entry bundles", () => {
  it("prefixes each entry with its big-endian uint16 length and reads them back", () => {
    const entries = [Buffer.from("a"), new Uint8Array(0), new Uint8Array(300).fill(7), new Uint8Array(0xffff).fill(1)];
    const bytes = encodeBundle(entries);
    expect([...bytes.subarray(0, 3)]).toEqual([0, 1, 0x61]);
    expect([...bytes.subarray(5, 7)]).toEqual([1, 44]);
    expect(decodeBundle(bytes).map((e) => hex(e))).toEqual(entries.map((e) => hex(e)));
  });

  it("refuses an entry over 65,535 bytes and a cut bundle", () => {
    expect(() => encodeBundle([new Uint8Array(0x10000)])).toThrow(expect.objectContaining({ code: "entry-too-large" }));
    expect(() => decodeBundle(new Uint8Array([0]))).toThrow(expect.objectContaining({ code: "bad-bundle" }));
    expect(() => decodeBundle(new Uint8Array([0, 5, 1]))).toThrow(expect.objectContaining({ code: "bad-bundle" }));
  });
});

describe("TileBuilder", () => {
  const { full, partial } = build(N);
  const range = rangeHasher(leaves);

  it("writes the full and partial tiles of 70,000 leaves with the RFC 9162 subtree hashes", () => {
    const tiles = [...full, ...partial].filter((f) => f.kind === "hashes");
    expect(
      full
        .filter((f) => f.kind === "hashes")
        .map((f) => f.path)
        .filter((p) => !p.startsWith("tile/0/")),
    ).toEqual(["tile/1/000"]);
    expect(partial.map((f) => f.path)).toEqual([
      "tile/0/273.p/112",
      "tile/1/001.p/17",
      "tile/2/000.p/1",
      "tile/entries/273.p/112",
    ]);
    for (const t of tiles) {
      const span = 256 ** t.tile.level;
      const hashes = tileHashes(t.bytes, t.tile.width);
      hashes.forEach((h, i) => {
        const start = (t.tile.index * 256 + i) * span;
        expect(hex(h), `${t.path} hash ${i}`).toBe(hex(range(start, start + span)));
      });
    }
  });

  it("bundles the entries of each level-0 tile", () => {
    const bundles = [...full, ...partial].filter((f) => f.kind === "entries");
    expect(bundles).toHaveLength(274);
    for (const b of [bundles[0]!, bundles[200]!, bundles[273]!]) {
      expect(decodeBundle(b.bytes).map((e) => Buffer.from(e).toString())).toEqual(
        Array.from({ length: b.tile.width }, (_, i) => `entry ${b.tile.index * 256 + i}`),
      );
    }
  });

  it("bundles an entry given as text as its UTF-8 bytes, and refuses one too large having added nothing", () => {
    const texts = Array.from({ length: 300 }, (_, i) => (i % 3 === 0 ? `é€😀 ${i}` : `entry ${i}`));
    const fromText = TileBuilder.empty();
    const fromBytes = TileBuilder.empty();
    const files: [TileFile[], TileFile[]] = [[], []];
    texts.forEach((t, i) => {
      fromText.append(leaves[i]!, t, (f) => files[0].push(f));
      fromBytes.append(leaves[i]!, Buffer.from(t), (f) => files[1].push(f));
    });
    expect(() => fromText.append(leaves[300]!, "x".repeat(0x10000), () => {})).toThrow(
      expect.objectContaining({ code: "entry-too-large" }),
    );
    expect(() => fromText.append(leaves[300]!, "€".repeat(0x6000), () => {})).toThrow(
      expect.objectContaining({ code: "entry-too-large" }),
    ); // 73,728 UTF-8 bytes
    expect(fromText.size).toBe(300);
    const all = (builder: TileBuilder, full: TileFile[]) =>
      [...full, ...builder.partials()].map((f) => [f.path, hex(f.bytes)]);
    expect(all(fromText, files[0])).toEqual(all(fromBytes, files[1]));
    expect(
      decodeBundle(files[0].find((f) => f.kind === "entries")!.bytes).map((e) => Buffer.from(e).toString()),
    ).toEqual(texts.slice(0, 256));
    expect(hex(files[0].find((f) => f.kind === "entries")!.bytes)).toEqual(
      hex(encodeBundle(texts.slice(0, 256).map((t) => Buffer.from(t)))),
    );
  });

  it("gives the tree's root from the partial tiles alone, at every kind of size", () => {
    for (const size of [1, 2, 255, 256, 257, 511, 512, 1000, 65_535, 65_536, 65_537, 69_999, 70_000]) {
      const { partial: p } = build(size);
      const hashes = new Map(p.filter((f) => f.kind === "hashes").map((f) => [f.tile.level, f.bytes]));
      expect(hex(rootFromPartials(size, hashes)), `size ${size}`).toBe(hex(rootHash(leaves.slice(0, size))));
    }
    expect(hex(rootFromPartials(0, new Map()))).toBe(hex(rootHash([])));
  });

  it("resumes from the partial tiles and bundle and writes what a build from scratch writes", () => {
    for (const [from, to] of [
      [0, 300],
      [255, 257],
      [256, 1000],
      [1000, 65_600],
      [65_536, 70_000],
    ] as const) {
      const first = build(from);
      const hashes = new Map(first.partial.filter((f) => f.kind === "hashes").map((f) => [f.tile.level, f.bytes]));
      const bundle = first.partial.find((f) => f.kind === "entries");
      const resumed = build(
        to,
        TileBuilder.resume(from, { hashes, entries: bundle ? decodeBundle(bundle.bytes) : [] }),
      );
      const scratch = build(to);
      const fullFrom = (files: TileFile[]) => files.map((f) => `${f.path} ${hex(f.bytes)}`);
      expect(fullFrom([...first.full, ...resumed.full])).toEqual(fullFrom(scratch.full));
      expect(fullFrom(resumed.partial)).toEqual(fullFrom(scratch.partial));
    }
  });

  it("refuses to resume without the partial tiles the size needs", () => {
    expect(() => TileBuilder.resume(300, { hashes: new Map(), entries: [] })).toThrow(
      /partial tile tile\/0\/001\.p\/44 is missing/,
    );
    const { partial: p } = build(300);
    const hashes = new Map(p.filter((f) => f.kind === "hashes").map((f) => [f.tile.level, f.bytes]));
    expect(() => TileBuilder.resume(300, { hashes, entries: [] })).toThrow(
      expect.objectContaining({ code: "bad-bundle" }),
    );
    expect(() =>
      TileBuilder.resume(300, { hashes: new Map([...hashes, [0, new Uint8Array(32)]]), entries: [] }),
    ).toThrow(expect.objectContaining({ code: "bad-tile" }));
  });
});

describe("tilesProblems", () => {
  const size = 66_000;
  const { full, partial } = build(size);
  const files = new Map([...full, ...partial].map((f) => [f.path, f.bytes]));
  const root = rootHash(leaves.slice(0, size));

  it("accepts the tiles of a checkpoint and names each file that is missing, changed or short", () => {
    expect(tilesProblems(size, root, (p) => files.get(p) ?? null)).toEqual([]);
    expect(tilesProblems(size, leaves[0]!, (p) => files.get(p) ?? null)).toEqual([
      "the partial tiles do not give the checkpoint's root",
    ]);
    const changed = new Map(files);
    const tile = Buffer.from(files.get("tile/0/100")!);
    tile[3]! ^= 1;
    changed.set("tile/0/100", tile);
    changed.delete("tile/entries/007");
    changed.set("tile/entries/008", files.get("tile/entries/008")!.subarray(0, 100));
    expect(tilesProblems(size, root, (p) => changed.get(p) ?? null)).toEqual([
      "tile/0/100 does not hash to its hash in tile/1/000",
      "tile/entries/007 is missing",
      expect.stringMatching(/^tile\/entries\/008: /),
      "tile/entries/100: entry 25600 does not hash to its leaf in tile/0/100",
    ]);
  });

  it("lists exactly the files of the tree, and names each file under tile/ or envelopes/ outside them", () => {
    expect(publishedTilePaths(size, "entries").sort()).toEqual([...files.keys()].sort());
    expect(tilesProblems(size, root, (p) => files.get(p) ?? null, [...files.keys()])).toEqual([]);
    const strays = new Map(files);
    strays.set("tile/0/258", files.get("tile/0/256")!); // a full tile past the size, where only a partial may be
    strays.set("tile/0/257.p/9", files.get("tile/0/257.p/208")!.subarray(0, 9 * 32)); // a superseded partial
    strays.set("envelopes/000", files.get("tile/entries/000")!); // bundles at the other content's place
    strays.set("tile/0/.000.123.tmp", files.get("tile/0/000")!);
    expect(tilesProblems(size, root, (p) => strays.get(p) ?? null, [...strays.keys()])).toEqual([
      "tile/0/258 is not a tile or bundle of the checkpoint's 66000 entries",
      "tile/0/257.p/9 is not a tile or bundle of the checkpoint's 66000 entries",
      "envelopes/000 is not a tile or bundle of the checkpoint's 66000 entries",
      "tile/0/.000.123.tmp is not a tile or bundle of the checkpoint's 66000 entries",
    ]);
    expect(tilesProblems(size, root, (p) => strays.get(p) ?? null)).toEqual([]); // without the listing only the expected files are read
  });

  it("checks that every entry at the C2SP bundle URL hashes to its leaf", () => {
    const changed = new Map(files);
    changed.set(
      "tile/entries/009",
      encodeBundle(Array.from({ length: 256 }, (_, i) => entry(9 * 256 + (i === 5 ? 0 : i)))),
    );
    expect(tilesProblems(size, root, (p) => changed.get(p) ?? null)).toEqual([
      "tile/entries/009: entry 2309 does not hash to its leaf in tile/0/009",
    ]);
  });

  it("checks envelope bundles at envelopes/ (counted, not hashed) when the log serves no entry bundle", () => {
    const envelopes = TileBuilder.empty("envelopes");
    const written: TileFile[] = [];
    for (let i = 0; i < 300; i++) envelopes.append(leaves[i]!, `{"seq":${i}}`, (f) => written.push(f));
    const all = [...written, ...envelopes.partials()];
    expect(all.filter((f) => f.kind !== "hashes").map((f) => [f.path, f.kind])).toEqual([
      ["envelopes/000", "envelopes"],
      ["envelopes/001.p/44", "envelopes"],
    ]);
    const served = new Map(all.map((f) => [f.path, f.bytes]));
    const root300 = rootHash(leaves.slice(0, 300));
    expect(tilesProblems(300, root300, (p) => served.get(p) ?? null)).toEqual([]);
    served.delete("envelopes/001.p/44");
    expect(tilesProblems(300, root300, (p) => served.get(p) ?? null)).toEqual(["envelopes/001.p/44 is missing"]);
  });
});
