import { afterEach, describe, expect, it } from "vitest";
import { join } from "node:path";
import { openLedger } from "../../../store/open-ledger.ts";
import { makeLedger, sentinelEvents, tempDir } from "../../../test/support/pipeline/pulse/helpers.ts";
import { ledgerVerified } from "./ledger.ts";
import { sentinelHeartbeats } from "./sentinels.ts";

const cleanups: (() => void)[] = [];
afterEach(async () => cleanups.splice(0).forEach((c) => c()));

describe("GI signals from the ledger", () => {
  it("counts registered sentinels whose latest heartbeat before now is recent and not offline", async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const env = { STATE_DIR: join(dir, "state") };
    const path = join(dir, "ledger.sqlite");
    await makeLedger(
      path,
      env,
      sentinelEvents([
        { sentinel: "alive", ts: "2026-03-01T10:00:00.000Z" }, // 2 h before now
        { sentinel: "stale", ts: "2026-02-28T06:00:00.000Z" }, // 30 h before now
        { sentinel: "stale", ts: "2026-03-01T13:00:00.000Z" }, // after now: not heard yet
        { sentinel: "off", ts: "2026-03-01T09:00:00.000Z" },
        { sentinel: "off", ts: "2026-03-01T11:00:00.000Z", status: "offline" },
        { sentinel: "degraded", ts: "2026-02-28T12:00:01.000Z", status: "degraded" }, // 23 h 59 m 59 s before
      ]),
    );
    const { ledger } = await openLedger({ path, env });
    try {
      const now = new Date("2026-03-01T12:00:00.000Z");
      const signal = await sentinelHeartbeats(ledger.entries(), now, 24);
      expect(signal.value).toBe(2 / 4);
      expect(signal.reason).toBe(
        "2 of 4 registered sentinels sent a live heartbeat in the 24 h before 2026-03-01T12:00:00.000Z",
      );
      expect(await ledgerVerified(ledger, path)).toEqual({
        value: 1,
        reason: `ledger ${path}: 10 entries and 1 checkpoint(s) verified`,
      });
    } finally {
      await ledger.close();
    }
  });

  it("is unmeasured without a ledger or without sentinels", async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const env = { STATE_DIR: join(dir, "state") };
    const path = join(dir, "ledger.sqlite");
    await makeLedger(path, env, [
      {
        type: "sample.generated",
        ts: "2026-03-01T00:00:00.000Z",
        payload: { generator: "test", seed: "1", notice: "test data" },
      },
    ]);
    const { ledger } = await openLedger({ path, env });
    try {
      expect(await sentinelHeartbeats(ledger.entries(), new Date("2026-03-02T00:00:00Z"), 24)).toEqual({
        value: null,
        reason: "no sentinel is registered on the ledger",
      });
    } finally {
      await ledger.close();
    }
    expect((await sentinelHeartbeats(null, new Date(), 24)).value).toBeNull();
    expect((await ledgerVerified(null, "/nowhere")).value).toBeNull();
  });

  it("gives 0 for a ledger whose checkpoint no longer verifies", async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const path = join(dir, "ledger.sqlite");
    await makeLedger(
      path,
      { STATE_DIR: join(dir, "state-a") },
      sentinelEvents([{ sentinel: "s", ts: "2026-03-01T00:00:00.000Z" }]),
    );
    // Opened with another state folder: another ledger key, which did not sign the stored checkpoint.
    const { ledger } = await openLedger({ path, env: { STATE_DIR: join(dir, "state-b") } });
    try {
      const signal = await ledgerVerified(ledger, path);
      expect(signal.value).toBe(0);
      expect(signal.reason).toMatch(/checkpoint at size 2/);
    } finally {
      await ledger.close();
    }
  });
});
