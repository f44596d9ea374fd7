import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Projection } from "../../core/ledger/projection.ts";
import { LedgerAppendError, type Decide } from "../../core/ledger/store.ts";
import { GroupCommit, type WriteOutcome } from "./group-commit.ts";
import { LEDGER_ORIGIN } from "../open-ledger.ts";
import { Ledger, MAX_PAYLOAD_BYTES } from "./ledger.ts";
import { openLedgerStore } from "../open-ledger.ts";
import {
  openedSessions,
  openOnce,
  sampleEvent,
  sessionOpened,
  steppingClock,
  tempDir,
} from "../../test/support/store/helpers.ts";

let dir: string;
let cleanup: () => void;
const open: Ledger[] = [];

async function openLedger(
  name = "ledger.sqlite",
  extra: Partial<Parameters<typeof openLedgerStore>[0]> = {},
): Promise<Ledger> {
  const ledger = await openLedgerStore({
    path: join(dir, name),
    origin: "race.test/ledger",
    now: steppingClock(),
    durability: "normal",
    ...extra,
  });
  open.push(ledger);
  return ledger;
}

beforeEach(() => {
  ({ dir, cleanup } = tempDir("group-commit-"));
});
afterEach(() => {
  for (const l of open.splice(0)) l.close();
  cleanup();
});

const settle = <T>(promises: Promise<T>[]) => Promise.allSettled(promises);

describe("GroupCommit (the queue)", () => {
  it("commits every write submitted in one turn as one group, in order, and the next turn's as the next", async () => {
    const groups: number[][] = [];
    const queue = new GroupCommit((decides) => {
      groups.push(decides.map((d) => d({ size: 0, state: () => undefined as never }).result as number));
      return decides.map((d) => ({
        ok: true,
        written: { entries: [], result: d({ size: 0, state: () => undefined as never }).result },
      }));
    });
    const write =
      (n: number): Decide<number> =>
      () => ({ events: [], result: n });
    const first = [1, 2, 3].map((n) => queue.submit(write(n)));
    expect(queue.waiting).toBe(3);
    expect(groups).toEqual([]); // nothing runs before the next turn of the event loop
    const results = await Promise.all(first);
    expect(results.map((r) => r.result)).toEqual([1, 2, 3]);
    await Promise.all([queue.submit(write(4)), queue.submit(write(5))]);
    expect(groups).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
  });

  it("splits a long queue into groups of at most maxGroup", async () => {
    const sizes: number[] = [];
    const queue = new GroupCommit(
      (decides) => {
        sizes.push(decides.length);
        return decides.map(() => ({ ok: true, written: { entries: [], result: null } }));
      },
      { maxGroup: 4 },
    );
    await Promise.all(Array.from({ length: 10 }, () => queue.submit(() => ({ events: [], result: null }))));
    expect(sizes).toEqual([4, 4, 2]);
  });

  it("settles each write with its own outcome; a group that fails to commit fails every write of it", async () => {
    let fail = false;
    const queue = new GroupCommit((decides): WriteOutcome[] => {
      if (fail) throw new Error("disk I/O error");
      return decides.map((_, i) =>
        i === 1 ? { ok: false, error: new Error("refused") } : { ok: true, written: { entries: [], result: i } },
      );
    });
    const outcomes = await settle([0, 1, 2].map(() => queue.submit(() => ({ events: [], result: 0 }))));
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    fail = true;
    const failed = await settle([
      queue.submit(() => ({ events: [], result: 0 })),
      queue.submit(() => ({ events: [], result: 0 })),
    ]);
    expect(failed.map((o) => (o.status === "rejected" ? (o.reason as Error).message : "ok"))).toEqual([
      "disk I/O error",
      "disk I/O error",
    ]);
  });
});

describe("GroupCommit pipelined (a store that hands a group off while it waits for the database)", () => {
  /** A queue whose commits wait for the test: each group's writes, its handOff, and the gate that ends it. */
  function heldQueue(pipelines: (decide: Decide<unknown>) => boolean) {
    const groups: { writes: number[]; handOff: () => void; end: () => void }[] = [];
    const queue = new GroupCommit(
      (decides, handOff) =>
        new Promise<WriteOutcome[]>((resolve) => {
          const writes = decides.map((d) => d({ size: 0, state: () => undefined as never }).result as number);
          groups.push({
            writes,
            handOff,
            end: () => resolve(writes.map((result) => ({ ok: true, written: { entries: [], result } }))),
          });
        }),
      { pipelines },
    );
    return { queue, groups };
  }
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  const write =
    (n: number): Decide<number> =>
    () => ({ events: [], result: n });

  it("the first group takes half of what waits; the next starts only once it hands off, and not a third while two are on their way", async () => {
    const { queue, groups } = heldQueue(() => true);
    const all = [1, 2, 3, 4, 5].map((n) => queue.submit(write(n)));
    await turn();
    expect(groups.map((g) => g.writes)).toEqual([[1, 2, 3]]);
    await turn();
    expect(groups).toHaveLength(1); // not handed off: the rest waits
    groups[0]!.handOff();
    await turn();
    expect(groups.map((g) => g.writes)).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
    // Two on their way: a new write waits for the first to end, even once the second hands off.
    const later = queue.submit(write(6));
    groups[1]!.handOff();
    await turn();
    expect(groups).toHaveLength(2);
    groups[0]!.end();
    await turn();
    await turn();
    expect(groups.map((g) => g.writes)).toEqual([[1, 2, 3], [4, 5], [6]]);
    groups[1]!.end();
    groups[2]!.end();
    expect((await Promise.all([...all, later])).map((w) => w.result)).toEqual([1, 2, 3, 4, 5, 6]);
    await queue.flush();
  });

  it("a write that cannot be pipelined keeps the group whole, and a store that never pipelines ignores handOff", async () => {
    const { queue, groups } = heldQueue((decide) => decide !== odd);
    const odd = write(3);
    const first = [write(1), write(2), odd, write(4)].map((d) => queue.submit(d));
    await turn();
    expect(groups.map((g) => g.writes)).toEqual([[1, 2, 3, 4]]);
    groups[0]!.end();
    await Promise.all(first);

    const plain = new GroupCommit((decides, handOff) => {
      handOff();
      return decides.map(() => ({ ok: true, written: { entries: [], result: null } }));
    });
    let inFlight = 0;
    let most = 0;
    const slow = new GroupCommit(async (decides, handOff) => {
      handOff();
      most = Math.max(most, ++inFlight);
      await turn();
      inFlight--;
      return decides.map(() => ({ ok: true, written: { entries: [], result: null } }));
    });
    await Promise.all(Array.from({ length: 6 }, () => plain.submit(write(0))));
    await Promise.all(
      Array.from({ length: 3 }, async () => {
        for (let i = 0; i < 4; i++) await slow.submit(write(i));
      }),
    );
    expect(most).toBe(1);
  });
});

describe("the ledger's group-commit write path", () => {
  it("coalesces 64 concurrent single-event appends into one transaction; each caller gets its own entry", async () => {
    const ledger = await openLedger();
    await ledger.append([sampleEvent(0)]);
    const calls = Array.from({ length: 64 }, (_, i) => ledger.appendAsync([sampleEvent(1 + i)]));
    const written = await Promise.all(calls);
    expect(written.map((w) => w.length)).toEqual(Array(64).fill(1));
    expect(written.map((w) => w[0]!.seq)).toEqual(Array.from({ length: 64 }, (_, i) => 1 + i));
    // The clock is read once per transaction: one timestamp for the whole group.
    expect(new Set(written.map((w) => w[0]!.ts)).size).toBe(1);
    expect(written[0]![0]!.ts).not.toBe((await Array.fromAsync(ledger.entries(0, 1)))[0]!.ts);
    // Durable for any other connection once answered, and the chain is whole.
    const other = await openLedger();
    expect(await Array.fromAsync(other.entries(1))).toEqual(written.map((w) => w[0]));
    expect(await other.verify()).toMatchObject({ ok: true, size: 65 });
  });

  it("keeps each write all-or-nothing: invalid events and throwing decides fail only their own caller", async () => {
    const ledger = await openLedger();
    await ledger.append([{ ...sampleEvent(0), ts: "2026-03-01T00:00:00.000Z" }]);
    const bad = { type: "mic_mint", payload: { ...sampleEvent(1).payload, amount_shards: "-1" } };
    const tooLarge = {
      type: "sample.generated",
      payload: { generator: "test", seed: "1", notice: "x".repeat(MAX_PAYLOAD_BYTES) },
    };
    const writes: Promise<unknown>[] = [
      ledger.appendAsync([sampleEvent(2), sampleEvent(3)]),
      ledger.appendAsync([sampleEvent(4), bad]),
      ledger.write(() => {
        throw new Error("the decide refused");
      }),
      ledger.appendAsync([sampleEvent(5)]),
      ledger.appendAsync([{ ...sampleEvent(6), ts: "2026-01-01T00:00:00.000Z" }]),
      ledger.appendAsync([sampleEvent(7), tooLarge]),
      ledger.appendAsync([{ type: "made.up", payload: {} }]),
      ledger.write((() => Promise.resolve({ events: [sampleEvent(8)], result: 1 })) as unknown as Decide<number>),
      ledger.appendAsync([sampleEvent(9)]),
    ];
    const outcomes = await settle(writes);
    const reason = (i: number) => (outcomes[i] as PromiseRejectedResult).reason as Error;
    expect(outcomes.map((o) => o.status)).toEqual([
      "fulfilled",
      "rejected",
      "rejected",
      "fulfilled",
      "rejected",
      "rejected",
      "rejected",
      "rejected",
      "fulfilled",
    ]);
    expect(reason(1)).toBeInstanceOf(LedgerAppendError);
    expect(reason(1)).toMatchObject({
      index: 1,
      code: "invalid-event",
      message: expect.stringMatching(/amount_shards/),
    });
    expect(reason(2).message).toBe("the decide refused");
    expect(reason(4)).toMatchObject({ index: 0, code: "ts-before-tail" });
    expect(reason(5)).toMatchObject({ index: 1, code: "payload-too-large" });
    expect(reason(6)).toMatchObject({
      index: 0,
      code: "invalid-event",
      message: expect.stringMatching(/unknown event type/),
    });
    expect(reason(7)).toBeInstanceOf(TypeError);
    // Exactly the accepted writes, in submission order, and nothing of the refused ones.
    expect((await Array.fromAsync(ledger.entries())).map((e) => e.payload)).toEqual(
      [0, 2, 3, 5, 9].map((i) => sampleEvent(i).payload),
    );
    expect(await ledger.verify()).toMatchObject({ ok: true, size: 5 });
    expect(await ledger.size()).toBe(5);
    // The store is usable after refusals: the in-memory tail followed the rollbacks.
    const [next] = await ledger.appendAsync([sampleEvent(10)]);
    expect(next!.seq).toBe(5);
    expect(await (await openLedger()).verify()).toMatchObject({ ok: true, size: 6 });
  });

  it("runs the decides of a group in order, each seeing the entries of the earlier ones: 100 concurrent opens create one session", async () => {
    const ledger = await openLedger();
    const results = await Promise.all(Array.from({ length: 100 }, () => ledger.write(openOnce("S-1"))));
    expect(results.filter((r) => r.result === "created")).toHaveLength(1);
    expect(results[0]).toMatchObject({ result: "created", entries: [{ seq: 0, type: "consensus.opened" }] });
    expect(results.slice(1).every((r) => r.result === "exists" && r.entries.length === 0)).toBe(true);
    expect(await ledger.size()).toBe(1);
    // A later group sees it too, and two sessions interleaved stay one each.
    const more = await Promise.all(["S-1", "S-2", "S-1", "S-2"].map((id) => ledger.write(openOnce(id))));
    expect(more.map((r) => r.result)).toEqual(["exists", "created", "exists", "exists"]);
    expect([...(await ledger.state(openedSessions))]).toEqual([
      ["S-1", 1],
      ["S-2", 1],
    ]);
  });

  it("writes the attempt and the grant of one decision in one transaction, or neither", async () => {
    const ledger = await openLedger();
    const id = "3f0c6a4e-8d1b-4c2a-9e7f-1a2b3c4d5e6f";
    const attempt = {
      type: "avm.attempt",
      payload: {
        ledger_id: id,
        requested_scopes: ["api.read"],
        verified: true,
        failed_at_stage: null,
        code: null,
        attestation_hash: null,
      },
    };
    const grant = (scopes: string[]) => ({
      type: "avm.grant",
      payload: {
        ledger_id: id,
        scopes,
        risk_level: "low",
        attestation_hash: `sha256:${"0f".repeat(32)}`,
        created_at: "2026-01-01T00:00:00Z",
        expires_at: "2026-02-01T00:00:00Z",
      },
    });
    const ok = await ledger.write(() => ({ events: [attempt, grant(["api.read"])], result: "granted" }));
    expect(ok.entries.map((e) => e.type)).toEqual(["avm.attempt", "avm.grant"]);
    await expect(ledger.write(() => ({ events: [attempt, grant([])], result: "granted" }))).rejects.toMatchObject({
      index: 1,
    });
    expect((await Array.fromAsync(ledger.entries())).map((e) => e.type)).toEqual(["avm.attempt", "avm.grant"]);
  });

  it("commits the writes still waiting when the ledger is closed", async () => {
    const ledger = await openLedger();
    const pending = [
      ledger.appendAsync([sampleEvent(0)]),
      ledger.write(openOnce("S-1")),
      ledger.appendAsync([sampleEvent(1)]),
    ];
    ledger.close();
    expect((await Promise.all(pending)).length).toBe(3);
    expect(await (await openLedger()).verify()).toMatchObject({ ok: true, size: 3 });
  });

  it("fails the whole group when the write lock cannot be had, and recovers once it is free", async () => {
    const ledger = await openLedger("locked.sqlite", { busyTimeoutMs: 50 });
    await ledger.appendAsync([sampleEvent(0)]);
    const raw = new DatabaseSync(join(dir, "locked.sqlite"));
    raw.exec("BEGIN IMMEDIATE");
    const refused = await settle<unknown>([ledger.appendAsync([sampleEvent(1)]), ledger.write(openOnce("S-1"))]);
    expect(refused.map((o) => o.status === "rejected" && /locked|busy/i.test((o.reason as Error).message))).toEqual([
      true,
      true,
    ]);
    raw.exec("ROLLBACK");
    raw.close();
    expect((await ledger.write(openOnce("S-1"))).result).toBe("created");
    expect(await ledger.verify()).toMatchObject({ ok: true, size: 2 });
  });
});

describe("projections kept at the tail", () => {
  /** Counts apply calls, to show each entry is folded once. */
  function counting(): { projection: Projection<string[]>; applied: () => number } {
    let applied = 0;
    return {
      projection: {
        initial: () => [],
        apply: (state, entry) => {
          applied += 1;
          state.push(entry.type);
          return state;
        },
      },
      applied: () => applied,
    };
  }

  it("folds only the entries past its watermark before each read, whoever appended them", async () => {
    const ledger = await openLedger();
    const other = await openLedger(); // another connection to the same file, as another process would be
    const { projection, applied } = counting();
    expect(await ledger.state(projection)).toEqual([]);
    await ledger.append([sampleEvent(0), sampleEvent(1)]);
    expect(await ledger.state(projection)).toHaveLength(2);
    expect(applied()).toBe(2);
    await other.append([sampleEvent(2)]);
    await other.appendAsync([sampleEvent(3)]);
    expect(await ledger.state(projection)).toHaveLength(4);
    expect(applied()).toBe(4);
    expect(await ledger.state(projection)).toHaveLength(4);
    expect(applied()).toBe(4); // nothing new, nothing folded
  });

  it("stateSeen answers without reading the tail: it lags another connection's appends until a read catches up", async () => {
    const ledger = await openLedger();
    const other = await openLedger();
    const { projection } = counting();
    await ledger.append([sampleEvent(0)]);
    expect(ledger.stateSeen(projection)).toHaveLength(1); // its own appends are seen
    await other.append([sampleEvent(1), sampleEvent(2)]);
    expect(ledger.stateSeen(projection)).toHaveLength(1);
    expect(await ledger.state(projection)).toHaveLength(3);
    expect(ledger.stateSeen(projection)).toHaveLength(3);
  });

  it("can be read while the caller iterates the entries", async () => {
    const ledger = await openLedger();
    await ledger.append(Array.from({ length: 20 }, (_, i) => sampleEvent(i)));
    const { projection } = counting();
    const seen: number[] = [];
    for await (const entry of ledger.entries()) {
      await ledger.state(projection); // folds from the file while this loop reads it
      seen.push(entry.seq);
    }
    expect(seen).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(await ledger.state(projection)).toHaveLength(20);
  });

  it("gives decide the same state at the transaction's tail, including what another connection appended", async () => {
    const ledger = await openLedger();
    const other = await openLedger();
    const { projection, applied } = counting();
    await ledger.appendAsync([sampleEvent(0)]);
    expect(await ledger.state(projection)).toHaveLength(1);
    await other.append([sessionOpened("S-9")]); // appended behind this connection's back
    const seen: number[] = [];
    const decide: Decide<number> = (tail) => {
      seen.push(tail.state(projection).length, tail.size);
      return { events: [sampleEvent(tail.size)], result: tail.size };
    };
    const results = await Promise.all([ledger.write(decide), ledger.write(decide)]);
    expect(results.map((r) => r.result)).toEqual([2, 3]);
    expect(seen).toEqual([2, 2, 3, 3]);
    expect(applied()).toBe(3);
    expect(await ledger.state(projection)).toHaveLength(4);
    // A projection whose apply throws is refolded from scratch on the next read, never half-applied.
    let broken = true;
    const fragile: Projection<{ n: number }> = {
      initial: () => ({ n: 0 }),
      apply: (state) => {
        state.n += 1;
        if (broken && state.n === 3) throw new Error("projection bug");
        return state;
      },
    };
    await expect(ledger.state(fragile)).rejects.toThrow("projection bug");
    broken = false;
    expect(await ledger.state(fragile)).toEqual({ n: 4 });
  });
  it("folds the entries this connection just wrote exactly as the file holds them, never a rolled-back write's", async () => {
    const ledger = await openLedger();
    const entriesSeen: Projection<{ seq: number; type: string; payload: unknown; hash: string }[]> = {
      initial: () => [],
      apply: (state, entry) => {
        state.push({ seq: entry.seq, type: entry.type, payload: entry.payload, hash: entry.hash });
        return state;
      },
    };
    const events = [sampleEvent(0), sampleEvent(1), sampleEvent(2)];
    const backdated = { ...sampleEvent(5), ts: "2000-01-01T00:00:00.000Z" };
    const inGroup: number[] = [];
    const results = await settle([
      ledger.write((tail) => ({ events: [events[0]!], result: inGroup.push(tail.state(entriesSeen).length) })),
      // Inserts its first entry, then one dated before the tail: the whole write is rolled back.
      ledger.write(() => ({ events: [events[1]!, backdated], result: -1 })),
      ledger.write((tail) => ({ events: [events[2]!], result: inGroup.push(tail.state(entriesSeen).length) })),
      ledger.write((tail) => ({ events: [], result: inGroup.push(tail.state(entriesSeen).length) })),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled"]);
    expect(inGroup).toEqual([1, 2, 3].map((n) => n - 1)); // each decide saw the writes before it, not the rolled-back one
    // A caller changing its event afterwards changes nothing the projection holds.
    (events[2]!.payload as Record<string, unknown>).status = "changed after the write";
    const folded = await ledger.state(entriesSeen);
    const fromFile = (await Array.fromAsync(ledger.entries())).map((e) => ({
      seq: e.seq,
      type: e.type,
      payload: e.payload,
      hash: e.hash,
    }));
    expect(folded).toEqual(fromFile);
    expect(fromFile.map((e) => e.type)).toEqual([events[0]!.type, events[2]!.type]);
    // A group whose last write is rolled back after inserting a row, then another connection
    // appends at that seq: this connection folds the other's entry from the file, not its own.
    const other = await openLedger();
    const last = await settle([
      ledger.write(() => ({ events: [sampleEvent(6)], result: 0 })),
      ledger.write(() => ({ events: [sampleEvent(7), backdated], result: 0 })),
    ]);
    expect(last.map((r) => r.status)).toEqual(["fulfilled", "rejected"]);
    await other.append([sessionOpened("S-other")]);
    await ledger.write((tail) => ({ events: [sampleEvent(4)], result: tail.state(entriesSeen).length }));
    const all = await Array.fromAsync(ledger.entries());
    expect(all.map((e) => e.type)).toEqual([
      events[0]!.type,
      events[2]!.type,
      sampleEvent(6).type,
      "consensus.opened",
      sampleEvent(4).type,
    ]);
    expect(await ledger.state(entriesSeen)).toEqual(
      all.map((e) => ({ seq: e.seq, type: e.type, payload: e.payload, hash: e.hash })),
    );
  });
});

describe("two processes on one ledger file", () => {
  const child = join(import.meta.dirname, "../../test/support/store/write-race-child.ts");
  const runRace = (path: string, count: number, ids: string[]) => {
    const proc = spawn(process.execPath, [child, path, String(count), ...ids], { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    const ready = new Promise<void>((resolve) =>
      proc.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (out.startsWith("ready\n")) resolve();
      }),
    );
    proc.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    const done = new Promise<{ created: string[]; exists: number }>((resolve, reject) =>
      proc.on("exit", (code) =>
        code === 0
          ? resolve(JSON.parse(out.slice("ready\n".length)))
          : reject(new Error(`child exited ${code}: ${err}`)),
      ),
    );
    return { ready, go: () => proc.stdin.end("go\n"), done };
  };

  it("create exactly one session per id when both open the same ids concurrently", async () => {
    const path = join(dir, "shared.sqlite");
    // No file yet: both children create it at once (schema, WAL switch) before they race.
    // 40 ids, walked in opposite orders, so the two processes meet on the same ids midway.
    const ids = Array.from({ length: 40 }, (_, i) => `S-${i + 1}`);
    const a = runRace(path, 100, ids);
    const b = runRace(path, 100, [...ids].reverse());
    await Promise.all([a.ready, b.ready]);
    a.go();
    b.go();
    const [ra, rb] = await Promise.all([a.done, b.done]);
    expect([...ra.created, ...rb.created].sort()).toEqual([...ids].sort());
    expect(ra.exists + rb.exists).toBe(200 - ids.length);
    const ledger = await openLedger("shared.sqlite");
    expect([...(await ledger.state(openedSessions))].sort()).toEqual([...ids].sort().map((id) => [id, 1]));
    expect(await ledger.verify()).toMatchObject({ ok: true, size: ids.length });
  });

  it("a revocation appended by another process takes effect on the very next request", async () => {
    const env = { ...process.env, STATE_DIR: join(dir, "state"), LEDGER_DB: join(dir, "api.sqlite") };
    const ledger = await openLedgerStore({ path: env.LEDGER_DB, origin: LEDGER_ORIGIN, durability: "normal" });
    open.push(ledger);
    const id = "3f0c6a4e-8d1b-4c2a-9e7f-1a2b3c4d5e6f";
    const revoked: Projection<Set<string>> = {
      initial: () => new Set(),
      apply: (state, entry) => (entry.type === "avm.revoke" ? state.add(entry.payload.ledger_id as string) : state),
    };
    const grantUnlessRevoked: Decide<"granted" | "revoked"> = (tail) =>
      tail.state(revoked).has(id)
        ? { events: [], result: "revoked" }
        : {
            events: [{ type: "identity.reputation", payload: { ledger_id: id, reputation: 0.9, reason: "granted" } }],
            result: "granted",
          };
    expect((await ledger.write(grantUnlessRevoked)).result).toBe("granted");
    expect((await ledger.state(revoked)).has(id)).toBe(false);
    const revoke = {
      ledger_id: id,
      reason: "key_compromise",
      evidence_hash: `sha256:${"ab".repeat(32)}`,
      revoked_at: "2026-01-02T00:00:00.000Z",
    };
    const cli = spawnSync(
      process.execPath,
      [join(import.meta.dirname, "../..", "cli", "ledger-cli.ts"), "append", "avm.revoke", JSON.stringify(revoke)],
      { encoding: "utf8", env },
    );
    expect(cli.status, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout)).toMatchObject({ seq: 1 });
    expect((await ledger.state(revoked)).has(id)).toBe(true);
    expect((await ledger.write(grantUnlessRevoked)).result).toBe("revoked");
    expect(await ledger.size()).toBe(2);
  });
});
