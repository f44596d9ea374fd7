/**
 * /health reports every shared store an instance depends on, over real HTTP: the ledger (covered
 * in api/routes/ledger.test.ts and consensus.test.ts), the access ledger (API keys and the
 * keyed-access audit) and the limits store — over SQLite and memory, and over the real PostgreSQL
 * of the test run. A store that fails makes the status `degraded` and /health still answers 200;
 * /health never writes to any of them.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { ApiKeyStore } from "../clients/api-keys.ts";
import { createApp } from "../app.ts";
import { listen, type RunningServer } from "../server/server.ts";
import type { LimitsStore } from "../../store/limits.ts";
import { openPostgresLimits } from "../../store/drivers/postgres/limits.ts";
import { sampleHistory, tempDir, writeHistory } from "../../test/support/api/helpers.ts";
import { freshDatabase } from "../../test/support/postgres.ts";

interface Health {
  status: string;
  access_ledger: { status: string; store: string; size: number | null; write_failure?: unknown };
  limits: { status: string; store: string; failure?: { reason: string } };
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An API server over a verified pulse history with the given access ledger and limits store. */
async function serve(keys: ApiKeyStore, limits?: LimitsStore): Promise<RunningServer> {
  const made = tempDir("health-");
  cleanups.push(made.cleanup);
  const dataDir = join(made.dir, "data");
  writeHistory(dataDir, sampleHistory(5));
  const app = createApp({ dataDir, keys, log: () => {}, ...(limits ? { limits } : {}) });
  const server = await listen(app, "127.0.0.1", 0);
  cleanups.push(() => server.close());
  return server;
}

async function health(server: RunningServer): Promise<Health> {
  const res = await fetch(`${server.url}/health`);
  expect(res.status).toBe(200);
  return (await res.json()) as Health;
}

function keyStore(location: string): ApiKeyStore {
  const keys = new ApiKeyStore(location);
  cleanups.push(() => keys.close().catch(() => {}));
  return keys;
}

describe("/health over SQLite and memory (one instance)", () => {
  it("names the access ledger's store and size, and the limits store: memory", async () => {
    const made = tempDir("health-keys-");
    cleanups.push(made.cleanup);
    const keys = keyStore(join(made.dir, "access.sqlite"));
    await keys.issue("government", "health", new Date(0));
    const body = await health(await serve(keys));
    expect(body.status).toBe("ok");
    expect(body.access_ledger).toEqual({ status: "ok", store: "sqlite", size: 1 });
    expect(body.limits).toEqual({ status: "ok", store: "memory" });
  });

  it("an access ledger that cannot be opened is unavailable, and the instance degraded", async () => {
    const made = tempDir("health-keys-");
    cleanups.push(made.cleanup);
    const notADatabase = join(made.dir, "access.sqlite");
    writeFileSync(notADatabase, "not a SQLite database, but long enough to be read as a header page".repeat(20));
    const keys = keyStore(notADatabase);
    const body = await health(await serve(keys));
    expect(body.access_ledger).toEqual({ status: "unavailable", store: "sqlite", size: null });
    expect(body.status).toBe("degraded");
  });
});

describe("/health over PostgreSQL (N instances)", () => {
  async function raw(url: string): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: url });
    client.on("error", () => undefined);
    await client.connect();
    cleanups.push(() => client.end().catch(() => {}));
    return client;
  }
  async function limitsOn(url: string, instanceId: string): Promise<LimitsStore> {
    const limits = await openPostgresLimits(url, { instanceId });
    cleanups.push(() => limits.close().catch(() => {}));
    return limits;
  }

  it("names both stores postgresql; answering never writes to them", async () => {
    const url = await freshDatabase("health");
    const keys = keyStore(url);
    await keys.issue("academic", "health", new Date(0));
    const server = await serve(keys, await limitsOn(url, "health-1"));
    const db = await raw(url);
    const counts = async () =>
      (
        await db.query<{ access: string; quotas: string; connections: string }>(
          "SELECT (SELECT count(*) FROM access.ledger_entries) AS access, (SELECT count(*) FROM api_quota_counts) AS quotas, (SELECT count(*) FROM api_open_connections) AS connections",
        )
      ).rows[0];
    const before = await counts();
    for (let i = 0; i < 3; i++) {
      const body = await health(server);
      expect(body.status).toBe("ok");
      expect(body.access_ledger).toEqual({ status: "ok", store: "postgresql", size: 1 });
      expect(body.limits).toEqual({ status: "ok", store: "postgresql" });
    }
    expect(await counts()).toEqual(before);
  });

  it("a limits store whose database is gone is failing and the instance degraded, while the access ledger stays ok", async () => {
    const [url, limitsUrl] = [await freshDatabase("health_keys"), await freshDatabase("health_limits")];
    const server = await serve(keyStore(url), await limitsOn(limitsUrl, "health-2"));
    expect((await health(server)).limits.status).toBe("ok");
    const admin = await raw(url);
    await admin.query(`DROP DATABASE ${new URL(limitsUrl).pathname.slice(1)} WITH (FORCE)`);
    const body = await health(server);
    expect(body.limits).toEqual({
      status: "failing",
      store: "postgresql",
      failure: { reason: expect.stringMatching(/does not exist|terminat|connect/) },
    });
    expect(body.access_ledger.status).toBe("ok");
    expect(body.status).toBe("degraded");
  });

  it("a limits store that does not answer (its table locked) is failing, not a hang", async () => {
    const url = await freshDatabase("health_locked");
    const server = await serve(keyStore(url), await limitsOn(url, "health-3"));
    const holder = await raw(url);
    await holder.query("BEGIN");
    await holder.query("LOCK TABLE api_quota_counts IN ACCESS EXCLUSIVE MODE");
    const body = await health(server);
    expect(body.limits).toMatchObject({ status: "failing", store: "postgresql" });
    expect(body.status).toBe("degraded");
    await holder.query("ROLLBACK");
    expect((await health(server)).limits).toEqual({ status: "ok", store: "postgresql" });
  });

  it("an access ledger whose database is unreachable is unavailable and the instance degraded; the limits store is reported apart", async () => {
    const url = await freshDatabase("health_gone");
    const keys = keyStore(url);
    await keys.list(); // opened
    const otherUrl = await freshDatabase("health_other");
    const server = await serve(keys, await limitsOn(otherUrl, "health-4"));
    const admin = await raw(otherUrl);
    await admin.query(`DROP DATABASE ${new URL(url).pathname.slice(1)} WITH (FORCE)`);
    const body = await health(server);
    expect(body.access_ledger).toEqual({ status: "unavailable", store: "postgresql", size: null });
    expect(body.limits).toEqual({ status: "ok", store: "postgresql" });
    expect(body.status).toBe("degraded");
  });
});
