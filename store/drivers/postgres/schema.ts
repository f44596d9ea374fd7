/**
 * The PostgreSQL ledger's tables, created in the connection's schema (the first of its search_path)
 * by PostgresBackend.open in one transaction under the write lock. The schema guards the log itself:
 *
 * - `ledger_entries`: `seq` is the primary key and never negative; `prev_seq` (stored, generated as
 *   seq - 1) with `prev` references the previous entry's `(seq, hash)`, so an entry whose `prev` is
 *   not the previous entry's hash, or one after a gap, is refused (23503); only seq 0 has no `prev`
 *   (23514). The foreign key is checked at the end of each statement, so one INSERT may carry a run
 *   of entries that chain to each other.
 * - Every table refuses UPDATE and DELETE (row triggers) and TRUNCATE (statement triggers), raising
 *   P0001: no row, once written, changes — and `INSERT … ON CONFLICT DO UPDATE` fires the UPDATE
 *   trigger, so no upsert rewrites one either.
 */
import { PostgresLedgerError } from "./failures.ts";

/** The stored format; a database written in another is refused by open(). */
export const PG_FORMAT_VERSION = "1";

export const PG_TABLES = ["ledger_meta", "ledger_entries", "ledger_subtrees", "ledger_checkpoints"] as const;

/**
 * The write lock: the one row of this table, locked `FOR UPDATE` by every write transaction and by
 * the one-statement append. A row lock needs the UPDATE privilege on the table, which only the
 * roles the setup grants it to have (docs/postgresql.md): a role that may merely connect can take
 * any advisory lock, but not this one, so it cannot stall the ledger's writes. Nothing ever updates
 * the row (its triggers refuse it, like every ledger table's).
 */
export const WRITE_LOCK_TABLE = "ledger_write_lock";
/** Tries the write lock: one row when taken, none when another session holds it. */
export const TRY_WRITE_LOCK_SQL = `SELECT true AS locked FROM ${WRITE_LOCK_TABLE} FOR UPDATE SKIP LOCKED`;
/** Waits for the write lock (bounded by lock_timeout). */
export const WRITE_LOCK_SQL = `SELECT true AS locked FROM ${WRITE_LOCK_TABLE} FOR UPDATE`;

/** The lock table, its one row and its guards (also added to a ledger made before it, by its owner). */
export const PG_WRITE_LOCK_SCHEMA = `
CREATE TABLE ${WRITE_LOCK_TABLE} (id boolean PRIMARY KEY DEFAULT true CHECK (id));
INSERT INTO ${WRITE_LOCK_TABLE} DEFAULT VALUES;
CREATE TRIGGER ${WRITE_LOCK_TABLE}_no_change BEFORE UPDATE OR DELETE ON ${WRITE_LOCK_TABLE} FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ${WRITE_LOCK_TABLE}_no_truncate BEFORE TRUNCATE ON ${WRITE_LOCK_TABLE} FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change();
`;

const TABLES = `
CREATE TABLE ledger_meta (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE ledger_entries (
  seq bigint PRIMARY KEY CHECK (seq >= 0),
  type text NOT NULL,
  payload text NOT NULL,
  ts text NOT NULL,
  prev text,
  hash text NOT NULL,
  leaf bytea NOT NULL CHECK (length(leaf) = 32),
  prev_seq bigint GENERATED ALWAYS AS (seq - 1) STORED,
  UNIQUE (seq, hash),
  CHECK ((seq = 0) = (prev IS NULL)),
  FOREIGN KEY (prev_seq, prev) REFERENCES ledger_entries (seq, hash)
);
CREATE TABLE ledger_subtrees (
  level integer NOT NULL CHECK (level >= 0),
  idx bigint NOT NULL CHECK (idx >= 0),
  hash bytea NOT NULL CHECK (length(hash) = 32),
  PRIMARY KEY (level, idx)
);
CREATE TABLE ledger_checkpoints (size bigint PRIMARY KEY CHECK (size >= 0), note text NOT NULL, created_at text NOT NULL);
CREATE FUNCTION ledger_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the ledger is append-only: % on % refused', TG_OP, TG_TABLE_NAME;
END
$$;
`;

const TRIGGERS = PG_TABLES.map(
  (table) => `
CREATE TRIGGER ${table}_no_change BEFORE UPDATE OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ${table}_no_truncate BEFORE TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change();`,
).join("");

/** The whole schema as one script (run once, inside open's transaction). */
export const PG_SCHEMA = TABLES + TRIGGERS;

/** A ledger's meta against what opens it: this code's format, the origin it is opened as. */
export function checkMeta(meta: Map<string, string>, origin: string, location: string): void {
  if (meta.get("format_version") !== PG_FORMAT_VERSION) {
    throw new PostgresLedgerError(
      "format-mismatch",
      `${location}: ledger format ${meta.get("format_version")}, this code reads ${PG_FORMAT_VERSION}`,
    );
  }
  if (meta.get("origin") !== origin) {
    throw new PostgresLedgerError(
      "origin-mismatch",
      `${location}: ledger origin is "${meta.get("origin")}", opened as "${origin}"`,
    );
  }
}
