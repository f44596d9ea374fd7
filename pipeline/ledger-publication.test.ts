import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { verifierKey, verifyCheckpoint } from "../core/checkpoint.ts";
import { verifyConsistency } from "../core/merkle.ts";
import { generateKeyPair } from "../core/signature.ts";
import { ExportLedgerReader, exportLedger } from "../store/ledger-jsonl.ts";
import type { Ledger } from "../store/ledger/ledger.ts";
import { openLedgerStore } from "../store/open-ledger.ts";
import { sampleEvent, steppingClock, tempDir } from "../test/support/store/helpers.ts";
import {
  LEDGER_CHECKPOINT,
  LEDGER_VKEY,
  ledgerPublicationProblems,
  publishLedgerCheckpoint,
} from "./ledger-publication.ts";

const ORIGIN = "publication.test/ledger";
const KEY = generateKeyPair("ed25519");
let dir: string;
let cleanup: () => void;
let dataDir: string;
const open: Ledger[] = [];

beforeEach(async () => {
  ({ dir, cleanup } = tempDir("ledger-publication-"));
  dataDir = join(dir, "data");
});
afterEach(async () => {
  for (const l of open.splice(0)) await l.close();
  cleanup();
});

async function ledgerWith(name: string, events: number, key = KEY, from = 0): Promise<Ledger> {
  const ledger = await openLedgerStore({
    path: join(dir, name),
    origin: ORIGIN,
    signer: { name: ORIGIN, secretKeyHex: key.secretKey },
    now: steppingClock(),
    durability: "normal",
  });
  open.push(ledger);
  if (events > 0) await ledger.append(Array.from({ length: events }, (_, i) => sampleEvent(from + i)));
  return ledger;
}

const signer = (key = KEY) => ({ name: ORIGIN, publicKeyHex: key.publicKey });
const publish = async (ledger: Ledger | ExportLedgerReader, trustNewKey = false, key = KEY) =>
  await publishLedgerCheckpoint({
    dataDir,
    ledger,
    sign: async () =>
      !(ledger instanceof ExportLedgerReader)
        ? { note: await ledger.checkpoint(), signer: signer(key) }
        : { note: await ledger.latestCheckpoint() },
    trustNewKey,
  });
const published = () => readFileSync(join(dataDir, LEDGER_CHECKPOINT), "utf8");
const parsed = (note: string) => verifyCheckpoint(note, [signer()]);

describe("publishing the ledger's checkpoint and key", () => {
  it("publishes the key and the checkpoint, leaves them alone while nothing is new, and publishes a consistent successor", async () => {
    const ledger = await ledgerWith("l.sqlite", 30);
    expect(await publish(ledger)).toMatchObject({ checkpoint: "written", vkey: "created", size: 30 });
    expect(readFileSync(join(dataDir, LEDGER_VKEY), "utf8")).toBe(`${verifierKey(ORIGIN, KEY.publicKey)}\n`);
    const first = published();
    expect(parsed(first)).toMatchObject({ origin: ORIGIN, size: 30 });
    const mtime = statSync(join(dataDir, LEDGER_CHECKPOINT), { bigint: true }).mtimeNs;

    expect(await publish(ledger)).toMatchObject({ checkpoint: "unchanged", vkey: "present", size: 30 });
    expect(statSync(join(dataDir, LEDGER_CHECKPOINT), { bigint: true }).mtimeNs).toBe(mtime);
    expect(await ledgerPublicationProblems(dataDir, ledger)).toEqual([]);

    await ledger.append([sampleEvent(30), sampleEvent(31)]);
    expect(await ledgerPublicationProblems(dataDir, ledger)).toEqual([
      expect.stringMatching(/covers 30 entries, the ledger has 32/),
    ]);
    expect(await publish(ledger)).toMatchObject({ checkpoint: "written", vkey: "present", size: 32 });
    // What anyone can check with the two public checkpoints and a consistency proof.
    const older = parsed(first);
    const newer = parsed(published());
    expect(
      verifyConsistency(
        older.size,
        newer.size,
        older.rootHash,
        newer.rootHash,
        await ledger.consistencyProof(older.size, newer.size),
      ),
    ).toBe(true);
    expect(await ledgerPublicationProblems(dataDir, ledger)).toEqual([]);
  });

  it("refuses to publish over a ledger that is not an extension of the published checkpoint", async () => {
    await publish(await ledgerWith("a.sqlite", 20));
    const before = published();
    const rewritten = await ledgerWith("b.sqlite", 25, KEY, 1000); // same origin and key, other history
    await expect(publish(await rewritten)).rejects.toThrow(
      /root at size 20 is .* not an extension of what was published/,
    );
    await expect(publish(await rewritten)).rejects.toThrow(expect.objectContaining({ code: "not-an-extension" }));
    expect(await ledgerPublicationProblems(dataDir, await rewritten)).toEqual([
      expect.stringMatching(/not an extension/),
    ]);
    const shorter = await ledgerWith("c.sqlite", 10);
    await expect(publish(await shorter)).rejects.toThrow(/covers 20 entries, the ledger has only 10/);
    expect(published()).toBe(before);
  });

  it("signs only with a listed key unless told to trust a new one", async () => {
    const ledger = await ledgerWith("l.sqlite", 5);
    await publish(ledger);
    await ledger.append([sampleEvent(5)]);
    const other = generateKeyPair("ed25519");
    const rotated = await openLedgerStore({
      path: join(dir, "l.sqlite"),
      origin: ORIGIN,
      signer: { name: ORIGIN, secretKeyHex: other.secretKey },
    });
    open.push(rotated);
    await expect(publish(rotated, false, other)).rejects.toThrow(
      /ledger signing key .* is not listed in .*ledger\.vkey.*--trust-new-key/,
    );
    await expect(publish(rotated, false, other)).rejects.toThrow(expect.objectContaining({ code: "key-not-listed" }));
    expect(published().split("\n")[1]).toBe("5");
    expect(await publish(rotated, true, other)).toMatchObject({ checkpoint: "written", vkey: "added", size: 6 });
    expect(readFileSync(join(dataDir, LEDGER_VKEY), "utf8").trim().split("\n")).toEqual([
      verifierKey(ORIGIN, KEY.publicKey),
      verifierKey(ORIGIN, other.publicKey),
    ]);
  });

  it("reports a published checkpoint that no listed key signed, or that is missing", async () => {
    const ledger = await ledgerWith("l.sqlite", 8);
    expect(await ledgerPublicationProblems(dataDir, ledger)).toEqual([
      expect.stringMatching(/ledger\.vkey is missing/),
    ]);
    await publish(ledger);
    const note = published();
    // A forged root under the old signature: the signature no longer covers the text.
    const lines = note.split("\n");
    lines[2] = Buffer.alloc(32, 7).toString("base64");
    writeFileSync(join(dataDir, LEDGER_CHECKPOINT), lines.join("\n"));
    expect(await ledgerPublicationProblems(dataDir, ledger)).toEqual([expect.stringMatching(/ledger\/checkpoint: /)]);
    await expect(publish(ledger)).rejects.toThrow(/ledger\/checkpoint: /);
    await expect(publish(ledger)).rejects.toThrow(expect.objectContaining({ code: "unverified" }));
    writeFileSync(join(dataDir, LEDGER_VKEY), `${verifierKey(ORIGIN, generateKeyPair("ed25519").publicKey)}\n`);
    writeFileSync(join(dataDir, LEDGER_CHECKPOINT), note);
    expect(await ledgerPublicationProblems(dataDir, ledger)).toEqual([expect.stringMatching(/ledger\/checkpoint: /)]);
  });

  it("publishes an export's own checkpoint, checking it extends the published one by streaming the export", async () => {
    const ledger = await ledgerWith("l.sqlite", 12);
    await publish(ledger);
    await ledger.append(Array.from({ length: 9 }, (_, i) => sampleEvent(12 + i)));
    const out = join(dir, "export");
    await exportLedger(await ledger, out);
    const reader = new ExportLedgerReader(out, [signer()]);
    expect(await ledgerPublicationProblems(dataDir, reader)).toEqual([
      expect.stringMatching(/covers 12 entries, the ledger has 21/),
    ]);
    expect(await publish(reader)).toMatchObject({ checkpoint: "written", vkey: "present", size: 21 });
    expect(published()).toBe(readFileSync(join(out, "checkpoint"), "utf8"));
    expect(existsSync(join(dataDir, "ledger", "ledger.jsonl"))).toBe(false); // the keyed export is never published
  });
});
