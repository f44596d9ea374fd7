import { describe, expect, it } from "vitest";
import { CompactRange } from "./compact-range.ts";
import { leafHash, rootHash } from "./merkle.ts";
import { StreamingRoot } from "./merkle-stream.ts";

const encoder = new TextEncoder();
const text = (i: number) => `{"n":${i},"s":"${"é✓😀x".slice(0, 1 + (i % 4)).repeat(i % 7)}"}`;

/** Leaf inputs back to back: "\0" before each text, one UTF-8 encoding. */
const batchOf = (texts: string[]) => Buffer.from(texts.map((t) => `\u0000${t}`).join(""), "utf8");

describe("StreamingRoot", () => {
  it("gives merkle.ts's RFC 9162 root for every size, however the leaves are batched", () => {
    const sizes = [...Array.from({ length: 70 }, (_, i) => i), 127, 128, 129, 1000, 1023, 1024, 1025];
    for (const size of sizes) {
      const texts = Array.from({ length: size }, (_, i) => text(i));
      const expected = Buffer.from(rootHash(texts.map((t) => leafHash(encoder.encode(t))))).toString("hex");
      for (const batch of [1, 3, 64, 5000]) {
        const stream = new StreamingRoot();
        for (let i = 0; i < size; i += batch) stream.appendLeafInputs(batchOf(texts.slice(i, i + batch)));
        expect(stream.size, `size ${size}`).toBe(size);
        expect(Buffer.from(stream.root()).toString("hex"), `size ${size}, batch ${batch}`).toBe(expected);
      }
    }
  });

  it("keeps an empty leaf as a leaf, and refuses a batch that does not start with the leaf prefix", () => {
    const stream = new StreamingRoot();
    stream.appendLeafInputs(Buffer.from([0, 0, 0x61]));
    expect(Buffer.from(stream.root())).toEqual(
      Buffer.from(rootHash([leafHash(new Uint8Array(0)), leafHash(encoder.encode("a"))])),
    );
    expect(() => stream.appendLeafInputs(Buffer.from("a"))).toThrow(/leaf prefix/);
    stream.appendLeafInputs(Buffer.alloc(0));
    expect(stream.size).toBe(2);
  });

  it("resumes from a CompactRange's right edge and reports the subtrees each leaf completes, as CompactRange does", () => {
    const leaves = Array.from({ length: 300 }, (_, i) => leafHash(encoder.encode(text(i))));
    for (const start of [0, 1, 2, 3, 7, 16, 37, 64, 255]) {
      const range = CompactRange.empty();
      for (const leaf of leaves.slice(0, start)) range.append(leaf);
      const stream = StreamingRoot.resume(start, range.edge);
      const fromRange: string[] = [];
      const fromStream: string[] = [];
      for (const leaf of leaves.slice(start)) {
        range.append(leaf, (level, index, hash) =>
          fromRange.push(`${level}/${index}/${Buffer.from(hash).toString("hex")}`),
        );
        stream.appendLeafHash(Buffer.from(leaf).toString("latin1"), (level, index, hash) =>
          fromStream.push(`${level}/${index}/${Buffer.from(hash, "latin1").toString("hex")}`),
        );
      }
      expect(fromStream, `from ${start}`).toEqual(fromRange);
      expect(Buffer.from(stream.root())).toEqual(Buffer.from(rootHash(leaves)));
    }
    expect(() => StreamingRoot.resume(3, [])).toThrow(/a tree of 3 leaves has 2 edge hashes, not 0/);
  });
});
