/**
 * Shared limits over real HTTP against the real PostgreSQL: three API servers,
 * each with its own limits store (store/drivers/postgres/limits.ts) on one database, as N instances behind
 * a load balancer would be. A quota is exact under parallel requests spread over the instances,
 * HEAD never counts, the verify quota is shared the same way, and the simulation's connection cap
 * holds across instances; rows of a dead instance stop counting, and a restarted one clears its own.
 */
import { cpSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { ApiKeyStore } from "../api/clients/api-keys.ts";
import { startServer, type RunningServer } from "../api/server/server.ts";
import type { LimitsStore } from "../store/limits.ts";
import { openPostgresLimits } from "../store/drivers/postgres/limits.ts";
import { freshDatabase } from "./support/postgres.ts";
import { tempDir } from "./support/store/helpers.ts";

const REPO_DATA = join(import.meta.dirname, "../data");
const FILE = "/government/sentinel-status.json";
const CONNECTIONS = 3;

let databaseUrl: string;
let dir: string;
let cleanup: () => void;
let dataDir: string;
const limits: LimitsStore[] = [];
const servers: RunningServer[] = [];
let instances: { url: string; ws: string }[];

/** The government area, the simulation's inputs and the dataset keys, copied from the repository's published data. */
function copyData(to: string): void {
  for (const area of ["government", "philosophy"])
    cpSync(join(REPO_DATA, "areas", area), join(to, "areas", area), { recursive: true });
  cpSync(join(REPO_DATA, "keys"), join(to, "keys"), { recursive: true });
}

beforeAll(async () => {
  databaseUrl = await freshDatabase("limits");
  ({ dir, cleanup } = tempDir("shared-limits-"));
  dataDir = join(dir, "data");
  mkdirSync(dataDir, { recursive: true });
  copyData(dataDir);
  const keysFile = join(dir, "access.sqlite");
  await new ApiKeyStore(keysFile).close();
  instances = [];
  for (let i = 0; i < 3; i++) {
    const store = await openPostgresLimits(databaseUrl, { instanceId: `test-${i}` });
    limits.push(store);
    const server = await startServer({
      host: "127.0.0.1",
      port: 0,
      dataDir,
      keysFile,
      log: () => {},
      limits: store,
      simulation: { maxConnectionsPerClient: CONNECTIONS },
    });
    servers.push(server);
    instances.push({ url: server.url, ws: `${server.url.replace(/^http/, "ws")}/philosophy/simulation` });
  }
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close(100)));
  await Promise.all(limits.map((l) => l.close()));
  cleanup?.();
});

/** An HTTP request from a given loopback address (127.0.0.0/8 is all loopback on Linux): each address is a client. */
async function request(
  url: string,
  from: string,
  init: { method?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: string }> {
  const { request: send } = await import("node:http");
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      { method: init.method ?? "GET", localAddress: from, headers: { ...init.headers, Connection: "close" } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers))
            if (typeof value === "string") headers.set(name, value);
          resolve({ status: res.statusCode!, headers, body: Buffer.concat(chunks).toString() });
        });
      },
    );
    req.on("error", reject);
    req.end(init.body);
  });
}

/** `r` of a RateLimit field (`"daily";r=<remaining>;t=<seconds>`). */
function remaining(headers: Headers): number {
  const field = headers.get("RateLimit");
  const r = field ? /;r=(\d+);/.exec(field) : null;
  if (!r) throw new Error(`no RateLimit field: ${field}`);
  return Number(r[1]);
}

describe("a daily quota shared by three instances on one PostgreSQL", () => {
  it("answers exactly 100 of 150 parallel requests spread over the instances, with consistent RateLimit fields; HEAD is free", async () => {
    const from = "127.0.3.1";
    // HEAD before: free, and its fields show the whole quota.
    const head = await request(`${instances[0]!.url}${FILE}`, from, { method: "HEAD" });
    expect(head.status, head.body).toBe(200);
    expect(remaining(head.headers)).toBe(100);

    const answers = await Promise.all(
      Array.from({ length: 150 }, (_, i) => request(`${instances[i % 3]!.url}${FILE}`, from)),
    );
    const served = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 429);
    expect(served).toHaveLength(100);
    expect(refused).toHaveLength(50);
    // Each served request was counted once: the remaining counts are 99 … 0, each exactly once.
    expect(served.map((a) => remaining(a.headers)).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 100 }, (_, i) => i),
    );
    for (const a of refused) {
      expect(remaining(a.headers)).toBe(0);
      expect(Number(a.headers.get("Retry-After"))).toBeGreaterThan(0);
      expect(JSON.parse(a.body)).toMatchObject({ type: expect.stringMatching(/rate-limited$/), status: 429 });
    }

    // Spent on every instance; HEAD is still answered and still counts nothing.
    for (const { url } of instances) {
      expect((await request(`${url}${FILE}`, from)).status).toBe(429);
      const after = await request(`${url}${FILE}`, from, { method: "HEAD" });
      expect(after.status).toBe(200);
      expect(remaining(after.headers)).toBe(0);
    }
    // Another client is untouched.
    const other = await request(`${instances[1]!.url}${FILE}`, "127.0.3.2");
    expect(other.status).toBe(200);
    expect(remaining(other.headers)).toBe(99);
  });

  it("shares the verify quota: 150 parallel verifies over three instances → exactly 100 decided, 50 answered 429", async () => {
    const from = "127.0.3.3";
    const answers = await Promise.all(
      Array.from({ length: 150 }, (_, i) =>
        // A body the route refuses (400): it is past the quota gate, so it was counted.
        request(`${instances[i % 3]!.url}/avm/verify`, from, {
          method: "POST",
          body: "{}",
          headers: { "Content-Type": "application/json" },
        }),
      ),
    );
    const counted = answers.filter((a) => a.status !== 429);
    expect(counted).toHaveLength(100);
    expect(new Set(counted.map((a) => a.status))).toEqual(new Set([400]));
    expect(answers.filter((a) => a.status === 429)).toHaveLength(50);
    expect(counted.map((a) => remaining(a.headers)).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 100 }, (_, i) => i),
    );
  });
});

/** Opens a simulation WebSocket from `from`; resolves with it, or rejects with the refused upgrade's status. */
function connect(url: string, from: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { localAddress: from });
    ws.once("unexpected-response", (_req, res) => {
      reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode }));
      res.resume();
      ws.terminate();
    });
    ws.once("error", reject);
    ws.once("open", () => resolve(ws));
  });
}

async function refusal(url: string, from: string): Promise<number> {
  try {
    (await connect(url, from)).terminate();
  } catch (error) {
    return (error as { status: number }).status;
  }
  return 101;
}

async function openRows(client: string): Promise<number> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ n: string }>("SELECT count(*) AS n FROM api_open_connections WHERE client = $1", [
      client,
    ]);
    return Number(rows[0]!.n);
  } finally {
    await db.end();
  }
}

describe("the simulation's connection cap across instances", () => {
  it("counts a client's open connections on every instance, and frees a place when one closes", async () => {
    const from = "127.0.4.1";
    const open = [
      await connect(instances[0]!.ws, from),
      await connect(instances[1]!.ws, from),
      await connect(instances[2]!.ws, from),
    ];
    for (const { ws } of instances) expect(await refusal(ws, from)).toBe(429);
    // Parallel attempts on every instance: none gets past the cap.
    expect(await Promise.all(instances.map(({ ws }) => refusal(ws, from)))).toEqual([429, 429, 429]);
    // Another client is not affected.
    (await connect(instances[2]!.ws, "127.0.4.2")).terminate();

    open[0]!.close();
    // The place is given back when the socket closes on the server (asynchronously): ask until it is.
    while ((await openRows(`ip:${from}`)) >= CONNECTIONS) await new Promise((r) => setTimeout(r, 20));
    const again = await connect(instances[1]!.ws, from);
    expect(await refusal(instances[2]!.ws, from)).toBe(429);
    for (const ws of [again, ...open.slice(1)]) ws.close();
  });

  it("does not count the rows of an instance that stopped refreshing them, and a restarted instance deletes its own", async () => {
    const client = "ip:127.0.4.9";
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      // A dead instance's rows: their heartbeat is far older than the ttl.
      for (let i = 0; i < CONNECTIONS; i++) {
        await db.query(
          "INSERT INTO api_open_connections (instance, connection, client, heartbeat_at) VALUES ('dead', $1, $2, now() - interval '1 hour')",
          [`c${i}`, client],
        );
      }
      const ws = await connect(instances[0]!.ws, "127.0.4.9");
      ws.close();

      // An instance that starts again under its id finds its previous run's rows and deletes them.
      await db.query(
        "INSERT INTO api_open_connections (instance, connection, client) VALUES ('restarted', 'old', $1)",
        [client],
      );
      const restarted = await openPostgresLimits(databaseUrl, { instanceId: "restarted" });
      try {
        const { rows } = await db.query("SELECT 1 FROM api_open_connections WHERE instance = 'restarted'");
        expect(rows).toHaveLength(0);
        const release = await restarted.connections.open("ip:198.51.100.1", 1);
        expect(release).not.toBeNull();
        expect(await restarted.connections.open("ip:198.51.100.1", 1)).toBeNull();
        release!();
      } finally {
        await restarted.close();
      }
    } finally {
      await db.end();
    }
  });

  it("keeps a connection counted when the heartbeat runs while it is being opened", async () => {
    // The heartbeat is run by the test (no timer), and one pooled client makes the store's
    // statements run in the order they were asked for: the beat asked for during the open runs its
    // statements right after the open's COMMIT, with what the instance held when the beat began.
    let beat: (() => Promise<void>) | undefined;
    const schedule = (run: () => Promise<void>) => {
      beat = run;
      return () => {};
    };
    const first = await openPostgresLimits(databaseUrl, { instanceId: "beating", maxClients: 1, schedule });
    const second = await openPostgresLimits(databaseUrl, { instanceId: "other" });
    const client = "ip:198.51.100.7";
    try {
      const opening = first.connections.open(client, 1);
      const beating = beat!();
      const [release] = await Promise.all([opening, beating]);
      expect(release).not.toBeNull();
      expect(await openRows(client)).toBe(1);
      // The cap of one is reached on every instance: the row was not taken by the beat.
      expect(await second.connections.open(client, 1)).toBeNull();
      await beat!();
      expect(await second.connections.open(client, 1)).toBeNull();

      release!();
      while ((await openRows(client)) > 0) await new Promise((r) => setTimeout(r, 20));
      const next = await second.connections.open(client, 1);
      expect(next).not.toBeNull();
      next!();
    } finally {
      await first.close();
      await second.close();
    }
  });
});

describe("a limits store that fails", () => {
  it("refuses limited requests with 503 limits-unavailable and Retry-After (fail closed), and answers the rest", async () => {
    const lostUrl = await freshDatabase("limits_lost");
    const store = await openPostgresLimits(lostUrl, { instanceId: "lost", timeoutMs: 2000 });
    const keysFile = join(dir, "access-lost.sqlite");
    await new ApiKeyStore(keysFile).close();
    const server = await startServer({
      host: "127.0.0.1",
      port: 0,
      dataDir,
      keysFile,
      log: () => {},
      limits: store,
      simulation: { roundIntervalMs: 0 },
    });
    try {
      expect((await request(`${server.url}${FILE}`, "127.0.5.1")).status).toBe(200);
      // A simulation connection open before the failure, its first simulation run to the end.
      const ws = await connect(`${server.url.replace(/^http/, "ws")}/philosophy/simulation`, "127.0.5.2");
      const messages: string[] = [];
      ws.on("message", (data) => messages.push(data.toString()));
      const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
      ws.send(JSON.stringify({ action: "start_simulation", scenario: "Rotate the government API keys" }));
      while (!messages.some((m) => m.includes('"phase":"final"'))) await new Promise((r) => setTimeout(r, 10));
      // The database goes away under the running server (its connections are ended, it no longer exists).
      const admin = new pg.Client({ connectionString: databaseUrl });
      await admin.connect();
      await admin.query(`DROP DATABASE ${new URL(lostUrl).pathname.slice(1)} WITH (FORCE)`);
      await admin.end();
      for (const answer of [
        await request(`${server.url}${FILE}`, "127.0.5.1"),
        await request(`${server.url}${FILE}`, "127.0.5.1", { method: "HEAD" }),
        await request(`${server.url}/avm/verify`, "127.0.5.1", {
          method: "POST",
          body: "{}",
          headers: { "Content-Type": "application/json" },
        }),
      ]) {
        expect(answer.status).toBe(503);
        expect(Number(answer.headers.get("Retry-After"))).toBeGreaterThan(0);
        if (answer.body)
          expect(JSON.parse(answer.body)).toMatchObject({
            type: expect.stringMatching(/limits-unavailable$/),
            status: 503,
          });
      }
      expect(await refusal(`${server.url.replace(/^http/, "ws")}/philosophy/simulation`, "127.0.5.1")).toBe(503);
      // A further simulation on the open connection must be counted: it cannot be, so the connection ends (1013: try again later).
      const before = messages.length;
      ws.send(JSON.stringify({ action: "start_simulation", scenario: "Rotate the government API keys" }));
      expect(await closed).toBe(1013);
      expect(JSON.parse(messages[before]!)).toMatchObject({ type: "error", code: "limits-unavailable" });
      // What no limit guards is still answered.
      expect((await request(`${server.url}/health`, "127.0.5.1")).status).toBe(200);
    } finally {
      await server.close(100);
      await store.close();
    }
  });
});

describe("old days", () => {
  it("are deleted when an instance sees a new day; yesterday and today stay", async () => {
    const url = await freshDatabase("limits_days");
    const store = await openPostgresLimits(url, { instanceId: "days" });
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      await db.query(
        "INSERT INTO api_quota_counts (day, bucket, client, used) SELECT DATE '2026-01-01' + i % 4, 'b', 'ip:' || i, 1 FROM generate_series(1, 24000) AS i",
      );
      // 12,000 rows before yesterday: more than one batch.
      expect(await store.quotas.take("2026-01-04", "b", "ip:new", 100)).toEqual({ allowed: true, used: 1 });
      const days = async () =>
        (
          await db.query<{ day: string }>(
            "SELECT DISTINCT to_char(day, 'YYYY-MM-DD') AS day FROM api_quota_counts ORDER BY 1",
          )
        ).rows.map((r) => r.day);
      // Pruned in the background, in batches: ask until both old days are gone.
      while ((await days()).some((d) => d < "2026-01-03")) await new Promise((r) => setTimeout(r, 20));
      expect(await days()).toEqual(["2026-01-03", "2026-01-04"]);
      expect(Number((await db.query("SELECT count(*) AS n FROM api_quota_counts")).rows[0].n)).toBe(12_001);
      expect(await store.quotas.peek("2026-01-04", "b", "ip:new")).toBe(1);
    } finally {
      await db.end();
      await store.close();
    }
  });
});
