/**
 * The ledger published as C2SP tlog-tiles beside its checkpoint (docs/ledger-tiles.md):
 * `ledger/tile/<L>/<N>[.p/<W>]` and the bundles of its entries, for the tree size of
 * `ledger/checkpoint`. Where the bundles go follows what they hold: the entries' public envelopes
 * (the default) at `ledger/envelopes/<N>[.p/<W>]`, outside the C2SP entry bundle URL, since they do
 * not hash to the leaves; the leaf data (`bundle: "leaf"`) at the C2SP entry bundle URL
 * `ledger/tile/entries/<N>[.p/<W>]`. Bundles at the other place (left from a publication of the
 * other content) are removed. Written incrementally: only the entries after the size the tiles were
 * last written for are read and hashed, resuming from the partial tiles on disk.
 *
 * - A full tile or bundle is written once and never again: one already there must hold the same
 *   bytes (otherwise the run fails, `tile-differs`).
 * - A partial tile is replaced as its tile fills: writing any version of tile (L, N) removes every
 *   other `N.p/<W>` of it. Only the partial tiles of the published checkpoint remain; a client
 *   holding an older checkpoint reads the same hashes as the prefix of the wider tile.
 * - Everything is staged and renamed into place only after the tiles' root equals the checkpoint's,
 *   so a ledger whose entries do not hash to the signed root publishes nothing. A build into a folder
 *   without `tile/` stages the whole tree in one hidden folder (`.tile.<pid>.tmp`), written on a
 *   helper thread when it is large, and renames its `envelopes/` (if any) and then its `tile/` into
 *   place; an update stages each file beside its target.
 */
import { hash } from "node:crypto";
import { filesUnder } from "../store/files.ts";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join, sep } from "node:path";
import { entryText } from "../core/ledger/entry.ts";
import { envelopeFromEntryText, envelopeText } from "../core/ledger/envelope.ts";
import type { LedgerReader } from "../core/ledger/store.ts";
import { equalBytes } from "../core/merkle.ts";
import { formatDigest } from "../core/digest.ts";
import { openFileWriter } from "./file-writer.ts";
import {
  bundlePath,
  bundleRoot,
  decodeBundle,
  partialDir,
  partialTiles,
  publishedTilePaths,
  rootFromPartials,
  TileBuilder,
  TileError,
  tilePath,
  TILE_WIDTH,
  type BundleKind,
  type TileFile,
} from "../core/tlog-tiles.ts";
import { CodedError } from "../core/errors.ts";

/**
 * What an entry bundle holds for each entry: its public envelope (the default: payloads are the
 * government-keyed audit trail), served at `envelopes/`, or its leaf data, the whole entry's JCS (a
 * ledger that is public whole), served at the C2SP entry bundle URL `tile/entries/`.
 */
export type BundleContent = "envelope" | "leaf";

/** The kind of bundle (and so its place, core/tlog-tiles.ts `bundlePath`) a content is published as. */
export function bundleKind(content: BundleContent = "envelope"): BundleKind {
  return content === "leaf" ? "entries" : "envelopes";
}

const otherKind = (kind: BundleKind): BundleKind => (kind === "entries" ? "envelopes" : "entries");

export type LedgerTilesCode = "tile-differs" | "root-differs" | "shrinks";

export class LedgerTilesError extends CodedError<LedgerTilesCode> {}

export interface LedgerTilesOptions {
  /** The log's prefix folder: `data/ledger` (tiles under `tile/`). */
  dir: string;
  ledger: LedgerReader;
  /** The tree size to publish tiles for: the checkpoint's. */
  size: number;
  /** The checkpoint's root: the tiles must give it. */
  root: Uint8Array;
  /** The size the tiles on disk were written for (the previous checkpoint's); 0 builds from the start. */
  from: number;
  bundle?: BundleContent;
}

export interface LedgerTilesResult {
  size: number;
  /** Files written (new full ones and replaced partial ones). */
  written: number;
  /** Superseded partial tiles removed, and bundles removed from the place of the other content. */
  removed: number;
  /**
   * Stray files removed: files under `tile/` or `envelopes/` that no tree of the checkpoint's size
   * (or, before the update, of the size the tiles were written for) has — a full tile past the
   * size, a copy, a left-over staged file.
   */
  strays: number;
  /** True when the tiles for `from` were not all there, so every tile was built from the first entry. */
  rebuilt: boolean;
}

/** Brings the tiles under `dir` to `size`; throws LedgerTilesError (nothing replaced) when they cannot agree with `root`. */
export async function publishLedgerTiles(options: LedgerTilesOptions): Promise<LedgerTilesResult> {
  const { dir, size } = options;
  if (options.from > size)
    throw new LedgerTilesError(
      "shrinks",
      `the tiles were written for ${options.from} entries, the checkpoint has ${size}`,
    );
  const kind = bundleKind(options.bundle);
  const edge = readEdge(dir, options.from, kind);
  if (!edge && !existsSync(join(dir, "tile"))) return await publishNewTree(options);
  const from = edge ? options.from : 0;
  // Strays of the tiles on disk go first: one where a full tile of this update lands would fail it.
  const before = edge ? removeStrays(dir, options.from, kind) : { partials: 0, others: 0 };
  const builder = edge ? TileBuilder.resume(from, edge, kind) : TileBuilder.empty(kind);
  // Only where each staged file goes is kept (a full build stages hundreds of MB of bundles).
  const staged: { tmp: string; target: string; file: Omit<TileFile, "bytes"> }[] = [];
  const stage = (file: TileFile): void => {
    const target = join(dir, file.path);
    // existsSync first: a fresh build would otherwise pay for an ENOENT error per file.
    const onDisk = existsSync(target) ? readOrNull(target) : null;
    if (onDisk && Buffer.compare(onDisk, file.bytes) === 0) return;
    if (onDisk && file.full)
      throw new LedgerTilesError(
        "tile-differs",
        `${target} is published and differs from the ledger's: a full tile is never rewritten`,
      );
    const tmp = join(dirname(target), `.${basename(target)}.${process.pid}.tmp`);
    mkdirSync(dirname(tmp), { recursive: true });
    writeFileSync(tmp, file.bytes);
    staged.push({ tmp, target, file: { path: file.path, full: file.full, tile: file.tile, kind: file.kind } });
  };
  try {
    await appendEntries(builder, options.ledger, from, size, options.bundle ?? "envelope", stage);
    const partials = builder.partials();
    checkRoot(size, partials, options.root);
    for (const p of partials) stage(p);
  } catch (error) {
    for (const s of staged) rmSync(s.tmp, { force: true });
    throw error;
  }
  let removed = before.partials;
  for (const { tmp, target, file } of staged) {
    renameSync(tmp, target);
    removed += removeOtherPartials(dir, file);
  }
  removed += removeOtherBundles(dir, kind);
  // On a rebuild every tile was staged or found equal; partial tiles of sizes past this one, and
  // anything else that is no file of the tree, may remain.
  const after = removeStrays(dir, size, kind);
  removed += after.partials;
  return {
    size,
    written: staged.length,
    removed,
    strays: before.others + after.others,
    rebuilt: !edge && options.from > 0,
  };
}

/** From this many entries on, a new tree's files are written on a helper thread (its start is not worth it below). */
export const BACKGROUND_WRITE_MIN_ENTRIES = 64 * TILE_WIDTH;

/**
 * The first build into `dir`: every file is new, so none is looked for or compared. The tree is
 * written under a hidden staging folder (`tile/` and, for envelope bundles, `envelopes/` within it)
 * and renamed into place once the root agrees — `envelopes/` first, `tile/` last, since a folder
 * without `tile/` is built anew (replacing any `envelopes/` left there); a failed build removes the
 * staging folder, leaving no `tile/` at all.
 */
async function publishNewTree(options: LedgerTilesOptions): Promise<LedgerTilesResult> {
  const { dir, size } = options;
  const kind = bundleKind(options.bundle);
  const staging = join(dir, `.tile.${process.pid}.tmp`);
  rmSync(staging, { recursive: true, force: true });
  const writer = openFileWriter(size >= BACKGROUND_WRITE_MIN_ENTRIES);
  let written = 0;
  const write = (file: TileFile): void => {
    writer.write(join(staging, file.path), file.bytes);
    written += 1;
  };
  let removed = 0;
  try {
    const builder = TileBuilder.empty(kind);
    await appendEntries(builder, options.ledger, 0, size, options.bundle ?? "envelope", write);
    const partials = builder.partials();
    checkRoot(size, partials, options.root);
    for (const p of partials) write(p);
    writer.finish();
    if (written > 0) {
      if (kind === "envelopes") {
        rmSync(join(dir, bundleRoot(kind)), { recursive: true, force: true });
        renameSync(join(staging, bundleRoot(kind)), join(dir, bundleRoot(kind)));
      } else removed += removeOtherBundles(dir, kind);
      renameSync(join(staging, "tile"), join(dir, "tile"));
    }
    rmSync(staging, { recursive: true, force: true });
  } catch (error) {
    writer.abort();
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  return { size, written, removed, strays: 0, rebuilt: options.from > 0 };
}

/** Throws `root-differs` unless the partial tiles of a tree of `size` give `expected`. */
function checkRoot(size: number, partials: TileFile[], expected: Uint8Array): void {
  const root = rootFromPartials(
    size,
    new Map(partials.filter((f) => f.kind === "hashes").map((f) => [f.tile.level, f.bytes])),
  );
  if (!equalBytes(root, expected)) {
    throw new LedgerTilesError(
      "root-differs",
      `the ledger's first ${size} entries hash to ${formatDigest(root)}, the checkpoint signs ${formatDigest(expected)}: no tile is published`,
    );
  }
}

/**
 * What `--check` reports about the tiles of a checkpoint of `size` entries with `root`: every tile
 * or bundle that is missing or differs from what the ledger's entries give, every superseded
 * partial tile still present, every other file under `tile/` or `envelopes/` that is not one of the
 * tree of `size` (core/tlog-tiles.ts `publishedTilePaths`), and every bundle at the other content's
 * place (envelopes served at the C2SP entry bundle URL, or leaf data left at `envelopes/`). Reads the
 * whole ledger up to `size`; writes nothing.
 */
export async function ledgerTilesProblems(options: Omit<LedgerTilesOptions, "from">): Promise<string[]> {
  const { dir, size } = options;
  const kind = bundleKind(options.bundle);
  const problems: string[] = [];
  const builder = TileBuilder.empty(kind);
  const expect = (file: TileFile): void => {
    const target = join(dir, file.path);
    const onDisk = readOrNull(target);
    if (!onDisk) problems.push(`${target} is missing`);
    else if (Buffer.compare(onDisk, file.bytes) !== 0) problems.push(`${target} differs from the ledger's`);
  };
  await appendEntries(builder, options.ledger, 0, size, options.bundle ?? "envelope", expect);
  const partials = builder.partials();
  for (const p of partials) expect(p);
  const root = rootFromPartials(
    size,
    new Map(partials.filter((f) => f.kind === "hashes").map((f) => [f.tile.level, f.bytes])),
  );
  if (!equalBytes(root, options.root))
    problems.push(
      `the ledger's first ${size} entries hash to ${formatDigest(root)}, the checkpoint signs ${formatDigest(options.root)}`,
    );
  for (const stray of strayFiles(dir, size, kind)) {
    problems.push(
      isPartial(stray)
        ? `${stray} is a superseded partial tile`
        : `${stray} is not a tile or bundle of the checkpoint's ${size} entries`,
    );
  }
  const other = join(dir, bundleRoot(otherKind(kind)));
  if (existsSync(other)) {
    const why =
      kind === "envelopes"
        ? "the bundles hold envelopes, served at envelopes/: C2SP's tile/entries/ is for leaf data only"
        : "the bundles hold leaf data, served at tile/entries/";
    for (const file of filesIn(other)) problems.push(`${file} is not a bundle of this log (${why})`);
  }
  return problems;
}

/** Reads entries [from, size), rehashing each from its stored text, into the builder. */
async function appendEntries(
  builder: TileBuilder,
  ledger: LedgerReader,
  from: number,
  size: number,
  content: BundleContent,
  onFull: (file: TileFile) => void,
): Promise<void> {
  if (from === size) return;
  for await (const { entry, payloadText } of ledger.storedEntries(from, size)) {
    const text = entryText(entry, payloadText);
    // U+0000 is the RFC 9162 leaf prefix 0x00; the hash comes back as a 32-character latin1 string.
    const leaf = hash("sha256", `\u0000${text}`, "binary");
    builder.append(
      leaf,
      content === "envelope" ? (envelopeFromEntryText(text, payloadText) ?? envelopeText(entry)) : text,
      onFull,
    );
  }
  if (builder.size !== size)
    throw new RangeError(`the ledger gave ${builder.size - from} entries from ${from}, not ${size - from}`);
}

/**
 * The partial tiles and bundle of a tree of `size` entries as published (bundles of `kind`), or null
 * when one is missing — or when the last full bundle is not at `kind`'s place, so that bundles
 * published as the other content are all written again.
 */
function readEdge(
  dir: string,
  size: number,
  kind: BundleKind,
): { hashes: Map<number, Uint8Array>; entries: Uint8Array[] } | null {
  if (size === 0) return null;
  const hashes = new Map<number, Uint8Array>();
  for (const p of partialTiles(size)) {
    const bytes = readOrNull(join(dir, tilePath(p)));
    if (!bytes) return null;
    hashes.set(p.level, bytes);
  }
  const width = size % TILE_WIDTH;
  let entries: Uint8Array[] = [];
  if (width > 0) {
    const path = bundlePath(Math.floor(size / TILE_WIDTH), width, kind);
    const bytes = readOrNull(join(dir, path));
    if (!bytes) return null;
    entries = decodeBundle(bytes);
    if (entries.length !== width)
      throw new TileError("bad-bundle", `${path} holds ${entries.length} entries, not ${width}`);
  }
  if (size >= TILE_WIDTH && !existsSync(join(dir, bundlePath(Math.floor(size / TILE_WIDTH) - 1, TILE_WIDTH, kind))))
    return null;
  return { hashes, entries };
}

/** Removes the other partial versions of the tile `file` is a version of; returns how many. */
function removeOtherPartials(dir: string, file: Omit<TileFile, "bytes">): number {
  const pdir = join(dir, partialDir(file.kind === "hashes" ? file.tile.level : file.kind, file.tile.index));
  if (!existsSync(pdir)) return 0;
  let removed = 0;
  for (const name of readdirSync(pdir)) {
    if (file.full || name !== String(file.tile.width)) {
      unlinkSync(join(pdir, name));
      removed += 1;
    }
  }
  if (readdirSync(pdir).length === 0) rmdirSync(pdir);
  return removed;
}

/** Removes the stray files of a tree of `size` (`strayFiles`); returns how many were superseded partials and how many anything else. */
function removeStrays(dir: string, size: number, kind: BundleKind): { partials: number; others: number } {
  const counts = { partials: 0, others: 0 };
  for (const file of strayFiles(dir, size, kind)) {
    removeFile(file);
    if (isPartial(file)) counts.partials += 1;
    else counts.others += 1;
  }
  return counts;
}

/** Removes `file`, and its folder when that is a partial tile's and left empty. */
function removeFile(file: string): void {
  unlinkSync(file);
  if (isPartial(file) && readdirSync(dirname(file)).length === 0) rmdirSync(dirname(file));
}

/** True for a version of a partial tile or bundle: a file in an `<N>.p` folder. */
function isPartial(file: string): boolean {
  return basename(dirname(file)).endsWith(".p");
}

/**
 * Every file under `dir/tile` and `dir/envelopes` that is not one of the tree of `size` entries with
 * bundles of `kind` (core/tlog-tiles.ts `publishedTilePaths`): superseded partial tiles, and any
 * other file (a full tile past the size, a copy, a staged file left by an interrupted run). The
 * other kind's bundles are `removeOtherBundles`'s.
 */
function strayFiles(dir: string, size: number, kind: BundleKind): string[] {
  const expected = new Set(publishedTilePaths(size, kind).map((path) => join(dir, path)));
  const other = join(dir, bundleRoot(otherKind(kind)));
  const strays: string[] = [];
  for (const top of ["tile", "envelopes"]) {
    for (const path of filesIn(join(dir, top))) {
      if (path.startsWith(other + sep)) continue;
      if (!expected.has(path)) strays.push(path);
    }
  }
  return strays.sort();
}

/** Removes the bundles at the place of the other kind than `kind` (published as the other content); returns how many. */
function removeOtherBundles(dir: string, kind: BundleKind): number {
  const other = join(dir, bundleRoot(otherKind(kind)));
  const files = filesIn(other);
  rmSync(other, { recursive: true, force: true });
  return files.length;
}

/** The files under `root`, as paths joined to it; none when it does not exist. */
function filesIn(root: string): string[] {
  return filesUnder(root).map((file) => join(root, file));
}

function readOrNull(path: string): Buffer | null {
  try {
    return readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}
