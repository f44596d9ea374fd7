/**
 * Creating a PostgreSQL ledger's tables when they are missing (store/drivers/postgres/backend.ts `open`):
 * what the schema's owner does once (`npm run ledger -- setup`, store/drivers/postgres/setup.ts), or any
 * role allowed to on first use. Never needed, and never tried, once everything is there.
 */
import { createHash } from "node:crypto";
import { PostgresLedgerError, sqlState } from "./failures.ts";
import { PG_SCHEMA, PG_WRITE_LOCK_SCHEMA, WRITE_LOCK_TABLE } from "./schema.ts";
import type { Run } from "./statements.ts";

/**
 * The key of the advisory lock that serialises only the CREATION of a ledger's tables (two
 * instances opening a new database at once): the first 8 bytes of SHA-256 of
 * `<schema>.ledger_setup`, as a signed 64-bit integer. Taken only while something of the schema is
 * missing — never once the setup made it — so a role that takes it can at most delay a first open;
 * writes take the row lock (store/drivers/postgres/schema.ts WRITE_LOCK_SQL), which needs a privilege.
 */
export function setupLockKey(schema?: string): string {
  return createHash("sha256")
    .update(`${schema ?? "public"}.ledger_setup`)
    .digest()
    .readBigInt64BE(0)
    .toString();
}

/**
 * Creates, in the transaction `run` belongs to (which holds the setup lock), the schema, the tables
 * with their guards and the lock table, where missing; `appendFunction` adds the one-statement
 * function. Read from the catalogs' tables (a snapshot taken after the lock), not their caches:
 * another instance may have created them while this one waited. A role that may not create them
 * is told to run the setup (`not-set-up`).
 */
export async function createMissing(
  run: Run,
  schema: string | undefined,
  location: string,
  appendFunction: (run: Run) => Promise<boolean>,
): Promise<void> {
  try {
    if (schema !== undefined) {
      const [found] = await run<{ found: boolean }>(
        "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1) AS found",
        [schema],
      );
      if (!found!.found) await run(`CREATE SCHEMA "${schema}"`);
    }
    const [exists] = await run<{ tables: boolean; lock: boolean }>(
      "SELECT EXISTS (SELECT 1 FROM pg_tables WHERE schemaname = current_schema() AND tablename = 'ledger_meta') AS tables, EXISTS (SELECT 1 FROM pg_tables WHERE schemaname = current_schema() AND tablename = $1) AS lock",
      [WRITE_LOCK_TABLE],
    );
    if (!exists!.tables) await run(PG_SCHEMA);
    if (!exists!.lock) await run(PG_WRITE_LOCK_SCHEMA);
    await appendFunction(run);
  } catch (error) {
    if (sqlState(error) !== "42501") throw error;
    throw new PostgresLedgerError(
      "not-set-up",
      `${location}: the ledger's tables are missing or incomplete and this role may not create them; run \`npm run ledger -- setup --app-role <role>\` as the schema's owner (docs/postgresql.md)`,
    );
  }
}
