import { spawn } from "node:child_process";
import { join } from "node:path";
import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { verifyCheckpoint } from "../../core/checkpoint.ts";
import { sealEntry } from "../../core/ledger/entry.ts";
import { LedgerAppendError } from "../../core/ledger/store.ts";
import { equalBytes, rootHash, verifyConsistency, verifyInclusion } from "../../core/merkle.ts";
import { generateKeyPair } from "../../core/signature.ts";
import { Ledger, MAX_PAYLOAD_BYTES, BULK_MIN, STORED_LEVEL } from "./ledger.ts";
import { openLedgerStore } from "../open-ledger.ts";
import { APPEND_ONLY_TABLES, SqliteBackend } from "../drivers/sqlite/backend.ts";
import { sampleEvent, steppingClock, tempDir } from "../../test/support/store/helpers.ts";

const ORIGIN = "test.example/ledger";
let dir: string;
let cleanup: () => void;
const open: Ledger[] = [];

async function openLedger(
  name = "ledger.sqlite",
  extra: Partial<Parameters<typeof openLedgerStore>[0]> = {},
): Promise<Ledger> {
  const ledger = await openLedgerStore({
    path: join(dir, name),
    origin: ORIGIN,
    now: steppingClock(),
    durability: "normal",
    ...extra,
  });
  open.push(ledger);
  return ledger;
}

beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(() => {
  for (const l of open.splice(0)) l.close();
  cleanup();
});

describe("appending and reading", () => {
  it("chains entries, hashes them canonically and reads them back", async () => {
    const ledger = await openLedger();
    const written = await ledger.append([sampleEvent(0), sampleEvent(1), sampleEvent(2)]);
    expect(written.map((e) => e.seq)).toEqual([0, 1, 2]);
    expect(written[0]!.prev).toBeNull();
    expect(written[1]!.prev).toBe(written[0]!.hash);
    expect(written[2]!.prev).toBe(written[1]!.hash);
    expect(await Array.fromAsync(ledger.entries())).toEqual(written);
    expect(await Array.fromAsync(ledger.entries(1, 2))).toEqual([written[1]]);
    for (const e of written) expect(sealEntry(e).entry.hash).toBe(e.hash);
    expect(written[0]!.ts).toBe("2026-01-01T00:00:00.000Z");
  });

  it("keeps the Merkle tree right across batches, reopenings and the stored-subtree boundary", async () => {
    const ledger = await openLedger();
    const sizes = [1, 2, 13, 1, 16, 33, 5, 64, 1, 100];
    let n = 0;
    for (const k of sizes) {
      await ledger.append(Array.from({ length: k }, (_, i) => sampleEvent(n + i)));
      n += k;
    }
    ledger.close();
    const reopened = await openLedger();
    expect(await reopened.size()).toBe(n);
    const leaves = (await Array.fromAsync(reopened.entries())).map((e) => sealEntry(e).leafHash);
    expect(equalBytes(await reopened.rootHash(), rootHash(leaves))).toBe(true);
    for (const size of [1, 2, 15, 16, 17, 63, 64, 65, 100, 128, 129, n]) {
      const root = rootHash(leaves.slice(0, size));
      expect(equalBytes(await reopened.rootHash(size), root), `root at ${size}`).toBe(true);
      for (const seq of [0, size - 1, Math.floor(size / 2)]) {
        expect(verifyInclusion(leaves[seq]!, seq, size, await reopened.inclusionProof(seq, size), root)).toBe(true);
      }
      if (size < n) {
        expect(verifyConsistency(size, n, root, await reopened.rootHash(), await reopened.consistencyProof(size))).toBe(
          true,
        );
      }
    }
    // It keeps appending where it left off.
    const [next] = await reopened.append([sampleEvent(n)]);
    expect(next!.seq).toBe(n);
    expect(next!.prev).toBe(await leavesLastHash(reopened, n - 1));
    expect((await reopened.verify()).ok).toBe(true);
    expect(STORED_LEVEL).toBeGreaterThan(0);
    // The bulk path rebuilds the edge below the stored level from its own last leaves (sealBulk, store/ledger/bulk-append.ts).
    expect(BULK_MIN).toBeGreaterThanOrEqual(2 ** STORED_LEVEL);
  });

  it("reads and verifies a ledger written when subtrees from 16 leaves up were stored", async () => {
    const ledger = await openLedger();
    await ledger.append(Array.from({ length: 300 }, (_, i) => sampleEvent(i)));
    const leaves = (await Array.fromAsync(ledger.entries())).map((e) => sealEntry(e).leafHash);
    // What the earlier code stored besides: every perfect subtree of levels 4 and 5.
    const raw = new DatabaseSync(join(dir, "ledger.sqlite"));
    const put = raw.prepare("INSERT INTO subtrees (level, idx, hash) VALUES (?, ?, ?)");
    for (let level = 4; level < STORED_LEVEL; level++) {
      for (let idx = 0; (idx + 1) * 2 ** level <= leaves.length; idx++)
        put.run(level, idx, rootHash(leaves.slice(idx * 2 ** level, (idx + 1) * 2 ** level)));
    }
    raw.close();
    const reopened = await openLedger();
    expect(await reopened.verify()).toMatchObject({ ok: true, size: 300 });
    const root = rootHash(leaves.slice(0, 250));
    expect(verifyInclusion(leaves[37]!, 37, 250, await reopened.inclusionProof(37, 250), root)).toBe(true);
    expect(equalBytes(await reopened.rootHash(), rootHash(leaves))).toBe(true);
  });

  it("sees appends made by another connection to the same file", async () => {
    const a = await openLedger();
    const b = await openLedger();
    await a.append([sampleEvent(0)]);
    await b.append([sampleEvent(1)]);
    await a.append([sampleEvent(2)]);
    expect(await a.size()).toBe(3);
    const entries = await Array.fromAsync(b.entries());
    expect(entries.map((e) => e.seq)).toEqual([0, 1, 2]);
    expect(entries[2]!.prev).toBe(entries[1]!.hash);
    expect(equalBytes(await a.rootHash(), await b.rootHash())).toBe(true);
    expect((await b.verify()).ok).toBe(true);
  });
});

async function leavesLastHash(ledger: Ledger, seq: number): Promise<string> {
  return (await Array.fromAsync(ledger.entries(seq, seq + 1)))[0]!.hash;
}

describe("refusing bad appends, losing nothing", () => {
  it("refuses an unknown type or an invalid payload, naming the field, and writes none of the batch", async () => {
    const ledger = await openLedger();
    await ledger.append([sampleEvent(0)]);
    await expect(ledger.append([sampleEvent(1), { type: "made.up", payload: {} }])).rejects.toThrow(
      /event 1: unknown event type "made.up"/,
    );
    const bad = { type: "mic_mint", payload: { ...sampleEvent(1).payload, amount_shards: "1.5" } };
    await expect(ledger.append([bad])).rejects.toThrow(LedgerAppendError);
    await expect(ledger.append([bad])).rejects.toThrow(/amount_shards/);
    const extra = { type: "sentinel.heartbeat", payload: { ...sampleEvent(0).payload, admin: true } };
    await expect(ledger.append([extra])).rejects.toThrow(/admin/);
    expect(await ledger.size()).toBe(1);
  });

  it("refuses timestamps that are malformed or go back in time; holds the clock when it steps back", async () => {
    const clock = [Date.parse("2026-02-01T00:00:00.000Z"), Date.parse("2026-01-01T00:00:00.000Z")];
    const ledger = await openLedger("l.sqlite", { now: () => new Date(clock.shift()!) });
    await ledger.append([{ ...sampleEvent(0), ts: "2026-01-15T00:00:00.000Z" }]);
    await expect(ledger.append([{ ...sampleEvent(1), ts: "2026-01-14T23:59:59.999Z" }])).rejects.toThrow(
      /earlier than the last/,
    );
    await expect(ledger.append([{ ...sampleEvent(1), ts: "2026-01-16" }])).rejects.toThrow(/ISO 8601/);
    await expect(ledger.append([{ ...sampleEvent(1), ts: "2026-02-30T00:00:00.000Z" }])).rejects.toThrow(/ISO 8601/);
    const [a] = await ledger.append([sampleEvent(1)]);
    const [b] = await ledger.append([sampleEvent(2)]);
    expect(a!.ts).toBe("2026-02-01T00:00:00.000Z");
    expect(b!.ts).toBe("2026-02-01T00:00:00.000Z"); // the clock stepped back to January
    expect(await ledger.size()).toBe(3);
  });

  it("refuses UPDATE, DELETE, INSERT OR REPLACE, REPLACE and UPSERT on every table, through any connection", async () => {
    const key = generateKeyPair("ed25519");
    const ledger = await openLedger("ledger.sqlite", { signer: { name: ORIGIN, secretKeyHex: key.secretKey } });
    await ledger.append(Array.from({ length: 2 ** STORED_LEVEL + 6 }, (_, i) => sampleEvent(i))); // one stored subtree
    await ledger.checkpoint();
    const raw = new DatabaseSync(join(dir, "ledger.sqlite"));
    try {
      // Every table of the file, not a list kept by hand: a table added later must be covered too.
      const tables = (
        raw
          .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
          .all() as { name: string }[]
      ).map((t) => t.name);
      expect(tables).toEqual(Object.keys(APPEND_ONLY_TABLES).sort());
      for (const table of tables) {
        const columns = raw.prepare(`SELECT name, pk FROM pragma_table_info('${table}') ORDER BY cid`).all() as {
          name: string;
          pk: number;
        }[];
        const keys = columns.filter((c) => c.pk > 0).map((c) => c.name);
        expect(keys, table).toEqual(APPEND_ONLY_TABLES[table]);
        const before = raw.prepare(`SELECT * FROM ${table} ORDER BY ${keys.join(", ")}`).all();
        expect(before.length, table).toBeGreaterThan(0);
        const row = before[0] as Record<string, SQLInputValue>;
        // The same row with every non-key column changed (a valid value of its type).
        const changed = Object.fromEntries(
          columns.map(({ name }) => {
            const value = row[name]!;
            if (keys.includes(name)) return [name, value];
            if (value instanceof Uint8Array) return [name, value.map((b, i) => (i === 0 ? b ^ 0xff : b))];
            return [name, typeof value === "string" ? `${value}x` : Number(value) + 1];
          }),
        );
        const names = columns.map((c) => c.name);
        const list = names.join(", ");
        const params = names.map((n) => `:${n}`).join(", ");
        const where = keys.map((k) => `${k} = :${k}`).join(" AND ");
        const set = names
          .filter((n) => !keys.includes(n))
          .map((n) => `${n} = excluded.${n}`)
          .join(", ");
        const attempts = {
          UPDATE: `UPDATE ${table} SET ${names
            .filter((n) => !keys.includes(n))
            .map((n) => `${n} = :${n}`)
            .join(", ")} WHERE ${where}`,
          DELETE: `DELETE FROM ${table} WHERE ${where}`,
          "INSERT OR REPLACE": `INSERT OR REPLACE INTO ${table} (${list}) VALUES (${params})`,
          REPLACE: `REPLACE INTO ${table} (${list}) VALUES (${params})`,
          UPSERT: `INSERT INTO ${table} (${list}) VALUES (${params}) ON CONFLICT (${keys.join(", ")}) DO UPDATE SET ${set}`,
        };
        for (const [what, sql] of Object.entries(attempts)) {
          const statement = raw.prepare(sql);
          const bound = Object.fromEntries(Object.entries(changed).filter(([n]) => sql.includes(`:${n}`)));
          expect(() => statement.run(bound), `${what} on ${table}`).toThrow(/append-only/);
        }
        expect(raw.prepare(`SELECT * FROM ${table} ORDER BY ${keys.join(", ")}`).all(), table).toEqual(before);
      }
      // Without the triggers the same statements do rewrite a row: the test above would notice.
      raw.exec("BEGIN");
      raw.exec("DROP TRIGGER entries_no_rewrite");
      raw.exec(
        "INSERT OR REPLACE INTO entries SELECT seq, 'rewritten', payload, ts, prev, hash, leaf FROM entries WHERE seq = 0",
      );
      expect(raw.prepare("SELECT type FROM entries WHERE seq = 0").get()).toEqual({ type: "rewritten" });
      raw.exec("ROLLBACK");
      // Appending stays possible: a new key is not a rewrite.
      raw.exec("INSERT INTO meta (key, value) VALUES ('note', 'appended')");
    } finally {
      raw.close();
    }
    expect((await ledger.verify()).ok).toBe(true);
    expect(await ledger.checkpoint()).toBe(await ledger.latestCheckpoint()); // a second checkpoint of the same tree writes no row
  });

  it("refuses to open a ledger under another origin", async () => {
    await (await openLedger()).append([sampleEvent(0)]);
    await expect(openLedgerStore({ path: join(dir, "ledger.sqlite"), origin: "other.example/log" })).rejects.toThrow(
      /origin/,
    );
  });
});

describe("tamper evidence", () => {
  function tamper(sql: string, trigger: string, file = "ledger.sqlite"): void {
    const raw = new DatabaseSync(join(dir, file));
    raw.exec(`DROP TRIGGER ${trigger}`);
    raw.exec(sql);
    raw.close();
  }

  it("names exactly the entry whose stored bytes were changed behind the store's back", async () => {
    const ledger = await openLedger();
    await ledger.append(Array.from({ length: 40 }, (_, i) => sampleEvent(i)));
    ledger.close();
    // Change one byte of entry 8's payload (a heartbeat): 0.97 → 0.98.
    tamper("UPDATE entries SET payload = replace(payload, '0.97', '0.98') WHERE seq = 8", "entries_no_update");
    const report = await (await openLedger()).verify();
    expect(report.ok).toBe(false);
    expect(new Set(report.problems.map((p) => p.seq))).toEqual(new Set([8]));
    expect(report.problems.map((p) => p.problem).join()).toMatch(/hash mismatch/);
  });

  it("catches a forger who also rewrites the entry's hash: the next entry's prev and the leaf disagree", async () => {
    const ledger = await openLedger();
    const written = await ledger.append(Array.from({ length: 20 }, (_, i) => sampleEvent(i)));
    ledger.close();
    const forged = sealEntry({ ...written[5]!, payload: { ...written[5]!.payload, coordination_score: 99 } });
    tamper(
      `UPDATE entries SET payload = '${forged.payloadText}', hash = '${forged.entry.hash}' WHERE seq = 5`,
      "entries_no_update",
    );
    const report = await (await openLedger()).verify();
    expect(report.ok).toBe(false);
    const seqs = report.problems.map((p) => p.seq);
    expect(seqs).toContain(5); // stored leaf no longer matches
    expect(seqs).toContain(6); // prev no longer matches
  });

  it("detects a deleted tail entry and a tampered stored subtree", async () => {
    const ledger = await openLedger();
    const width = 2 ** STORED_LEVEL;
    await ledger.append(Array.from({ length: 2 * width + 8 }, (_, i) => sampleEvent(i)));
    ledger.close();
    tamper(`UPDATE subtrees SET hash = zeroblob(32) WHERE level = ${STORED_LEVEL} AND idx = 1`, "subtrees_no_update");
    const report = await (await openLedger()).verify();
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual([
      {
        seq: 2 * width - 1,
        problem: `stored subtree (${STORED_LEVEL}, 1) does not match entries ${width}..${2 * width - 1}`,
      },
    ]);
  });

  it("reports a deleted entry once, at its seq, wherever it was; checkpoints before it are still checked", async () => {
    const key = generateKeyPair("ed25519");
    const signer = { name: ORIGIN, secretKeyHex: key.secretKey };
    for (const [name, deleted] of [
      ["middle.sqlite", 57],
      ["edge.sqlite", 197],
      ["range.sqlite", -1],
    ] as const) {
      const ledger = await openLedger(name, { signer });
      await ledger.append(Array.from({ length: 40 }, (_, i) => sampleEvent(i)));
      await ledger.checkpoint();
      await ledger.append(Array.from({ length: 160 }, (_, i) => sampleEvent(40 + i)));
      await ledger.checkpoint();
      ledger.close();
      // -1: a run of entries (60..99) goes missing.
      tamper(
        deleted === -1
          ? "DELETE FROM entries WHERE seq BETWEEN 60 AND 99"
          : `DELETE FROM entries WHERE seq = ${deleted}`,
        "entries_no_delete",
        name,
      );
      const report = await (await openLedger(name, { signer })).verify();
      const at = deleted === -1 ? 60 : deleted;
      expect(report.problems, name).toEqual([
        {
          seq: at,
          problem: expect.stringMatching(
            deleted === -1
              ? /^entries 60\.\.99 are missing \(the next entry is seq 100\)/
              : new RegExp(`^entry ${at} is missing`),
          ),
        },
      ]);
      expect(report).toMatchObject({ ok: false, size: 200, brokenAt: at, checkpointsChecked: 1 });
    }
  });

  it("checks every stored checkpoint against the recomputed tree", async () => {
    const key = generateKeyPair("ed25519");
    const ledger = await openLedger("c.sqlite", { signer: { name: ORIGIN, secretKeyHex: key.secretKey } });
    await ledger.append(Array.from({ length: 10 }, (_, i) => sampleEvent(i)));
    const note = await ledger.checkpoint();
    const cp = verifyCheckpoint(note, [{ name: ORIGIN, publicKeyHex: key.publicKey }]);
    expect(cp.size).toBe(10);
    expect(equalBytes(cp.rootHash, await ledger.rootHash())).toBe(true);
    expect(await ledger.latestCheckpoint()).toBe(note);
    await ledger.append([sampleEvent(10)]);
    await ledger.checkpoint();
    const ok = await ledger.verify();
    expect(ok.ok).toBe(true);
    expect(ok.checkpointsChecked).toBe(2);
    ledger.close();

    const raw = new DatabaseSync(join(dir, "c.sqlite"));
    raw.exec("DROP TRIGGER entries_no_update");
    // Rewrite entry 3 consistently (hash, leaf and the chain after it would all need forging);
    // here only the leaf column is forged to match, so the signed checkpoint must catch it.
    raw.exec("UPDATE entries SET leaf = zeroblob(32) WHERE seq = 3");
    raw.close();
    const report = await (
      await openLedger("c.sqlite", { signer: { name: ORIGIN, secretKeyHex: key.secretKey } })
    ).verify();
    expect(report.ok).toBe(false);
    expect(report.problems.some((p) => p.seq === 3)).toBe(true);
  });

  it("refuses to sign a checkpoint without a key", async () => {
    const ledger = await openLedger();
    await expect(ledger.checkpoint()).rejects.toThrow(/no checkpoint signing key/);
  });
});

describe("crash safety", () => {
  it.each(["sync", "async"] as const)(
    "survives SIGKILL at random moments (%s appends): the reopened ledger verifies and every acknowledged entry is there",
    async (mode) => {
      const path = join(dir, `crash-${mode}.sqlite`);
      const rounds = 3;
      for (let round = 0; round < rounds; round++) {
        const acknowledged = await runAndKill(path, mode, 150 + Math.floor(Math.random() * 400));
        const ledger = await openLedgerStore({ path: path, origin: "crash.test/ledger" });
        try {
          const report = await ledger.verify();
          expect(report.problems).toEqual([]);
          expect(acknowledged.size).toBeGreaterThan(0);
          // Every answered append is on disk, with the hash its caller was given.
          for (const [size, hash] of acknowledged)
            expect((await Array.fromAsync(ledger.entries(size - 1, size)))[0]?.hash).toBe(hash);
        } finally {
          ledger.close();
        }
      }
    },
  );
});

/** Starts the child, waits for its first acknowledgement, lets it run `ms` more, kills it; the acknowledged sizes and hashes. */
function runAndKill(path: string, mode: "sync" | "async", ms: number): Promise<Map<number, string>> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [join(import.meta.dirname, "../../test/support/store/crash-child.ts"), path, mode],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    const acknowledged = new Map<number, string>();
    let buffered = "";
    let stderr = "";
    let timer: NodeJS.Timeout | undefined;
    child.stdout.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split("\n");
      buffered = lines.pop()!;
      for (const line of lines) {
        const match = /^ack (\d+) (sha256:[0-9a-f]{64})$/.exec(line);
        if (match) acknowledged.set(Number(match[1]), match[2]!);
      }
      timer ??= setTimeout(() => child.kill("SIGKILL"), ms);
    });
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("exit", (_code, signal) => {
      clearTimeout(timer);
      if (signal === "SIGKILL") resolve(acknowledged);
      else reject(new Error(`child exited on its own: ${stderr}`));
    });
  });
}

describe("the opt-in bulk path (appendBulk, sealed on a worker thread)", () => {
  const stamped = (from: number, count: number) =>
    Array.from({ length: count }, (_, i) => ({
      ...sampleEvent(from + i),
      ts: new Date(Date.parse("2026-01-01T00:00:00.000Z") + from + i).toISOString(),
    }));
  const rows = (ledger: Ledger, sql: string) => {
    const raw = new DatabaseSync(ledger.store.location, { readOnly: true });
    try {
      return raw.prepare(sql).all();
    } finally {
      raw.close();
    }
  };

  it("writes the very rows, subtrees and root that one-by-one sealing writes", async () => {
    const piped = await openLedger("piped.sqlite");
    const here = await openLedger("here.sqlite");
    // A small start, so the big batches resume from a right edge that is not a power of two.
    for (const ledger of [piped, here]) await ledger.append(stamped(0, 37));
    // Past the sealer's shared slots (five of 1,024 events), so their memory is reused within a batch.
    const written = await piped.appendBulk(stamped(37, BULK_MIN * 24 + 5));
    // Runs of equal timestamps (a record carries its ts only when it changes).
    const repeated = stamped(37 + written.length, 3000).map((e, i) => ({
      ...e,
      ts: new Date(Date.parse("2026-02-01T00:00:00.000Z") + Math.floor(i / 7)).toISOString(),
    }));
    await piped.appendBulk(repeated);
    for (let n = 37; n < 37 + written.length; n += 200)
      await here.append(stamped(n, Math.min(200, 37 + written.length - n)));
    for (let n = 0; n < 3000; n += 200) await here.append(repeated.slice(n, n + 200));
    expect(await piped.size()).toBe(await here.size());
    expect(written).toEqual(await Array.fromAsync(here.entries(37, 37 + written.length)));
    expect(rows(piped, "SELECT * FROM entries ORDER BY seq")).toEqual(rows(here, "SELECT * FROM entries ORDER BY seq"));
    expect(rows(piped, "SELECT * FROM subtrees ORDER BY level, idx")).toEqual(
      rows(here, "SELECT * FROM subtrees ORDER BY level, idx"),
    );
    expect(equalBytes(await piped.rootHash(), await here.rootHash())).toBe(true);
    expect((await piped.verify()).ok).toBe(true);
  });

  it("keeps the entries' rewrite guard for every other connection: in force while a bulk append writes, there after its commit and its rollback", async () => {
    const ledger = await openLedger();
    await ledger.append(stamped(0, 10));
    const other = new DatabaseSync(ledger.store.location);
    const guard = () =>
      other.prepare("SELECT name FROM sqlite_schema WHERE type = 'trigger' AND name = 'entries_no_rewrite'").get();
    const rewrite = () =>
      other
        .prepare(
          "INSERT OR REPLACE INTO entries SELECT seq, 'rewritten', payload, ts, prev, hash, leaf FROM entries WHERE seq = 0",
        )
        .run();
    // What another connection finds while the bulk append holds the write lock, its inserts under way.
    const seen: unknown[] = [];
    const insertRows = SqliteBackend.prototype.insertRows;
    const spy = vi.spyOn(SqliteBackend.prototype, "insertRows").mockImplementation(function (
      this: SqliteBackend,
      rows,
    ) {
      if (seen.length === 0) {
        other.exec("PRAGMA busy_timeout = 0");
        seen.push(
          guard(),
          (() => {
            try {
              rewrite();
              return "rewrote";
            } catch (error) {
              return (error as Error).message;
            }
          })(),
        );
      }
      return insertRows.call(this, rows);
    });
    try {
      await ledger.appendBulk(stamped(10, BULK_MIN * 3));
      expect(seen).toEqual([{ name: "entries_no_rewrite" }, expect.stringMatching(/locked/)]);
      const failing = stamped(10 + BULK_MIN * 3, BULK_MIN * 3);
      // Refused past its first inserts: the rollback, not an early check, undoes them.
      failing[BULK_MIN * 2] = { ...failing[BULK_MIN * 2]!, ts: "2025-01-01T00:00:00.000Z" };
      await expect(ledger.appendBulk(failing)).rejects.toThrow(/is earlier than the last entry's/);
    } finally {
      spy.mockRestore();
    }
    // After a commit and after a rollback alike, the guard is there and refuses.
    other.exec("PRAGMA busy_timeout = 5000");
    expect(guard()).toEqual({ name: "entries_no_rewrite" });
    expect(rewrite).toThrow(/append-only/);
    other.close();
    expect(await ledger.size()).toBe(10 + BULK_MIN * 3);
    expect((await ledger.verify()).ok).toBe(true);
  });

  it("refuses the whole batch, naming the event, and stays usable", async () => {
    const ledger = await openLedger();
    await ledger.append(stamped(0, 10));
    const batch = stamped(10, 3000);
    batch[2501] = { ...batch[2501]!, payload: { ...batch[2501]!.payload, amount_shards: "-5" } };
    await expect(ledger.appendBulk(batch)).rejects.toThrow(/^event 2501: invalid mic_mint payload: amount_shards/);
    // The same refusal where this thread validates the chunk instead of the helper (every second chunk of 1,024).
    const second = stamped(10, 3000);
    second[1501] = { ...second[1501]!, payload: { ...second[1501]!.payload, amount_shards: "-5" } };
    await expect(ledger.appendBulk(second)).rejects.toThrow(/^event 1501: invalid mic_mint payload: amount_shards/);
    const dated = stamped(10, 3000);
    dated[1700] = { ...dated[1700]!, payload: { ...dated[1700]!.payload, when: new Date() } as never };
    await expect(ledger.appendBulk(dated)).rejects.toThrow(
      /^event 1700: invalid .* payload: cannot canonicalize a non-plain object \(Date\)/,
    );
    const huge = stamped(10, 3000);
    const tooLarge = {
      type: "sample.generated",
      payload: { generator: "test", seed: "1", notice: "é".repeat(MAX_PAYLOAD_BYTES / 2) },
    };
    huge[3] = { ...tooLarge, ts: huge[3]!.ts };
    await expect(ledger.appendBulk(huge)).rejects.toThrow(
      /^event 3: payload is 1048\d+ bytes of JCS text; the limit is 1048576/,
    );
    await expect(ledger.append([tooLarge])).rejects.toThrow(/^event 0: payload is 1048\d+ bytes/);
    const late = stamped(10, 3000);
    late[2999] = { ...late[2999]!, ts: "2025-01-01T00:00:00.000Z" };
    await expect(ledger.appendBulk(late)).rejects.toThrow(
      /^event 2999: ts 2025-01-01T00:00:00.000Z is earlier than the last entry's/,
    );
    // Refused after whole pages of the batch were handed to the store while sealing: none of them stays.
    const longLate = stamped(10, 9000);
    longLate[8999] = { ...longLate[8999]!, ts: "2025-01-01T00:00:00.000Z" };
    await expect(ledger.appendBulk(longLate)).rejects.toThrow(
      /^event 8999: ts 2025-01-01T00:00:00.000Z is earlier than the last entry's/,
    );
    expect(await ledger.size()).toBe(10);
    expect(await ledger.appendBulk(stamped(10, 3000))).toHaveLength(3000);
    expect(await ledger.verify()).toMatchObject({ ok: true, size: 3010 });
  });

  it("reads the clock once per append: the entries of a batch share its instant", async () => {
    const ledger = await openLedger();
    const big = await ledger.appendBulk(Array.from({ length: 1000 }, (_, i) => sampleEvent(i)));
    const small = await ledger.append([sampleEvent(1000), sampleEvent(1001)]);
    expect(new Set(big.map((e) => e.ts))).toEqual(new Set(["2026-01-01T00:00:00.000Z"]));
    expect(new Set(small.map((e) => e.ts))).toEqual(new Set(["2026-01-01T00:00:00.001Z"]));
  });
});
