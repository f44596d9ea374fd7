import { describe, expect, it } from "vitest";
import { leafHash, rootHash } from "../core/merkle.ts";
import { STREAMING_ROOTER, snapshotExport } from "../core/migration/export-bytes.ts";
import { leafRootHelperRoots, leafRooterFor, TWO_THREAD_MIN_LEAVES, TWO_THREAD_ROOTER } from "./leaf-root-helper.ts";

/** `count` leaves of varied lengths as leaf inputs (0x00 ‖ leaf) in the rooter's memory, with their offsets and texts. */
function leafInputs(count: number) {
  const texts = Array.from(
    { length: count },
    (_, i) => `{"address":"a-${i.toString(36)}","n":"${"x".repeat(i % 23)}"}`,
  );
  const bytes = Buffer.concat(texts.map((t) => Buffer.from(`\u0000${t}`)));
  const memory = TWO_THREAD_ROOTER.allocate(bytes.length);
  bytes.copy(memory);
  const offsets = new Uint32Array(count);
  for (let i = 1; i < count; i++) offsets[i] = offsets[i - 1]! + 1 + Buffer.byteLength(texts[i - 1]!);
  return { memory, offsets, texts };
}

describe("the snapshot root on two threads", () => {
  it("is the RFC 9162 root, with the right subtree hashed by the helper thread", () => {
    // A power of two, one past it (a one-leaf right subtree), and an uneven split.
    for (const count of [TWO_THREAD_MIN_LEAVES * 2, TWO_THREAD_MIN_LEAVES * 2 + 1, TWO_THREAD_MIN_LEAVES + 5_000]) {
      const { memory, offsets, texts } = leafInputs(count);
      const before = leafRootHelperRoots();
      const root = TWO_THREAD_ROOTER.root(memory, offsets, count);
      expect(leafRootHelperRoots(), `count ${count}`).toBe(before + 1);
      const expected = rootHash(texts.map((t) => leafHash(new TextEncoder().encode(t))));
      expect(Buffer.from(root).toString("hex"), `count ${count}`).toBe(Buffer.from(expected).toString("hex"));
    }
  });

  it("stays on this thread for a small tree, with the same root", () => {
    const { memory, offsets } = leafInputs(1_000);
    const before = leafRootHelperRoots();
    expect(TWO_THREAD_ROOTER.root(memory, offsets, 1_000)).toEqual(STREAMING_ROOTER.root(memory, offsets, 1_000));
    expect(leafRootHelperRoots()).toBe(before);
  });

  it("gives the snapshot of a large export the same bytes and root as one thread", () => {
    const lines = Array.from(
      { length: 40_000 },
      (_, i) =>
        `{"address":"acct-${((i * 7_919) % 40_000).toString(36)}","balance_gic":${i % 3 === 0 ? `${i}e-6` : `${i}.${i % 1000}`}}`,
    );
    lines.push('{"address":"neg","balance_gic":-1}', '{"address":"spaced" , "balance_gic" : 3 }');
    const bytes = Buffer.from(`${lines.join("\n")}\n`);
    const rooter = leafRooterFor(bytes.length);
    expect(rooter).toBe(TWO_THREAD_ROOTER);
    const before = leafRootHelperRoots();
    const two = snapshotExport(bytes, rooter);
    expect(leafRootHelperRoots()).toBe(before + 1);
    const one = snapshotExport(bytes);
    expect(two.size).toBe(40_001);
    expect(two.jsonl.equals(one.jsonl)).toBe(true);
    expect(Buffer.from(two.rootHash).equals(Buffer.from(one.rootHash))).toBe(true);
    expect(two.mismatches).toEqual(one.mismatches);
  });
});
