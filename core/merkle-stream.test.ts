import { describe, expect, it } from "vitest";
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
    expect(Buffer.from(stream.root())).toEqual(Buffer.from(rootHash([leafHash(new Uint8Array(0)), leafHash(encoder.encode("a"))])));
    expect(() => stream.appendLeafInputs(Buffer.from("a"))).toThrow(/leaf prefix/);
    stream.appendLeafInputs(Buffer.alloc(0));
    expect(stream.size).toBe(2);
  });
});
