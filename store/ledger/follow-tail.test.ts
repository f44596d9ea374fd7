/**
 * A ledger instance keeps following the file whatever another writer on it does. Two
 * Ledger connections on one file — the server (`own`) and an operator command
 * (`foreign`) — run every sequence of three steps over: the server's own write, a foreign append,
 * the server's checkpoint, and a read of the server's that takes one entry and drops the iterator
 * (what the inclusion route does). After each step both instances must see the file's size and
 * the server's projections the file's entries; after the sequence both must still write.
 */
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { foldAsync } from "../../core/ledger/projection.ts";
import { generateKeyPair } from "../../core/signature.ts";
import { openLedgerStore } from "../open-ledger.ts";
import {
  openedSessions,
  openOnce,
  sampleEvent,
  sessionOpened,
  steppingClock,
  tempDir,
} from "../../test/support/store/helpers.ts";

const ORIGIN = "follow.test/ledger";
const key = generateKeyPair("ed25519");
const signer = { name: ORIGIN, secretKeyHex: key.secretKey };

type Step = "own write" | "foreign append" | "own checkpoint" | "own partial read";
const STEPS: readonly Step[] = ["own write", "foreign append", "own checkpoint", "own partial read"];

/** Every sequence of `length` steps (with repetition). */
function sequences(length: number): Step[][] {
  if (length === 0) return [[]];
  return sequences(length - 1).flatMap((rest) => STEPS.map((step) => [...rest, step]));
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

async function pair() {
  const { dir, cleanup } = tempDir("follow-tail-");
  const path = join(dir, "ledger.sqlite");
  // A short busy timeout: a connection that cannot catch up fails at once instead of waiting.
  const common = { origin: ORIGIN, durability: "normal" as const, busyTimeoutMs: 50 };
  const own = await openLedgerStore({ path: path, ...common, signer, now: steppingClock() });
  const foreign = await openLedgerStore({
    path: path,
    ...common,
    signer,
    now: steppingClock(Date.parse("2026-01-01T00:00:10.000Z")),
  });
  const file = new DatabaseSync(path, { readOnly: true });
  cleanups.push(() => {
    own.close();
    foreign.close();
    file.close();
    cleanup();
  });
  const fileSize = () => (file.prepare("SELECT count(*) AS n FROM entries").get() as { n: number }).n;
  return { own, foreign, fileSize };
}

describe("following the ledger's tail through another writer", () => {
  it("after every sequence of own writes, foreign appends, own checkpoints and dropped reads, both instances see the file and still write", async () => {
    const all = sequences(3);
    expect(all).toHaveLength(64);
    for (const sequence of all) {
      const { own, foreign, fileSize } = await pair();
      await own.append([sampleEvent(0), sampleEvent(1)]);
      let n = 0;
      for (const step of sequence) {
        const at = `${sequence.join(" → ")}: after ${step}`;
        n += 1;
        if (step === "own write") expect((await own.write(openOnce(`own-${n}`))).result, at).toBe("created");
        else if (step === "foreign append") await foreign.append([sessionOpened(`foreign-${n}`)]);
        else if (step === "own checkpoint") await own.checkpoint();
        else
          expect(
            (
              await own
                .entries((await own.size()) - 1)
                [Symbol.asyncIterator]()
                .next()
            ).done,
            at,
          ).toBe(false); // the iterator is dropped
        expect(await own.size(), at).toBe(fileSize());
        expect(await foreign.size(), at).toBe(fileSize());
        expect(await own.state(openedSessions), at).toEqual(await foldAsync(openedSessions, foreign.entries()));
      }
      const label = sequence.join(" → ");
      await expect(own.write(openOnce("last-own")), label).resolves.toMatchObject({ result: "created" });
      await expect(foreign.append([sessionOpened("last-foreign")]), label).resolves.toHaveLength(1);
      expect(await own.size(), label).toBe(fileSize());
      expect((await own.verify()).ok, label).toBe(true);
    }
  }, 60_000);
});
