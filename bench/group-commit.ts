/**
 * `npm run bench -- groupcommit`: the API's write pattern — 64 concurrent callers, each appending
 * single events through the group-commit path (`appendAsync`, synchronous=FULL) — against the floor
 * of raw one-row FULL transactions (one fsync per event) in the same run. Target: >= 3x the floor's
 * throughput. Also reports each caller's wait (submit to durable answer) and the events per commit.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { NewEvent } from "../core/ledger/store.ts";
import { openLedgerStore } from "../store/open-ledger.ts";
import { sampleEvent, sealedRows, steppingClock, tempDir } from "../test/support/store/helpers.ts";
import { printComparisons } from "./harness.ts";

const CALLERS = 64;
const PER_CALLER = 40;
const ROUNDS = 3;

const RAW_SCHEMA = `PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;
  CREATE TABLE entries (seq INTEGER PRIMARY KEY, type TEXT NOT NULL, payload TEXT NOT NULL, ts TEXT NOT NULL,
  prev TEXT, hash TEXT NOT NULL, leaf BLOB NOT NULL) STRICT;`;

interface Round {
  seconds: number;
  waits: number[];
  commits: number;
}

/** 64 callers, each awaiting its single-event appendAsync before the next. */
async function groupCommitRound(path: string, events: NewEvent[]): Promise<Round> {
  const ledger = await openLedgerStore({
    path: path,
    origin: "bench/ledger",
    now: steppingClock(),
    durability: "full",
  });
  const waits: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CALLERS }, async (_, caller) => {
      for (let i = 0; i < PER_CALLER; i++) {
        const start = performance.now();
        await ledger.appendAsync([events[caller * PER_CALLER + i]!]);
        waits.push(performance.now() - start);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  // The clock is read once per transaction (and steps 1 ms per read): distinct timestamps = commits.
  const commits = new Set((await Array.fromAsync(ledger.entries())).map((e) => e.ts)).size;
  if ((await ledger.size()) !== events.length || !(await ledger.verify()).ok)
    throw new Error("the group-commit round did not write a sound ledger");
  await ledger.close();
  return { seconds, waits, commits };
}

/** The floor: the same rows, precomputed, one FULL transaction (one fsync) each. */
function rawRound(
  path: string,
  rows: readonly (readonly [number, string, string, string, string | null, string, Uint8Array])[],
): number {
  const db = new DatabaseSync(path);
  db.exec(RAW_SCHEMA);
  const insert = db.prepare("INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?, ?)");
  const t0 = performance.now();
  for (const row of rows) {
    db.exec("BEGIN IMMEDIATE");
    insert.run(...row);
    db.exec("COMMIT");
  }
  const seconds = (performance.now() - t0) / 1000;
  db.close();
  return seconds;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export async function run(): Promise<void> {
  const { dir, cleanup } = tempDir("bench-group-commit-");
  try {
    const n = CALLERS * PER_CALLER;
    const events = Array.from({ length: n }, (_, i) => sampleEvent(i));
    const rows = sealedRows(events);
    let file = 0;
    const fresh = () => {
      const path = join(dir, `round-${file++}.sqlite`);
      rmSync(path, { force: true });
      return path;
    };
    // Alternating rounds after one warm-up each; the best of each side, as the harness does.
    await groupCommitRound(fresh(), events);
    rawRound(fresh(), rows);
    let best: Round | null = null;
    let floor = Infinity;
    for (let r = 0; r < ROUNDS; r++) {
      floor = Math.min(floor, rawRound(fresh(), rows));
      const round = await groupCommitRound(fresh(), events);
      if (!best || round.seconds < best.seconds) best = round;
    }
    const waits = best!.waits.sort((a, b) => a - b);
    printComparisons("groupcommit: concurrent single-event appends (synchronous=FULL)", [
      {
        name: `${CALLERS} concurrent callers × ${PER_CALLER} single-event appends (${n.toLocaleString("en")} events)`,
        subject: "Ledger.appendAsync([event]) per caller, group commit (SQLite)",
        floor: "raw INSERT of the same precomputed row, one FULL transaction each",
        subjectSeconds: best!.seconds,
        floorSeconds: floor,
        items: n,
        kind: "speed",
        target: 3,
      },
    ]);
    console.log(
      `    wait per append: p50 ${percentile(waits, 50).toFixed(2)} ms, p99 ${percentile(waits, 99).toFixed(2)} ms, max ${waits.at(-1)!.toFixed(2)} ms; ` +
        `${best!.commits} commits, ${(n / best!.commits).toFixed(1)} events per commit`,
    );
  } finally {
    cleanup();
  }
}
