/**
 * The published tiles read by an independent implementation of the tile arithmetic
 * (test/support/tlog-tiles-client.ts, none of the project's Merkle code): from the files alone it
 * proves inclusion of entries and the consistency of two published checkpoints, and every hash of
 * its proofs equals the API's inclusion route (over HTTP) and the store's consistency proof. As a
 * C2SP monitor would, it checks that every bundle served at the entry bundle URL `tile/entries/`
 * hashes to its leaves: the default publication (envelopes) serves none there, only at `envelopes/`.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testServer, type TestServer } from "./support/api/helpers.ts";
import { generateKeyPair } from "../core/signature.ts";
import { LEDGER_CHECKPOINT, LEDGER_VKEY, publishLedgerCheckpoint } from "../pipeline/ledger-publication.ts";
import { publishLedgerTiles } from "../pipeline/ledger-tiles.ts";
import type { Ledger } from "../store/ledger/ledger.ts";
import { openLedgerStore } from "../store/open-ledger.ts";
import { sampleEvent, steppingClock, tempDir } from "./support/store/helpers.ts";
import {
  checkEntryBundles,
  leafHashOf,
  openCheckpoint,
  readBundle,
  rootFromInclusion,
  TileTree,
  verifyConsistencyProof,
  type LogFiles,
} from "./support/tlog-tiles-client.ts";

const ORIGIN = "tiles.e2e/ledger";
const KEY = generateKeyPair("ed25519");
// Older checkpoint just below 65,536 (no level-2 tile yet); the newer one past it (three levels).
const OLD_SIZE = 65_530;
const NEW_SIZE = 66_530;

const { dir, cleanup } = tempDir("ledger-tiles-e2e-");
const dataDir = join(dir, "data");
const prefix = join(dataDir, "ledger");
let ledger: Ledger;
let server: TestServer;
let oldNote: string;
let newNote: string;
let vkey: string;

const files =
  (root: string): LogFiles =>
  async (path) => {
    try {
      return new Uint8Array(readFileSync(join(root, path)));
    } catch {
      return null;
    }
  };
const b64 = (h: Uint8Array) => Buffer.from(h).toString("base64");

beforeAll(async () => {
  ledger = await openLedgerStore({
    path: join(dir, "ledger.sqlite"),
    origin: ORIGIN,
    signer: { name: ORIGIN, secretKeyHex: KEY.secretKey },
    now: steppingClock(),
    durability: "normal",
  });
  const sign = async () => ({ note: await ledger.checkpoint(), signer: { name: ORIGIN, publicKeyHex: KEY.publicKey } });
  for (let i = 0; i < OLD_SIZE; i += 5_000)
    await ledger.append(Array.from({ length: Math.min(5_000, OLD_SIZE - i) }, (_, j) => sampleEvent(i + j)));
  await publishLedgerCheckpoint({ dataDir, ledger, sign, trustNewKey: false });
  oldNote = readFileSync(join(dataDir, LEDGER_CHECKPOINT), "utf8");
  await ledger.append(Array.from({ length: NEW_SIZE - OLD_SIZE }, (_, j) => sampleEvent(OLD_SIZE + j)));
  await publishLedgerCheckpoint({ dataDir, ledger, sign, trustNewKey: false });
  newNote = readFileSync(join(dataDir, LEDGER_CHECKPOINT), "utf8");
  vkey = readFileSync(join(dataDir, LEDGER_VKEY), "utf8").trim();
  server = await testServer(null, { ledger, keysFile: join(dir, "access.sqlite") });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  ledger?.close();
  cleanup();
});

describe("the published tiles, read independently", () => {
  it("give the root of the newest checkpoint, and that of the older one from the same tiles", async () => {
    const newer = openCheckpoint(newNote, vkey);
    const older = openCheckpoint(oldNote, vkey);
    expect([older.size, newer.size]).toEqual([OLD_SIZE, NEW_SIZE]);
    const tree = new TileTree(files(prefix), newer.size);
    expect(b64(await tree.mth(0, newer.size))).toBe(b64(newer.root));
    // The older checkpoint's partial tiles were replaced; its hashes are prefixes of the newer tiles.
    expect(b64(await tree.mth(0, older.size))).toBe(b64(older.root));
    expect(tree.read.has("tile/2/000.p/1")).toBe(true);
    expect(tree.read.has("tile/1/000")).toBe(true);
  });

  it("prove the consistency of the two checkpoints, hash for hash the store's proof", async () => {
    const newer = openCheckpoint(newNote, vkey);
    const older = openCheckpoint(oldNote, vkey);
    const tree = new TileTree(files(prefix), newer.size);
    const proof = await tree.consistency(older.size);
    expect(proof.map(b64)).toEqual((await ledger.consistencyProof(older.size, newer.size)).map(b64));
    expect(verifyConsistencyProof(older.size, newer.size, older.root, newer.root, proof)).toBe(true);
    expect(verifyConsistencyProof(older.size, newer.size, newer.root, newer.root, proof)).toBe(false);
    for (const m of [1, 255, 256, 4_097, 65_536]) {
      expect((await tree.consistency(m)).map(b64), `from ${m}`).toEqual(
        (await ledger.consistencyProof(m, newer.size)).map(b64),
      );
    }
  });

  it("serve no entry bundle at the C2SP URL tile/entries/ (envelopes do not hash to the leaves), only envelope bundles at envelopes/", async () => {
    const newer = openCheckpoint(newNote, vkey);
    const tree = new TileTree(files(prefix), newer.size);
    expect(await checkEntryBundles(files(prefix), tree, newer.size)).toBe(0);
    expect(existsSync(join(prefix, "tile", "entries"))).toBe(false);
    for (let index = 0; index * 256 < newer.size; index++) {
      const envelopes = await readBundle(files(prefix), newer.size, index, "envelopes");
      expect(JSON.parse(Buffer.from(envelopes[0]!).toString()), `bundle ${index}`).toMatchObject({ seq: index * 256 });
    }
    // The monitor's check itself: an envelope put at the C2SP URL is refused.
    const misplaced: LogFiles = async (path) =>
      path.startsWith("tile/entries/")
        ? await files(prefix)(`envelopes/${path.slice("tile/entries/".length)}`)
        : await files(prefix)(path);
    await expect(checkEntryBundles(misplaced, tree, newer.size)).rejects.toThrow(
      "tile/entries/000: entry 0 does not hash to its leaf",
    );
  });

  it("prove the inclusion of entries, hash for hash the API's inclusion route, and show their envelopes", async () => {
    const newer = openCheckpoint(newNote, vkey);
    const tree = new TileTree(files(prefix), newer.size);
    for (const seq of [0, 1, 255, 256, 4_242, 65_535, 65_536, OLD_SIZE, NEW_SIZE - 1]) {
      const response = await fetch(`${server.url}/ledger/entries/${seq}/inclusion`);
      expect(response.status).toBe(200);
      const api = (await response.json()) as {
        entry: Record<string, unknown>;
        tree_size: number;
        proof: string[];
        checkpoint: string;
      };
      expect(api.tree_size).toBe(NEW_SIZE);
      expect(api.checkpoint).toBe(newNote);
      const proof = await tree.inclusion(seq);
      expect(proof.map(b64), `seq ${seq}`).toEqual(api.proof);
      const root = rootFromInclusion(await tree.leaf(seq), seq, newer.size, proof);
      expect(root && b64(root), `seq ${seq}`).toBe(b64(newer.root));
      // The envelope bundle's entry is the envelope the API shows.
      const bundle = await readBundle(files(prefix), newer.size, Math.floor(seq / 256), "envelopes");
      expect(JSON.parse(Buffer.from(bundle[seq % 256]!).toString())).toEqual(api.entry);
    }
  });

  it("notice a changed byte in a tile: the proof of an entry under it no longer reaches the signed root", async () => {
    const original = files(prefix);
    const tampered: LogFiles = async (path) => {
      const bytes = await original(path);
      if (bytes && path === "tile/0/100") bytes[40]! ^= 1; // leaf hash of entry 25,601
      return bytes;
    };
    const root = b64(openCheckpoint(newNote, vkey).root);
    const tree = new TileTree(tampered, NEW_SIZE);
    for (const seq of [25_601, 25_700]) {
      const reached = rootFromInclusion(await tree.leaf(seq), seq, NEW_SIZE, await tree.inclusion(seq));
      expect(reached && b64(reached), `seq ${seq}`).not.toBe(root);
    }
    const untouched = 30_000;
    const reached = rootFromInclusion(await tree.leaf(untouched), untouched, NEW_SIZE, await tree.inclusion(untouched));
    expect(reached && b64(reached)).toBe(root);
  });

  it("with leaf data in the bundles, every bundle entry hashes to its level-0 hash (C2SP) and is the whole entry", async () => {
    const leafDir = join(dir, "leaf-bundles");
    const newer = openCheckpoint(newNote, vkey);
    await publishLedgerTiles({ dir: leafDir, ledger, size: newer.size, root: newer.root, from: 0, bundle: "leaf" });
    writeFileSync(join(leafDir, "checkpoint"), newNote);
    const tree = new TileTree(files(leafDir), newer.size);
    expect(b64(await tree.mth(0, newer.size))).toBe(b64(newer.root));
    // Every bundle is served at the C2SP URL, and every entry of each hashes to its leaf; no envelopes/.
    expect(await checkEntryBundles(files(leafDir), tree, newer.size)).toBe(Math.ceil(newer.size / 256));
    expect(existsSync(join(leafDir, "envelopes"))).toBe(false);
    const last = Math.floor((newer.size - 1) / 256);
    for (const index of [0, 100, last]) {
      const entries = await readBundle(files(leafDir), newer.size, index);
      for (const [i, entry] of entries.entries()) {
        const seq = index * 256 + i;
        expect(b64(leafHashOf(entry)), `seq ${seq}`).toBe(b64(await tree.leaf(seq)));
        expect(JSON.parse(Buffer.from(entry).toString())).toMatchObject({ seq, payload: expect.any(Object) });
      }
    }
  });
});
