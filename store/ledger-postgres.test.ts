/** The N-writer tests of the shared ledger (test/support/store/ledger-writers.ts) on PostgreSQL: two pools on one database. */
import { PostgresBackend } from "./postgres-backend.ts";
import { ledgerWriterTests } from "../test/support/store/ledger-writers.ts";
import { freshDatabase } from "../test/support/postgres.ts";

ledgerWriterTests({
  name: "PostgreSQL",
  place: () => freshDatabase("writers"),
  backend: (url) => new PostgresBackend(url),
});
