import { beforeAll, describe, expect, it } from "vitest";
import { sealEntry, type LedgerEntry } from "../../core/ledger/entry.ts";
import { fold } from "../../core/ledger/projection.ts";
import { consensusProjection } from "../../core/consensus/state.ts";
import { proofState, type ConsensusState } from "../../core/consensus/model.ts";
import { cycleInfo, sessionSummaries } from "../../core/consensus/views.ts";
import type { NewEvent } from "../../core/ledger/store.ts";
import { SENTINELS } from "./tables.ts";
import { DEFAULT_SEED, simulate } from "./simulate.ts";

const NOW = new Date("2025-12-06T12:00:00.000Z");

/** The simulated events as ledger entries: sealed in order, as the store would append them. */
function asEntries(events: NewEvent[]): LedgerEntry[] {
  const out: LedgerEntry[] = [];
  for (const e of events)
    out.push(
      sealEntry({ seq: out.length, type: e.type, payload: e.payload, ts: e.ts!, prev: out.at(-1)?.hash ?? null }).entry,
    );
  return out;
}

let entries: LedgerEntry[];
let state: ConsensusState;
beforeAll(() => {
  entries = asEntries([...simulate({ seed: DEFAULT_SEED, size: 6000, now: NOW })]);
  state = fold(consensusProjection, entries);
});

describe("the sample's consensus activity", () => {
  it("registers every sentinel as an office with its priority, each key once", () => {
    expect([...state.offices.values()].map((o) => `${o.id}:${o.priority}`).sort()).toEqual(
      SENTINELS.filter((s) => s.joinsAt < 0.9)
        .map((s) => `${s.id}:${s.priority}`)
        .sort(),
    );
    expect(new Set([...state.offices.values()].map((o) => o.public_key)).size).toBe(state.offices.size);
  });

  it("follows the rules at every step: folding the ledger refuses nothing", () => {
    // The projection re-runs every check — GI at opening, priority mix, signatures by registered
    // keys, the server's consensus and gi_score, the measured validator GI, tally, seal root.
    expect(state.ignored).toEqual([]);
    const sessions = [...state.sessions.values()];
    expect(sessions.length).toBeGreaterThan(60); // ≈ 4 a week over 22 weeks
    const closed = sessions.filter((s) => s.closed);
    expect(new Set(closed.map((s) => s.closed!.outcome))).toEqual(new Set(["APPROVED", "REJECTED", "NO_QUORUM"]));
    for (const s of closed) {
      const proof = state.proofs.get(s.closed!.delibproof_id)!;
      expect(proofState(proof)).toBe("sealed");
      expect(proof.validator!.validator).not.toBeOneOf(s.participants);
    }
    // Only the sessions the present cut short are still open.
    expect(sessions.length - closed.length).toBeLessThanOrEqual(1);
  });

  it("seals in the same transaction as the evaluation: consecutive entries at one instant", () => {
    for (let i = 0; i < entries.length; i++) {
      if (entries[i]!.type !== "consensus.evaluated") continue;
      expect(entries[i + 1]!.type).toBe("delibproof.sealed");
      expect(entries[i + 1]!.ts).toBe(entries[i]!.ts);
    }
  });

  it("records the cycle each day, and sessions of about 35 to 50 minutes", () => {
    expect(cycleInfo(state)!.cycle).toBe("C-156");
    for (const s of sessionSummaries(state)) {
      if (!s.closed_at) continue;
      const minutes = (Date.parse(s.closed_at) - Date.parse(s.opened_at)) / 60_000;
      expect(minutes).toBeGreaterThan(30);
      expect(minutes).toBeLessThan(55);
    }
  });
});
