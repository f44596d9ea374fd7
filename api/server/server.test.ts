/**
 * Shutting the server down keeps the last window of anonymous refusals: the counts of keyed-file
 * refusals are held in memory per minute (api-keys.ts countRefusal) and written by the next
 * window or by closing the key store, which `close()` does. Over real HTTP on loopback, with the
 * committed keyed datasets. Before the fix the store was never closed and the counts were lost.
 */
import { cpSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { ApiKeyStore } from "../clients/api-keys.ts";
import { startServer } from "./server.ts";
import { tempDir } from "../../test/support/api/helpers.ts";

const REPO_DATA = join(import.meta.dirname, "../../data");
/** One instant: every request falls in one refusal window. */
const NOW = "2026-03-01T12:00:30.000Z";
let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

describe("closing the server", () => {
  test("writes the anonymous refusals counted in the current window to the access ledger", async () => {
    const made = tempDir("server-close-");
    cleanup = made.cleanup;
    const dataDir = join(made.dir, "data");
    cpSync(join(REPO_DATA, "areas"), join(dataDir, "areas"), { recursive: true });
    cpSync(join(REPO_DATA, "keys"), join(dataDir, "keys"), { recursive: true });
    const keysFile = join(made.dir, "access.sqlite");
    const server = await startServer({
      host: "127.0.0.1",
      port: 0,
      dataDir,
      keysFile,
      log: () => {},
      now: () => new Date(NOW),
    });
    for (let i = 0; i < 3; i++)
      expect((await fetch(`${server.url}/government/compliance-report.json`)).status).toBe(401);
    await server.close();

    const reopened = new ApiKeyStore(keysFile);
    try {
      const written = (await Array.fromAsync((await reopened.ledger()).entries(0))).filter(
        (e) => e.type === "access.refusals",
      );
      expect(written.map((e) => e.payload)).toEqual([
        expect.objectContaining({
          credential: "none",
          area: "government",
          file: "compliance-report.json",
          outcome: "unauthorized",
          status: 401,
          count: 3,
        }),
      ]);
    } finally {
      await reopened.close();
    }
  });
});
