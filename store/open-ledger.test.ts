/** The one place a backend is picked: DATABASE_URL selects PostgreSQL, and then no SQLite file is made. */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { freshDatabase } from "../test/support/postgres.ts";
import { sampleEvent, tempDir } from "../test/support/store/helpers.ts";
import { defaultLedgerPath, isPostgresLocation, ledgerExists, openLedger } from "./open-ledger.ts";

describe("openLedger picks the store", () => {
  it("DATABASE_URL selects PostgreSQL for the ledger; the state folder gets no ledger file", async () => {
    const { dir, cleanup } = tempDir("open-ledger-");
    try {
      const url = await freshDatabase("open_ledger");
      const env = { STATE_DIR: dir, DATABASE_URL: url, LEDGER_SIGNING_KEY: "11".repeat(32) };
      expect(isPostgresLocation(defaultLedgerPath(env))).toBe(true);
      expect(await ledgerExists(url)).toBe(false);
      const { ledger } = await openLedger({ env });
      try {
        expect(ledger.store.kind).toBe("postgresql");
        await ledger.append([sampleEvent(0)]);
        expect(await ledger.size()).toBe(1);
      } finally {
        await ledger.close();
      }
      expect(await ledgerExists(url)).toBe(true);
      expect(readdirSync(dir).filter((f) => f.endsWith(".sqlite"))).toEqual([]);
      expect(existsSync(join(dir, "ledger.sqlite"))).toBe(false);
    } finally {
      cleanup();
    }
  });

  it("without DATABASE_URL the embedded SQLite file, LEDGER_DB first", () => {
    expect(defaultLedgerPath({ STATE_DIR: "/s" })).toBe("/s/ledger.sqlite");
    expect(defaultLedgerPath({ STATE_DIR: "/s", LEDGER_DB: "/x.sqlite" })).toBe("/x.sqlite");
    expect(defaultLedgerPath({ STATE_DIR: "/s", LEDGER_DB: "/x.sqlite", DATABASE_URL: "postgres://h/db" })).toBe(
      "postgres://h/db",
    );
    expect(isPostgresLocation("/x.sqlite")).toBe(false);
    expect(isPostgresLocation("postgresql://h/db")).toBe(true);
  });
});
