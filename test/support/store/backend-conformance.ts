/**
 * What every ledger backend (store/ledger/backend.ts) must do, whatever stores it: the primitives
 * round-trip, a checkpoint is inserted only if absent, a write transaction sees its own inserts and
 * rolls back when its body throws. `backendConformance(make)` registers these tests for a backend;
 * `make` returns a new backend over a new, empty store (not yet opened). The tests are backend-
 * neutral: no SQL, no error codes of one engine.
 */
import { afterEach, describe, expect, it } from "vitest";
import { sealEntry } from "../../../core/ledger/entry.ts";
import type { EntryRow, LedgerBackend, SubtreeRow } from "../../../store/ledger/backend.ts";
import { sampleEvent, steppingClock } from "./helpers.ts";

export const CONFORMANCE_ORIGIN = "conformance.example/ledger";

/**
 * `count` rows of sample events chained after `after` (the last stored row, or null for an empty
 * ledger), as a backend stores them.
 */
export function chainRows(
  count: number,
  after: { seq: number; hash: string } | null = null,
  clock = steppingClock(),
): EntryRow[] {
  const rows: EntryRow[] = [];
  let prev = after?.hash ?? null;
  const start = after ? after.seq + 1 : 0;
  for (let seq = start; seq < start + count; seq++) {
    const event = sampleEvent(seq);
    const sealed = sealEntry({ seq, type: event.type, payload: event.payload, ts: clock().toISOString(), prev });
    rows.push({ ...sealed.entry, payload: sealed.payloadText, leaf: new Uint8Array(sealed.leafHash) });
    prev = sealed.entry.hash;
  }
  return rows;
}

/** A 32-byte hash of its own for each (level, idx), so a wrong lookup shows. */
export function subtreeRow(level: number, idx: number): SubtreeRow {
  const hash = new Uint8Array(32);
  hash.fill(level);
  new DataView(hash.buffer).setUint32(28, idx);
  return { level, idx, hash };
}

/** Plain values for comparison: a leaf as a plain Uint8Array whatever class the backend returns. */
function plain(rows: readonly EntryRow[]): EntryRow[] {
  return rows.map((r) => ({ ...r, leaf: new Uint8Array(r.leaf) }));
}

export function backendConformance(make: () => Promise<LedgerBackend>): void {
  describe("ledger backend conformance", () => {
    const backends: LedgerBackend[] = [];
    afterEach(async () => {
      await Promise.all(backends.splice(0).map((b) => b.close()));
    });
    async function opened(): Promise<LedgerBackend> {
      const backend = await make();
      backends.push(backend);
      await backend.open(CONFORMANCE_ORIGIN);
      return backend;
    }

    it("an empty ledger reads as empty", async () => {
      const b = await opened();
      expect(await b.last()).toBeNull();
      expect(await b.rows(0, 10, 10)).toEqual([]);
      expect(await b.storedRows(0, 10, 10)).toEqual([]);
      expect(await b.leaves(0, 10)).toEqual([]);
      expect(await b.subtreeCount(0)).toBe(0);
      expect((await b.subtrees([{ level: 4, idx: 0 }])).size).toBe(0);
      expect(await b.latestCheckpoint()).toBeNull();
      expect(await b.checkpoints()).toEqual([]);
    });

    it("rows, leaves, the tail and subtrees read back as written, in one or several batches", async () => {
      const b = await opened();
      const rows = chainRows(40);
      await b.withWriteLock(async (tx) => {
        await tx.insertRows(rows.slice(0, 25));
        await tx.insertRows(rows.slice(25));
        await tx.insertSubtrees([subtreeRow(4, 0), subtreeRow(4, 1), subtreeRow(5, 0)]);
      });
      expect(plain(await b.rows(0, 40, 1000))).toEqual(rows);
      expect(plain(await b.rows(10, 40, 5))).toEqual(rows.slice(10, 15));
      expect(plain(await b.rows(35, 38, 100))).toEqual(rows.slice(35, 38));
      // The same rows without their leaves: no leaf column read at all.
      const stored = rows.map(({ leaf: _, ...rest }) => rest);
      expect((await b.storedRows(0, 40, 1000)).map((r) => ({ ...r }))).toEqual(stored);
      expect((await b.storedRows(10, 40, 5)).map((r) => ({ ...r }))).toEqual(stored.slice(10, 15));
      expect((await b.storedRows(38, 100, 100)).map((r) => Object.keys(r).sort())).toEqual(
        [0, 1].map(() => ["hash", "payload", "prev", "seq", "ts", "type"]),
      );
      const leaves = await b.leaves(3, 7);
      expect(leaves.every((leaf) => leaf instanceof Uint8Array && leaf.length === 32)).toBe(true);
      expect(leaves.map((l) => new Uint8Array(l))).toEqual(rows.slice(3, 7).map((r) => r.leaf));
      const last = rows[39]!;
      expect(await b.last()).toEqual({ seq: 39, hash: last.hash, ts: last.ts });
      expect(typeof (await b.last())!.seq).toBe("number");

      const found = await b.subtrees([
        { level: 4, idx: 1 },
        { level: 4, idx: 2 },
        { level: 5, idx: 0 },
      ]);
      expect([...found.keys()].sort()).toEqual(["4/1", "5/0"]);
      expect(new Uint8Array(found.get("4/1")!)).toEqual(subtreeRow(4, 1).hash);
      expect(new Uint8Array(found.get("5/0")!)).toEqual(subtreeRow(5, 0).hash);
      expect(await b.subtreeCount(0)).toBe(3);
      expect(await b.subtreeCount(5)).toBe(1);
    });

    it("a checkpoint is inserted only if none of its size exists: the first note stays", async () => {
      const b = await opened();
      await b.withWriteLock(async (tx) => {
        await tx.insertCheckpointIfAbsent(10, "note ten, first\n", "2026-01-01T00:00:00.000Z");
        await tx.insertCheckpointIfAbsent(20, "note twenty\n", "2026-01-01T00:00:01.000Z");
      });
      await b.withWriteLock((tx) => tx.insertCheckpointIfAbsent(10, "note ten, second\n", "2026-01-01T00:00:02.000Z"));
      expect(await b.checkpoints()).toEqual([
        { size: 10, note: "note ten, first\n", createdAt: "2026-01-01T00:00:00.000Z" },
        { size: 20, note: "note twenty\n", createdAt: "2026-01-01T00:00:01.000Z" },
      ]);
      expect(await b.latestCheckpoint()).toBe("note twenty\n");
    });

    it("a write sees its own inserts, returns its body's result and commits", async () => {
      const b = await opened();
      const rows = chainRows(3);
      const result = await b.withWriteLock(async (tx) => {
        expect(await tx.last()).toBeNull();
        await tx.insertRows(rows);
        await tx.insertSubtrees([subtreeRow(4, 0)]);
        await tx.insertCheckpointIfAbsent(3, "three\n", "2026-01-01T00:00:00.000Z");
        expect((await tx.last())?.seq).toBe(2);
        expect(plain(await tx.rows(0, 3, 10))).toEqual(rows);
        expect(await tx.leaves(0, 3)).toHaveLength(3);
        expect(await tx.subtreeCount(0)).toBe(1);
        expect((await tx.subtrees([{ level: 4, idx: 0 }])).size).toBe(1);
        expect(await tx.latestCheckpoint()).toBe("three\n");
        expect(await tx.checkpoints()).toEqual([{ size: 3, note: "three\n", createdAt: "2026-01-01T00:00:00.000Z" }]);
        return "done";
      });
      expect(result).toBe("done");
      expect((await b.last())?.seq).toBe(2);
    });

    it("a write whose body throws is rolled back and its error passed on unchanged", async () => {
      const b = await opened();
      const refusal = new Error("refused by the body");
      await expect(
        b.withWriteLock(async (tx) => {
          await tx.insertRows(chainRows(5));
          await tx.insertSubtrees([subtreeRow(4, 0)]);
          await tx.insertCheckpointIfAbsent(5, "five\n", "2026-01-01T00:00:00.000Z");
          throw refusal;
        }),
      ).rejects.toBe(refusal);
      expect(await b.last()).toBeNull();
      expect(await b.subtreeCount(0)).toBe(0);
      expect(await b.checkpoints()).toEqual([]);
      // …and the next write goes through.
      await b.withWriteLock((tx) => tx.insertRows(chainRows(2)));
      expect((await b.last())?.seq).toBe(1);
    });

    it("writes that follow each other continue the chain from the stored tail", async () => {
      const b = await opened();
      for (let i = 0; i < 4; i++) {
        await b.withWriteLock(async (tx) => tx.insertRows(chainRows(3, await tx.last())));
      }
      const rows = await b.rows(0, 100, 100);
      expect(rows.map((r) => r.seq)).toEqual([...Array(12).keys()]);
      rows.forEach((row, i) => expect(row.prev).toBe(i === 0 ? null : rows[i - 1]!.hash));
    });
  });
}
