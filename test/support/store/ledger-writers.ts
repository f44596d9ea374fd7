/**
 * The shared ledger (store/ledger/ledger.ts) with N writers on one store, for any backend: two Ledger
 * instances on one store, each group transaction folding the other's rows after taking the lock
 * and deciding on them; a projection never folded before caught up inside the transaction; the
 * newest stored checkpoint read while the other writer appends; and the proofs and roots read
 * through the prefetch of stored nodes equal to those of core/merkle.ts over all leaves.
 * store/ledger/ledger-writers.test.ts runs them on SQLite, store/ledger/ledger-postgres.test.ts on PostgreSQL.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Projection } from "../../../core/ledger/projection.ts";
import { consistencyProof, inclusionProof, leafHash, rootHash } from "../../../core/merkle.ts";
import { entryText } from "../../../core/ledger/entry.ts";
import { sha256Hex } from "../../../core/digest.ts";
import { latestCheckpoint } from "../../../store/ledger/entry-inclusion.ts";
import { Ledger } from "../../../store/ledger/ledger.ts";
import { LedgerUnavailableError, type LedgerBackend } from "../../../store/ledger/backend.ts";

const hex = (hashes: Uint8Array | Uint8Array[]) =>
  (Array.isArray(hashes) ? hashes : [hashes]).map((h) => Buffer.from(h).toString("hex"));
import { openedSessions, openOnce, sampleEvent, sessionOpened, steppingClock } from "./helpers.ts";

const ORIGIN = "writers.test/ledger";
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function twoWriters(store: StoreFactory): Promise<[Ledger, Ledger]> {
  const place = await store.place();
  const a = await Ledger.open(store.backend(place), { origin: ORIGIN, now: steppingClock() });
  const b = await Ledger.open(store.backend(place), {
    origin: ORIGIN,
    now: steppingClock(Date.parse("2026-01-01T00:00:10.000Z")),
  });
  cleanups.push(async () => {
    await a.close();
    await b.close();
  });
  return [a, b];
}

/** Where a test's ledger lives (a file, a database) and a new backend on it: each one another instance. */
export interface StoreFactory {
  name: string;
  place(): Promise<string>;
  backend(place: string): LedgerBackend;
}

export function ledgerWriterTests(store: StoreFactory): void {
  describe(`two Ledger instances on one store (${store.name})`, () => {
    it("interleaved group writes each decide on the other's entries", async () => {
      const [a, b] = await twoWriters(store);
      const ids = ["S-1", "S-2", "S-3", "S-4"];
      const answers: string[] = [];
      for (let round = 0; round < 3; round++) {
        for (const id of ids) {
          // Each round both instances try to open every session, in groups of their own.
          const [fromA, fromB] = await Promise.all([
            Promise.all([a.write(openOnce(id)), a.write(openOnce(id))]),
            b.write(openOnce(id)),
          ]);
          answers.push(...fromA.map((w) => w.result), fromB.result);
        }
      }
      expect(answers.filter((r) => r === "created")).toHaveLength(ids.length);
      expect([...(await a.state(openedSessions))].sort()).toEqual(ids.map((id) => [id, 1]));
      expect([...(await b.state(openedSessions))].sort()).toEqual(ids.map((id) => [id, 1]));
      expect(await a.size()).toBe(ids.length);
      expect((await a.verify()).ok).toBe(true);
      // Strict alternation: every write lands on the other's tail.
      for (let i = 0; i < 6; i++) {
        const writer = i % 2 === 0 ? a : b;
        await writer.write(openOnce(`alt-${i}`));
        expect(await writer.write(openOnce(`alt-${i}`))).toMatchObject({ result: "exists", entries: [] });
        const other = writer === a ? b : a;
        expect((await other.write(openOnce(`alt-${i}`))).result).toBe("exists");
      }
      expect((await b.verify()).ok).toBe(true);
    });

    it("a decide asking for a projection never folded before is caught up with the other writer's entries", async () => {
      const [a, b] = await twoWriters(store);
      await b.append([sessionOpened("B-1"), sessionOpened("B-2"), sampleEvent(0)]);
      await a.append([sessionOpened("A-1")]);
      await b.append([sessionOpened("B-3")]);
      let folds = 0;
      const fresh: Projection<string[]> = {
        initial: () => [],
        apply: (state, entry) => (
          folds++,
          entry.type === "consensus.opened" ? [...state, String(entry.payload.session_id)] : state
        ),
      };
      const seen = await a.write((tail) => {
        const opened = tail.state(fresh);
        return { events: opened.includes("B-3") ? [sessionOpened("after-B-3")] : [], result: [...opened] };
      });
      expect(seen.result).toEqual(["B-1", "B-2", "A-1", "B-3"]);
      expect(seen.entries).toHaveLength(1);
      expect(folds).toBe(5); // each entry before the write folded once
      expect(await a.state(fresh)).toEqual(["B-1", "B-2", "A-1", "B-3", "after-B-3"]);
    });
  });

  describe(`a group's appends sealed while the lock is asked for (${store.name})`, () => {
    it("a group mixing appendAsync and write(decide) seals each write on the ones before it, whether or not the appends were sealed ahead", async () => {
      const [a, b] = await twoWriters(store);
      // Two groups first: the instance has a tail of its own and no other writer, so it seals ahead.
      await a.appendAsync([sessionOpened("warm-1")]);
      await a.appendAsync([sessionOpened("warm-2")]);
      const group = async (writer: Ledger, tag: string) => {
        const [first, decided, last] = await Promise.all([
          writer.appendAsync([sessionOpened(`${tag}-first`), sessionOpened(`${tag}-second`)]),
          writer.write(openOnce(`${tag}-first`)),
          writer.appendAsync([sessionOpened(`${tag}-last`)]),
        ]);
        return { first, decided, last };
      };
      // Sealed ahead and kept: no other writer moved the tail.
      const kept = await group(a, "a");
      expect(kept.first.map((e) => e.seq)).toEqual([2, 3]);
      expect(kept.decided).toMatchObject({ result: "exists", entries: [] });
      expect(kept.last.map((e) => e.seq)).toEqual([4]);
      expect(kept.last[0]!.prev).toBe(kept.first[1]!.hash);
      // Sealed ahead on a tail another writer then moved: dropped, and sealed again on the new tail.
      await b.appendAsync([sessionOpened("b-between")]);
      const dropped = await group(a, "c");
      expect(dropped.first.map((e) => e.seq)).toEqual([6, 7]);
      const [between] = await Array.fromAsync(a.entries(5, 6));
      expect(between!.payload.session_id).toBe("b-between");
      expect(dropped.first[0]!.prev).toBe(between!.hash);
      expect(dropped.decided).toMatchObject({ result: "exists", entries: [] });
      expect(dropped.last.map((e) => e.seq)).toEqual([8]);
      expect((await a.verify()).ok).toBe(true);
      expect((await b.verify()).ok).toBe(true);
      expect((await b.state(openedSessions)).get("b-between")).toBe(1);
    });
  });

  describe(`reads while a write rolls back (${store.name})`, () => {
    it("no read sees a row of a write that rolled back, even one made while the write caught a projection up", async () => {
      const place = await store.place();
      const other = await Ledger.open(store.backend(place), { origin: ORIGIN, now: steppingClock() });
      cleanups.push(() => other.close());
      // More entries than an instance holds in memory: its projection, first asked for inside a
      // decide, catches up by reading the store while the write waits for it.
      await other.appendBulk(
        Array.from({ length: 5000 }, (_, i) => (i % 50 === 0 ? sessionOpened(`S-${i}`) : sampleEvent(i))),
      );
      let failInsert = false;
      const backend = store.backend(place);
      // The backend as it is, but one transaction's insert fails as a lost connection would.
      const failing = new Proxy(backend, {
        get(target, name) {
          if (name === "withWriteLock") {
            return (fn: Parameters<LedgerBackend["withWriteLock"]>[0], meanwhile?: () => void) =>
              target.withWriteLock((tx) => {
                const insertRows = tx.insertRows.bind(tx);
                tx.insertRows = async (rows) => {
                  if (!failInsert) return insertRows(rows);
                  failInsert = false;
                  throw new LedgerUnavailableError("the connection was lost");
                };
                return fn(tx);
              }, meanwhile);
          }
          const value: unknown = Reflect.get(target, name);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      const ledger = await Ledger.open(failing, { origin: ORIGIN, now: steppingClock() });
      cleanups.push(() => ledger.close());
      await ledger.size();

      failInsert = true;
      const writes = Promise.allSettled([
        ledger.appendAsync([sessionOpened("PHANTOM")]),
        ledger.write((tail) => ({ events: [], result: tail.state(openedSessions).has("PHANTOM") })),
      ]);
      let settled = false;
      const seen: string[] = [];
      const reads: Promise<void>[] = [];
      const poll = setInterval(
        () =>
          reads.push(
            ledger
              .state(openedSessions)
              .then((s) => void (s.has("PHANTOM") && seen.push(settled ? "after" : "during"))),
          ),
        1,
      );
      for (let i = 0; i < 20; i++)
        reads.push(ledger.state(openedSessions).then((s) => void (s.has("PHANTOM") && seen.push("at once"))));
      const outcomes = await writes;
      settled = true;
      clearInterval(poll);
      await Promise.all(reads);
      expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected"]);
      expect(seen).toEqual([]);
      expect((await ledger.state(openedSessions)).has("PHANTOM")).toBe(false);
      expect((await ledger.state(openedSessions)).size).toBe(100);
    });
  });

  describe(`the newest checkpoint while another writer appends (${store.name})`, () => {
    it("a checkpoint another writer stores between the reader's read of the size and its read of the checkpoint is served, not refused", async () => {
      const place = await store.place();
      const signer = { name: ORIGIN, secretKeyHex: sha256Hex("writers test ledger key") };
      const other = await Ledger.open(store.backend(place), {
        origin: ORIGIN,
        signer,
        now: steppingClock(Date.parse("2026-01-01T00:00:10.000Z")),
      });
      cleanups.push(() => other.close());
      /** Run once, just before the reader's next read of a stored checkpoint (after it read the size). */
      let between: (() => Promise<unknown>) | null = null;
      const backend = store.backend(place);
      const racing = new Proxy(backend, {
        get(target, name) {
          if (name === "checkpointAtMost") {
            return async (size: number) => {
              const step = between;
              between = null;
              await step?.();
              return target.checkpointAtMost(size);
            };
          }
          const value: unknown = Reflect.get(target, name);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      const logged: string[] = [];
      const reader = await Ledger.open(racing, {
        origin: ORIGIN,
        signer,
        now: steppingClock(),
        log: (line) => logged.push(line),
      });
      cleanups.push(() => reader.close());
      await other.append([sessionOpened("S-1")]);
      expect((await latestCheckpoint(reader))?.size).toBe(1);
      // The other writer commits two entries with their checkpoint after the reader read the size (1).
      between = () => other.append([sessionOpened("S-2"), sessionOpened("S-3")]);
      expect((await latestCheckpoint(reader))?.size).toBe(3);
      expect(reader.integrity().refusedCheckpoint).toBeNull();
      expect(logged).toEqual([]);
      // A checkpoint row beyond what the store holds, read again after it, is still refused.
      const note = (await latestCheckpoint(other))!.note;
      await backend.withWriteLock((tx) => tx.insertCheckpointIfAbsent(1000, note, "2026-01-01T00:01:00.000Z"));
      between = () => other.append([sessionOpened("S-4")]);
      expect((await latestCheckpoint(reader))?.size).toBe(4);
      expect(reader.integrity().refusedCheckpoint).toMatchObject({
        size: 1000,
        problem: "its size 1000 is beyond the 4 entries of the verified ledger",
      });
      expect(logged).toHaveLength(1);
    });
  });

  describe(`roots and proofs from prefetched stored nodes (${store.name})`, () => {
    it("equal core/merkle.ts over all leaves for many (seq, size) pairs", async () => {
      const ledger = await Ledger.open(store.backend(await store.place()), { origin: ORIGIN, now: steppingClock() });
      cleanups.push(() => ledger.close());
      let n = 0;
      for (const batch of [1, 2, 13, 17, 31, 64, 100, 9])
        await ledger.append(Array.from({ length: batch }, () => sampleEvent(n++)));
      const leaves: Uint8Array[] = [];
      for await (const { entry, payloadText } of ledger.storedEntries())
        leaves.push(leafHash(new TextEncoder().encode(entryText(entry, payloadText))));
      expect(leaves).toHaveLength(n);
      const sizes = [1, 2, 3, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 200, 236, n];
      for (const size of sizes) {
        expect(hex(await ledger.rootHash(size))).toEqual(hex(rootHash(leaves.slice(0, size))));
        for (const seq of new Set([0, 1, size >> 1, size - 2, size - 1].filter((s) => s >= 0 && s < size))) {
          expect(hex(await ledger.inclusionProof(seq, size)), `inclusion ${seq} in ${size}`).toEqual(
            hex(inclusionProof(leaves.slice(0, size), seq)),
          );
        }
        for (const old of new Set([1, size >> 1, size - 1].filter((s) => s >= 1 && s <= size))) {
          expect(hex(await ledger.consistencyProof(old, size)), `consistency ${old} → ${size}`).toEqual(
            hex(consistencyProof(leaves.slice(0, size), old)),
          );
        }
      }
    });
  });
}
