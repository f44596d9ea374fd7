/**
 * The ledger's PostgreSQL backend: the primitives of store/ledger/backend.ts over a `pg`
 * (node-postgres) pool, for N API instances sharing one database. Beside it in this folder: the
 * tables and their guards (schema.ts, create.ts), the statements it runs (statements.ts), which
 * errors are the store failing (LedgerUnavailableError) and which the backend's own refusals
 * (PostgresLedgerError) (failures.ts), a watched connection and the pool's type parsers
 * (connection.ts), the conditional append (append.ts). docs/postgresql.md explains the choices.
 *
 * Writes: one pooled connection, BEGIN, the write lock — the one row of ledger_write_lock, locked
 * FOR UPDATE, which only roles granted UPDATE on it can take (schema.ts) — tried
 * first, waited for only when another instance holds it (counted in lockWaits()), then the caller's
 * reads as separate statements — under READ COMMITTED each statement sees every commit made before
 * it began, so the tail read after the lock sees every other instance's last group — its inserts,
 * COMMIT. Or a group in one statement outside a transaction (its append strategy, append.ts), on a
 * connection kept while such statements follow one another. Reads outside a write are single statements on any
 * pooled connection.
 */
import pg from "pg";
import type {
  AppendStrategy,
  BackendReads,
  LockWaits,
  EntryRow,
  LedgerBackend,
  StoredCheckpoint,
  StoredRow,
  TailRow,
  WriteTransaction,
} from "../../ledger/backend.ts";
import { classifyFailure, isConnectionLost, PostgresLedgerError, sqlState } from "./failures.ts";
import { ConditionalAppends } from "./append.ts";
import { Session, TYPES } from "./connection.ts";
import { safeLocation } from "./location.ts";
import { createMissing, setupLockKey } from "./create.ts";
import { checkMeta, PG_FORMAT_VERSION, TRY_WRITE_LOCK_SQL, WRITE_LOCK_SQL, WRITE_LOCK_TABLE } from "./schema.ts";
import {
  APPEND_IF_TAIL_DDL,
  APPEND_IF_TAIL_FUNCTION,
  APPEND_IF_TAIL_SIGNATURE,
  bufferedWrites,
  primitives,
  TAIL_SQL,
  type Run,
} from "./statements.ts";

export interface PostgresBackendOptions {
  /** Connections in the pool (default 10). */
  poolSize?: number;
  /** How long a write waits for the write lock (or any lock) before it fails (default 5 s). */
  lockTimeoutMs?: number;
  /** How long a write transaction may sit idle before the server ends its session (default 30 s). */
  idleInTransactionTimeoutMs?: number;
  /** The longest a statement may run (default 30 s). */
  statementTimeoutMs?: number;
  /** How long to wait for a connection, new or from a full pool (default 10 s). */
  connectTimeoutMs?: number;
  /**
   * The schema holding this ledger's tables (created by open() when absent), set as the search_path
   * of every pooled connection; default the database's own search_path (`public`). The access
   * ledger lives in the platform's database this way (store/access-ledger.ts).
   */
  schema?: string;
}

export { TRY_WRITE_LOCK_SQL, WRITE_LOCK_SQL, WRITE_LOCK_TABLE } from "./schema.ts";

/** A schema name this code sets in search_path and creates: lower-case letters, digits, underscores. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

function checkedSchema(schema: string | undefined): string | undefined {
  if (schema !== undefined && !SCHEMA_NAME.test(schema))
    throw new PostgresLedgerError("bad-schema", `ledger schema "${schema}" is not a plain lower-case name`);
  return schema;
}

/** Whether the database at `url` holds a ledger (its entries table, in `schema` if given), without creating anything. */
export async function postgresLedgerExists(url: string, schema?: string): Promise<boolean> {
  const table = checkedSchema(schema) === undefined ? "ledger_entries" : `"${schema}".ledger_entries`;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
    const { rows } = await client.query<{ found: boolean }>("SELECT to_regclass($1) IS NOT NULL AS found", [table]);
    return rows[0]!.found;
  } catch (error) {
    throw classifyFailure(error, "read");
  } finally {
    await client.end().catch(() => {});
  }
}

export class PostgresBackend implements LedgerBackend {
  readonly kind = "postgresql" as const;
  readonly location: string;
  readonly #pool: pg.Pool;
  /** Connections the pool may hold: how many dead idle ones a statement may meet before a fresh one. */
  readonly #poolSize: number;
  readonly #reads: BackendReads;
  readonly #schema: string | undefined;
  #lastIdleError: Error | null = null;
  /** The conditional append in one statement (append.ts), while the function is usable. */
  readonly #appends: ConditionalAppends;
  readonly #lockWaits: LockWaits = { transactions: 0, waits: 0, waitedMs: 0 };

  constructor(url: string, options: PostgresBackendOptions = {}) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new PostgresLedgerError("not-postgres-url", "the ledger's database URL is not a URL");
    }
    if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") {
      throw new PostgresLedgerError(
        "not-postgres-url",
        `the ledger's database URL must be postgres://…, not ${parsed.protocol}//…`,
      );
    }
    this.#schema = checkedSchema(options.schema);
    this.location = safeLocation(parsed) + (this.#schema === undefined ? "" : ` (schema ${this.#schema})`);
    this.#poolSize = options.poolSize ?? 10;
    this.#pool = new pg.Pool({
      // READ COMMITTED named for the connection, whatever the database's or role's default: the
      // one-statement append reads the tail after taking the lock, in a snapshot of its own.
      options: `${this.#schema === undefined ? "" : `-c search_path=${this.#schema} `}-c default_transaction_isolation=read\\ committed`,
      connectionString: url,
      max: this.#poolSize,
      lock_timeout: options.lockTimeoutMs ?? 5_000,
      idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs ?? 30_000,
      statement_timeout: options.statementTimeoutMs ?? 30_000,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
      keepAlive: true,
      application_name: "integrity-ledger",
      types: TYPES,
    });
    // An idle connection the server dropped (restart, termination) must not crash the process:
    // the pool removes it, and the next call opens a new one.
    this.#pool.on("error", (error) => {
      this.#lastIdleError = error;
    });
    this.#reads = primitives((sql, params) => this.#readStatement(sql, params));
    this.#appends = new ConditionalAppends(this.#pool, this.#poolSize, {
      appended: () => this.#lockWaits.transactions++,
      refused: () => (this.#oneStatement = false),
    });
  }

  /** The last error of an idle pooled connection (the pool dropped that connection), for diagnosis. */
  get lastIdleError(): Error | null {
    return this.#lastIdleError;
  }

  /**
   * How often this backend's write transactions (open() included) found the write lock held by
   * another session and waited for it, and for how long in total: a copy of the counters.
   */
  lockWaits(): LockWaits {
    return { ...this.#lockWaits };
  }

  /**
   * One statement on any pooled connection. A connection lost before the statement ran (one the
   * server closed while it sat idle, not yet noticed) is dropped and the statement retried on
   * another: reads are safe to repeat. Each dead connection fails once, so at most the pool's size
   * of retries. Timeouts are not retried.
   */
  async #readStatement<R extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<R[]> {
    for (let attempt = 0; ; attempt++) {
      try {
        return (await this.#pool.query<R>(sql, params)).rows;
      } catch (error) {
        if (attempt < this.#poolSize && isConnectionLost(error)) continue;
        throw classifyFailure(error, "read");
      }
    }
  }

  /**
   * Whether a group may go in one statement (store/ledger/backend.ts `AppendStrategy.appendIfTail`):
   * once open() found or created its function; not where this role may not create it (then every
   * group takes the transaction: open the ledger once as the tables' owner to add it) nor once it
   * is refused its EXECUTE.
   */
  #oneStatement = false;
  readonly #conditional: AppendStrategy = {
    kind: "conditional",
    appendIfTail: (after, write) => this.#appends.append(after, write),
  };

  /** The conditional append in one statement while the function is usable, else a transaction per write. */
  appendStrategy(): AppendStrategy {
    return this.#oneStatement ? this.#conditional : TRANSACTIONS;
  }

  async open(origin: string): Promise<void> {
    const [encoding] = await this.#readStatement<{ server_encoding: string }>(
      "SELECT current_setting('server_encoding') AS server_encoding",
    );
    if (encoding?.server_encoding !== "UTF8") {
      throw new PostgresLedgerError(
        "not-utf8",
        `${this.location}: the database's encoding is ${encoding?.server_encoding}; the ledger needs UTF8`,
      );
    }
    if (!(await this.#complete())) await this.#create();
    // A ledger with nothing left to add opens with reads alone: a role that may only read (the
    // regeneration's) opens it too, and no opener waits for a writer's lock.
    const oneStatement =
      (await this.#openedByReading(origin)) ??
      (await this.#locked(async (run) => ({ result: await this.#openTables(run, origin), beforeCommit: "" })));
    this.#oneStatement = oneStatement;
  }

  /** Whether the schema, the tables and the lock table are all there: then open creates nothing and needs no privilege to. */
  async #complete(): Promise<boolean> {
    const [found] = await this.#readStatement<{ tables: boolean; lock: boolean }>(
      "SELECT to_regclass('ledger_meta') IS NOT NULL AS tables, to_regclass($1) IS NOT NULL AS lock",
      [WRITE_LOCK_TABLE],
    );
    return found!.tables && found!.lock;
  }

  /**
   * Creates what is missing — the schema, the tables and their guards, the lock table, the
   * one-statement function — in one transaction under the setup lock (two instances opening a new
   * database at once: the second waits, then finds them). What the schema's owner does once
   * (`npm run ledger -- setup`); a role without the privilege to is told to run it.
   */
  async #create(): Promise<void> {
    const session = await this.#connect();
    try {
      await session.query(`BEGIN; SELECT pg_advisory_xact_lock(${setupLockKey(this.#schema)})`, "setup");
      await createMissing(session.run, this.#schema, this.location, (run) => this.#appendFunction(run));
      await session.query("COMMIT", "setup");
    } catch (error) {
      if (session.lost === null) await session.client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      session.release();
    }
  }

  /** A pooled connection, watched. */
  async #connect(): Promise<Session> {
    try {
      return new Session(await this.#pool.connect());
    } catch (error) {
      throw classifyFailure(error, "connect");
    }
  }

  /** open's statements, under the write lock; whether the one-statement append's function is there. */
  /** Whether appends go in one statement, when the function and the meta are already there (checked as #openTables does); null when open must write. */
  async #openedByReading(origin: string): Promise<boolean | null> {
    const [fn] = await this.#readStatement<{ found: boolean }>("SELECT to_regprocedure($1) IS NOT NULL AS found", [
      APPEND_IF_TAIL_SIGNATURE,
    ]);
    const meta = new Map(
      (await this.#readStatement<{ key: string; value: string }>("SELECT key, value FROM ledger_meta")).map((r) => [
        r.key,
        r.value,
      ]),
    );
    if (!fn!.found || !meta.has("format_version")) return null;
    checkMeta(meta, origin, this.location);
    return true;
  }

  async #openTables(run: Run, origin: string): Promise<boolean> {
    const [fn] = await run<{ found: boolean }>("SELECT to_regprocedure($1) IS NOT NULL AS found", [
      APPEND_IF_TAIL_SIGNATURE,
    ]);
    // A database made before the function existed: its owner adds it; another role opens without it.
    const oneStatement = fn!.found || (await this.#appendFunction(run));
    const meta = new Map(
      (await run<{ key: string; value: string }>("SELECT key, value FROM ledger_meta")).map((r) => [r.key, r.value]),
    );
    if (!meta.has("format_version")) {
      await run("INSERT INTO ledger_meta (key, value) VALUES ('format_version', $1), ('origin', $2)", [
        PG_FORMAT_VERSION,
        origin,
      ]);
      return oneStatement;
    }
    checkMeta(meta, origin, this.location);
    return oneStatement;
  }

  /**
   * The one-statement append's function, created when absent — also in a database made before it
   * existed — unless this role may not create it (42501: an application role granted only SELECT
   * and INSERT, docs/postgresql.md): then the ledger opens all the same, without it.
   */
  async #appendFunction(run: Run): Promise<boolean> {
    const [fn] = await run<{ found: boolean }>(
      "SELECT EXISTS (SELECT 1 FROM pg_proc WHERE proname = $1 AND pronamespace = current_schema()::regnamespace) AS found",
      [APPEND_IF_TAIL_FUNCTION],
    );
    if (fn!.found) return true;
    await run("SAVEPOINT append_function");
    try {
      await run(APPEND_IF_TAIL_DDL);
    } catch (error) {
      if (sqlState(error) !== "42501") throw error;
      await run("ROLLBACK TO SAVEPOINT append_function");
      return false;
    }
    await run("RELEASE SAVEPOINT append_function");
    return true;
  }

  withWriteLock<T>(fn: (tx: WriteTransaction) => Promise<T>, meanwhile?: () => void): Promise<T> {
    return this.#locked(
      async (run, tail, waited) => {
        const tx = bufferedWrites(run, tail, waited);
        const result = await fn(tx);
        return { result, beforeCommit: await tx.finish() };
      },
      true,
      meanwhile,
    );
  }

  /**
   * One transaction holding the write lock on one pooled connection: BEGIN, the advisory lock,
   * `body`'s statements, COMMIT (preceded, in the same round trip, by the statements body returns
   * as `beforeCommit`); ROLLBACK and rethrow when anything fails. Errors of the statements are
   * classified (store/drivers/postgres/failures.ts); body's own errors pass unchanged.
   */
  async #locked<T>(
    body: (run: Run, tail: TailRow | null | undefined, waited: boolean) => Promise<{ result: T; beforeCommit: string }>,
    withTail = false,
    meanwhile?: () => void,
  ): Promise<T> {
    const session = await this.#beginLocked(withTail, meanwhile);
    try {
      const { result, beforeCommit } = await body(session.run, withTail ? session.tail : undefined, session.waited);
      // A connection lost during COMMIT leaves the outcome unknown: LedgerUnavailableError, and the
      // caller's next read of the tail (after the lock) says whether the group is there.
      const answers = await session.query(`${beforeCommit}COMMIT`, "commit").catch((error: unknown) => {
        // A statement failed inside body and body went on regardless: the checkpoint sent before
        // the COMMIT is refused in the aborted transaction (25P02), and the COMMIT never runs.
        throw sqlState(error) === "25P02" ? rolledBack() : error;
      });
      const commit = Array.isArray(answers) ? (answers.at(-1) as pg.QueryResult) : answers;
      // The same, with nothing before the COMMIT: PostgreSQL answers it with ROLLBACK.
      if (commit.command !== "COMMIT") throw rolledBack();
      return result;
    } catch (error) {
      // Also after a failed COMMIT round trip: a statement before the COMMIT may have failed, which
      // leaves the transaction open (aborted). Where it already ended, ROLLBACK only warns.
      if (session.lost === null) {
        try {
          await session.client.query("ROLLBACK");
        } catch (rollback) {
          session.lost ??= rollback;
        }
      }
      throw error;
    } finally {
      session.release();
    }
  }

  /**
   * A pooled connection with a transaction begun and the write lock held. READ COMMITTED is named,
   * not left to the server's default: the tail read after the lock must see what was committed
   * while it waited. The lock is tried (`pg_try_advisory_xact_lock`) in the same round trip as
   * BEGIN; only when another session holds it does a second statement wait for it
   * (`pg_advisory_xact_lock`, bounded by lock_timeout), so an uncontended write keeps its three round
   * trips and a contended one is counted (lockWaits). With `withTail`, the tail is read by the
   * statement after the one that got the lock, in the same round trip: its own snapshot, taken with
   * the lock held (a tail read beside a try that failed is discarded and read again after the
   * wait). `meanwhile` runs once that first round trip is on its way. A connection found dead at
   * BEGIN (closed by the server while idle, not yet noticed) is replaced, at most the pool's size of
   * times. When the wait fails (the lock timeout) the transaction is rolled back before the
   * connection goes back to the pool.
   */
  async #beginLocked(withTail: boolean, meanwhile?: () => void): Promise<Session> {
    const tail = withTail ? `; ${TAIL_SQL}` : "";
    for (let attempt = 0; ; attempt++) {
      let client: pg.PoolClient;
      try {
        client = await this.#pool.connect();
      } catch (error) {
        throw classifyFailure(error, "connect");
      }
      const session = new Session(client);
      try {
        const begun = session.query(`BEGIN ISOLATION LEVEL READ COMMITTED; ${TRY_WRITE_LOCK_SQL}${tail}`, "begin");
        // The statement is on its way: the caller's work that needs nothing of it runs now (once).
        if (attempt === 0 && meanwhile) {
          begun.catch(() => undefined);
          meanwhile();
        }
        let results = (await begun) as unknown as pg.QueryResult[];
        this.#lockWaits.transactions++;
        if (results[1]!.rows[0]?.locked !== true) {
          session.waited = true;
          results = [...results.slice(0, 1), ...(await this.#waitForLock(session, tail))];
        }
        // Read by its own statement after the lock's, so from a snapshot taken once the lock was held.
        if (withTail) session.tail = (results[2]!.rows[0] as TailRow | undefined) ?? null;
        return session;
      } catch (error) {
        if (session.lost === null)
          await session.client.query("ROLLBACK").catch((rollback: unknown) => (session.lost ??= rollback));
        session.release();
        if (attempt < this.#poolSize && session.lost !== null) continue;
        throw error;
      }
    }
  }

  /** The lock is held by another session: wait for it, counting the wait and its length. */
  async #waitForLock(session: Session, tail: string): Promise<pg.QueryResult[]> {
    this.#lockWaits.waits++;
    const started = performance.now();
    try {
      const results = await session.query(`${WRITE_LOCK_SQL}${tail}`, "lock");
      return Array.isArray(results) ? (results as pg.QueryResult[]) : [results];
    } finally {
      this.#lockWaits.waitedMs += performance.now() - started;
    }
  }

  last(): Promise<TailRow | null> {
    return this.#reads.last();
  }
  rows(start: number, end: number, limit: number): Promise<EntryRow[]> {
    return this.#reads.rows(start, end, limit);
  }
  storedRows(start: number, end: number, limit: number): Promise<StoredRow[]> {
    return this.#reads.storedRows(start, end, limit);
  }
  leaves(start: number, end: number): Promise<Uint8Array[]> {
    return this.#reads.leaves(start, end);
  }
  subtrees(keys: readonly { level: number; idx: number }[]): Promise<Map<string, Uint8Array>> {
    return this.#reads.subtrees(keys);
  }
  subtreeCount(fromLevel: number): Promise<number> {
    return this.#reads.subtreeCount(fromLevel);
  }
  latestCheckpoint(): Promise<string | null> {
    return this.#reads.latestCheckpoint();
  }
  checkpoints(): Promise<StoredCheckpoint[]> {
    return this.#reads.checkpoints();
  }
  checkpointAtMost(size: number): Promise<StoredCheckpoint | null> {
    return this.#reads.checkpointAtMost(size);
  }

  async close(): Promise<void> {
    this.#appends.close();
    await this.#pool.end();
  }
}

const TRANSACTIONS: AppendStrategy = { kind: "transaction" };

function rolledBack(): PostgresLedgerError {
  return new PostgresLedgerError("rolled-back", "the write transaction was rolled back: a statement in it had failed");
}
