/**
 * The schema owner's one command (`npm run ledger -- setup`): creates, or completes, everything the
 * platform keeps in one PostgreSQL database — the ledger (its tables, guards, write-lock table and
 * one-statement function), the access ledger (the same, in the schema `access`) and the request
 * limits' tables — and, given the role the API instances run as, grants that role what they use
 * and nothing more. Run as the role that is to own the tables (the database's owner, not the
 * application's role); running it again changes nothing that is already there.
 *
 * The application role gets (docs/postgresql.md, "Who runs what"):
 *   - CONNECT on the database, and CONNECT is revoked from PUBLIC (other roles cannot even connect);
 *   - USAGE on the schemas `public` and `access`;
 *   - SELECT and INSERT on the ledgers' tables (no UPDATE, DELETE or TRUNCATE: the log only grows);
 *   - SELECT and UPDATE on each ledger_write_lock: UPDATE is what locking its row FOR UPDATE needs
 *     (the write lock); its triggers refuse any real update;
 *   - EXECUTE on each ledger's one-statement append function;
 *   - SELECT, INSERT, UPDATE and DELETE on the limits' tables (counters and connection rows, pruned).
 * It owns nothing, so it can neither drop nor alter a table nor disable a trigger.
 */
import pg from "pg";
import { PG_TABLES, WRITE_LOCK_TABLE } from "./schema.ts";
import { APPEND_IF_TAIL_FUNCTION } from "./statements.ts";
import { PostgresBackend } from "./backend.ts";
import { createLimitsTables, LIMITS_TABLES } from "./limits.ts";
import { CodedError } from "../../../core/errors.ts";

export class SetupError extends CodedError<"bad-role" | "role-is-owner"> {}

/** A role name as the setup accepts it: what PostgreSQL takes unquoted, lower case. */
const ROLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export interface SetupOptions {
  /** The origins the two ledgers are opened with (their meta rows are written by the first open). */
  ledgerOrigin: string;
  accessOrigin: string;
  accessSchema: string;
  /** The role the API instances connect as; without it nothing is granted. */
  appRole?: string;
}

/** Creates what is missing and grants the application role; returns what it did, one line each. */
export async function setupPostgres(url: string, options: SetupOptions): Promise<string[]> {
  const done: string[] = [];
  if (options.appRole !== undefined && !ROLE_NAME.test(options.appRole)) {
    throw new SetupError(
      "bad-role",
      `--app-role must be a plain lower-case role name ([a-z_][a-z0-9_]*), got ${JSON.stringify(options.appRole)}`,
    );
  }
  for (const [schema, origin] of [
    [undefined, options.ledgerOrigin],
    [options.accessSchema, options.accessOrigin],
  ] as const) {
    const backend = new PostgresBackend(url, { poolSize: 1, ...(schema !== undefined ? { schema } : {}) });
    try {
      await backend.open(origin);
    } finally {
      await backend.close();
    }
    done.push(
      `ledger ${origin}: tables, guards, write lock and ${APPEND_IF_TAIL_FUNCTION} in schema ${schema ?? "public"}`,
    );
  }
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    await client.query("BEGIN");
    await createLimitsTables((sql, values) => client.query(sql, values));
    await client.query("COMMIT");
    done.push(`limits: ${LIMITS_TABLES.join(", ")} in schema public`);
    if (options.appRole === undefined) return done;
    const role = client.escapeIdentifier(options.appRole);
    const { rows } = await client.query<{ me: string; db: string; exists: boolean }>(
      "SELECT current_user AS me, current_database() AS db, EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1) AS exists",
      [options.appRole],
    );
    const { me, db, exists } = rows[0]!;
    if (me === options.appRole)
      throw new SetupError(
        "role-is-owner",
        `--app-role ${options.appRole} is the role running the setup, which owns the tables: the instances must run as another role`,
      );
    if (!exists)
      throw new SetupError(
        "bad-role",
        `no role ${options.appRole} in this cluster: CREATE ROLE ${options.appRole} LOGIN PASSWORD '…' first`,
      );
    const ledgerTables = (schema: string) => PG_TABLES.map((t) => `${schema}.${t}`).join(", ");
    const database = client.escapeIdentifier(db);
    const grants = [
      `REVOKE CONNECT ON DATABASE ${database} FROM PUBLIC`,
      `GRANT CONNECT ON DATABASE ${database} TO ${role}`,
      ...["public", options.accessSchema].flatMap((schema) => [
        `GRANT USAGE ON SCHEMA ${schema} TO ${role}`,
        `GRANT SELECT, INSERT ON ${ledgerTables(schema)} TO ${role}`,
        `GRANT SELECT, UPDATE ON ${schema}.${WRITE_LOCK_TABLE} TO ${role}`,
        `GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA ${schema} TO ${role}`,
      ]),
      `GRANT SELECT, INSERT, UPDATE, DELETE ON ${LIMITS_TABLES.map((t) => `public.${t}`).join(", ")} TO ${role}`,
    ];
    await client.query("BEGIN");
    for (const grant of grants) await client.query(grant);
    await client.query("COMMIT");
    done.push(
      `role ${options.appRole}: CONNECT (revoked from PUBLIC); SELECT, INSERT on the ledgers' tables; SELECT, UPDATE on the write-lock tables; EXECUTE on the append functions; SELECT, INSERT, UPDATE, DELETE on the limits' tables`,
    );
    return done;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    await client.end().catch(() => undefined);
  }
}
