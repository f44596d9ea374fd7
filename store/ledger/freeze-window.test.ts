/**
 * The ledger refuses a monetary event dated inside the migration freeze window, on both append paths
 * (one thread and the pipelined helper), whether the event carries its `ts` or takes the clock's,
 * and writes nothing of the refused batch.
 */
import { afterEach, describe, expect, it } from "vitest";
import { LedgerAppendError, type NewEvent } from "../../core/ledger/store.ts";
import { Ledger, BULK_MIN } from "./ledger.ts";
import { openLedgerStore } from "../open-ledger.ts";

const burn = (ts?: string): NewEvent => ({
  type: "mic_burn",
  payload: { account: "ATLAS", amount_shards: "1", reason: "fee" },
  ...(ts ? { ts } : {}),
});
const heartbeat = (ts: string): NewEvent => ({
  type: "sentinel.heartbeat",
  payload: { sentinel: "ATLAS", status: "operational", gi_score: 0.97, apps: 1, packages: 1, workflows: 1, drift: 0 },
  ts,
});

let ledger: Ledger | undefined;
afterEach(() => ledger?.close());

async function refusal(fn: () => unknown): Promise<LedgerAppendError> {
  try {
    await fn();
  } catch (error) {
    expect(error).toBeInstanceOf(LedgerAppendError);
    return error as LedgerAppendError;
  }
  throw new Error("the append was accepted");
}

describe("the freeze window in the store", () => {
  it("refuses a dated monetary event inside it with a clear error, and writes none of the batch", async () => {
    ledger = await openLedgerStore({ path: ":memory:", origin: "freeze" });
    await ledger.append([burn("2025-11-30T23:59:58.999Z")]);
    const error = await refusal(() =>
      ledger!.append([heartbeat("2025-11-30T23:59:59.000Z"), burn("2025-11-30T23:59:59.000Z")]),
    );
    expect(error.code).toBe("migration-freeze");
    expect(error.index).toBe(1);
    expect(error.message).toBe(
      "event 1: mic_burn dated 2025-11-30T23:59:59.000Z falls inside the migration freeze window " +
        "[2025-11-30T23:59:59.000Z, 2025-12-02T00:00:01.000Z): pending transactions are frozen for the v1 → v2 snapshot and resume at 2025-12-02T00:00:01.000Z",
    );
    expect(await ledger.size()).toBe(1);
    expect((await refusal(() => ledger!.append([burn("2025-12-02T00:00:00.999Z")]))).code).toBe("migration-freeze");
    // Other events go on; money resumes at 00:00:01.
    await ledger.append([heartbeat("2025-12-01T12:00:00.000Z"), burn("2025-12-02T00:00:01.000Z")]);
    expect(await ledger.size()).toBe(3);
  });

  it("refuses an event that takes the clock's instant inside the window", async () => {
    let now = new Date("2025-12-01T10:00:00.000Z");
    ledger = await openLedgerStore({ path: ":memory:", origin: "freeze", now: () => now });
    expect((await refusal(() => ledger!.append([burn()]))).code).toBe("migration-freeze");
    expect(await ledger.size()).toBe(0);
    now = new Date("2025-12-02T00:00:01.000Z");
    expect((await ledger.append([burn()]))[0]!.ts).toBe("2025-12-02T00:00:01.000Z");
  });

  it("refuses it in a bulk batch sealed on the worker thread too", async () => {
    ledger = await openLedgerStore({ path: ":memory:", origin: "freeze" });
    const batch: NewEvent[] = [];
    for (let i = 0; i < BULK_MIN + 10; i++) batch.push(heartbeat("2025-11-30T12:00:00.000Z"));
    batch.push(burn("2025-12-01T00:00:00.000Z"));
    const error = await refusal(() => ledger!.appendBulk(batch));
    expect(error.code).toBe("migration-freeze");
    expect(error.index).toBe(BULK_MIN + 10);
    expect(await ledger.size()).toBe(0);
  });

  it("calls other refusals invalid-event", async () => {
    ledger = await openLedgerStore({ path: ":memory:", origin: "freeze" });
    expect((await refusal(() => ledger!.append([{ type: "nope", payload: {} }]))).code).toBe("invalid-event");
  });

  it("applies the time rule it is handed instead of the freeze, when handed one", async () => {
    ledger = await openLedgerStore({
      path: ":memory:",
      origin: "freeze",
      timeRule: (type) => (type === "sentinel.heartbeat" ? { code: "invalid-ts", message: "no heartbeats" } : null),
    });
    await ledger.append([burn("2025-12-01T08:00:00.000Z")]);
    const error = await refusal(() => ledger!.append([heartbeat("2025-12-03T00:00:00.000Z")]));
    expect([error.code, error.message]).toEqual(["invalid-ts", "event 0: no heartbeats"]);
    expect(await ledger.size()).toBe(1);
  });
});
