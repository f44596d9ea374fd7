import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { signCheckpoint } from "../core/checkpoint.ts";
import { generateKeyPair } from "../core/signature.ts";
import { cosign, splitNote } from "../core/witness/cosignature.ts";
import { entryInclusion } from "./ledger/entry-inclusion.ts";
import type { Ledger } from "./ledger/ledger.ts";
import { openLedgerStore } from "./open-ledger.ts";
import { witnessedCheckpointReader } from "./witnessed-checkpoint.ts";
import { tempDir } from "../test/support/store/helpers.ts";

const signer = { name: "test/ledger", secretKeyHex: generateKeyPair("ed25519").secretKey };
const witness = generateKeyPair("ed25519").secretKey;
const burn = (n: number) => ({
  type: "mic_burn",
  payload: { account: "ATLAS", amount_shards: String(n), reason: "fee" },
});
let ledger: Ledger;
const { dir, cleanup } = tempDir("witnessed-");
afterEach(async () => {
  await ledger?.close();
});

describe("the API's proofs carry the published witnessed checkpoint", () => {
  it("prefers the cosigned checkpoint when it covers the entry and is the ledger's tree; ignores it otherwise", async () => {
    ledger = await openLedgerStore({ path: ":memory:", origin: "test/ledger", signer });
    await ledger.append([1, 2, 3, 4].map(burn));
    const note = (await ledger.latestCheckpoint())!;
    const cosigned = note + cosign(splitNote(note).body, "w.test", witness, 1_700_000_000);
    mkdirSync(join(dir, "ledger"), { recursive: true });
    writeFileSync(join(dir, "ledger", "checkpoint"), cosigned);
    await ledger.append([5, 6].map(burn));
    const read = witnessedCheckpointReader(dir, ledger);
    expect(await read()).toEqual({ note: cosigned, size: 4 });
    expect(await entryInclusion(ledger, 2, await read())).toMatchObject({
      status: "proved",
      treeSize: 4,
      checkpoint: cosigned,
    });
    // An entry it does not cover: the newest checkpoint, without cosignatures.
    expect(await entryInclusion(ledger, 5, await read())).toMatchObject({ status: "proved", treeSize: 6 });
    // Another tree at that size (not this ledger's root), or no cosignature: not served.
    const other = signCheckpoint({ origin: "test/ledger", size: 4, rootHash: new Uint8Array(32) }, signer);
    writeFileSync(
      join(dir, "ledger", "checkpoint"),
      other + cosign(splitNote(other).body, "w.test", witness, 1_700_000_000) + "\u2014 x QUFBQUFB\n",
    );
    expect(await witnessedCheckpointReader(dir, ledger)()).toBeNull();
    writeFileSync(join(dir, "ledger", "checkpoint"), note);
    expect(await witnessedCheckpointReader(dir, ledger)()).toBeNull();
    cleanup();
  });
});
