/**
 * The database below the API, attacked: one PostgreSQL database made ready by its owner
 * (`npm run ledger -- setup --app-role …`), an API instance (`api/start.ts --serve-only`) running
 * as the least-privilege application role, and two hostile roles. Each part is a regression test:
 *
 * - the application role starts the API and every store works as it (ledger, access ledger,
 *   limits), and may not truncate, delete or switch a guard off;
 * - a role that may only connect cannot stall writes: the advisory locks it can take are no lock of
 *   the ledgers' or the limits', and the row lock and table locks that are refuse it; a role not
 *   granted CONNECT cannot even connect;
 * - forged checkpoint rows (a size beyond the ledger, a note at the next size signed by another
 *   key) are refused — never served, no 500 — and reported on /health and in the log;
 * - a row that chains but does not verify is never folded or signed over: writes answer 503
 *   problem+json, /health says which row and why, and so does the log.
 *
 * The parts run in this order on the one database (the last one leaves the ledger refusing writes).
 */
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import { cpSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signCheckpoint } from "../core/checkpoint.ts";
import { sha256Hex } from "../core/digest.ts";
import { ApiKeyStore } from "../api/clients/api-keys.ts";
import { openPostgresLimits } from "../store/drivers/postgres/limits.ts";
import { TEST_TOKEN_SECRET } from "./support/api/avm.ts";
import { tempDir } from "./support/api/helpers.ts";
import { postJson, request, startApiCluster, type ApiCluster } from "./support/cluster.ts";
import { freshDatabase } from "./support/postgres.ts";

const REPO = join(import.meta.dirname, "..");
const PROBLEM = "https://integrity-platform.example/problems/";
const suffix = `${process.pid}_${Date.now().toString(36)}`;
const ROLES = {
  owner: `ip_owner_${suffix}`,
  app: `ip_app_${suffix}`,
  intruder: `ip_intruder_${suffix}`,
  stranger: `ip_stranger_${suffix}`,
};

/** The advisory-lock keys writes used to wait on: what a role with CONNECT alone could take. */
const oldKey = (name: string) => createHash("sha256").update(name).digest().readBigInt64BE(0).toString();
const OLD_ADVISORY = [oldKey("ledger_entries"), oldKey("access.ledger_entries"), String(0x6c696d69)];

let adminUrl: string;
let admin: pg.Client;
let data: { dir: string; cleanup: () => void };
let cluster: ApiCluster;
let token: string;
const as = (role: string) => {
  const url = new URL(adminUrl);
  url.username = role;
  return url.href;
};
async function connect(role: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: as(role) });
  await client.connect();
  return client;
}
async function sqlState(run: Promise<unknown>): Promise<string | null> {
  try {
    await run;
    return null;
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}
const instance = () => cluster.instances[0]!.url;
const problemType = (text: string) => (JSON.parse(text) as { type: string }).type;
type Health = {
  status: string;
  ledger: {
    status: string;
    size: number | null;
    checkpoint_size: number | null;
    refused_row?: { seq: number; problem: string };
    refused_checkpoint?: { size: number; problem: string };
  };
  access_ledger: { status: string; store: string };
  limits: { status: string; store: string };
};
const health = async () => JSON.parse((await request(`${instance()}/health`)).text) as Health;
/** A malformed verify: answered 400, and the attempt is written to the ledger first (Ledger-Seq). */
const attempt = () => postJson(`${instance()}/avm/verify`, { not: "a verify request" });

beforeAll(async () => {
  adminUrl = await freshDatabase("roles");
  admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  for (const role of Object.values(ROLES)) await admin.query(`CREATE ROLE ${role} LOGIN`);
  const db = new URL(adminUrl).pathname.slice(1);
  await admin.query(`ALTER DATABASE ${db} OWNER TO ${ROLES.owner}`);
  await admin.query(`ALTER SCHEMA public OWNER TO ${ROLES.owner}`);
  // The owner's one command.
  const setup = spawnSync(process.execPath, [join(REPO, "cli", "ledger-cli.ts"), "setup", "--app-role", ROLES.app], {
    cwd: REPO,
    encoding: "utf8",
    env: { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: as(ROLES.owner) },
  });
  expect(setup.status, setup.stderr).toBe(0);
  expect(setup.stdout).toContain(`role ${ROLES.app}:`);
  // A role that may connect and nothing else (the setup revoked CONNECT from PUBLIC: granted here on purpose).
  await admin.query(`GRANT CONNECT ON DATABASE ${db} TO ${ROLES.intruder}`);

  data = tempDir("roles-data-");
  cpSync(join(REPO, "data", "areas", "government"), join(data.dir, "areas", "government"), { recursive: true });
  cpSync(join(REPO, "data", "keys"), join(data.dir, "keys"), { recursive: true });
  const keys = new ApiKeyStore(as(ROLES.owner));
  token = (await keys.issue("government", "ministry", new Date())).token;
  await keys.close();
  cluster = await startApiCluster({
    instances: 1,
    store: () => ({
      DATABASE_URL: as(ROLES.app),
      DATABASE_LOCK_TIMEOUT_MS: "1000",
      DATA_DIR: data.dir,
      LEDGER_SIGNING_KEY: sha256Hex("roles test ledger key"),
      TOKEN_SIGNING_KEY: TEST_TOKEN_SECRET,
    }),
  });
}, 90_000);

afterAll(async () => {
  await cluster?.stop();
  data?.cleanup();
  await admin?.end();
});

describe("the least-privilege application role", () => {
  it("runs the API: the ledger, the access ledger and the limits all work as it", async () => {
    const h = await health();
    expect([h.ledger.status, h.access_ledger.status, h.access_ledger.store, h.limits.status, h.limits.store]).toEqual([
      "ok",
      "ok",
      "postgresql",
      "ok",
      "postgresql",
    ]);
    const logged = await attempt();
    expect(logged.status, logged.text).toBe(400);
    expect(logged.headers.get("ledger-seq")).toMatch(/^\d+$/);
    const file = await request(`${instance()}/government/compliance-report.json`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(file.status, file.text).toBe(200);
    const asked = await postJson(`${instance()}/keys/requests`, {
      tier: "government",
      affiliation: "Ministry of Finance",
      contact: "ops@ministry.example.gov",
      purpose: "audits",
    });
    expect(asked.status, asked.text).toBe(201);
    const { rows } = await admin.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM access.ledger_entries WHERE type IN ('access', 'keyrequest.received')",
    );
    expect(rows[0]!.n).toBe(2);
    expect(cluster.output(0)).toContain("stores: ledger, access ledger and limits in PostgreSQL");
  });

  it("may not truncate, delete, update, or switch a guard off; owns nothing", async () => {
    const app = await connect(ROLES.app);
    try {
      expect(await sqlState(app.query("TRUNCATE ledger_entries"))).toBe("42501");
      expect(await sqlState(app.query("DELETE FROM ledger_checkpoints"))).toBe("42501");
      expect(await sqlState(app.query("UPDATE ledger_entries SET payload = '{}'"))).toBe("42501");
      expect(await sqlState(app.query("ALTER TABLE ledger_entries DISABLE TRIGGER USER"))).toBe("42501");
      expect(await sqlState(app.query("TRUNCATE access.ledger_entries"))).toBe("42501");
      expect(await sqlState(app.query("CREATE TABLE sneaky (x int)"))).toBe("42501");
      const { rows } = await app.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_tables WHERE tableowner = current_user",
      );
      expect(rows[0]!.n).toBe(0);
    } finally {
      await app.end();
    }
  });
});

describe("a role that may only connect", () => {
  it("cannot take the write locks, and holding every advisory lock it can stalls nothing", async () => {
    const intruder = await connect(ROLES.intruder);
    try {
      for (const key of OLD_ADVISORY) await intruder.query(`SELECT pg_advisory_lock(${key})`);
      for (const id of ["'client'", "'key:government-1'"])
        await intruder.query(`SELECT pg_advisory_lock(${0x636f6e6e}, hashtext(${id}))`);
      expect(await sqlState(intruder.query("SELECT 1 FROM ledger_write_lock FOR UPDATE"))).toBe("42501");
      expect(await sqlState(intruder.query("SELECT 1 FROM access.ledger_write_lock FOR UPDATE"))).toBe("42501");
      for (const table of ["ledger_entries", "ledger_write_lock", "api_open_connections", "api_quota_counts"]) {
        await intruder.query("BEGIN");
        expect(await sqlState(intruder.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`)), table).toBe("42501");
        await intruder.query("ROLLBACK");
      }
      // Writes of every store go through while it holds them (the instances' lock timeout is 1 s).
      const logged = await attempt();
      expect(logged.status, logged.text).toBe(400);
      expect(logged.headers.get("ledger-seq")).toMatch(/^\d+$/);
      const file = await request(`${instance()}/government/policy-impact.json`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      expect(file.status, file.text).toBe(200);
      const limits = await openPostgresLimits(as(ROLES.app), { instanceId: "roles-test", timeoutMs: 2_000 });
      try {
        const release = await limits.connections.open("client", 2);
        expect(release).not.toBeNull();
        release!();
      } finally {
        await limits.close();
      }
    } finally {
      await intruder.end();
    }
  });

  it("a role the setup did not grant CONNECT cannot connect at all", async () => {
    expect(await sqlState(connect(ROLES.stranger))).toBe("42501");
  });
});

describe("forged checkpoint rows", () => {
  it("are refused, never served: proofs stay 200 against the genuine checkpoint, /health and the log name them", async () => {
    const logged = await attempt();
    const seq = Number(logged.headers.get("ledger-seq"));
    const app = await connect(ROLES.app);
    try {
      const { rows } = await app.query<{ size: string }>("SELECT max(size)::text AS size FROM ledger_checkpoints");
      const genuine = Number(rows[0]!.size);
      expect(genuine).toBe(seq + 1);
      // A row beyond the ledger, and a note at the next size, signed by a key that is not the ledger's.
      await app.query(
        "INSERT INTO ledger_checkpoints (size, note, created_at) VALUES (1000000000, $1, '2026-01-01T00:00:00.000Z')",
        ["integrity-platform.example/ledger\n1000000000\nAAAA\n\n— forged\n"],
      );
      const other = signCheckpoint(
        { origin: "integrity-platform.example/ledger", size: genuine + 1, rootHash: new Uint8Array(32) },
        { name: "integrity-platform.example/ledger", secretKeyHex: sha256Hex("not the ledger key") },
      );
      await app.query(
        "INSERT INTO ledger_checkpoints (size, note, created_at) VALUES ($1, $2, '2026-01-01T00:00:00.000Z')",
        [genuine + 1, other],
      );
    } finally {
      await app.end();
    }
    // The next write would have signed size genuine + 1: the forged note holds that size, and is refused.
    expect((await attempt()).status).toBe(400);
    for (const at of [seq, seq + 1]) {
      const proof = await request(`${instance()}/ledger/entries/${at}/inclusion`);
      expect([200, 202], proof.text).toContain(proof.status);
      if (proof.status === 200)
        expect((JSON.parse(proof.text) as { checkpoint: string }).checkpoint).not.toContain("forged");
    }
    const proved = await request(`${instance()}/ledger/entries/${seq}/inclusion`);
    expect(proved.status).toBe(200);
    expect((JSON.parse(proved.text) as { tree_size: number }).tree_size).toBe(seq + 1);
    const h = await health();
    expect(h.ledger.checkpoint_size).toBe(seq + 1);
    expect(h.ledger.refused_checkpoint?.size).toBeGreaterThan(seq);
    expect(h.status).toBe("degraded");
    expect(cluster.output(0)).toMatch(
      /stored checkpoint of size 1000000000 refused, not served or used: its size 1000000000 is beyond/,
    );
    expect(cluster.output(0)).toMatch(
      new RegExp(`stored checkpoint of size ${seq + 2} refused, not served or used: its note does not verify`),
    );
  });
});

describe("a row that chains but does not verify", () => {
  it("is never folded or signed over: writes answer 503 problem+json, /health and the log name the row", async () => {
    const app = await connect(ROLES.app);
    let bad: number;
    try {
      const { rows } = await app.query<{ seq: string; hash: string }>(
        "SELECT seq::text, hash FROM ledger_entries ORDER BY seq DESC LIMIT 1",
      );
      bad = Number(rows[0]!.seq) + 1;
      await app.query(
        "INSERT INTO ledger_entries (seq, type, payload, ts, prev, hash, leaf) VALUES ($1, 'avm.attempt', '{not json', '2026-01-01T00:00:00.000Z', $2, $3, $4)",
        [bad, rows[0]!.hash, `sha256:${"ab".repeat(32)}`, Buffer.alloc(32, 7)],
      );
    } finally {
      await app.end();
    }
    const refused = await attempt();
    expect(refused.status, refused.text).toBe(503);
    expect(refused.headers.get("content-type")).toBe("application/problem+json");
    expect(refused.headers.get("retry-after")).toBe("2");
    expect(problemType(refused.text)).toBe(`${PROBLEM}ledger-unavailable`);
    const sessions = await request(`${instance()}/v1/consensus/sessions`);
    expect(sessions.status, sessions.text).toBe(503);
    expect(problemType(sessions.text)).toBe(`${PROBLEM}ledger-unavailable`);
    // Nothing signed over it (a checkpoint of a size past it), nothing appended after it.
    const { rows } = await admin.query<{ n: number; tail: string }>(
      "SELECT (SELECT count(*)::int FROM ledger_checkpoints WHERE size > $1 AND size < 1000000000) AS n, (SELECT max(seq)::text FROM ledger_entries) AS tail",
      [bad],
    );
    expect([rows[0]!.n, Number(rows[0]!.tail)]).toEqual([0, bad]);
    const h = await health();
    expect(h.ledger.status).toBe("failing");
    expect(h.ledger.refused_row).toMatchObject({ seq: bad, problem: "its payload is not JSON" });
    expect(h.status).toBe("degraded");
    expect(cluster.output(0)).toContain(
      `entry ${bad}, written to the store by another writer, does not verify: its payload is not JSON`,
    );
  });
});
