/**
 * The site build's check of the published ledger (site/src/lib/ledger.ts `publishLedger`), without
 * a full `astro build`: the tiles pass only when they are exactly those of the checkpoint's size,
 * and exactly those are copied.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { generateKeyPair } from "../core/signature.ts";
import { publishLedgerCheckpoint } from "../pipeline/ledger-publication.ts";
import { openLedgerStore } from "../store/open-ledger.ts";
import { publishLedger } from "../site/src/lib/ledger.ts";
import { filesUnder } from "../store/files.ts";
import { sampleEvent, steppingClock, tempDir } from "./support/store/helpers.ts";

let dir: string;
let cleanup: () => void;
let dataDir: string;

beforeEach(async () => {
  ({ dir, cleanup } = tempDir("site-ledger-"));
  dataDir = join(dir, "data");
  const origin = "site-ledger.test/ledger";
  const key = generateKeyPair("ed25519");
  const ledger = await openLedgerStore({
    path: join(dir, "ledger.sqlite"),
    origin,
    signer: { name: origin, secretKeyHex: key.secretKey },
    now: steppingClock(),
    durability: "normal",
  });
  try {
    await ledger.append(Array.from({ length: 600 }, (_, i) => sampleEvent(i)));
    await publishLedgerCheckpoint({
      dataDir,
      ledger,
      sign: async () => ({ note: await ledger.checkpoint(), signer: { name: origin, publicKeyHex: key.publicKey } }),
      trustNewKey: false,
    });
  } finally {
    await ledger.close();
  }
});
afterEach(() => cleanup());

describe("publishLedger", () => {
  it("copies exactly the checkpoint's tiles and bundles", async () => {
    const out = join(dir, "out");
    expect(await publishLedger(dataDir, out)).toEqual({ size: 600, tiles: true });
    expect(filesUnder(join(out, "ledger"))).toEqual([
      "checkpoint",
      "envelopes/000",
      "envelopes/001",
      "envelopes/002.p/88",
      "tile/0/000",
      "tile/0/001",
      "tile/0/002.p/88",
      "tile/1/000.p/2",
    ]);
  });

  it("refuses a file under tile/ or envelopes/ that is not of the checkpoint's tree, and publishes nothing of it", async () => {
    const ledgerDir = join(dataDir, "ledger");
    // A full tile where the checkpoint has only the partial 002.p/88: it would be served as immutable.
    copyFileSync(join(ledgerDir, "tile/0/001"), join(ledgerDir, "tile/0/002"));
    const out = join(dir, "out");
    await expect(publishLedger(dataDir, out)).rejects.toThrow(
      expect.objectContaining({
        code: "ledger-tiles-unverified",
        message: expect.stringMatching(/tile\/0\/002 is not a tile or bundle of the checkpoint's 600 entries/),
      }),
    );
    expect(() => readFileSync(join(out, "ledger", "tile/0/002"))).toThrow();

    const again = join(dataDir, "..", "data2");
    mkdirSync(join(again, "ledger", "envelopes", "002.p"), { recursive: true });
    for (const f of filesUnder(dataDir)) {
      if (f === "ledger/tile/0/002") continue;
      mkdirSync(join(again, f, ".."), { recursive: true });
      copyFileSync(join(dataDir, f), join(again, f));
    }
    writeFileSync(
      join(again, "ledger", "envelopes", "002.p", "80"),
      readFileSync(join(again, "ledger", "envelopes", "002.p", "88")),
    );
    await expect(publishLedger(again, join(dir, "out2"))).rejects.toThrow(
      /envelopes\/002\.p\/80 is not a tile or bundle/,
    );
  });
});
