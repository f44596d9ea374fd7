/**
 * The access ledger in the shared PostgreSQL database: with
 * `DATABASE_URL` set, API keys and the keyed-access audit live in the database's `access` schema,
 * so a key issued through one process (the keys CLI, or one API instance's store) is accepted by
 * every instance, a revocation is refused by every instance, the audit of all of them is one
 * ledger, and no SQLite file is created in STATE_DIR.
 *
 * Real parts only: two API processes (`api/start.ts --serve-only`, test/support/cluster.ts) and the
 * keys CLI on one fresh PostgreSQL database; the in-process half uses two key stores and two servers.
 */
import { spawnSync } from "node:child_process";
import { cpSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../core/digest.ts";
import type { LedgerEntry } from "../core/ledger/entry.ts";
import { ApiKeyStore } from "../api/clients/api-keys.ts";
import { startServer, type RunningServer } from "../api/server/server.ts";
import { accessLedgerExists, openAccessLedgerStore } from "../store/access-ledger.ts";
import { ledgerExists } from "../store/open-ledger.ts";
import { TEST_TOKEN_SECRET } from "./support/api/avm.ts";
import { tempDir } from "./support/api/helpers.ts";
import { request, startApiCluster, type ApiCluster } from "./support/cluster.ts";
import { freshDatabase } from "./support/postgres.ts";

const REPO = join(import.meta.dirname, "..");
const REPO_DATA = join(REPO, "data");

/** The government area (keyed files) and the dataset keys, in a data folder of the test's own. */
function governmentData(): { dir: string; cleanup: () => void } {
  const data = tempDir("access-shared-data-");
  cpSync(join(REPO_DATA, "areas", "government"), join(data.dir, "areas", "government"), { recursive: true });
  cpSync(join(REPO_DATA, "keys"), join(data.dir, "keys"), { recursive: true });
  return data;
}

/** Every file under `dir` whose name says SQLite (the database, its WAL and shared-memory files). */
function sqliteFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((name) =>
    /\.sqlite(-wal|-shm|-journal)?$/.test(name),
  );
}

async function accessEntries(url: string): Promise<LedgerEntry[]> {
  const ledger = await openAccessLedgerStore(url);
  try {
    return (await Array.fromAsync(ledger.entries())).filter((e) => e.type === "access");
  } finally {
    await ledger.close();
  }
}

describe("two API processes and the keys CLI on one PostgreSQL database", () => {
  let databaseUrl: string;
  let data: { dir: string; cleanup: () => void };
  let cluster: ApiCluster;
  const keysCli = (...args: string[]) =>
    spawnSync(process.execPath, ["--import", "tsx", join(REPO, "api", "cli", "keys.ts"), ...args], {
      cwd: REPO,
      encoding: "utf8",
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        DATABASE_URL: databaseUrl,
        STATE_DIR: join(cluster.dir, "state"),
      },
    });
  const tokenOf = (out: string) => /key \(shown once[^:]*\): (ipk_\S+)/.exec(out)![1]!;
  const get = (i: number, path: string, token: string) =>
    request(`${cluster.instances[i]!.url}${path}`, { headers: { Authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    databaseUrl = await freshDatabase("access_shared");
    data = governmentData();
    cluster = await startApiCluster({
      instances: 2,
      store: () => ({
        DATABASE_URL: databaseUrl,
        DATA_DIR: data.dir,
        LEDGER_SIGNING_KEY: sha256Hex("access shared test ledger key"),
        TOKEN_SIGNING_KEY: TEST_TOKEN_SECRET,
      }),
    });
  }, 60_000);

  afterAll(async () => {
    await cluster?.stop();
    data?.cleanup();
  });

  it("a key the CLI issued opens keyed files on both instances; both audits land in the one access ledger; a revocation is refused by both", async () => {
    const issued = keysCli("issue", "--tier", "government", "--label", "shared ministry");
    expect(issued.status, issued.stderr).toBe(0);
    const token = tokenOf(issued.stdout);
    expect(issued.stdout).toContain("(schema access)"); // where it is stored: the database, its password never shown
    expect(await accessLedgerExists(databaseUrl)).toBe(true);

    const first = await get(0, "/government/compliance-report.json", token);
    const second = await get(1, "/government/policy-impact.json", token);
    expect([first.status, first.instance]).toEqual([200, "api1"]);
    expect([second.status, second.instance]).toEqual([200, "api2"]);
    // Each instance wrote its audit record before answering: both are in the one ledger.
    expect((await accessEntries(databaseUrl)).map((e) => e.payload)).toEqual([
      expect.objectContaining({
        key_id: "government-1",
        tier: "government",
        file: "compliance-report.json",
        outcome: "served",
        status: 200,
      }),
      expect.objectContaining({
        key_id: "government-1",
        tier: "government",
        file: "policy-impact.json",
        outcome: "served",
        status: 200,
      }),
    ]);

    const revoked = keysCli("revoke", "government-1", "--reason", "left");
    expect(revoked.status, revoked.stderr).toBe(0);
    for (const i of [0, 1]) expect((await get(i, "/government/compliance-report.json", token)).status).toBe(401);
    const after = (await accessEntries(databaseUrl)).map((e) => e.payload);
    expect(after.slice(2)).toEqual([
      expect.objectContaining({ key_id: "government-1", key_status: "revoked", outcome: "unauthorized", status: 401 }),
      expect.objectContaining({ key_id: "government-1", key_status: "revoked", outcome: "unauthorized", status: 401 }),
    ]);
  });

  it("creates no SQLite file in STATE_DIR: the platform and access ledgers are both in the database", async () => {
    expect(sqliteFiles(join(cluster.dir, "state"))).toEqual([]);
    expect(sqliteFiles(data.dir)).toEqual([]);
    expect(await ledgerExists(databaseUrl)).toBe(true);
    expect(await accessLedgerExists(databaseUrl)).toBe(true);
  });
});

describe("two key stores (two servers) in one process on one PostgreSQL database", () => {
  let databaseUrl: string;
  let data: { dir: string; cleanup: () => void };
  const servers: RunningServer[] = [];

  beforeAll(async () => {
    databaseUrl = await freshDatabase("access_stores");
    data = governmentData();
  });

  afterAll(async () => {
    for (const server of servers) await server.close();
    data?.cleanup();
  });

  it("a key issued through one store is accepted by the other's server, and each server's audit is in the one ledger", async () => {
    const issuer = new ApiKeyStore(databaseUrl);
    const reader = new ApiKeyStore(databaseUrl);
    try {
      const { token, key } = await issuer.issue("government", "in-process ministry", new Date());
      expect(await reader.get(key.id)).toMatchObject({ id: key.id, tier: "government", label: "in-process ministry" });
      for (let i = 0; i < 2; i++)
        servers.push(
          await startServer({ host: "127.0.0.1", port: 0, dataDir: data.dir, keysFile: databaseUrl, log: () => {} }),
        );
      for (const server of servers) {
        const res = await fetch(`${server.url}/government/compliance-report.json`, {
          headers: { Authorization: `Bearer ${token}` },
        });
        expect(res.status).toBe(200);
        await res.arrayBuffer();
      }
      const audited = (await accessEntries(databaseUrl)).map((e) => e.payload);
      expect(audited).toEqual([
        expect.objectContaining({ key_id: key.id, outcome: "served", status: 200 }),
        expect.objectContaining({ key_id: key.id, outcome: "served", status: 200 }),
      ]);
      // The main ledger's tables are not the access ledger's: the public schema holds none.
      expect(await ledgerExists(databaseUrl)).toBe(false);
    } finally {
      await issuer.close();
      await reader.close();
    }
  });
});
