/**
 * The pipeline benchmark's and memory test's setup: the seed simulator's sample ledger of a given
 * size written through the store's bulk path (the fastest way the store writes: `appendBulk`, the
 * same rows `append` writes), and a data folder beside it with the published schemas, sources and a
 * 90-day pulse history, ready for a full regeneration (`bench/pipeline.ts child run DIR DATA`).
 */
import { cpSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { NewEvent } from "../../../core/ledger/store.ts";
import { simulate } from "../../../pipeline/seed/simulate.ts";
import { DATASET_KEY, loadSigningKey } from "../../../store/keys.ts";
import { LEDGER_ORIGIN, openLedgerStore } from "../../../store/open-ledger.ts";
import { makePulseHistory, writePulseHistory } from "./areas/helpers.ts";

const REPO = fileURLToPath(new URL("../../..", import.meta.url));
export const SAMPLE_NOW = new Date("2026-03-01T00:00:00.000Z");
const BATCH = 50_000;

/**
 * Writes the sample ledger `dir`/ledger.sqlite (seed "bench-pipeline") and returns its size. With
 * `held`, the simulation is of `size + held` events and the last `held` are not written but
 * returned, for `appendEvents` to add later: events that follow the ledger as the simulator would.
 */
export async function seedSampleLedger(dir: string, size: number): Promise<number>;
export async function seedSampleLedger(dir: string, size: number, held: number): Promise<NewEvent[]>;
export async function seedSampleLedger(dir: string, size: number, held?: number): Promise<number | NewEvent[]> {
  const rest: NewEvent[] = [];
  let written = 0;
  function* head(): Generator<NewEvent> {
    for (const event of simulate({ seed: "bench-pipeline", size: size + (held ?? 0), now: SAMPLE_NOW })) {
      if (held !== undefined && written >= size) rest.push(event);
      else {
        written += 1;
        yield event;
      }
    }
  }
  const total = await appendEvents(dir, head());
  return held === undefined ? total : rest;
}

/** Appends events to `dir`/ledger.sqlite through the store's bulk path; returns the ledger's size. */
export async function appendEvents(dir: string, events: Iterable<NewEvent>): Promise<number> {
  const ledger = await openLedgerStore({
    path: join(dir, "ledger.sqlite"),
    origin: LEDGER_ORIGIN,
    durability: "normal",
  });
  try {
    let batch: NewEvent[] = [];
    for (const event of events) {
      batch.push(event);
      if (batch.length === BATCH) {
        await ledger.appendBulk(batch);
        batch = [];
      }
    }
    if (batch.length > 0) await ledger.appendBulk(batch);
    return await ledger.size();
  } finally {
    await ledger.close();
  }
}

/** The data folder `dir`/data a regeneration starts from: schemas, sources and a signed pulse history. */
export function prepareDataDir(dir: string): string {
  const dataDir = join(dir, "data");
  cpSync(join(REPO, "data", "schemas"), join(dataDir, "schemas"), { recursive: true });
  cpSync(join(REPO, "data", "sources"), join(dataDir, "sources"), { recursive: true });
  const scores = Array.from({ length: 90 }, (_, i) => [0.95 + (i % 5) / 100, 0.9 + (i % 7) / 100] as const);
  writePulseHistory(
    dataDir,
    makePulseHistory(scores, new Date(SAMPLE_NOW.getTime() - 90 * 86_400_000).toISOString()),
    loadSigningKey(DATASET_KEY, join(dir, "state"), {}),
  );
  return dataDir;
}
