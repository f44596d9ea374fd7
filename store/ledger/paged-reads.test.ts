import { describe, expect, it } from "vitest";
import type { StoredRow } from "./backend.ts";
import { pagedRows } from "./paged-reads.ts";

/** A table of `n` rows and a read over it that records each call (start, end, limit). */
function table(n: number) {
  const rows: StoredRow[] = Array.from({ length: n }, (_, seq) => ({
    seq,
    type: "t",
    payload: `{"i":${seq}}`,
    ts: "2026-01-01T00:00:00.000Z",
    prev: null,
    hash: `h${seq}`,
  }));
  const calls: [number, number, number][] = [];
  const read = async (start: number, end: number, limit: number) => {
    calls.push([start, end, limit]);
    return rows.filter((r) => r.seq >= start && r.seq < end).slice(0, limit);
  };
  return { read, calls };
}

describe("pagedRows", () => {
  it("hands out every row in order, one read per page, and stops after a short page", async () => {
    const { read, calls } = table(7);
    expect(await Array.fromAsync(pagedRows(read, 0, 100, 3, (r) => r.seq))).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(calls).toEqual([
      [0, 100, 3],
      [3, 100, 3],
      [6, 100, 3],
    ]);
  });

  it("reads once more when the last page was full, and honours start and end", async () => {
    const { read, calls } = table(10);
    expect(await Array.fromAsync(pagedRows(read, 2, 8, 3, (r) => JSON.parse(r.payload).i))).toEqual([2, 3, 4, 5, 6, 7]);
    expect(calls).toEqual([
      [2, 8, 3],
      [5, 8, 3],
      [8, 8, 3],
    ]);
  });

  it("reads nothing for an empty range, and nothing more once a loop leaves early", async () => {
    const empty = table(5);
    expect(await Array.fromAsync(pagedRows(empty.read, 4, 4, 3, (r) => r.seq))).toEqual([]);
    expect(empty.calls).toEqual([]);
    const { read, calls } = table(10);
    const seen: number[] = [];
    for await (const seq of pagedRows(read, 0, 10, 3, (r) => r.seq)) {
      seen.push(seq);
      if (seq === 4) break;
    }
    expect(seen).toEqual([0, 1, 2, 3, 4]);
    expect(calls).toEqual([
      [0, 10, 3],
      [3, 10, 3],
    ]);
  });

  it("passes a failed read on to the loop", async () => {
    const failing = async () => {
      throw new Error("the store is gone");
    };
    await expect(Array.fromAsync(pagedRows(failing, 0, 10, 3, (r) => r.seq))).rejects.toThrow("the store is gone");
  });
});
