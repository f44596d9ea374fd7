import { afterEach, describe, expect, it } from "vitest";
import { openLedgerStore } from "../open-ledger.ts";
import { TailReads } from "./tail-reads.ts";
import { sampleEvent, steppingClock, tempDir } from "../../test/support/store/helpers.ts";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** A writer and a second connection to the same file (another API instance), and the reads counted. */
async function twoInstances() {
  const { dir, cleanup } = tempDir("tail-reads-");
  const path = `${dir}/ledger.sqlite`;
  const writer = await openLedgerStore({
    path: path,
    origin: "tail-reads",
    now: steppingClock(),
    durability: "normal",
  });
  const reader = await openLedgerStore({ path: path, origin: "tail-reads", durability: "normal" });
  cleanups.push(() => (writer.close(), reader.close(), cleanup()));
  const counted = { reads: 0, size: () => (counted.reads++, reader.size()) };
  return { writer, counted };
}

describe("TailReads", () => {
  it("the callers of one turn share one read of the tail", async () => {
    const { writer, counted } = await twoInstances();
    await writer.append([sampleEvent(1), sampleEvent(3)]);
    const tail = new TailReads(counted);
    const sizes = await Promise.all(Array.from({ length: 50 }, () => tail.size()));
    expect(sizes).toEqual(Array(50).fill(2));
    expect(counted.reads).toBe(1);
  });

  it("every caller gets a read made after it asked: what another instance committed before is seen", async () => {
    const { writer, counted } = await twoInstances();
    const tail = new TailReads(counted);
    expect(await tail.size()).toBe(0);
    await writer.append([sampleEvent(1)]);
    expect(await tail.size()).toBe(1);
    // Asked while the previous read's answer is being delivered: that read is done, so a new one is made.
    const next = tail.size().then(async () => {
      await writer.append([sampleEvent(3)]);
      return tail.size();
    });
    expect(await next).toBe(2);
    expect(counted.reads).toBe(4);
  });

  it("a failed read rejects its callers, and the next caller reads again", async () => {
    let fail = true;
    const tail = new TailReads({
      size: () => {
        if (fail) throw new Error("disk I/O error");
        return 7;
      },
    });
    const failed = await Promise.allSettled([tail.size(), tail.size()]);
    expect(failed.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    fail = false;
    expect(await tail.size()).toBe(7);
  });
});
