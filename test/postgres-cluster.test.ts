/** The run's PostgreSQL cluster is real: a server that answers, and one database per caller. */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { freshDatabase } from "./support/postgres.ts";

describe("the test run's PostgreSQL cluster", () => {
  it("answers on loopback and gives each caller an empty database of its own", async () => {
    const [a, b] = [await freshDatabase("smoke"), await freshDatabase("smoke")];
    expect(a).not.toBe(b);
    const client = new pg.Client({ connectionString: a });
    await client.connect();
    try {
      const { rows } = await client.query<{ version: string; tables: string }>(
        "SELECT current_setting('server_version_num') AS version, (SELECT count(*) FROM pg_tables WHERE schemaname = 'public') AS tables",
      );
      expect(Number(rows[0]!.version)).toBeGreaterThanOrEqual(150000);
      expect(Number(rows[0]!.tables)).toBe(0);
    } finally {
      await client.end();
    }
  });
});
