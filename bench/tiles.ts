/**
 * `npm run bench -- tiles`: the ledger published as C2SP tiles (pipeline/ledger-tiles.ts) from a
 * 1,000,000-event sample ledger.
 *
 * - Full build into an empty folder (every tile and entry bundle, staged, root checked) vs the floor
 *   "hash its leaves once", the plainest way: raw `node:sqlite` rows of the entries table, each
 *   entry's JCS text put together from its columns and hashed as a leaf (SHA-256 of 0x00 ‖ text),
 *   which the build must do too — none of the project's code. Target <= 1.5x. Rounds are paired
 *   (the floor runs around each build; harness.ts comparePaired), the folder removed between rounds
 *   outside the timing. The same floor read through the store (`storedEntries()` + entryText, the
 *   floor before) is printed beside it, report only.
 * - Incremental update after 1,000 new entries: each round publishes the next 1,000 entries onto
 *   the tiles of the round before. On the 1M ledger vs the same update on a 20,000-entry ledger:
 *   proportional to the new entries, not the ledger's size, means a ratio near 1 (target <= 1.5x).
 *   Also shown against hashing the same 1,000 leaves (report only).
 *
 * `BENCH_TILES_SIZE` changes the large ledger's size (for a quick try); `BENCH_TILES_ROUNDS` (3).
 */
import type { StoredRow } from "../core/ledger/row-check.ts";
import { hash } from "node:crypto";
import { rmSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { entryText } from "../core/ledger/entry.ts";
import type { NewEvent } from "../core/ledger/store.ts";
import { publishLedgerTiles } from "../pipeline/ledger-tiles.ts";
import { simulate } from "../pipeline/seed/simulate.ts";
import { LEDGER_ORIGIN } from "../store/open-ledger.ts";
import type { Ledger } from "../store/ledger/ledger.ts";
import { openLedgerStore } from "../store/open-ledger.ts";
import { tempDir } from "../test/support/store/helpers.ts";
import { bestOfAsync, printComparisons, type Comparison, type PairedRound } from "./harness.ts";

const NOW = new Date("2026-03-01T00:00:00.000Z");
const ROUNDS = Number(process.env.BENCH_TILES_ROUNDS ?? 3);
const UPDATE = 1_000;
const RAW_FLOOR = "raw node:sqlite rows of the entries table, each leaf (0x00 ‖ the entry's JCS text) hashed once";
const SMALL = 20_000;

async function seed(path: string, size: number): Promise<Ledger> {
  const ledger = await openLedgerStore({ path: path, origin: LEDGER_ORIGIN, durability: "normal" });
  let batch: NewEvent[] = [];
  for (const event of simulate({ seed: "bench-tiles", size, now: NOW })) {
    batch.push(event);
    if (batch.length === 50_000) {
      await ledger.append(batch);
      batch = [];
    }
  }
  await ledger.append(batch);
  return ledger;
}

/** The floor: every stored entry of [from, to) read and its leaf hashed once. */
async function hashLeaves(ledger: Ledger, from: number, to: number): Promise<void> {
  let n = 0;
  for await (const { entry, payloadText } of ledger.storedEntries(from, to)) {
    if (hash("sha256", `\u0000${entryText(entry, payloadText)}`, "binary").length === 32) n += 1;
  }
  if (n !== to - from) throw new Error(`hashed ${n} leaves, expected ${to - from}`);
}

type RawRow = StoredRow;

/** An entry's JCS text from its stored columns: its members in JCS order, the payload as stored. */
function rawEntryText(r: RawRow): string {
  return `{"hash":${JSON.stringify(r.hash)},"payload":${r.payload},"prev":${JSON.stringify(r.prev)},"seq":${r.seq},"ts":${JSON.stringify(r.ts)},"type":${JSON.stringify(r.type)}}`;
}

/** The raw floor: the rows of [from, to) read with one node:sqlite statement and each leaf hashed once. */
function rawHashLeaves(path: string, from: number, to: number): void {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    let n = 0;
    for (const row of db
      .prepare("SELECT seq, type, payload, ts, prev, hash FROM entries WHERE seq >= ? AND seq < ? ORDER BY seq")
      .iterate(from, to)) {
      if (hash("sha256", `\u0000${rawEntryText(row as unknown as RawRow)}`, "binary").length === 32) n += 1;
    }
    if (n !== to - from) throw new Error(`hashed ${n} leaves, expected ${to - from}`);
  } finally {
    db.close();
  }
}

/** The raw floor hashes what the ledger committed to: its first rows' leaves equal the stored ones (checked outside the timing). */
function checkRawLeaves(path: string, count: number): void {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    for (const row of db
      .prepare("SELECT seq, type, payload, ts, prev, hash, leaf FROM entries ORDER BY seq LIMIT ?")
      .iterate(count)) {
      const r = row as unknown as RawRow;
      if (!Buffer.from(hash("sha256", `\u0000${rawEntryText(r)}`, "buffer")).equals(Buffer.from(r.leaf)))
        throw new Error(`the raw floor's leaf of entry ${r.seq} differs from the stored one`);
    }
  } finally {
    db.close();
  }
}

/** Paired rounds with setup outside the timing: the floor before the first round and after each. */
async function paired(
  rounds: number,
  setup: (round: number) => void,
  subject: (round: number) => Promise<unknown>,
  floor: () => Promise<unknown>,
): Promise<{ subject: number; floor: number; rounds: PairedRound[] }> {
  const results: { subject: number; floor: number }[] = [];
  let before = await bestOfAsync(1, floor);
  for (let round = 0; round < rounds; round++) {
    setup(round);
    const s = await bestOfAsync(1, () => subject(round));
    const after = await bestOfAsync(1, floor);
    results.push({ subject: s, floor: (before + after) / 2 });
    before = after;
  }
  for (const r of results)
    console.log(
      `    round: ${(r.subject * 1000).toFixed(1)} ms vs floor ${(r.floor * 1000).toFixed(1)} ms (${(r.subject / r.floor).toFixed(3)}x)`,
    );
  return {
    ...[...results].sort((a, b) => a.subject / a.floor - b.subject / b.floor)[Math.floor(rounds / 2)]!,
    rounds: results,
  };
}

/** Times `rounds` successive updates of UPDATE entries, each onto the tiles of the one before. */
async function updates(ledger: Ledger, dir: string, rounds: number): Promise<number[]> {
  const size = await ledger.size();
  const start = size - (rounds + 1) * UPDATE; // one warm-up update first
  await publishLedgerTiles({ dir, ledger, size: start, root: await ledger.rootHash(start), from: 0 });
  const seconds: number[] = [];
  for (let round = 0; round <= rounds; round++) {
    const from = start + round * UPDATE;
    const to = from + UPDATE;
    const root = await ledger.rootHash(to);
    const t = await bestOfAsync(1, () => publishLedgerTiles({ dir, ledger, size: to, root, from }));
    if (round > 0) seconds.push(t);
  }
  return seconds;
}

export async function run(): Promise<void> {
  const size = Number(process.env.BENCH_TILES_SIZE ?? 1_000_000);
  const { dir, cleanup } = tempDir("bench-tiles-");
  try {
    console.log(
      `\nTiles: seeding a ${size.toLocaleString("en")}-event and a ${SMALL.toLocaleString("en")}-event sample ledger …`,
    );
    const large = await seed(join(dir, "large.sqlite"), size);
    const small = await seed(join(dir, "small.sqlite"), SMALL);
    const entries = await large.size();
    const root = await large.rootHash(entries);
    const largePath = join(dir, "large.sqlite");
    checkRawLeaves(largePath, 1_000);

    console.log("  full build (paired rounds):");
    const out = (round: number) => join(dir, `tiles-${round}`);
    const full = await paired(
      ROUNDS,
      (round) => rmSync(out(round - 1), { recursive: true, force: true }),
      (round) => publishLedgerTiles({ dir: out(round), ledger: large, size: entries, root, from: 0 }),
      async () => rawHashLeaves(largePath, 0, entries),
    );
    const storeFloor = await bestOfAsync(ROUNDS, () => hashLeaves(large, 0, entries));
    rmSync(out(ROUNDS - 1), { recursive: true, force: true });

    const largeUpdates = await updates(large, join(dir, "update-large"), ROUNDS);
    const smallUpdates = await updates(small, join(dir, "update-small"), ROUNDS);
    const leafFloor = await bestOfAsync(ROUNDS, async () => rawHashLeaves(largePath, entries - UPDATE, entries));
    const best = (xs: number[]) => Math.min(...xs);

    const comparisons: Comparison[] = [
      {
        name: `Full build of the tiles of ${entries.toLocaleString("en")} ledger entries (tiles, entry bundles, root checked)`,
        subject: "publishLedgerTiles from 0, empty folder",
        floor: RAW_FLOOR,
        subjectSeconds: full.subject,
        floorSeconds: full.floor,
        items: entries,
        kind: "time",
        target: 1.5,
        rounds: full.rounds,
      },
      {
        name: `The floor read through the store: storedEntries() and entryText for the same ${entries.toLocaleString("en")} leaves (report only)`,
        subject: "for await (const e of ledger.storedEntries()) hash(0x00 ‖ entryText(e))",
        floor: RAW_FLOOR,
        subjectSeconds: storeFloor,
        floorSeconds: full.floor,
        items: entries,
        kind: "time",
      },
      {
        name: `Incremental update after ${UPDATE.toLocaleString("en")} new entries: on ${entries.toLocaleString("en")} entries vs on ${SMALL.toLocaleString("en")}`,
        subject: `update on the ${entries.toLocaleString("en")}-entry ledger`,
        floor: `the same update on the ${SMALL.toLocaleString("en")}-entry ledger`,
        subjectSeconds: best(largeUpdates),
        floorSeconds: best(smallUpdates),
        items: UPDATE,
        kind: "time",
        target: 1.5,
      },
      {
        name: `Incremental update after ${UPDATE.toLocaleString("en")} new entries vs hashing those ${UPDATE.toLocaleString("en")} leaves`,
        subject: `update on the ${entries.toLocaleString("en")}-entry ledger`,
        floor: `read and hash the ${UPDATE.toLocaleString("en")} new leaves (raw node:sqlite rows)`,
        subjectSeconds: best(largeUpdates),
        floorSeconds: leafFloor,
        items: UPDATE,
        kind: "time",
      },
    ];
    printComparisons("Ledger tiles (npm run bench -- tiles)", comparisons);
    await large.close();
    await small.close();
  } finally {
    cleanup();
  }
}
