/** Shared by the store tests: a throwaway state folder, sample events of real types, a session projection. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sealEntry } from "../../../core/ledger/entry.ts";
import type { Projection } from "../../../core/ledger/projection.ts";
import type { Decide, NewEvent } from "../../../core/ledger/store.ts";

export function tempDir(prefix = "ledger-test-"): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

const CATHEDRALS = ["FOR-GOVERNMENTS", "FOR-ACADEMICS", "FOR-PHILOSOPHERS", "FOR-ECONOMISTS", "DIPLOMACY"] as const;

/** The i-th sample event: heartbeats and mints in turn, each payload different. */
export function sampleEvent(i: number): NewEvent {
  if (i % 2 === 0) {
    return {
      type: "sentinel.heartbeat",
      payload: {
        sentinel: `S-${i % 7}`,
        status: "operational",
        gi_score: 0.97,
        apps: i % 5,
        packages: i % 9,
        workflows: 2,
        drift: (i % 100) / 100,
      },
    };
  }
  return {
    type: "mic_mint",
    payload: {
      sentinel: `S-${i % 7}`,
      cycle: `C-${1 + (i % 150)}`,
      cathedral: CATHEDRALS[i % CATHEDRALS.length]!,
      amount_shards: String(1_000_000 + i),
      coordination_score: 12.5 + (i % 10),
      multiplier: 1.25,
    },
  };
}

/** A fixed, advancing clock: each call is one millisecond later. */
export function steppingClock(start = Date.parse("2026-01-01T00:00:00.000Z")): () => Date {
  let t = start;
  return () => new Date(t++);
}

/** A `consensus.opened` event for the session `id`. */
/**
 * The rows the ledger would store for `events` appended one after another from an empty ledger,
 * computed beforehand (no validation): a benchmark's floor inserts exactly these.
 */
export function sealedRows(events: readonly NewEvent[], clock = steppingClock()) {
  let prev: string | null = null;
  return events.map((e, seq) => {
    const sealed = sealEntry({ seq, type: e.type, payload: e.payload, ts: clock().toISOString(), prev });
    prev = sealed.entry.hash;
    return [
      seq,
      e.type,
      sealed.payloadText,
      sealed.entry.ts,
      sealed.entry.prev,
      sealed.entry.hash,
      sealed.leafHash,
    ] as const;
  });
}

export function sessionOpened(id: string): NewEvent {
  return {
    type: "consensus.opened",
    payload: { session_id: id, cycle: "C-1", room: "main", gi_baseline: 0.97, participants: ["A", "B", "C"] },
  };
}

/** The ids of the consensus sessions opened so far, and how many times each was opened. */
export const openedSessions: Projection<Map<string, number>> = {
  initial: () => new Map(),
  apply(state, entry) {
    if (entry.type === "consensus.opened") {
      const id = entry.payload.session_id as string;
      state.set(id, (state.get(id) ?? 0) + 1);
    }
    return state;
  },
};

/** Opens the session unless it is open already: the duplicate guard, decided at the tail. */
export function openOnce(id: string): Decide<"created" | "exists"> {
  return (tail) =>
    tail.state(openedSessions).has(id)
      ? { events: [], result: "exists" }
      : { events: [sessionOpened(id)], result: "created" };
}
