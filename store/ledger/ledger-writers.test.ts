/** The N-writer tests of the shared ledger (test/support/store/ledger-writers.ts) on SQLite: two connections to one file. */
import { join } from "node:path";
import { afterAll } from "vitest";
import { SqliteBackend } from "../drivers/sqlite/backend.ts";
import { ledgerWriterTests } from "../../test/support/store/ledger-writers.ts";
import { tempDir } from "../../test/support/store/helpers.ts";

const { dir, cleanup } = tempDir("writers-");
afterAll(cleanup);
let files = 0;

ledgerWriterTests({
  name: "SQLite",
  place: async () => join(dir, `ledger-${files++}.sqlite`),
  backend: (path) => new SqliteBackend(path, { durability: "normal" }),
});
