/**
 * The request limits in PostgreSQL (store/limits.ts), shared by every API instance on one database
 * (`DATABASE_URL=postgres://…`), exact under concurrency:
 *
 * - a daily quota is one conditional upsert per request on (day, bucket, client): the row's count
 *   rises only while it is under the quota, and no row returned means spent. Rows of days before
 *   yesterday are deleted in bounded batches when an instance sees a new day (not the ledger: these
 *   tables may be pruned).
 * - open connections are rows (instance, connection, client, opened, heartbeat), inserted only while
 *   the client's live rows are under the cap, under `LOCK TABLE api_open_connections IN SHARE ROW
 *   EXCLUSIVE MODE` (opens take turns; a lock only a role granted UPDATE or DELETE on the table may
 *   take — never an advisory lock, which any role that may connect could hold to stall them). Each instance
 *   refreshes its rows' heartbeat every ttl/3 and deletes again the rows it let go of whose delete
 *   failed (named one by one: never "every row but the ones held", which would take a row committed
 *   after the heartbeat looked at what is held); rows whose heartbeat is older than the ttl (an
 *   instance that died) are not counted, and an instance starting under the same id deletes the
 *   rows of its previous run.
 *
 * Any failure of the database rejects with LimitsUnavailableError: the API then refuses (fail closed).
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import {
  LimitsUnavailableError,
  type ConnectionCap,
  type LimitsHealth,
  type LimitsStore,
  type QuotaCounter,
} from "../../limits.ts";

export const LIMITS_TABLES = ["api_quota_counts", "api_open_connections"] as const;

export const LIMITS_SCHEMA = `
CREATE TABLE IF NOT EXISTS api_quota_counts (
  day date NOT NULL,
  bucket text NOT NULL,
  client text NOT NULL,
  used integer NOT NULL,
  PRIMARY KEY (day, bucket, client)
);
CREATE TABLE IF NOT EXISTS api_open_connections (
  instance text NOT NULL,
  connection text NOT NULL,
  client text NOT NULL,
  opened_at timestamptz NOT NULL DEFAULT now(),
  heartbeat_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (instance, connection)
);
CREATE INDEX IF NOT EXISTS api_open_connections_client ON api_open_connections (client, heartbeat_at);
`;

/**
 * Serialises the CREATION of the tables across instances starting at once on a new database
 * (CREATE … IF NOT EXISTS races otherwise): taken only while a table is missing, never once the
 * setup (`npm run ledger -- setup`) made them.
 */
const SCHEMA_LOCK = 0x6c696d69; // "limi"

/** Creates the limits' tables when missing, under the creation lock, on a connection in a transaction of the caller's. */
export async function createLimitsTables(query: (sql: string, values?: unknown[]) => Promise<unknown>): Promise<void> {
  await query("SELECT pg_advisory_xact_lock($1)", [SCHEMA_LOCK]);
  await query(LIMITS_SCHEMA);
}

const TAKE = `
INSERT INTO api_quota_counts (day, bucket, client, used) VALUES ($1, $2, $3, 1)
ON CONFLICT (day, bucket, client) DO UPDATE SET used = api_quota_counts.used + 1
WHERE api_quota_counts.used < $4
RETURNING used`;

const OPEN = `
INSERT INTO api_open_connections (instance, connection, client)
SELECT $1, $2, $3
WHERE (SELECT count(*) FROM api_open_connections WHERE client = $3 AND heartbeat_at > now() - make_interval(secs => $4)) < $5
RETURNING connection`;

/** Rows deleted per statement when pruning old days, and statements per pruning. */
const PRUNE_BATCH = 5_000;
const PRUNE_ROUNDS = 100;

export interface PostgresLimitsOptions {
  /** Names this instance's connection rows; unique among live instances, the same across a restart. */
  instanceId: string;
  /** Seconds after which a connection row whose instance stopped refreshing it is not counted (default 30). */
  connectionTtlSeconds?: number;
  /** Pool size (default 10). */
  maxClients?: number;
  /** How long a query may take before the store counts as failed, in ms (default 5000). */
  timeoutMs?: number;
  /** How long /health's probe waits for an answer before it reports the store failing, in ms (default 1000: under a balancer's check timeout). */
  probeTimeoutMs?: number;
  /**
   * Runs the heartbeat `beat` every `everyMs` (ttl/3) and returns what stops it; default an unref'd
   * setInterval. Tests pass their own to run a beat at a moment they choose and await it.
   */
  schedule?: (beat: () => Promise<void>, everyMs: number) => () => void;
}

/** Connects, creates the tables if absent, and deletes the rows of this instance's previous run. */
export async function openPostgresLimits(url: string, options: PostgresLimitsOptions): Promise<LimitsStore> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const pool = new pg.Pool({
    connectionString: url,
    max: options.maxClients ?? 10,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
    statement_timeout: timeoutMs,
    lock_timeout: Math.ceil(timeoutMs / 2),
    application_name: "integrity-api-limits",
  });
  // An idle client that loses its server is dropped by the pool; the next query reconnects.
  pool.on("error", () => {});
  const limits = new PostgresLimits(
    pool,
    options.instanceId,
    options.connectionTtlSeconds ?? 30,
    options.probeTimeoutMs ?? 1_000,
    options.schedule ?? everyInterval,
  );
  try {
    await limits.start();
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }
  return limits;
}

class PostgresLimits implements LimitsStore, QuotaCounter, ConnectionCap {
  readonly kind = "postgresql";
  readonly quotas = this;
  readonly connections = this;
  readonly #pool: pg.Pool;
  readonly #instance: string;
  readonly #ttlSeconds: number;
  readonly #probeTimeoutMs: number;
  /** The connections this instance holds: what the heartbeat keeps alive. */
  readonly #held = new Set<string>();
  /**
   * Rows this instance may have in the table without holding them: released connections whose
   * delete failed, and opens that failed once their insert was sent. The heartbeat deletes them.
   */
  readonly #orphans = new Set<string>();
  readonly #schedule: (beat: () => Promise<void>, everyMs: number) => () => void;
  #stopHeartbeat: (() => void) | undefined;
  #prunedBefore = "";

  constructor(
    pool: pg.Pool,
    instance: string,
    ttlSeconds: number,
    probeTimeoutMs: number,
    schedule: (beat: () => Promise<void>, everyMs: number) => () => void,
  ) {
    this.#pool = pool;
    this.#instance = instance;
    this.#ttlSeconds = ttlSeconds;
    this.#probeTimeoutMs = probeTimeoutMs;
    this.#schedule = schedule;
  }

  async start(): Promise<void> {
    const client = await this.#connect();
    try {
      await client.query("BEGIN");
      const { rows } = await client.query<{ missing: boolean }>(
        "SELECT to_regclass('api_quota_counts') IS NULL OR to_regclass('api_open_connections') IS NULL AS missing",
      );
      // Set up already (the usual case, and the only one for a role without CREATE): nothing to create, no lock.
      if (rows[0]!.missing) await createLimitsTables((sql, values) => client.query(sql, values));
      await client.query("DELETE FROM api_open_connections WHERE instance = $1", [this.#instance]);
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw unavailable(error);
    } finally {
      client.release();
    }
    this.#stopHeartbeat = this.#schedule(() => this.#refresh(), Math.max(1, Math.floor((this.#ttlSeconds * 1000) / 3)));
  }

  async take(day: string, bucket: string, client: string, quota: number): Promise<{ allowed: boolean; used: number }> {
    this.#pruneBefore(day);
    const { rows } = await this.#query<{ used: number }>(TAKE, [day, bucket, client, quota]);
    return rows.length === 0 ? { allowed: false, used: quota } : { allowed: true, used: rows[0]!.used };
  }

  async peek(day: string, bucket: string, client: string): Promise<number> {
    const { rows } = await this.#query<{ used: number }>(
      "SELECT used FROM api_quota_counts WHERE day = $1 AND bucket = $2 AND client = $3",
      [day, bucket, client],
    );
    return rows[0]?.used ?? 0;
  }

  async open(client: string, max: number): Promise<(() => void) | null> {
    const id = randomUUID();
    const connection = await this.#connect();
    let sent = false;
    try {
      await connection.query("BEGIN");
      // The count is read after the lock, in a statement of its own: it sees every insert committed before.
      await connection.query("LOCK TABLE api_open_connections IN SHARE ROW EXCLUSIVE MODE");
      sent = true;
      const { rows } = await connection.query(OPEN, [this.#instance, id, client, this.#ttlSeconds, max]);
      await connection.query("COMMIT");
      if (rows.length === 0) return null;
    } catch (error) {
      await connection.query("ROLLBACK").catch(() => {});
      // The COMMIT may have been applied though its answer was lost: the heartbeat deletes the row if it is there.
      if (sent) this.#orphans.add(id);
      throw unavailable(error);
    } finally {
      connection.release();
    }
    this.#held.add(id);
    return () => {
      if (!this.#held.delete(id)) return;
      // A failed delete is repaired by the next heartbeat.
      void this.#query("DELETE FROM api_open_connections WHERE instance = $1 AND connection = $2", [
        this.#instance,
        id,
      ]).catch(() => this.#orphans.add(id));
    };
  }

  /**
   * One read of the quota table (never a write), answered within probeTimeoutMs: a slower database
   * counts as failing here, while the query itself stays bounded by the pool's own timeouts.
   */
  async health(): Promise<LimitsHealth> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<LimitsHealth>((resolve) => {
      timer = setTimeout(
        () => resolve({ ok: false, reason: `the limits store did not answer within ${this.#probeTimeoutMs} ms` }),
        this.#probeTimeoutMs,
      );
    });
    const probe = this.#query("SELECT 1 FROM api_quota_counts LIMIT 1", []).then(
      (): LimitsHealth => ({ ok: true }),
      (error: unknown): LimitsHealth => ({ ok: false, reason: (error as Error).message }),
    );
    try {
      return await Promise.race([probe, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    this.#stopHeartbeat?.();
    const rows = this.#held.size + this.#orphans.size;
    this.#held.clear();
    this.#orphans.clear();
    if (rows > 0)
      await this.#query("DELETE FROM api_open_connections WHERE instance = $1", [this.#instance]).catch(() => {});
    await this.#pool.end();
  }

  /**
   * Keeps this instance's held rows alive and deletes its orphans by id. Only by id: a row inserted
   * while this runs is not in the `held` read here (open() adds it once committed), and "delete
   * what is not held" would take it while its connection stays open, uncounted.
   */
  async #refresh(): Promise<void> {
    const orphans = [...this.#orphans];
    if (orphans.length > 0) {
      await this.#query("DELETE FROM api_open_connections WHERE instance = $1 AND connection = ANY($2::text[])", [
        this.#instance,
        orphans,
      ]);
      for (const id of orphans) this.#orphans.delete(id);
    }
    const held = [...this.#held];
    if (held.length > 0)
      await this.#query(
        "UPDATE api_open_connections SET heartbeat_at = now() WHERE instance = $1 AND connection = ANY($2::text[])",
        [this.#instance, held],
      );
    await this.#query("DELETE FROM api_open_connections WHERE heartbeat_at < now() - make_interval(secs => $1)", [
      this.#ttlSeconds * 10,
    ]);
  }

  /** The first request of a day on this instance prunes the days before yesterday, in the background. */
  #pruneBefore(day: string): void {
    if (day === this.#prunedBefore) return;
    this.#prunedBefore = day;
    void (async () => {
      for (let round = 0; round < PRUNE_ROUNDS; round++) {
        const { rowCount } = await this.#query(
          "DELETE FROM api_quota_counts WHERE ctid IN (SELECT ctid FROM api_quota_counts WHERE day < $1::date - 1 LIMIT $2)",
          [day, PRUNE_BATCH],
        );
        if ((rowCount ?? 0) < PRUNE_BATCH) return;
      }
    })().catch(() => {
      this.#prunedBefore = ""; // tried again on the next request
    });
  }

  async #connect(): Promise<pg.PoolClient> {
    try {
      return await this.#pool.connect();
    } catch (error) {
      throw unavailable(error);
    }
  }

  async #query<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    try {
      return await this.#pool.query<R>(text, values);
    } catch (error) {
      throw unavailable(error);
    }
  }
}

/** The default heartbeat: an interval that does not keep the process alive. */
function everyInterval(beat: () => Promise<void>, everyMs: number): () => void {
  const timer = setInterval(() => void beat().catch(() => {}), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

function unavailable(error: unknown): LimitsUnavailableError {
  if (error instanceof LimitsUnavailableError) return error;
  return new LimitsUnavailableError(`the limits store failed: ${(error as Error)?.message ?? String(error)}`, {
    cause: error,
  });
}
