import { afterEach, describe, expect, it } from "vitest";
import { signCheckpoint, verifierKey, parseVerifierKey, type NoteVerifier } from "../checkpoint.ts";
import { sha256Hex } from "../digest.ts";
import { publicKeyFromSecret } from "../signature.ts";
import { openLedgerStore } from "../../store/open-ledger.ts";
import type { Ledger } from "../../store/ledger/ledger.ts";
import type { LedgerReader, StoredEntry } from "./store.ts";
import { PinnedLedgerReader, PinnedReaderError } from "./pinned-reader.ts";
import { validateEvent } from "../events/registry.ts";

const ORIGIN = "pinned.example/ledger";
const SECRET = sha256Hex("pinned reader test key");
const TRUSTED: NoteVerifier[] = [parseVerifierKey(verifierKey(ORIGIN, publicKeyFromSecret("ed25519", SECRET)))];

const open: Ledger[] = [];
afterEach(async () => {
  for (const l of open.splice(0)) await l.close();
});

async function ledgerOf(count: number): Promise<Ledger> {
  const ledger = await openLedgerStore({
    path: ":memory:",
    origin: ORIGIN,
    signer: { name: ORIGIN, secretKeyHex: SECRET },
  });
  open.push(ledger);
  for (let i = 0; i < count; i++) await ledger.append([{ type: "sample.generated", payload: payloadOf(i) }]);
  return ledger;
}

function payloadOf(i: number) {
  return { generator: "pinned-reader test", seed: `seed-${i}`, notice: "test entries" };
}

/** The ledger's reads, some of them replaced (a store that lies). */
function over(ledger: Ledger, replaced: Partial<LedgerReader>): LedgerReader {
  return {
    origin: ledger.origin,
    size: () => ledger.size(),
    entries: (start, end) => ledger.entries(start, end),
    storedEntries: (start, end) => ledger.storedEntries(start, end),
    rootHash: (n) => ledger.rootHash(n),
    inclusionProof: (seq, n) => ledger.inclusionProof(seq, n),
    consistencyProof: (a, b) => ledger.consistencyProof(a, b),
    latestCheckpoint: () => ledger.latestCheckpoint(),
    verify: () => ledger.verify(),
    ...replaced,
  };
}

const codeOf = async (promise: Promise<unknown>) =>
  ((await promise.catch((e: unknown) => e)) as PinnedReaderError).code;

describe("PinnedLedgerReader", () => {
  it("reads a growing ledger as of its newest checkpoint: size, entries, root and the note itself", async () => {
    const ledger = await ledgerOf(3);
    const note = await ledger.checkpoint();
    const pinned = await PinnedLedgerReader.open(ledger, TRUSTED, validateEvent);
    await ledger.append([{ type: "sample.generated", payload: payloadOf(9) }]);
    expect(await pinned.size()).toBe(3);
    expect((await Array.fromAsync(pinned.entries())).map((e) => e.seq)).toEqual([0, 1, 2]);
    expect((await Array.fromAsync(pinned.entries(1))).map((e) => e.seq)).toEqual([1, 2]);
    expect([...(await pinned.rootHash())]).toEqual([...(await ledger.rootHash(3))]);
    expect(await pinned.latestCheckpoint()).toBe(note);
    await expect(pinned.inclusionProof(0, 4)).rejects.toThrow(RangeError);
  });

  it("refuses a ledger with no checkpoint, one signed by an unknown key, and one claiming more entries than stored", async () => {
    const none = await ledgerOf(0);
    const bare: LedgerReader = over(none, { latestCheckpoint: async () => null });
    expect(await codeOf(PinnedLedgerReader.open(bare, TRUSTED, validateEvent))).toBe("no-checkpoint");

    const ledger = await ledgerOf(2);
    await ledger.checkpoint();
    const stranger = [parseVerifierKey(verifierKey(ORIGIN, publicKeyFromSecret("ed25519", sha256Hex("another key"))))];
    expect(await codeOf(PinnedLedgerReader.open(ledger, stranger, validateEvent))).toBe("checkpoint-unverified");

    const ahead = signCheckpoint(
      { origin: ORIGIN, size: 50, rootHash: await ledger.rootHash() },
      { name: ORIGIN, secretKeyHex: SECRET },
    );
    const forged: LedgerReader = over(ledger, { latestCheckpoint: async () => ahead });
    expect(await codeOf(PinnedLedgerReader.open(forged, TRUSTED, validateEvent))).toBe("checkpoint-ahead");
  });

  it("fails the read when an entry under the checkpoint does not verify, or the entries do not hash to its root", async () => {
    const ledger = await ledgerOf(3);
    await ledger.checkpoint();
    const tampered: LedgerReader = over(ledger, {
      storedEntries: async function* (start?: number, end?: number): AsyncIterableIterator<StoredEntry> {
        for await (const s of ledger.storedEntries(start, end)) {
          yield s.entry.seq === 1
            ? { entry: { ...s.entry, payload: { ...s.entry.payload, seed: "forged" } }, payloadText: s.payloadText }
            : s;
        }
      },
    });
    const pinned = await PinnedLedgerReader.open(tampered, TRUSTED, validateEvent);
    expect(await codeOf(Array.fromAsync(pinned.entries()))).toBe("entries-unverified");

    const otherRoot = signCheckpoint(
      { origin: ORIGIN, size: 3, rootHash: new Uint8Array(32) },
      { name: ORIGIN, secretKeyHex: SECRET },
    );
    const wrongRoot: LedgerReader = over(ledger, { latestCheckpoint: async () => otherRoot });
    const pinnedWrong = await PinnedLedgerReader.open(wrongRoot, TRUSTED, validateEvent);
    expect(await codeOf(Array.fromAsync(pinnedWrong.entries()))).toBe("entries-unverified");
  });
});
